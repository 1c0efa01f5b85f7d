"""The durability setting (``GAMES_REDIS_WAIT_REPLICAS``) on a real master with a real replica.

With the setting at 1, a write an answer depends on is acknowledged only once the replica
has it; a replica that stops acknowledging (SIGSTOP) turns the answer into a 503
``not_replicated`` with Retry-After, and the retry with the same Idempotency-Key, once the
replica is back, gets the first request's answer: one move, never two. With the setting
off nothing waits for the replica.
"""

from __future__ import annotations

import time
import uuid

import pytest

from service.adapters.redis_store import RedisStore
from service.adapters.redis_store.datastore import RedisDatastore
from service.api.app import create_app
from service.base.config import Config
from service.base.errors import NotReplicated
from tests.integration.redis_replicas import start_replicated

pytestmark = pytest.mark.integration

TIMEOUT = 0.5


@pytest.fixture(scope="module")
def replicated():
    started = start_replicated(1)
    yield started
    started.stop()


def _event(n: int) -> dict:
    return {"type": "Noted", "data": {"n": n}}


def test_an_append_waits_for_the_replica_and_the_replica_has_it_when_the_append_answers(replicated):
    store = RedisStore(replicated.url, partitions=4, prefix=f"d{uuid.uuid4().hex[:8]}", wait_replicas=1,
                       wait_timeout=TIMEOUT)
    replica = replicated.client(replicated.replica_ports[0])
    for version in range(5):
        assert store.append("game-a", version, [_event(version)]) == version + 1
        # no sleep, no WAIT of our own: the append answered only once the replica had the event
        assert replica.xlen(store._game("game-a")[1]) == version + 1
    store.close()


def test_a_lagging_replica_makes_the_append_fail_as_not_replicated_within_the_wait_timeout(replicated):
    store = RedisStore(replicated.url, partitions=4, prefix=f"d{uuid.uuid4().hex[:8]}", wait_replicas=1,
                       wait_timeout=TIMEOUT)
    replica_port = replicated.replica_ports[0]
    replicated.pause(replica_port)
    try:
        started = time.monotonic()
        with pytest.raises(NotReplicated) as refused:
            store.append("game-b", 0, [_event(1)])
        took = time.monotonic() - started
        assert TIMEOUT * 0.8 <= took < TIMEOUT + 2, took
        assert (refused.value.wanted, refused.value.confirmed) == (1, 0)
        # a player's registration and a read model's save wait the same way
        with pytest.raises(NotReplicated):
            store.add_player("p1", "Ann", "hash-1")
        with pytest.raises(NotReplicated):
            store.save_rows("lobby", {0: 1}, None, [("games", "g", b"{}")], [])
    finally:
        replicated.resume(replica_port)
    store.close()


def test_with_the_setting_off_a_stopped_replica_does_not_hold_up_an_append(replicated):
    store = RedisStore(replicated.url, partitions=4, prefix=f"d{uuid.uuid4().hex[:8]}")
    replica_port = replicated.replica_ports[0]
    replicated.pause(replica_port)
    try:
        started = time.monotonic()
        assert store.append("game-c", 0, [_event(1)]) == 1
        assert time.monotonic() - started < TIMEOUT / 2
    finally:
        replicated.resume(replica_port)
    store.close()


def _app(url: str):
    config = Config(store_url=url, projections="inline", redis_prefix=f"d{uuid.uuid4().hex[:8]}",
                    redis_wait_replicas=1, redis_wait_timeout=TIMEOUT, limits_enabled=False)
    return create_app(config)


def _started_game(client) -> tuple[str, list[dict]]:
    players = [client.post("/players", json={"name": name}).get_json() for name in ("Ann", "Bob")]
    auth = [{"Authorization": f"Bearer {p['token']}"} for p in players]
    game = client.post("/games", json={"type": "dynasties", "seats": 2}, headers=auth[0]).get_json()["id"]
    for headers in auth:
        assert client.post(f"/games/{game}/join", json={}, headers=headers).status_code == 200
    return game, auth


def _move(client, game: str, auth: list[dict]) -> tuple[dict, dict]:
    """The first legal command of a seat that has one, and that seat's headers."""
    for headers in auth:
        legal = client.get(f"/games/{game}/legal-commands", headers=headers).get_json()["commands"]
        if legal:
            return legal[0], headers
    raise AssertionError("nobody may move")


