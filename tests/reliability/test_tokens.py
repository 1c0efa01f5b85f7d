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


def test_a_rotation_retried_with_its_idempotency_key_gets_the_same_new_token(server):
    """An answer lost on the way must not lock the player out: the retry (old token, same
    key) answers with the token the first rotation issued, which still works; the old token
    does not, and the same old token with another key, or after a second rotation, gets 401."""
    player, client = server.new_player("Cleo")
    url = f"{server.url}/players/me/token"
    first = client.post(url, headers={"Idempotency-Key": "rotate-1"})
    assert first.status_code == 201, first.text
    new = first.json()["token"]
    assert new != player["token"] and new.startswith(player["id"] + ".")
    retried = client.post(url, headers={"Idempotency-Key": "rotate-1"})
    assert retried.status_code == 201, retried.text
    assert retried.json() == first.json()
    assert client.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2}).status_code == 401
    assert client.post(url, headers={"Idempotency-Key": "rotate-2"}).status_code == 401
    assert client.post(url).status_code == 401
    fresh = server.client(new)
    assert fresh.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2}).status_code == 201
    second = fresh.post(url, headers={"Idempotency-Key": "rotate-1"})  # a new token, the same key: a new rotation
    assert second.status_code == 201 and second.json()["token"] not in (new, player["token"])
    stale = client.post(url, headers={"Idempotency-Key": "rotate-1"})  # the first token's retry, too late now
    assert stale.status_code == 401 and stale.headers["Content-Type"] == "application/problem+json"
    assert "token" not in stale.json()


def test_nobody_without_the_old_token_gets_a_rotated_token(server):
    victim, client = server.new_player("Dan")
    rotated = client.post(f"{server.url}/players/me/token", headers={"Idempotency-Key": "k"}).json()["token"]
    forged = f"{victim['id']}.{'A' * 43}"  # the victim's id in front, the same key, a made-up token
    attempt = server.client(forged).post(f"{server.url}/players/me/token", headers={"Idempotency-Key": "k"})
    assert attempt.status_code == 401 and rotated not in attempt.text
    assert server.client(rotated).get(f"{server.url}/players/{victim['id']}/games").status_code == 200
