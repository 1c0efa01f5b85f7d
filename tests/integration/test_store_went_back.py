"""A store that went back in time behind the server's back is noticed, never trusted blindly.

The store is put back to an older state of itself while the service runs (as a Redis
failover to a replica that lacked the last writes does, or a restore from an older AOF or
backup): on Redis by DUMP / RESTORE of the keys, on SQLite by the backup API into the live
file. Then:

* a game that this process cached ahead of the store is dropped and reloaded: a command
  answers from the store's truth (not 409 ``busy`` for ever), and a read shows the store's
  version; if another process meanwhile played the game past the cached version with other
  moves, the cached copy is not extended with them;
* a read model whose checkpoint is ahead of the log is reported (``GET /projections``:
  a negative lag, ``ahead``; ``python -m service lag``; a log line), and the next catch-up
  rebuilds it, also when new events have meanwhile taken the positions it had applied.
"""

from __future__ import annotations

import logging
import random
import sqlite3

import pytest
import redis

from domain.games.dynasties import RULES
from domain.kernel import RuleViolation
from service.adapters.redis_store import RedisStore
from service.adapters.sqlite_store import SqliteStore
from service.background.projections_runner import ProjectionRunner
from service.background.read_models import ReadModels
from service.play.services import GameService
from tests.helpers.play import play_randomly, start_game

REGISTRY = {"dynasties": RULES}


class RedisBackup:
    """The namespace's keys as DUMPs; ``restore`` puts them back (only ``only`` keys, if given)."""

    def __init__(self, url: str, namespace: str):
        self.client = redis.Redis.from_url(url)
        self.namespace = namespace
        self.saved: dict[bytes, bytes] = {}

    def take(self) -> None:
        self.saved = {key: self.client.dump(key) for key in self.client.scan_iter(match=f"{self.namespace}:*")}

    def restore(self, only=lambda key: True) -> None:
        for key in self.client.scan_iter(match=f"{self.namespace}:*"):
            if only(key.decode()):
                self.client.delete(key)
        for key, dumped in self.saved.items():
            if only(key.decode()):
                self.client.restore(key, 0, dumped, replace=True)


class SqliteBackup:
    def __init__(self, path: str):
        self.path = path
        self.copy = sqlite3.connect(":memory:")

    def take(self) -> None:
        with sqlite3.connect(self.path) as live:
            live.backup(self.copy)

    def restore(self) -> None:
        live = sqlite3.connect(self.path)
        self.copy.backup(live)
        live.close()


@pytest.fixture(params=["redis", "sqlite"])
def backend(request, tmp_path):
    """(a new service on the store, the backup of the store)"""
    if request.param == "redis":
        request.applymarker(pytest.mark.integration)
        url, namespace = request.getfixturevalue("redis_url")
        backup = RedisBackup(url, namespace)
        return (lambda: GameService(RedisStore(url, partitions=4, prefix=namespace), REGISTRY)), backup
    path = str(tmp_path / "events.db")
    return (lambda: GameService(SqliteStore(path), REGISTRY)), SqliteBackup(path)


@pytest.mark.parametrize("snapshot_every", [0, 5])
def test_a_game_cached_ahead_of_the_store_is_reloaded_and_its_next_command_answers(backend, snapshot_every):
    new_service, backup = backend
    service = new_service()
    service.loader.snapshot_every = snapshot_every
    game_id, players = start_game(service, "dynasties", 2)
    rng = random.Random(3)
    play_randomly(service, game_id, players, rng, max_commands=4)
    backup.take()
    stored = service.current_version(game_id)
    play_randomly(service, game_id, players, rng, max_commands=6)
    assert service.load(game_id).version > stored
    backup.restore()  # the store goes back; this process's cache does not know
    assert service.current_version(game_id) == stored

    # a conditional GET (it has just read the version for its ETag) answers from the store too
    seat_to_move = new_service().load(game_id).rules.to_move(new_service().load(game_id).state)[0]
    legal = service.legal_commands(game_id, players[seat_to_move], known_version=stored)
    assert legal["version"] == stored
    assert service.state(game_id, None)["version"] == stored  # a read answers from the store
    game = service.load(game_id)
    seat = game.rules.to_move(game.state)[0]
    command = game.rules.legal_commands(game.state, seat)[0]
    answer = service.submit_command(game_id, players[seat], command)  # was 409 busy until a restart
    assert answer["version"] == stored + len(answer["events"])
    assert service.load(game_id).state == new_service().load(game_id).state


