"""Bot seats over real HTTP on the embedded store: a person plays whole games of both games
against 1 to 5 bots of every kind, which move by themselves (a worker thread of the
server) through the same command path, and whose events say a bot acted.

A bot is handed only what its seat is shown: a spy kind records what it receives and the
test compares it with its seat's view and events, and checks it holds nothing but plain
data (no store, no service, no state).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.kernel.bots import BotKind, Seen, random_bot
from domain.kernel.events import Event, redact
from service.api.app import create_app
from service.base.config import Config
from service.streams.envelopes import stream_of
from tests.api.conftest import LiveServer, serve
from tests.helpers.bots_http import play_against_bots

pytestmark = pytest.mark.api


@pytest.fixture
def bot_server(tmp_path):
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            bot_think_seconds=0, stream_max_seconds=0.1))
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()


def check_bots_acted_and_said_so(played: dict, bots: list[dict[str, Any]]) -> None:
    summary, events = played["summary"], played["events"]
    assert summary["outcome"]["winners"]
    labels = {seat["seat"]: f"{seat['bot']['kind']}:{seat['bot']['level']}"
              for seat in summary["seats"] if seat.get("bot")}
    assert len(labels) == len(bots)
    acted = {event["actor"] for event in events if event["source"] == "game" and event["actor"] is not None}
    assert set(labels) <= acted, "every bot seat moved"
    for event in events:
        if event["source"] == "game" and event["actor"] is not None:
            assert event.get("bot") == labels.get(event["actor"]), "a bot's events say so; a person's do not"
    assert played["human"] not in labels


@pytest.mark.parametrize(("kind", "seats", "bots", "options"), [
    ("dynasties", 2, [{"kind": "random"}], {"starting_gold": 12}),
    ("dynasties", 3, [{"kind": "greedy"}, {"kind": "mcts", "level": "easy"}], {"starting_gold": 10}),
    ("dynasties", 6, [{"kind": "random"}, {"kind": "greedy"}, {"kind": "mcts", "level": "easy"},
                      {"kind": "random", "seat": 0}, {"kind": "greedy"}], {"starting_gold": 8}),
    ("dynasties", 3, [{"kind": "random"}, {"kind": "mcts", "level": "easy"}],
     {"starting_gold": 10, "commit_reveal_tributes": True}),  # bots seal and reveal their Tributes (R17a)
    ("pax_pamir", 2, [{"kind": "greedy"}], {}),
    ("pax_pamir", 3, [{"kind": "random"}, {"kind": "mcts", "level": "easy"}], {}),
])
def test_a_person_plays_a_whole_game_over_http_against_bots(bot_server, kind, seats, bots, options):
    played = play_against_bots(bot_server, kind, seats, bots, options, seed=seats)
    check_bots_acted_and_said_so(played, bots)
    listed = {game["id"]: game for game in bot_server.games.list_games()}
    assert listed[played["summary"]["id"]]["seats"] == played["summary"]["seats"], "the lobby shows the bots too"


def test_bad_bot_seats_are_refused_with_the_reason_and_change_nothing(bot_server):
    _, client = bot_server.new_player("person")
    cases = [
        ({"kind": "telepath"}, "no bot kind"),
        ({"kind": "mcts", "level": "grandmaster"}, "no level"),
        ({"kind": "random", "seat": 5}, "seat must be between"),
    ]
    before = client.get(f"{bot_server.url}/games").json()
    for bot, reason in cases:
        answer = client.post(f"{bot_server.url}/games", json={"type": "dynasties", "seats": 3, "bots": [bot]})
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_bots", answer.text
        assert reason in answer.json()["detail"]
    every_seat = client.post(f"{bot_server.url}/games", json={"type": "dynasties", "seats": 2,
                                                               "bots": [{"kind": "random"}, {"kind": "random"}]})
    assert every_seat.status_code == 422 and "leave at least one seat" in every_seat.json()["detail"]
    twice = client.post(f"{bot_server.url}/games", json={"type": "dynasties", "seats": 3,
                                                          "bots": [{"kind": "random", "seat": 1}] * 2})
    assert twice.status_code == 422 and "already reserved" in twice.json()["detail"]
    malformed = client.post(f"{bot_server.url}/games", json={"type": "dynasties", "seats": 3,
                                                              "bots": [{"kind": "random", "think": "hard"}]})
    assert malformed.status_code == 422 and malformed.json()["code"] == "invalid_input"
    assert client.get(f"{bot_server.url}/games").json()["total"] == before["total"]


def test_game_types_list_each_games_bot_kinds_and_levels(bot_server):
    types = {t["type"]: t for t in bot_server.client().get(f"{bot_server.url}/game-types").json()}
    for kind in ("dynasties", "pax_pamir"):
        offered = {bot["kind"]: bot for bot in types[kind]["bots"]}
        assert {"random", "greedy", "mcts"} <= set(offered)
        assert offered["mcts"]["default_level"] in offered["mcts"]["levels"]


def test_a_bot_is_handed_its_seats_view_and_events_and_nothing_else(bot_server, monkeypatch):
    received: list[tuple] = []
    plays_randomly = random_bot()

    def spy(rules, seen, rng, clock):
        received.append((rules, seen, rng, clock))
        return plays_randomly(rules, seen, rng, clock)

    monkeypatch.setattr(DYNASTIES, "bot_kinds", {"spy": BotKind("spy", "records its input", {"default": {}},
                                                                 "default", lambda: spy, searches=False)},
                        raising=False)
    played = play_against_bots(bot_server, "dynasties", 3, [{"kind": "spy", "seat": 1}, {"kind": "random"}],
                               {"starting_gold": 8}, seed=4)
    assert played["summary"]["status"] == "finished" and received
    service = bot_server.games
    game_id = played["summary"]["id"]
    records = service.store.read(stream_of(game_id), 0, 10**9)
    stored = [Event.from_json(r.event) for r in records]
    sources = [r.event.get("source") for r in records]
    for rules, seen, rng, clock in received:
        assert rules is DYNASTIES and isinstance(seen, Seen) and isinstance(rng, random.Random) and callable(clock)
        json.dumps(seen.view), json.dumps(list(seen.events))  # plain data: no store, no service, no state
        assert seen.seat == 1
        version = seen.events[-1]["version"]
        shown = [redact(event, 1) for event, source in zip(stored[:version], sources[:version], strict=True)
                 if source == "game"]
        assert [{k: v for k, v in e.items() if k in ("type", "data", "secret", "redacted")} for e in seen.events] \
            == shown[:len(seen.events)], "the events as seat 1 is shown them"
        game = service.load(game_id, version)
        assert seen.view == DYNASTIES.view(game.state, 1)
        assert all(seen.view != DYNASTIES.view(game.state, other) for other in (0, 2))
