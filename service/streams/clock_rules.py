"""Turn clocks, the rules of the service's side: the clock events of each append and what the
server plays for a seat out of time.

``clock_events`` is called by the append (``service.streams.appending``) for every game with a
clock: it stops the clocks of seats that moved or are no longer asked (banking the
increment, within the cap) and starts those of seats newly asked, each with its deadline.
A started clock is named by the version of its ``ClockStarted`` event. Who acts on a
deadline, and when, is ``service.background.clocks``'.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.kernel import Command
from domain.kernel.clocks import CLOCK_TIMED_OUT, clock_started, clock_stopped, seconds_between
from service.streams.envelopes import GAME_SOURCE, NewEvent
from service.streams.game import Game


def clock_events(before: Game, after: Game, events: list[NewEvent], now: datetime) -> list[NewEvent]:
    """The clock events that go with ``events`` (which turn ``before`` into ``after``)."""
    table = after.table
    if not table.has_clock or not table.started:
        return []
    at = _iso(now)
    clocks = table.clocks
    # a stand-in has no clock: it plays as soon as its lane gets to it (``domain.kernel.stand_ins``)
    asked = set() if after.over or clocks.paused else set(after.public_facts()["to_move"]) - set(table.left)
    acted = {new.actor for new in events if new.source == GAME_SOURCE and new.actor is not None}
    timed_out = {new.event.data["seat"] for new in events if new.event.type == CLOCK_TIMED_OUT}
    options = table.options
    by = events[0].actor if events else None  # the clock events belong to the move that caused them (undo)
    out: list[NewEvent] = []
    banks = dict(clocks.banks)
    for seat, run in sorted(clocks.running.items()):
        if seat in asked and seat not in acted:
            continue  # still thinking
        used = max(0.0, seconds_between(run.since, at))
        bank = 0.0 if seat in timed_out else max(0.0, banks[seat] - used)
        if seat in acted and seat not in timed_out:
            bank += options.get("clock_increment_seconds") or 0
        if options.get("clock_cap_seconds") is not None:
            bank = min(bank, float(options["clock_cap_seconds"]))
        banks[seat] = round(bank, 3)
        out.append(NewEvent(clock_stopped(seat, round(used, 3), banks[seat]), by))
    still = {s for s in clocks.running if s in asked and s not in acted}
    for seat in sorted(asked - still):
        bank = banks.get(seat, float(options["clock_bank_seconds"]))
        limit = bank if options.get("clock_move_seconds") is None else min(bank, options["clock_move_seconds"])
        version = before.version + len(events) + len(out) + 1
        out.append(NewEvent(clock_started(seat, bank, at, _iso(now + timedelta(seconds=limit)), version), by))
    return out


def timeout_command(game: Game, seat: int) -> Command | None:
    """What the server plays for a seat out of time: the game's designated default on a
    timeout (``timeout_defaults``: a pass where the rules have one), if the seat may play it."""
    wanted = tuple(getattr(game.rules, "timeout_defaults", ()))
    legal = game.rules.legal_commands(game.state, seat)
    for kind in wanted:
        for command in legal:
            if command.type == kind:
                return command
    return None


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def deadline_in(deadline: str, now: datetime) -> float:
    """Seconds from ``now`` until ``deadline`` (negative once it has passed)."""
    return seconds_between(_iso(now), deadline)
