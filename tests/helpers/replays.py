"""The event log is the game (I22 in the Dynasties rulings; the same holds for every game):
its stored events fold to the same state with no randomness, and the same options, seed
and commands give the same events again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, fold


def assert_the_log_replays(rules: GameRules, seats: int, options: Any, seed: int,
                           script: Sequence[tuple[int, Command]], stream: list[Event], state: Any,
                           thorough: bool = True) -> None:
    """``stream`` (what ``script`` produced from ``setup``) stored as JSON folds back to
    ``state``; with ``thorough``, playing ``script`` again gives the same stream."""
    stored = [Event.from_json(json.loads(json.dumps(event.to_json()))) for event in stream]
    assert fold(rules, stored) == state, "re-folding the stored events gives another state"
    if not thorough:
        return
    replay = rules.setup(seats, options, Rng(seed, 0))
    again = fold(rules, replay)
    for seat, command in script:
        more = rules.decide(again, seat, command, Rng(seed, len(replay)))
        for event in more:
            again = rules.evolve(again, event)
        replay.extend(more)
    assert [e.to_json() for e in replay] == [e.to_json() for e in stream]