def test_a_command_decided_on_a_copy_cached_ahead_of_the_store_is_decided_again_on_the_store(backend):
    new_service, backup = backend
    service = new_service()
    game_id, players = start_game(service, "dynasties", 2)
    rng = random.Random(4)
    play_randomly(service, game_id, players, rng, max_commands=3)
    backup.take()
    stored = service.current_version(game_id)
    play_randomly(service, game_id, players, rng, max_commands=5)
    backup.restore()
    # the command path trusts the cache (no read): the append refuses the stale version and
    # the retry decides on what the store holds
    fresh = new_service().load(game_id)
    seat = fresh.rules.to_move(fresh.state)[0]
    command = fresh.rules.legal_commands(fresh.state, seat)[0]
    answer = service.submit_command(game_id, players[seat], command)
    assert answer["version"] == stored + len(answer["events"])


def test_a_cached_copy_is_not_extended_with_moves_another_process_made_after_the_store_went_back(backend, caplog):
    new_service, backup = backend
    here = new_service()
    game_id, players = start_game(here, "dynasties", 2)
    rng = random.Random(5)
    play_randomly(here, game_id, players, rng, max_commands=3)
    backup.take()
    play_randomly(here, game_id, players, rng, max_commands=3)
    cached = here.load(game_id).version
    backup.restore()
    elsewhere = new_service()  # another web process, with no cache: it plays past the cached version
    play_randomly(elsewhere, game_id, players, random.Random(99), until_version=cached + 3)
    assert elsewhere.load(game_id).version > cached
    with caplog.at_level(logging.WARNING, logger="service.streams.loading"):
        reloaded = here.load(game_id)
    assert reloaded.version == elsewhere.load(game_id).version
    assert reloaded.state == new_service().load(game_id).state  # not the cached copy plus their tail
    assert "the store went back in time" in caplog.text


def test_a_copy_cached_at_the_version_the_store_reached_again_with_other_events_is_not_decided_on(backend):
    """The store goes back by k events and another process adds k other events: the stream
    has the cached copy's length again. A command decided on the cached copy (no read) is
    refused by the append (the event at that version is not the one decided on) and decided
    again on what the store holds."""
    new_service, backup = backend
    here = new_service()
    game_id, players = start_game(here, "dynasties", 2)
    rng = random.Random(11)
    play_randomly(here, game_id, players, rng, max_commands=2)
    backup.take()
    stored = here.current_version(game_id)
    play_randomly(here, game_id, players, rng, max_commands=3)
    cached = here.load(game_id)
    backup.restore()
    elsewhere = new_service()
    for step in range(cached.version - stored):  # k other events: export consent given, withdrawn, ...
        change = elsewhere.consent_to_export if step % 2 == 0 else elsewhere.withdraw_export_consent
        change(game_id, players[0])
    assert here.current_version(game_id) == cached.version

    # a move the cached copy allows: without the check the append would take it, decided on
    # moves the store no longer holds
    seat = cached.rules.to_move(cached.state)[0]
    command = cached.rules.legal_commands(cached.state, seat)[0]
    try:
        answer = here.submit_command(game_id, players[seat], command)
        assert answer["version"] == cached.version + len(answer["events"])
    except RuleViolation:
        pass  # decided again on the store's game, which does not allow it
    assert here.load(game_id).state == new_service().load(game_id).state  # not the cached copy's moves


# -- read models ------------------------------------------------------------------------------
@pytest.fixture
def on_redis(redis_url):
    url, namespace = redis_url
    store = RedisStore(url, partitions=4, prefix=namespace)
    runner = ProjectionRunner(store)
    service = GameService(store, REGISTRY, read_models=ReadModels(runner, catch_up_on_read=False, mode="rq"))
    yield service, runner, RedisBackup(url, namespace)
    store.close()


