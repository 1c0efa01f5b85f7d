"""Fixtures of the reliability suite: live servers with the settings a test needs (real
SQLite files, a real Redis), `python -m service serve` as a real process, and a private
redis-server that a test may kill and restart."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
import requests

from service.api.app import create_app
from service.base.config import Config
from tests.api.conftest import LiveServer, serve

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def make_server(tmp_path):
    """``make_server(**config)``: a live werkzeug server over its own SQLite file (or the
    given store), with any Config field overridden."""
    servers = []

    def make(**overrides) -> LiveServer:
        settings = {"store_url": f"sqlite:///{tmp_path}/events-{len(servers)}.db", "projections": "inline",
                    "stream_max_seconds": 0.1, **overrides}
        app = create_app(Config(**settings))
        server = serve(app)
        servers.append(server)
        return LiveServer(f"http://127.0.0.1:{server.server_port}", app)

    yield make
    for server in servers:
        server.shutdown()


@dataclass
class ServerProcess:
    """``python -m service serve`` (gunicorn, gevent workers) as a child process."""

    store: str
    env: dict[str, str] = field(default_factory=dict)
    workers: int | None = 1
    log_path: Path | None = None
    port: int = 0
    proc: subprocess.Popen | None = None
    extra_args: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait: bool = True) -> ServerProcess:
        self.port = self.port or free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), **self.env}
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service", "serve", "--port", str(self.port),
             *(["--workers", str(self.workers)] if self.workers else []), "--store", self.store, *self.extra_args],
            cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if requests.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start (exit {self.proc.poll()}): {self.log_tail()}")
            time.sleep(0.1)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path and self.log_path.exists() else ""

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=20)

    def stop(self) -> None:
        self.kill(signal.SIGINT)


@pytest.fixture
def server_process(tmp_path):
    """``server_process(store, env=..., workers=...)``: started; stopped (SIGINT) at the end."""
    started: list[ServerProcess] = []

    def start(store: str, **kwargs) -> ServerProcess:
        server = ServerProcess(store, log_path=tmp_path / f"server-{len(started)}.log", **kwargs)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        try:
            server.stop()
        except subprocess.TimeoutExpired:
            server.kill()


class PrivateRedis:
    """A redis-server of this test's own on a spare port, which the test may kill and restart."""

    def __init__(self, workdir: Path, appendonly: bool = False):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.workdir = workdir
        self.appendonly = appendonly
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly \
            else ["--appendonly", "no"]
        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      *persistence, "--dir", str(self.workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while True:
            try:
                if redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping():
                    return self
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)


@pytest.fixture
def private_redis():
    """``private_redis(appendonly=False)``: a started redis-server of the test's own."""
    if shutil.which("redis-server") is None:
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail("REQUIRE_REDIS=1 but redis-server is not on PATH")
        pytest.skip("redis-server is not on PATH")
    made: list[PrivateRedis] = []

    def start(appendonly: bool = False) -> PrivateRedis:
        server = PrivateRedis(Path(tempfile.mkdtemp(prefix="redis-rel-")), appendonly)
        made.append(server)
        return server.start()

    yield start
    for server in made:
        server.resume() if server.proc and server.proc.poll() is None else None
        server.kill()
        shutil.rmtree(server.workdir, ignore_errors=True)


def namespace() -> str:
    return f"rel-{uuid.uuid4().hex[:10]}"
