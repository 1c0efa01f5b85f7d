"""The step games keep only the prompts of the one state last asked about
(``domain.kernel.steps.prompt_of``, tested in tests/unit/kernel/test_one_prompt_per_state.py),
so another state asked about in between is built anew; the service's loader keeps each cached
game's prompts, so asking a cached game again builds nothing, and a game at a new version is
asked anew."""

from __future__ import annotations

import pytest

from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from service.adapters.memory_store import MemoryStore
from service.play.services import GameService
from tests.games.highcard import RULES, PlayTrick


@pytest.fixture
def asks(monkeypatch):
    """Every state High Card's prompt is built for."""
    calls = []
    original = PlayTrick.ask

    def counted(self, s, frame):
        calls.append(s)
        return original(self, s, frame)

    monkeypatch.setattr(PlayTrick, "ask", counted)
    return calls


def test_the_rules_keep_the_prompts_of_the_one_state_last_asked_about(asks):
    state = fold(RULES, RULES.setup(2, RULES.check_options({}), Rng(1)))
    seat = RULES.to_move(state)[0]
    first = RULES.legal_commands(state, seat)
    built = len(asks)
    assert asks[-1] is state
    assert RULES.legal_commands(state, seat) == first and len(asks) == built  # the same state: kept
    other = RULES.copy(state)
    assert RULES.legal_commands(other, seat) == first
    assert len(asks) == built + 1 and asks[-1] is other  # another state (a copy too) is asked anew
    RULES.legal_commands(state, seat)
    assert len(asks) == built + 2 and asks[-1] is state  # one slot: the first state's prompt is gone


def test_a_cached_game_keeps_its_prompts_and_the_next_version_is_asked_anew(asks):
    service = GameService(MemoryStore(), {"highcard": RULES})
    players = [service.players.create(name) for name in ("ann", "bob")]
    game_id = service.create_game(players[0], "highcard", {}, 2).id
    for player in players:
        service.join_game(game_id, player)
    seat = service.load(game_id).summary()["to_move"][0]
    first = service.legal_commands(game_id, players[seat])
    built = len(asks)
    assert service.legal_commands(game_id, players[seat]) == first
    assert len(asks) == built, "the cached game's prompt is not built again"

    command = RULES.legal_commands(service.load(game_id).state, seat)[0]
    service.submit_command(game_id, players[seat], command)
    game = service.load(game_id)
    after = {s: service.legal_commands(game_id, players[s])["commands"] for s in range(2)}
    assert {s: [c.to_json() for c in RULES.legal_commands(game.state, s)] for s in range(2)} == after
    assert command.to_json() not in after[seat], "the move made is no longer offered"


def test_a_commands_game_is_the_state_play_left_and_equals_the_stored_stream_folded_afresh():
    """The service keeps the state the rules' ``play`` left after a command (nothing is
    folded again); another service folding the same store from scratch sees the same game."""
    import random

    from domain.games import default_registry

    store = MemoryStore()
    service = GameService(store, default_registry())
    players = [service.players.create(name) for name in ("ann", "bob", "cyd")]
    game_id = service.create_game(players[0], "pax_pamir", {}, 3).id
    for player in players:
        service.join_game(game_id, player)
    choose = random.Random(7)
    played = 0
    for _ in range(60):  # or until the game ends (its deal is the store's random seed)
        game = service.load(game_id)
        waiting = game.rules.to_move(game.state)
        if not waiting:
            break
        seat = choose.choice(waiting)
        service.submit_command(game_id, players[seat], choose.choice(game.legal_commands(seat)))
        played += 1
    assert played >= 10, "no game of Pax Pamir ends within ten commands"
    kept = service.load(game_id)
    fresh = GameService(store, default_registry()).load(game_id)
    assert kept.version == fresh.version and kept.state == fresh.state
    assert kept.state is not fresh.state
