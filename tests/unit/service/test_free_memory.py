"""A worker hands the C heap's freed pages back to the system (``job_runtime.give_back_free_memory``)."""

from __future__ import annotations

import platform
import threading

import pytest

from service.background.job_runtime import give_back_free_memory

glibc = platform.libc_ver()[0] == "glibc"


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(not glibc, reason="malloc_trim is glibc's; elsewhere the call does nothing and says so")
def test_the_pages_a_thread_freed_between_held_buffers_go_back_to_the_system() -> None:
    held: list[bytes] = []

    def churn() -> None:  # 180 MB of 60 kB buffers (malloc's, not Python's), one in ten kept
        buffers = [bytes(60_000) for _ in range(3000)]
        held.extend(buffers[::10])

    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()
    before = rss_mb()
    assert give_back_free_memory() is True
    after = rss_mb()
    # about 160 MB were freed around the 18 MB held: glibc keeps most of it until trimmed
    assert before - after > 20, f"RSS {before:.1f} -> {after:.1f} MB"
    assert len(held) == 300  # what is held stays held

