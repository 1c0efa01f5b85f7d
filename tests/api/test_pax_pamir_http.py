"""A whole game of Pax Pamir over real HTTP: one client per seat, each using only
``GET /games/{id}/legal-commands`` and ``POST /games/{id}/commands``, on SQLite and on
Redis; then the finished game's export imports into a new game with the same final state.

The clients choose at random among the commands the server listed, leaning towards
ending the turn, buying and playing (so two seats finish in a few hundred commands); they
never make up a command of their own.
"""

from __future__ import annotations

import random

import pytest

#: A two-seat random game takes a few hundred commands; more is a runaway.
MAX_COMMANDS = 3000
#: How much more often a client picks these verbs than any other listed command.
LEANING = {"EndTurn": 6, "Purchase": 4, "Play": 4, "PayBribe": 3, "ChooseSide": 1}


def pick(rng: random.Random, commands: list[dict]) -> dict:
    return rng.choices(commands, weights=[LEANING.get(c["type"], 1) for c in commands])[0]


def play_over_http(server, seed: int, seats: int = 2) -> str:
    """Creates a game of ``seats``, plays it to the end over HTTP and returns its id."""
    rng = random.Random(seed)
    clients = [server.new_player(f"seat-{seat}")[1] for seat in range(seats)]
    created = clients[0].post(f"{server.url}/games", json={"type": "pax_pamir", "seats": seats,
                                                           "options": {"first_chooser": "seat_0"}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for client in clients:
        joined = client.post(f"{server.url}/games/{game_id}/join", json={})
        assert joined.status_code == 200, joined.text
    ended = False
    posted = 0
    while not ended:
        assert posted < MAX_COMMANDS, f"no end after {posted} commands"
        asked = []
        for seat, client in enumerate(clients):
            legal = client.get(f"{server.url}/games/{game_id}/legal-commands")
            assert legal.status_code == 200, legal.text
            body = legal.json()
            assert body["seat"] == seat
            if body["commands"]:
                assert body["prompt"] and body["prompt"]["text"], "a seat offered commands is told why"
                asked.append((seat, body["commands"]))
        assert asked, "dead end: no seat has a legal command and the game has not ended"
        seat, commands = rng.choice(asked)
        answer = clients[seat].post(f"{server.url}/games/{game_id}/commands", json=pick(rng, commands))
        assert answer.status_code == 201, answer.text
        posted += 1
        ended = any(event["type"] == "GameEnded" for event in answer.json()["events"])
    for client in clients:  # nothing more to do for anyone
        assert client.get(f"{server.url}/games/{game_id}/legal-commands").json()["commands"] == []
    return game_id


def check_export_imports_to_the_same_game(server, game_id: str) -> None:
    _, client = server.new_player("archivist")
    summary = client.get(f"{server.url}/games/{game_id}").json()
    assert summary["status"] == "finished" and summary["outcome"]["winners"]
    exported = client.get(f"{server.url}/games/{game_id}/export")
    assert exported.status_code == 200, exported.text
    imported = client.post(f"{server.url}/games/import", data=exported.content,
                           headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 201, imported.text
    copy = imported.json()
    assert copy["id"] != game_id
    # a game already on this server comes back as an unranked copy (it is ranked once)
    assert copy["ranked"] is False and summary["ranked"] is True
    assert ({k: v for k, v in copy.items() if k not in ("id", "ranked")}
            == {k: v for k, v in summary.items() if k not in ("id", "ranked")})
    original = client.get(f"{server.url}/games/{game_id}/state").json()
    again = client.get(f"{server.url}/games/{copy['id']}/state").json()
    assert again["view"] == original["view"]
    assert original["view"]["revealed"]["out_of_game"], "a finished game shows the cards left out"
    # the service folds both from their stored events alike (no cache, snapshots or not)
    games = server.games
    first, second = games.load(game_id).state, games.load(copy["id"]).state
    games.loader._cache.clear()
    assert games.load(game_id).state == first == second == games.load(copy["id"]).state


@pytest.mark.api
def test_a_whole_game_of_pax_pamir_over_http_on_sqlite_then_export_and_import(live_server):
    game_id = play_over_http(live_server, seed=11)
    check_export_imports_to_the_same_game(live_server, game_id)


@pytest.mark.api
@pytest.mark.integration
def test_a_whole_game_of_pax_pamir_over_http_on_redis_then_export_and_import(live_server_on_redis):
    game_id = play_over_http(live_server_on_redis, seed=12)
    check_export_imports_to_the_same_game(live_server_on_redis, game_id)