def test_a_move_the_replica_did_not_confirm_answers_503_and_its_retry_answers_once_with_one_move(replicated):
    app = _app(replicated.url)
    client = app.test_client()
    game, auth = _started_game(client)
    command, headers = _move(client, game, auth)
    before = client.get(f"/games/{game}").get_json()["version"]
    keyed = {**headers, "Idempotency-Key": "move-1"}

    replica_port = replicated.replica_ports[0]
    replicated.pause(replica_port)
    try:
        refused = client.post(f"/games/{game}/commands", json=command, headers=keyed)
        assert refused.status_code == 503, refused.get_data(as_text=True)
        assert refused.mimetype == "application/problem+json"
        assert refused.get_json()["code"] == "not_replicated"
        assert "replicas did not confirm" in refused.get_json()["detail"]
        assert int(refused.headers["Retry-After"]) >= 1
        # while the replica is still away, the retry cannot be confirmed either: no answer yet
        again = client.post(f"/games/{game}/commands", json=command, headers=keyed)
        assert again.status_code == 503 and again.get_json()["code"] == "not_replicated"
    finally:
        replicated.resume(replica_port)

    answered = client.post(f"/games/{game}/commands", json=command, headers=keyed)
    assert answered.status_code == 201, answered.get_data(as_text=True)
    body = answered.get_json()
    assert body["version"] == before + len(body["events"])
    assert client.get(f"/games/{game}").get_json()["version"] == body["version"]  # one move, not two
    replay = client.post(f"/games/{game}/commands", json=command, headers=keyed)
    assert replay.status_code == 201 and replay.get_json() == body
    app.extensions["games"].store.close()


def test_a_retried_game_creation_answers_only_once_the_replica_has_the_game(replicated):
    app = _app(replicated.url)
    client = app.test_client()
    # the retry reaches another process (its own connections: none of them wrote the game)
    other = create_app(app.extensions["config"]).test_client()
    ann = client.post("/players", json={"name": "Ann"}).get_json()
    headers = {"Authorization": f"Bearer {ann['token']}", "Idempotency-Key": "table-1"}
    replica_port = replicated.replica_ports[0]
    replicated.pause(replica_port)
    try:
        first = client.post("/games", json={"type": "dynasties", "seats": 2}, headers=headers)
        assert first.status_code == 503 and first.get_json()["code"] == "not_replicated"
        retry = other.post("/games", json={"type": "dynasties", "seats": 2}, headers=headers)
        assert retry.status_code == 503, retry.get_data(as_text=True)  # the game is there, not confirmed
    finally:
        replicated.resume(replica_port)
    created = client.post("/games", json={"type": "dynasties", "seats": 2}, headers=headers)
    assert created.status_code == 201
    assert client.post("/games", json={"type": "dynasties", "seats": 2}, headers=headers).get_json()["id"] == \
        created.get_json()["id"]
    app.extensions["games"].store.close()


def test_the_setting_is_refused_beside_a_store_that_is_not_redis(tmp_path):
    from service.wiring.stores import open_store

    with pytest.raises(ValueError, match="Redis store only"):
        open_store(Config(store_url=f"sqlite:///{tmp_path}/events.db", redis_wait_replicas=1))


class _Node:
    """A stand-in for a node's client: what the WAITAOF detection asks it."""

    def __init__(self, version: str, appendonly: str):
        self.version, self.appendonly = version, appendonly

    def info(self, section: str) -> dict:
        return {"redis_version": self.version}

    def config_get(self, name: str) -> dict:
        return {name: self.appendonly}


@pytest.mark.parametrize("version,appendonly,expected", [
    ("7.0.15", "yes", ()), ("7.2.4", "yes", (1,)), ("7.2.4", "no", (0,)), ("8.0.1", "yes", (1,))])
def test_waitaof_is_used_from_redis_7_2_and_counts_the_local_fsync_only_with_an_aof(
        redis_server_url, monkeypatch, version, appendonly, expected):
    datastore = RedisDatastore(redis_server_url, wait_replicas=1)
    monkeypatch.setattr(datastore, "_node_client", lambda key: _Node(version, appendonly))
    assert datastore._detect_waitaof() == expected
    datastore.close()


def test_this_machines_redis_is_detected_as_it_is(replicated):
    datastore = RedisDatastore(replicated.url, wait_replicas=1)
    version = replicated.client(replicated.master_port).info("server")["redis_version"]
    before_7_2 = tuple(int(p) for p in version.split(".")[:2]) < (7, 2)
    assert (datastore._detect_waitaof() == ()) == before_7_2  # 7.0.15 here: WAIT only
    datastore.close()


@pytest.mark.parametrize("error", ["ClusterDownError", "TryAgainError"])
def test_a_cluster_that_is_failing_over_answers_503_with_retry_after_not_500(tmp_path, monkeypatch, error):
    import redis

    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", limits_enabled=False))
    client = app.test_client()
    token = client.post("/players", json={"name": "Ann"}).get_json()["token"]

    def failing_over(*args, **kwargs):
        raise getattr(redis.exceptions, error)("The cluster is down")

    monkeypatch.setattr(app.extensions["games"].store, "replace_token", failing_over)
    answer = client.post("/players/me/token", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 503 and answer.mimetype == "application/problem+json"
    assert answer.get_json()["code"] == "store_unavailable" and "failing over" in answer.get_json()["detail"]
    assert answer.headers["Retry-After"]
