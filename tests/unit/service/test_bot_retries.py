"""A bot's move goes through the service's one loop of retries (``retry_on_conflict``): a game
that moves on under the bot, while it reads or as it plays, is read and decided again, at
most ``RETRIES`` times; the first try keeps the prompt's time, the next ones think from then."""

from __future__ import annotations

from typing import Any

from domain.kernel import Command
from service.adapters.store import VersionConflict
from service.background.bot_seats import RETRIES, Decision, move
from service.base.errors import Conflict


class Table:
    """A game service as a bot plays it: each command is refused ``refusals`` times, the
    game having moved on (409 version_conflict, as the API answers a stale expected_version)."""

    def __init__(self, refusals: int):
        self.refusals = refusals
        self.posted: list[tuple[int | None, str | None]] = []

    def submit_command(self, game_id: str, player: dict[str, Any], command: Command,
                       expected_version: int | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        self.posted.append((expected_version, idempotency_key))
        if len(self.posted) <= self.refusals:
            raise Conflict("the game moved on", code="version_conflict", current_version=expected_version)
        return {"version": (expected_version or 0) + 1}


class Decider:
    """Decides at version 10, 11, ... in turn; ``moved_while_reading``: the first reads see the game move."""

    def __init__(self, moved_while_reading: int = 0):
        self.moved_while_reading = moved_while_reading
        self.prompted: list[float | None] = []

    def __call__(self, service: Any, game_id: str, think: float, prompted_at: float | None) -> Decision | None:
        self.prompted.append(prompted_at)
        if len(self.prompted) <= self.moved_while_reading:
            raise VersionConflict(f"game-{game_id}", 9, 10)
        version = 9 + len(self.prompted)
        return Decision(game_id, 1, {"id": "bot", "name": "bot"}, version, Command("pass", {}), 0.0)


def test_a_bot_decides_again_on_each_version_it_was_refused_at() -> None:
    table, decider = Table(refusals=2), Decider(moved_while_reading=1)
    assert move(table, "g1", prompted_at=123.0, decider=decider) == "played"
    assert decider.prompted == [123.0, None, None, None]  # the prompt's time once, then from now
    assert table.posted == [(11, "bot-11"), (12, "bot-12"), (13, "bot-13")]


def test_a_bot_gives_up_after_the_retries_of_the_one_loop() -> None:
    table, decider = Table(refusals=10 * RETRIES), Decider()
    assert move(table, "g1", decider=decider) == "gave up"
    assert len(decider.prompted) == RETRIES and len(table.posted) == RETRIES
