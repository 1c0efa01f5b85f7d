"""A whole game between bots, in the domain (no service): for tests and ``bench/bench_bots.py``.

Each bot is handed only what its seat sees (``Seen``): its view, the events redacted for
it and its legal commands, as the service hands them to a bot seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.kernel.bots import Bot, Clock, Seen, seen_from
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, Outcome, fold


@dataclass
class Match:
    """How a game between bots went: its outcome and each seat's decision times (seconds)."""

    outcome: Outcome | None
    decisions: int = 0
    seconds: list[list[float]] = field(default_factory=list)


def seen(rules: GameRules[Any, Any], state: Any, events: Sequence[Event], seat: int, key: str = "") -> Seen:
    """What ``seat`` is shown of a game: built with ``redact`` like any reader's (``key``:
    the seat's own secret, for a free-form choice such as a seal, ``offered``)."""
    view, shown = rules.view(state, seat), [redact(event, seat) for event in events]
    return seen_from(rules, seat, view, shown, rules.legal_commands(state, seat), key)


def play_match(rules: GameRules[Any, Any], seats: int, bots: Sequence[Bot], seed: int | str,
               options: dict[str, Any] | None = None, clock: Clock | None = None,
               limit: int = 5000, check: Callable[[Any, int, Any], None] | None = None) -> Match:
    """Seats ``0..seats-1`` played by ``bots``; ``clock`` times each decision when given.
    ``check(state, seat, command)`` is called before each move (tests)."""
    order = random.Random(f"order:{seed}")
    minds = [random.Random(f"bot:{seed}:{seat}") for seat in range(seats)]
    events: list[Event] = rules.setup(seats, rules.check_options(options or {}), Rng(f"setup:{seed}"))
    state = fold(rules, events)
    # each seat's record, redacted once per event
    records: list[list[dict[str, Any]]] = [[redact(e, seat) for e in events] for seat in range(seats)]
    match = Match(None, 0, [[] for _ in range(seats)])
    while rules.outcome(state) is None and match.decisions < limit:
        seat = order.choice(rules.to_move(state))
        shown = seen_from(rules, seat, rules.view(state, seat), records[seat], rules.legal_commands(state, seat),
                          f"key:{seed}:{seat}")
        started = clock() if clock else 0.0
        command = bots[seat](rules, shown, minds[seat], clock)
        if clock:
            match.seconds[seat].append(clock() - started)
        if check is not None:
            check(state, seat, command)
        for event in rules.decide(state, seat, command, Rng(f"play:{seed}", len(events))):
            events.append(event)
            state = rules.evolve(state, event)
            for other in range(seats):
                records[other].append(redact(event, other))
        match.decisions += 1
    match.outcome = rules.outcome(state)
    return match
