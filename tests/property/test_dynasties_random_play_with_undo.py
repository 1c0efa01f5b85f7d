"""Random Dynasties games through the service with random undos interleaved.

Undo is the platform's (the service decides from the events whether it is allowed), so
this drives GameService on a real SQLite file: random legal commands, and at random a
seat asks to undo (often refused, sometimes granted). At Game Over the standing events
(every event not undone) must keep invariants I1-I24 one by one, and fold to the state
the service holds.
"""

from __future__ import annotations

import copy
import random

import pytest

from domain.games.dynasties import RULES
from domain.kernel import Event
from domain.kernel.table import PLATFORM, UNDONE
from service.adapters.sqlite_store import SqliteStore
from service.play.services import GameService
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly, start_game
from tests.unit.dynasties.dynasties_invariants import DynastiesInvariants

GAMES = 60


def standing_events(store, game_id):
    records = store.read(stream_of(game_id))
    undone = set()
    for record in records:
        if record.event.get("source") == PLATFORM and record.event["type"] == UNDONE:
            data = record.event["data"]
            undone.update(range(data["first_version"], data["last_version"] + 1))
    return [Event.from_json(r.event) for r in records
            if r.version not in undone and r.event.get("source") != PLATFORM], len(undone)


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_with_random_undos_keep_every_invariant(tmp_path, chunk):
    store = SqliteStore(str(tmp_path / "events.db"))
    service = GameService(store, {"dynasties": RULES}, snapshot_every=25)
    granted = 0
    for game_number in range(chunk, GAMES, 4):
        rng = random.Random(1000 + game_number)
        seats = 2 + game_number % 5
        game_id, players = start_game(service, "dynasties", seats, {"starting_gold": rng.choice([10, 20, 30])})
        play_randomly(service, game_id, players, rng, undo_chance=0.25)
        game = service.load(game_id)
        assert game.over, f"game {game_number} did not reach Game Over"
        events, undone = standing_events(store, game_id)
        granted += undone > 0
        checker, state = DynastiesInvariants(), None
        for event in events:
            before = None if state is None else copy.deepcopy(state)
            state = RULES.evolve(state, event)
            checker.observe(before, event, state)
        assert state == game.state
        assert RULES.legal_commands(state, 0) == []
    assert granted > 0, "some undo was granted in this chunk"
