"""Concurrent retries of one command with one Idempotency-Key all get the first answer,
on SQLite and on Redis, through two gunicorn worker processes, and the move is applied once."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.reliability.conftest import namespace


@pytest.fixture(params=["sqlite", "redis"])
def server(request, server_process, tmp_path):
    env = {"GAMES_LIMIT_PER_IP": "", "GAMES_LIMIT_PER_TOKEN": "", "GAMES_PROJECTIONS": "inline"}
    if request.param == "sqlite":
        return server_process(f"sqlite:///{tmp_path}/events.db", workers=2, env=env)
    url, _ = request.getfixturevalue("redis_url")
    return server_process(url, workers=2, env={**env, "GAMES_REDIS_PREFIX": namespace()})


def started_game(url: str) -> tuple[str, list[str]]:
    tokens = [requests.post(f"{url}/players", json={"name": f"p{i}"}, timeout=10).json()["token"] for i in range(2)]
    game = requests.post(f"{url}/games", json={"type": "dynasties", "seats": 2},
                         headers={"Authorization": f"Bearer {tokens[0]}"}, timeout=10).json()
    for token in tokens:
        requests.post(f"{url}/games/{game['id']}/join", json={}, headers={"Authorization": f"Bearer {token}"},
                      timeout=10)
    return game["id"], tokens


def test_two_hundred_concurrent_retries_get_the_first_answer(server):
    game_id, tokens = started_game(server.url)
    refused = 0
    for round_ in range(3):  # three moves, each retried 200 times at once with its own key
        game = requests.get(f"{server.url}/games/{game_id}", timeout=10).json()
        token = tokens[[p["player_id"] for p in game["seats"]].index(
            next(s["player_id"] for s in game["seats"] if s["seat"] == game["to_move"][0]))]
        auth = {"Authorization": f"Bearer {token}"}
        command = requests.get(f"{server.url}/games/{game_id}/legal-commands", headers=auth, timeout=10).json()
        before = game["version"]

        def post(_, command=command, auth=auth, round_=round_):
            with requests.Session() as session:
                answer = session.post(f"{server.url}/games/{game_id}/commands", json=command["commands"][0],
                                      headers={**auth, "Idempotency-Key": f"once-{round_}"}, timeout=60)
                return answer.status_code, answer.text

        with ThreadPoolExecutor(max_workers=64) as pool:
            answers = list(pool.map(post, range(200)))
        statuses = [status for status, _ in answers]
        refused += 200 - statuses.count(201)
        print(f"200 concurrent retries: {statuses.count(201)} got 201, others: "
              f"{sorted({(s, t[:90]) for s, t in answers if s != 201})}")
        assert statuses == [201] * 200
        assert len({text for _, text in answers}) == 1
        first = json.loads(answers[0][1])
        now = requests.get(f"{server.url}/games/{game_id}", timeout=10).json()["version"]
        # applied once: the game moved exactly by the events of that one answer
        assert first["events"][0]["version"] == before + 1 and now == first["version"]
    assert refused == 0
