"""Finished games move from Redis to the PostgreSQL archive (``service.running.archiving``), and every read
endpoint answers for them, from the archive, with the bytes it gave before.

Real components throughout: a real Redis, a real PostgreSQL (a schema of the test's own), the
web app on a real port, and the archive job run by a real RQ worker of the projections' lane
(``python -m service worker --lanes projections``), killed with SIGKILL once mid-run and started
again. PostgreSQL comes from the ``archive_url`` fixture (tests/integration/conftest.py).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
import redis
import requests
from werkzeug.serving import make_server

from service.api.app import create_app
from service.base.config import Config
from service.streams.appending import Clock
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly, start_game

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
KEY = "archive-test-signing-key-0123456789"
#: the games archived: both types, several seat counts
GAMES = (("dynasties", 2), ("dynasties", 3), ("pax_pamir", 2), ("pax_pamir", 3))


def _namespace_memory(client: redis.Redis, namespace: str) -> int:
    """Bytes Redis spends on the namespace's keys (MEMORY USAGE of each)."""
    return sum(client.memory_usage(key, samples=0) or 0 for key in client.scan_iter(match=f"{namespace}*", count=1000))


def _worker(config_env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "service", "worker", "--lanes", "projections"],
                            cwd=ROOT, env={**os.environ, **config_env},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _archived(archive_url: str) -> int:
    with psycopg.connect(archive_url, autocommit=True) as connection:
        try:
            return int(connection.execute("SELECT count(*) FROM archived_games").fetchone()[0])
        except psycopg.errors.UndefinedTable:
            return 0


