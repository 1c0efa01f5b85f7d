"""The event store on a real Redis Cluster (three masters started here), RQ on a standalone
Redis beside it: the store's contract suites, two web processes and two workers playing a whole
game over HTTP, the read models converging on a clean replay, and a kill -9 drill.

The layout puts every key an operation touches in one slot (a game's partition ``{pN}``,
the players ``{players}``, a read model ``{rm:<name>}``), so nothing here is special-cased
for the cluster but the client (``redis-cluster://`` URLs, see service/adapters/redis_client.py).
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests

from domain.games.dynasties import RULES as DYNASTIES
from service.base.config import Config
from service.wiring.bootstrap import build_service
from tests.api.test_full_game_http import play_whole_game
from tests.contract.backends import Spec
from tests.contract.test_event_store import EventStoreContract
from tests.contract.test_log_recorder import LogRecorderContract
from tests.contract.test_player_recorder import PlayerRecorderContract
from tests.contract.test_projection_recorder import ProjectionRecorderContract
from tests.contract.test_shared_state_recorder import SharedStateRecorderContract
from tests.contract.test_snapshot_recorder import SnapshotRecorderContract
from tests.contract.test_stream_recorder import StreamRecorderContract
from tests.helpers.http import PlayerClients
from tests.integration.redis_cluster import start_cluster

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster():
    started = start_cluster(3)
    yield started
    started.stop()


class OnTheCluster:
    """The contract suites' backend here: the cluster, 16 partitions, a key prefix per test."""

    @pytest.fixture
    def spec(self, cluster) -> Spec:
        return ("redis", cluster.url, 16, f"contract-{uuid.uuid4().hex[:8]}")


class TestClusterStreams(OnTheCluster, StreamRecorderContract):
    PROCESSES = 3
    PROCESS_EACH = 8


class TestClusterLog(OnTheCluster, LogRecorderContract):
    pass


class TestClusterProjections(OnTheCluster, ProjectionRecorderContract):
    pass


class TestClusterSnapshots(OnTheCluster, SnapshotRecorderContract):
    pass


class TestClusterPlayers(OnTheCluster, PlayerRecorderContract):
    pass


class TestClusterSharedState(OnTheCluster, SharedStateRecorderContract):
    pass


class TestClusterEventStore(OnTheCluster, EventStoreContract):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Deployment(PlayerClients):
    """Two ``python -m service serve`` processes and two workers on the cluster; the URL
    handed out alternates between the web processes, so consecutive requests of one
    client land on different processes."""

    def __init__(self, cluster, queue_url: str, tmp_path: Path):
        self.namespace = f"cl{uuid.uuid4().hex[:8]}"
        self.tmp_path = tmp_path
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_STORE": cluster.url, "GAMES_QUEUE_URL": queue_url,
                    "GAMES_REDIS_PREFIX": self.namespace, "GAMES_QUEUE": f"{self.namespace}-projections",
                    "GAMES_PROJECTIONS": "rq", "GAMES_PROJECTION_LOCK_TTL": "2"}
        self.config = Config(store_url=cluster.url, queue_url=queue_url, redis_prefix=self.namespace,
                             queue_name=f"{self.namespace}-projections", projections="rq", projection_lock_ttl=2)
        self.games = build_service(self.config, {"dynasties": DYNASTIES})
        self.processes: list[subprocess.Popen] = []
        self.webs: dict[str, subprocess.Popen] = {}
        self.workers: list[subprocess.Popen] = []
        self._turn = 0

    def _spawn(self, args: list[str], name: str) -> subprocess.Popen:
        with open(self.tmp_path / f"{name}-{len(self.processes)}.log", "wb") as log:
            process = subprocess.Popen([sys.executable, "-m", "service", *args], cwd=ROOT, env=self.env,
                                       stdout=log, stderr=log, start_new_session=True)
        self.processes.append(process)
        return process

    def start_web(self) -> str:
        port = _free_port()
        process = self._spawn(["serve", "--port", str(port), "--workers", "1"], "web")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "a web process did not start"
            time.sleep(0.1)
        self.webs[url] = process
        return url

    def start_worker(self) -> subprocess.Popen:
        worker = self._spawn(["worker"], "worker")
        self.workers.append(worker)
        return worker

    @property
    def urls(self) -> list[str]:
        return [url for url, process in self.webs.items() if process.poll() is None]

    @property
    def url(self) -> str:
        self._turn += 1
        urls = self.urls
        return urls[self._turn % len(urls)]

    def kill(self, process: subprocess.Popen) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=10)
        self.games.store.close()

    def wait_until_current(self, timeout: float = 60) -> None:
        runner = self.games.read_models.runner
        deadline = time.monotonic() + timeout
        while any(status["lag"] for status in runner.status_all()):
            assert time.monotonic() < deadline, [(s["name"], s["lag"]) for s in runner.status_all()]
            time.sleep(0.1)

    def assert_converged(self) -> None:
        runner = self.games.read_models.runner
        for name in runner.names:
            assert runner.model(name) == runner.replay(name), name
        for game in self.games.list_games():
            summary = self.games.load(game["id"]).summary()
            assert (game["status"], game["to_move"], game["version"]) == \
                (summary["status"], summary["to_move"], summary["version"])


