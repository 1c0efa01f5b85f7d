"""The in-process sliding-window counter behind the default (memory://) rate limits."""

from __future__ import annotations

from limits import parse

from service.api.rate_windows import LocalWindows


class Clock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_its_amount_then_refuses_and_keys_are_apart():
    clock = Clock()
    windows = LocalWindows(clock)
    item = parse("3/10 seconds")
    assert [windows.hit(item, "ip", "a") for _ in range(4)] == [True, True, True, False]
    assert windows.hit(item, "ip", "b")
    assert windows.hit(item, "token", "a")
    assert windows.retry_after(item, "ip", "a") >= 1


def test_the_previous_window_weighs_as_much_as_still_overlaps():
    clock = Clock(1000.0)  # the start of a 10 s window
    windows = LocalWindows(clock)
    item = parse("4/10 seconds")
    assert all(windows.hit(item, "ip", "a") for _ in range(4))
    clock.now = 1012.5  # a quarter into the next window: 4 * 0.75 = 3 still count
    assert windows.hit(item, "ip", "a")
    assert not windows.hit(item, "ip", "a")
    wait = windows.retry_after(item, "ip", "a")
    clock.now += wait
    assert windows.hit(item, "ip", "a")
    clock.now = 1040.0  # two windows later nothing counts
    assert all(windows.hit(item, "ip", "a") for _ in range(4))


def test_old_windows_are_swept():
    clock = Clock()
    windows = LocalWindows(clock)
    item = parse("1/second")
    for key in range(100):
        windows.hit(item, "ip", str(key))
    clock.now += LocalWindows.SWEEP_EVERY + 1
    windows.hit(item, "ip", "new")
    assert len(windows._windows) == 1