def _read_everything(base: str, games: dict[str, list[dict]]) -> dict[str, tuple]:
    """Every read endpoint's answer for these games: (status, content type, ETag, body bytes)."""
    answers: dict[str, tuple] = {}

    def get(path: str, token: str | None = None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = requests.get(base + path, headers=headers, timeout=30)
        answers[path + (" as " + token[:8] if token else "")] = (
            response.status_code, response.headers.get("Content-Type"), response.headers.get("ETag"),
            response.content)
        assert response.status_code == 200, (path, response.status_code, response.text[:300])
        return response.json() if response.headers.get("Content-Type") == "application/json" else {}

    for game_id, players in games.items():
        get(f"/games/{game_id}")
        get(f"/games/{game_id}/state")
        get(f"/games/{game_id}/state?at=7")
        get(f"/games/{game_id}/state", players[0]["token"])
        get(f"/games/{game_id}/legal-commands", players[1]["token"])
        after = 0
        while after is not None:
            after = get(f"/games/{game_id}/events?after={after}&limit=1000")["next_after"]
        get(f"/games/{game_id}/replay?after=0&limit=200")
        get(f"/games/{game_id}/replay?after=0&limit=200&as_seat=1")
        version = get(f"/games/{game_id}")["version"]
        get(f"/games/{game_id}/replay?after={max(0, version - 30)}&limit=200")
        get(f"/games/{game_id}/export")
        for player in players:
            get(f"/players/{player['id']}/games")
    for kind in ("dynasties", "pax_pamir"):
        get(f"/scoreboards/{kind}")
    get("/games?status=finished")
    get("/games")
    return answers


def _whole_log(store, partitions: int) -> list[tuple]:
    """Every entry of every partition's log, as a reader from the first position gets it."""
    return [(r.partition, r.position, r.stream, r.version, r.event) for p in range(partitions)
            for r in store.read_log(p, 0, 1_000_000)]


def _wait(condition, timeout: float, what: str, worker: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if worker is not None and worker.poll() is not None:
            pytest.fail(f"the worker ended ({worker.returncode}) while waiting for {what}: {worker.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_finished_games_of_both_types_archived_by_a_job_killed_mid_run_answer_every_read_endpoint_byte_for_byte(
        redis_url, archive_url):
    url, namespace = redis_url
    client = redis.Redis.from_url(url)
    settings = {"GAMES_STORE": url, "GAMES_REDIS_PREFIX": namespace, "GAMES_REDIS_PARTITIONS": "4",
                "GAMES_QUEUE": namespace, "GAMES_PROJECTIONS": "rq", "GAMES_SIGNING_KEYS": KEY,
                "GAMES_ARCHIVE_URL": archive_url}
    config = Config(store_url=url, redis_prefix=namespace, redis_partitions=4, queue_name=namespace,
                    projections="rq", signing_keys=(KEY,), archive_url=archive_url)
    app = create_app(config)
    service = app.extensions["games"]
    # an export says when it was made: one fixed moment, so that every export can be compared
    service.logs.clock = Clock(now=lambda: datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    workers: list[subprocess.Popen] = []
    try:
        rng = random.Random(38)
        games: dict[str, list[dict]] = {}
        for kind, seats in GAMES:
            game_id, players = start_game(service, kind, seats)
            play_randomly(service, game_id, players, rng)
            assert service.load(game_id).over
            games[game_id] = players
        live_id, live_players = start_game(service, "dynasties", 2)  # a game in play stays in Redis
        play_randomly(service, live_id, live_players, rng, max_commands=5)
        runner = service.read_models.runner
        for name in runner.names:  # the read models as a projections worker leaves them
            runner.catch_up(name)
        before = _read_everything(base, games)
        log_before = _whole_log(service.store, 4)
        memory_before = _namespace_memory(client, namespace)

        # the projections' lane archives them (retention 0 s), pausing after each game: killed
        # with SIGKILL once some but not all are archived
        # (GAMES_LOG_KEPT=0: every log entry all readers have read leaves Redis for the archive,
        # the game in play's among them, so the rebuild below reads them from PostgreSQL)
        lane = {**settings, "GAMES_ARCHIVE_AFTER": "0", "GAMES_ARCHIVE_EVERY": "1", "GAMES_ARCHIVE_PAUSE": "0.7",
                "GAMES_SWEEP_INTERVAL": "0.3", "GAMES_PROJECTION_LOCK_TTL": "2", "GAMES_LOG_KEPT": "0"}
        workers.append(_worker(lane))
        _wait(lambda: _archived(archive_url) >= 1, 60, "the first archived game", workers[-1])
        os.killpg(workers[-1].pid, signal.SIGKILL)  # the worker and its scheduler child
        workers[-1].wait(timeout=10)
        archived_at_kill = _archived(archive_url)
        assert 1 <= archived_at_kill < len(games), "the kill must come mid-run"
        service.loader._cache.clear()  # noqa: SLF001 - read from the stores, not this process's folds
        assert _read_everything(base, games) == before, "mid-run (after the kill) an answer changed"

        workers.append(_worker(lane))  # a new worker's sweep runs the archive again; it goes on
        store = service.store
        _wait(lambda: not any(store.holds(stream_of(g)) for g in games), 90, "every game archived", workers[-1])
        _wait(lambda: store.waiting_count() == 0, 30, "the due list to empty", workers[-1])
        assert _archived(archive_url) == len(games)
        assert store.holds(stream_of(live_id)), "a game in play stays in Redis"
        service.loader._cache.clear()  # noqa: SLF001
        after = _read_everything(base, games)
        assert after.keys() == before.keys()
        changed = [path for path in before if before[path] != after[path]]
        assert not changed, f"answers changed once archived: {changed[:5]}"

        # Redis let go of them: no stream, no log entry of theirs; its memory for the namespace fell
        for game_id in games:
            assert client.xlen(f"{namespace}:{{p{store._stream_tag(stream_of(game_id))[0]}}}:game:{stream_of(game_id)}") == 0  # noqa: SLF001
        logged = {entry[1][b"s"].decode() for p in range(4) for entry in client.xrange(f"{namespace}:{{p{p}}}:log")}
        assert not logged & {stream_of(g) for g in games}
        # (each partition keeps the entry at the readers' checkpoint: a reader checks it is still there)
        _wait(lambda: all(client.xlen(f"{namespace}:{{p{p}}}:log") <= 1 for p in range(4)), 30,
              "the log's entries read by every reader to leave Redis (the game in play's too)", workers[-1])
        assert _whole_log(store, 4) == log_before, "a read of the whole log changed once Redis let it go"
        memory_after = _namespace_memory(client, namespace)
        assert memory_after < memory_before / 2, (memory_before, memory_after)

        # the archive keeps each game's signed portable log: it verifies, and holds the export's events
        for game_id in games:
            signed = store.archive.signed_log(game_id)
            assert service.logs.signer.verify(signed) == "valid"
            assert signed.split("\n", 1)[1] == before[f"/games/{game_id}/export"][3].decode().split("\n", 1)[1]

        # a rebuild of every read model reads the archived events from the archive: the same models
        for name in runner.names:
            runner.rebuild(name)
        service.loader._cache.clear()  # noqa: SLF001
        assert _read_everything(base, games) == before

        # the archived games are read-only: a move is refused as for any finished game, nothing stored
        game_id, players = next(iter(games.items()))
        refused = requests.post(f"{base}/games/{game_id}/commands", json={"type": "Pass", "args": {}},
                                headers={"Authorization": f"Bearer {players[0]['token']}"}, timeout=10)
        assert refused.status_code in (409, 422) and refused.headers["Content-Type"] == "application/problem+json"
        assert not store.holds(stream_of(game_id))
    finally:
        for worker in workers:
            try:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            except ProcessLookupError:
                continue
            try:  # whatever of the group is left (RQ's scheduler child)
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        server.shutdown()
        service.store.close()