@pytest.fixture
def deployment(cluster, redis_server_url, tmp_path):
    started = Deployment(cluster, redis_server_url, tmp_path)
    try:
        for _ in range(2):
            started.start_web()
            started.start_worker()
        yield started
    finally:
        started.stop()


def test_two_web_processes_and_two_workers_play_a_whole_game_and_the_read_models_converge(deployment):
    play_whole_game(deployment, seats=3, seed=7)
    deployment.wait_until_current()
    deployment.assert_converged()
    (listed,) = deployment.games.list_games()
    assert listed["status"] == "finished"
    board = requests.get(f"{deployment.url}/scoreboards/dynasties", timeout=10).json()
    assert board["total"] == 3 and {p["games_played"] for p in board["players"]} == {1}


def _keep_playing(deployment: Deployment, seed: int, stop: threading.Event, acked: list, errors: list) -> None:
    """Random games over HTTP until ``stop``; a request to a dead web process is retried on another."""
    rng = random.Random(seed)

    def call(method: str, path: str, session: requests.Session, **kwargs):
        for _ in range(20):
            try:
                answer = session.request(method, f"{deployment.url}{path}", timeout=10, **kwargs)
                if answer.status_code == 429:  # faster than the token's rate limit: wait as told, then again
                    time.sleep(min(1.0, float(answer.headers.get("Retry-After", "0.2"))))
                    continue
                return answer
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                if method == "POST" and (path == "/players" or "/commands" in path):
                    return None  # cut off: it may or may not have been made; look again (or sign up again)
                time.sleep(0.05)
        raise AssertionError(f"{method} {path}: no web process answered")

    try:
        while not stop.is_set():
            players = [call("POST", "/players", requests.Session(), json={"name": f"k{seed}-{i}"}) for i in range(2)]
            if any(p is None or p.status_code != 201 for p in players):  # a process killed mid-sign-up: again
                continue
            seats = [deployment.client(p.json()["token"]) for p in players]
            game = call("POST", "/games", seats[0], json={"type": "dynasties", "seats": 2}).json()["id"]
            for session in seats:
                call("POST", f"/games/{game}/join", session, json={})
            while not stop.is_set():
                summary = call("GET", f"/games/{game}", seats[0]).json()
                if summary["status"] == "finished":
                    break
                seat = rng.choice(summary["to_move"])
                legal = call("GET", f"/games/{game}/legal-commands", seats[seat]).json()["commands"]
                posted = call("POST", f"/games/{game}/commands", seats[seat], json=rng.choice(legal))
                if posted is None:
                    continue
                if posted.status_code == 201:
                    acked.append((game, posted.json()["version"]))
                elif posted.status_code != 409:  # a retried POST may find the move already made
                    errors.append(posted.text)
    except Exception as exc:  # reported by the test
        errors.append(repr(exc))


def test_kill_9_of_a_web_process_and_a_worker_loses_no_acknowledged_command(deployment):
    stop = threading.Event()
    acked: list[tuple[str, int]] = []
    errors: list[str] = []
    clients = [threading.Thread(target=_keep_playing, args=(deployment, seed, stop, acked, errors))
               for seed in range(3)]
    for client in clients:
        client.start()
    time.sleep(3)
    deployment.kill(deployment.workers[0])
    deployment.kill(next(iter(deployment.webs.values())))
    time.sleep(3)
    deployment.start_worker()  # a worker that starts repairs whatever the dead one left
    time.sleep(2)
    stop.set()
    for client in clients:
        client.join(60)
    assert not errors, errors[:3]
    assert len(acked) > 20, "the clients should have played on through the kills"
    for game, version in acked:
        assert deployment.games.store.version(f"game-{game}") >= version
    deployment.wait_until_current()
    deployment.assert_converged()