def _log_keys(key: str) -> bool:
    """Everything but the read models: the log's master failed over, the models' did not."""
    return "{rm:" not in key


@pytest.mark.integration
def test_a_checkpoint_ahead_of_its_log_head_is_reported_as_a_negative_lag_and_the_model_rebuilt(on_redis, caplog):
    service, runner, backup = on_redis
    game_id, players = start_game(service, "dynasties", 2)
    backup.take()
    play_randomly(service, game_id, players, random.Random(6), max_commands=8)
    runner.catch_up_all()
    backup.restore(only=_log_keys)  # the log goes back; the models keep what they applied

    status = {s["name"]: s for s in service.projections_status()["projections"]}
    lobby = status["lobby"]
    assert lobby["ahead"] > 0 and lobby["lag"] == 0
    assert any(p["lag"] < 0 for p in lobby["partitions"])  # never clamped to 0
    assert sum(-p["lag"] for p in lobby["partitions"] if p["lag"] < 0) == lobby["ahead"]

    with caplog.at_level(logging.WARNING, logger="service.background.projections_runner"):
        runner.catch_up_all()
    assert "checkpoints ahead of the log" in caplog.text
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name
        assert runner.status(name)["ahead"] == 0
    (listed,) = service.list_games()
    assert listed["version"] == service.current_version(game_id)


@pytest.mark.integration
def test_new_events_that_took_the_positions_a_model_had_applied_are_not_skipped(on_redis, caplog):
    service, runner, backup = on_redis
    game_id, players = start_game(service, "dynasties", 2)
    backup.take()
    play_randomly(service, game_id, players, random.Random(7), max_commands=3)
    runner.catch_up_all()
    backup.restore(only=_log_keys)
    # other moves, more of them than were lost, before any catch-up: the heads pass the
    # checkpoints again, so comparing numbers alone would skip them
    other = GameService(service.store, REGISTRY)
    play_randomly(other, game_id, players, random.Random(70), max_commands=10)
    assert all(p["lag"] >= 0 for p in runner.status("lobby")["partitions"])

    with caplog.at_level(logging.WARNING, logger="service.background.projections_runner"):
        runner.catch_up_all()
    assert "no longer holds at position" in caplog.text
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name
    (listed,) = service.list_games()
    assert listed["version"] == service.current_version(game_id)


@pytest.mark.integration
def test_health_and_the_lag_command_report_a_checkpoint_ahead_of_the_log(redis_url):
    import subprocess
    import sys

    from service.api.app import create_app
    from service.base.config import Config

    url, namespace = redis_url
    # RQ mode with no worker running: nothing catches the models up behind the test's back
    config = Config(store_url=url, projections="rq", queue_name=f"{namespace}-projections", redis_prefix=namespace,
                    redis_partitions=4, limits_enabled=False)
    app = create_app(config)
    service = app.extensions["games"]
    game_id, players = start_game(service, "dynasties", 2)
    backup = RedisBackup(url, namespace)
    backup.take()
    play_randomly(service, game_id, players, random.Random(8), max_commands=5)
    runner = service.read_models.runner
    runner.catch_up_all()
    client = app.test_client()
    assert client.get("/health").get_json()["warnings"] == []
    backup.restore(only=_log_keys)

    warnings = client.get("/health").get_json()["warnings"]
    assert {w.split(":")[0] for w in warnings} == {f"projection {name}" for name in runner.names}
    assert all("ahead of the log" in w for w in warnings)
    lag = subprocess.run([sys.executable, "-m", "service", "lag", "--store", url],
                         env={**__import__("os").environ, "GAMES_REDIS_PREFIX": namespace,
                              "GAMES_REDIS_PARTITIONS": "4"}, capture_output=True, text=True, timeout=60)
    assert "AHEAD of the log" in lag.stdout, lag.stdout + lag.stderr
    projections = client.get("/projections").get_json()["projections"]
    assert all(p["ahead"] > 0 and min(r["lag"] for r in p["partitions"]) < 0 for p in projections)
    runner.catch_up_all()  # what the worker's next job does
    assert client.get("/health").get_json()["warnings"] == []
