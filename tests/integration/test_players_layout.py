"""Players on Redis: each under a slot of its own, and the old one-slot layout still readable.

A token names its player (``<id>.<secret>``), so checking it reads that player's key
alone: on a Redis Cluster the players spread over the masters like the games, and losing
one master pauses only the players on it (tests/reliability/test_failover_drill.py kills
one). Players registered before (``{players}`` hashes and token index) keep their tokens;
their first token change moves them to the new layout.
"""

from __future__ import annotations

import secrets

import pytest
import redis
from redis.crc import key_slot

from service.adapters.codec import dumps
from service.adapters.redis_store import RedisStore
from service.base.errors import Unauthorized
from service.players.players import Players, hash_token

pytestmark = pytest.mark.integration


@pytest.fixture
def players(redis_url):
    url, namespace = redis_url
    store = RedisStore(url, partitions=4, prefix=namespace)
    yield Players(store), redis.Redis.from_url(url), namespace
    store.close()


class Counting:
    """Every key a client's commands name, sent alone or in a pipeline (a stand-in would not
    show what Redis is asked)."""

    def __init__(self, client: redis.Redis, monkeypatch):
        self.keys: list[bytes] = []
        original, queued = client.execute_command, redis.client.Pipeline.pipeline_execute_command

        def named(args) -> None:
            self.keys.extend(a if isinstance(a, bytes) else str(a).encode() for a in args[1:2])

        def execute(*args, **options):
            named(args)
            return original(*args, **options)

        def queue(pipe, *args, **options):
            named(args)
            return queued(pipe, *args, **options)

        client.execute_command = execute
        monkeypatch.setattr(redis.client.Pipeline, "pipeline_execute_command", queue)


def test_each_players_token_check_reads_one_key_in_a_slot_of_its_own(players, monkeypatch):
    """(On one Redis the check also reads the token generation, in the same round trip: a
    process keeps the tokens it checked while it stays. A cluster's check reads the player's key alone.)"""
    service, client, namespace = players
    made = [service.create(f"p{i}") for i in range(64)]
    counting = Counting(service.store._redis, monkeypatch)
    for player in made:
        assert service.authenticate(player["token"])["id"] == player["id"]
    generation = f"{namespace}:{{players}}:token-generation".encode()
    player_keys = [key for key in counting.keys if key != generation]
    assert len(player_keys) == len(made)  # one player's key per check
    slots = {key_slot(key) for key in player_keys}
    assert len(slots) >= 60  # spread over the slot space, not one {players} slot
    assert not list(client.scan_iter(match=f"{namespace}:{{players}}*"))


def test_a_token_with_another_players_id_in_front_is_refused(players):
    service, _, _ = players
    ann, bob = service.create("Ann"), service.create("Bob")
    secret = ann["token"].split(".", 1)[1]
    for forged in (f"{bob['id']}.{secret}", f"{bob['id']}.", f"{'0' * 16}.{secret}", secret, "x" * 300):
        with pytest.raises(Unauthorized):
            service.authenticate(forged)


def _legacy_player(client: redis.Redis, namespace: str, player_id: str, name: str) -> str:
    """A player as the old layout stored it; its token (no id in front)."""
    token = secrets.token_urlsafe(32)
    client.hset(f"{namespace}:{{players}}:player:{player_id}",
                mapping={"id": player_id, "name": name, "token_hash": hash_token(token)})
    client.hset(f"{namespace}:{{players}}:tokens", hash_token(token), dumps({"id": player_id, "name": name}))
    return token


def test_a_player_of_the_old_layout_keeps_its_token_and_moves_on_its_first_rotation(players):
    service, client, namespace = players
    old_token = _legacy_player(client, namespace, "00000000000000aa", "Old")
    assert service.authenticate(old_token) == {"id": "00000000000000aa", "name": "Old"}
    assert service.get("00000000000000aa") == {"id": "00000000000000aa", "name": "Old"}

    rotated = service.rotate_token(old_token)
    assert rotated["token"].startswith("00000000000000aa.")
    assert client.exists(f"{namespace}:{{player:00000000000000aa}}")
    with pytest.raises(Unauthorized):
        service.authenticate(old_token)  # the old index still names it; the moved record refuses it
    assert service.authenticate(rotated["token"])["id"] == "00000000000000aa"
    with pytest.raises(Unauthorized):
        service.rotate_token(old_token)
    service.revoke_token(rotated["token"])
    with pytest.raises(Unauthorized):
        service.authenticate(rotated["token"])
    assert service.get("00000000000000aa")["name"] == "Old"


def test_revoking_an_old_layout_token_moves_the_player_and_ends_the_token(players):
    service, client, namespace = players
    old_token = _legacy_player(client, namespace, "00000000000000bb", "Older")
    service.revoke_token(old_token)
    with pytest.raises(Unauthorized):
        service.authenticate(old_token)
