"""Tokens can be revoked (DELETE the current token) and rotated (a new one replaces it),
on SQLite and on Redis; the old token stops working at once."""

from __future__ import annotations

import pytest
import requests


@pytest.fixture(params=["sqlite", "redis"])
def server(request, make_server):
    if request.param == "sqlite":
        return make_server()
    url, namespace = request.getfixturevalue("redis_url")
    return make_server(store_url=url, redis_prefix=namespace, redis_partitions=4)


def test_a_rotated_token_stops_working_and_the_new_one_works(server):
    player, client = server.new_player("Ann")
    game = client.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2})
    assert game.status_code == 201
    rotated = client.post(f"{server.url}/players/me/token")
    assert rotated.status_code == 201, rotated.text
    fresh = rotated.json()
    assert fresh["id"] == player["id"] and fresh["token"] != player["token"]
    old = client.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2})
    assert old.status_code == 401 and old.headers["Content-Type"] == "application/problem+json"
    new = server.client(fresh["token"])
    assert new.post(f"{server.url}/games/{game.json()['id']}/join", json={}).status_code == 200
    assert client.post(f"{server.url}/players/me/token").status_code == 401  # no second rotation with the old


def test_a_revoked_token_stops_working(server):
    _, client = server.new_player("Bob")
    assert client.delete(f"{server.url}/players/me/token").status_code == 204
    refused = client.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2})
    assert refused.status_code == 401
    assert client.delete(f"{server.url}/players/me/token").status_code == 401
    assert requests.delete(f"{server.url}/players/me/token", timeout=5).status_code == 401
