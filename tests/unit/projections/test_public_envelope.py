"""The envelope is the only door into a projection, and secrets do not pass it."""

from __future__ import annotations

from domain.kernel import Event
from projections import PROJECTIONS
from projections.base import envelope
from tests.unit.projections.envelopes import GameLog, fold


def test_a_secret_is_withheld_and_marked_redacted():
    body = Event("CardDrawn", {"seat": 1}, secret={"card": "coppe-07"}, secret_to=frozenset({1})).to_json()
    body.update(source="game", actor=1, at="2026-01-01T00:00:00.000Z", batch=3)
    env = envelope("game-abc", 4, body, partition=2, position=99)
    assert env == {"type": "CardDrawn", "data": {"seat": 1}, "redacted": True, "game_id": "abc", "version": 4,
                   "partition": 2, "position": 99, "source": "game", "actor": 1, "at": "2026-01-01T00:00:00.000Z"}


def test_after_is_passed_on_when_the_event_ends_an_append():
    body = {"type": "X", "data": {}, "source": "game", "actor": 0, "at": "t",
            "after": {"status": "active", "to_move": [1], "outcome": None}}
    assert envelope("game-g", 1, body)["after"] == {"status": "active", "to_move": [1], "outcome": None}


def test_no_read_model_holds_a_secret():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["ann", "bob"]).move(0, [1]).finish(1, [1], {0: 0, 1: 1})
    for projection in PROJECTIONS.values():
        text = repr(fold(projection, log))
        assert "seed-secret" not in text and "h00" not in text and "h01" not in text, projection.name
