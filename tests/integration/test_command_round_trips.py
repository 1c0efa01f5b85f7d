"""The command path's cost in Redis round trips, counted on a real Redis: in the steady
state (the game cached in the process) deciding and storing a command is one round trip
(the append script, which checks the version itself) and reading legal commands one (the
tail of the stream; or the version, which the route reads for the ETag anyway, when the
cached game is that new); a token this process has not checked yet is one more (its
lookup, with the token generation), a kept one none (``service.players.players``)."""

from __future__ import annotations

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.kernel import Command
from service.base.config import Config
from service.wiring.bootstrap import build_service
from tests.helpers.redis_trips import FEED_SCRIPT
from tests.unit.projections.playing import open_game

pytestmark = pytest.mark.integration


def test_a_command_costs_one_round_trip_in_the_steady_state(redis_url, trips):
    url, namespace = redis_url
    # snapshots (every 100 events by default) add a write now and then: not the steady state
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    enqueue_delay=0.01, snapshot_every=0)
    service = build_service(config, {"dynasties": DYNASTIES})
    players = [service.players.create(f"p{i}") for i in range(3)]
    tokens = {p["id"]: p["token"] for p in players}
    game_id, by_seat = open_game(service, "dynasties", players, 3)
    notices: list[int] = []

    def calls() -> int:  # this thread's (the projections' enqueue runs in a thread of its own)
        taken = [trip for trip in trips.take() if trip[0] == "MainThread"]
        # a move's notice to the player asked next is an append to that player's feed (issue 37),
        # counted apart: the game's own path stays at one round trip a step
        notices.append(len([trip for trip in taken if trip[1:] == [FEED_SCRIPT]]))
        return len([trip for trip in taken if trip[1:] != [FEED_SCRIPT]])

    calls()
    notices.clear()  # the table's opening notices (seated, game started): not a step's
    for _ in range(10):
        game = service.load(game_id, trust_cache=True)
        seat = game.rules.to_move(game.state)[0]
        calls()
        token = tokens[by_seat[seat]["id"]]
        player = service.players.authenticate(token)
        assert calls() == 1, "a token looked up: its player and the token generation"
        legal = service.legal_commands(game_id, player)
        assert calls() == 1, "GET legal-commands: the stream's tail, nothing else"
        command = Command(legal["commands"][0]["type"], legal["commands"][0]["args"])
        service.players.as_checked(token, lambda player, generation, command=command: service.submit_command(
            game_id, player, command, token_generation=generation))
        assert calls() == 1, "POST a command with a kept token: the append script, which checks the generation"
        player, version = service.caller_and_version(game_id, token)
        service.legal_commands(game_id, player, known_version=version)
        assert calls() == 1, "GET legal-commands, the route's way: the version (its ETag) with the token " \
                             "generation, and the game cached at that version needs no read"
    assert max(notices) <= len(players), notices  # one append per player told, never more
    service.store.close()
