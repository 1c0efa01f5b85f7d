"""The command path's cost in Redis round trips, counted on a real Redis: in the steady
state (the game cached in the process) deciding and storing a command is one round trip
(the append script, which checks the version itself) and reading legal commands one (the
tail of the stream; or the version, which the route reads for the ETag anyway, when the
cached game is that new); finding the player by token is one more for each request."""

from __future__ import annotations

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.kernel import Command
from service.bootstrap import build_service
from service.config import Config
from tests.unit.projections.playing import open_game

pytestmark = pytest.mark.integration


class Counting:
    def __init__(self, client):
        self.calls = 0
        original = client.execute_command

        def counted(*args, **kwargs):
            self.calls += 1
            return original(*args, **kwargs)

        client.execute_command = counted


def test_a_command_costs_one_round_trip_beside_the_token_in_the_steady_state(redis_url):
    url, namespace = redis_url
    # snapshots (every 100 events by default) add a write now and then: not the steady state
    config = Config(store_url=url, projections="rq", redis_prefix=namespace, queue_name=f"{namespace}-q",
                    enqueue_delay=0.01, snapshot_every=0)
    service = build_service(config, {"dynasties": DYNASTIES})
    players = [service.players.create(f"p{i}") for i in range(3)]
    tokens = {p["id"]: p["token"] for p in players}
    game_id, by_seat = open_game(service, "dynasties", players, 3)
    counter = Counting(service.store._redis)
    for _ in range(10):
        game = service.load(game_id, trust_cache=True)
        seat = game.rules.to_move(game.state)[0]
        counter.calls = 0
        player = service.players.authenticate(tokens[by_seat[seat]["id"]])
        assert counter.calls == 1, "the token"
        counter.calls = 0
        legal = service.legal_commands(game_id, player)
        assert counter.calls == 1, "GET legal-commands: the stream's tail, nothing else"
        counter.calls = 0
        chosen = legal["commands"][0]
        service.submit_command(game_id, player, Command(chosen["type"], chosen["args"]))
        assert counter.calls == 1, "POST a command: the append script, nothing else"
        counter.calls = 0
        service.legal_commands(game_id, player, known_version=service.current_version(game_id))
        assert counter.calls == 1, "GET legal-commands, the route's way: the version (its ETag), and the " \
                                   "game cached at that version needs no read"
    service.store.close()
