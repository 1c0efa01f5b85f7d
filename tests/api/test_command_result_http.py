"""A move's answer says whose move it is now (``to_move``), as the game's summary does, so
a client (a bot, a script) can ask the right seat next without another request."""

from __future__ import annotations

import random
import uuid

import pytest

MAX_COMMANDS = 3000


def new_game(live_server, seats: int):
    players = [live_server.new_player(f"player-{i}") for i in range(seats)]
    clients = [client for _, client in players]
    created = clients[0].post(f"{live_server.url}/games", json={"type": "dynasties", "seats": seats})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for client in clients:
        assert client.post(f"{live_server.url}/games/{game_id}/join", json={}).status_code == 200
    summary = live_server.client().get(f"{live_server.url}/games/{game_id}").json()
    by_seat = {s["player_id"]: s["seat"] for s in summary["seats"]}
    seated = [client for player, client in sorted(players, key=lambda p: by_seat[p[0]["id"]])]
    return game_id, seated, summary


@pytest.mark.api
def test_each_answer_to_a_move_names_the_seats_the_summary_says_are_to_move(live_server):
    rng = random.Random(7)
    game_id, clients, summary = new_game(live_server, 3)
    spectator = live_server.client()
    to_move, commands = summary["to_move"], 0
    while to_move and commands < MAX_COMMANDS:
        seat = rng.choice(to_move)
        legal = clients[seat].get(f"{live_server.url}/games/{game_id}/legal-commands").json()["commands"]
        assert legal, f"seat {seat} was named to move but has no legal command"
        posted = clients[seat].post(f"{live_server.url}/games/{game_id}/commands", json=rng.choice(legal))
        assert posted.status_code == 201, posted.text
        commands += 1
        to_move = posted.json()["to_move"]
        summary = spectator.get(f"{live_server.url}/games/{game_id}").json()
        assert to_move == summary["to_move"], f"after move {commands}"
        assert posted.json()["version"] == summary["version"]
    assert summary["status"] == "finished", f"no Game Over after {commands} commands"
    assert to_move == []


@pytest.mark.api
def test_a_retried_move_and_an_undo_say_whose_move_it_is_as_the_game_stands(live_server):
    rng = random.Random(3)
    game_id, clients, summary = new_game(live_server, 3)
    url = f"{live_server.url}/games/{game_id}"

    def choose(seat: int):
        return rng.choice(clients[seat].get(f"{url}/legal-commands").json()["commands"])

    def play(seat: int, body, key: str | None = None):
        headers = {"Idempotency-Key": key} if key else {}
        return clients[seat].post(f"{url}/commands", json=body, headers=headers)

    key, first_seat = str(uuid.uuid4()), summary["to_move"][0]
    first_body = choose(first_seat)
    first = play(first_seat, first_body, key)
    assert first.status_code == 201, first.text
    # another seat moves: the retry is answered from its record, with whose move it is now
    seat = first.json()["to_move"][0]
    moved = play(seat, choose(seat))
    assert moved.status_code == 201, moved.text
    now = live_server.client().get(url).json()
    assert now["to_move"] != first.json()["to_move"], "the scenario: the next decision is another's"
    retried = play(first_seat, first_body, key)
    assert retried.status_code == 201, retried.text
    assert retried.json()["version"] == first.json()["version"] and retried.json()["events"] == first.json()["events"]
    assert retried.json()["to_move"] == now["to_move"]
    # an undo's answer too
    undone = None
    for _ in range(200):
        seat = now["to_move"][0]
        moved = play(seat, choose(seat))
        assert moved.status_code == 201, moved.text
        attempt = clients[seat].post(f"{url}/undo")
        now = live_server.client().get(url).json()
        if attempt.status_code == 201:
            undone = attempt
            break
        assert attempt.status_code == 422, attempt.text
    assert undone is not None, "no undoable move in 200 moves"
    assert undone.json()["to_move"] == now["to_move"] and undone.json()["version"] == now["version"]
