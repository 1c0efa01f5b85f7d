"""The compose deployment's split, for real: nginx (deploy/nginx/default.conf.template) in
front of ``serve --server granian`` for the API and ``serve --server gevent`` for the live
streams, over one store. A move made through the front reaches a stream opened through
the front; a stream whose client went away frees its slot within the hub's check (granian
alone would notice only at the next write); nginx's and granian's own refusals reach the
client as problem+json. Needs the ``nginx`` binary (apt-get install -y nginx)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from tests.reliability.conftest import free_port
from tests.reliability.test_bad_input import raw_request
from tests.reliability.test_limits import open_stream
from tests.reliability.test_open_streams import (
    BOUND,
    QUIET,
    _ended_within,
    _play_one,
    _started_game,
    assert_closed_streams_free_their_slots,
)

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "nginx" / "default.conf.template"
TABS = 6

if shutil.which("nginx") is None and os.environ.get("REQUIRE_NGINX") == "1":  # CI installs it: no silent skip there
    raise RuntimeError("REQUIRE_NGINX=1 but the nginx binary is not on PATH (apt-get install -y nginx)")
pytestmark = pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (apt-get install -y nginx)")


@pytest.fixture()
def front(server_process, tmp_path):
    """(the front's url, its port): nginx, granian for the API, gevent for the streams."""
    store = f"sqlite:///{tmp_path}/events.db"
    env = {**QUIET, "GAMES_LIMIT_STREAMS_PER_TOKEN": str(TABS), "GAMES_PROXY_HOPS": "1"}
    api = server_process(store, env=env, extra_args=("--server", "granian", "--connections", "4"))  # as compose
    streams = server_process(store, env=env, extra_args=("--server", "gevent"))
    port = free_port()
    site = TEMPLATE.read_text().replace("${GAMES_API_UPSTREAM}", f"127.0.0.1:{api.port}") \
        .replace("${GAMES_STREAMS_UPSTREAM}", f"127.0.0.1:{streams.port}") \
        .replace("listen 8000;", f"listen 127.0.0.1:{port};")
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"worker_processes 1;\npid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/nginx-error.log;\n"
        "events { worker_connections 1024; }\n"
        f"http {{ access_log off; client_body_temp_path {tmp_path}/body; proxy_temp_path {tmp_path}/proxy;\n"
        f"  include {tmp_path}/site.conf; }}\n")
    nginx = subprocess.Popen(["nginx", "-c", f"{tmp_path}/nginx.conf", "-p", f"{tmp_path}/", "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            if requests.get(f"{url}/health", timeout=1).status_code == 200:
                break
        except requests.RequestException:
            pass
        assert nginx.poll() is None and time.monotonic() < deadline, "nginx did not start"
        time.sleep(0.1)
    yield url, port
    nginx.terminate()
    nginx.wait(10)


def _ids_until(sock, stop, seconds: float) -> tuple[list[int], bytes]:
    """The SSE ids read from ``sock`` until ``stop(ids)`` or ``seconds`` pass."""
    sock.settimeout(0.2)
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ids = [int(i) for i in re.findall(rb"(?m)^id: (\d+)", seen)]
        if stop(ids):
            break
        try:
            seen += sock.recv(65536)
        except TimeoutError:
            pass
    return [int(i) for i in re.findall(rb"(?m)^id: (\d+)", seen)], seen


def test_a_move_through_the_front_reaches_a_stream_through_the_front(front):
    url, port = front
    game_id, ann, bob = _started_game(url)
    sock, status = open_stream(port, f"/games/{game_id}/stream", ann["token"])
    assert status == 200
    version = requests.get(f"{url}/games/{game_id}", timeout=10).json()["version"]
    backlog, _ = _ids_until(sock, lambda ids: bool(ids) and max(ids) >= version, 10)  # the events so far
    assert backlog and max(backlog) == version, f"the stream sent {backlog} of the game's {version} events"
    _play_one(url, game_id, [ann["token"], bob["token"]])
    after, seen = _ids_until(sock, lambda ids: bool(ids), 5)
    sock.close()
    assert after and min(after) > max(backlog), seen[-500:]


def test_a_closed_stream_frees_its_slot_through_the_front(front):
    url, port = front
    assert_closed_streams_free_their_slots(url, port, TABS)


def test_a_stream_ends_through_the_front_when_its_token_is_revoked(front):
    url, port = front
    game_id, ann, _ = _started_game(url)
    sock, status = open_stream(port, f"/games/{game_id}/stream", ann["token"])
    assert status == 200
    revoked = requests.delete(f"{url}/players/me/token", headers={"Authorization": f"Bearer {ann['token']}"},
                              timeout=10)
    assert revoked.status_code < 300, revoked.text[:300]
    assert _ended_within(sock, BOUND + 2) is not None
    sock.close()


REFUSALS = [
    (b"GET /games?type=" + b"x" * 10_000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 414),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " + b"v" * 10_000 + b"\r\n\r\n", 431),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
     + b"".join(b"X-H%d: v\r\n" % i for i in range(200)) + b"\r\n", 431),  # granian's (hyper's) own refusal
    (b"GET /health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n", 400),  # nginx: 505, made 400
    (b"GET /\x00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
    (b"BREW /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
]


@pytest.mark.parametrize(("request_bytes", "status"), REFUSALS, ids=lambda v: str(v)[:20])
def test_the_fronts_and_the_servers_own_refusals_are_problem_json(front, request_bytes, status):
    _, port = front
    got, headers, body = raw_request(port, request_bytes)
    assert got == status, body[:300]
    assert headers["content-type"] == "application/problem+json", body[:300]


def test_a_granian_worker_killed_with_9_is_replaced(server_process, tmp_path):
    """As gunicorn's master does: the server answers again after one of its workers died."""
    server = server_process(f"sqlite:///{tmp_path}/events.db", workers=2, extra_args=("--server", "granian"))
    workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True,
                                              text=True).stdout.split()]
    ours = ("project", "background")  # serve's own children on SQLite: the projector and the background process
    granian_workers = [p for p in workers
                       if not any(name in Path(f"/proc/{p}/cmdline").read_bytes().decode() for name in ours)]
    assert len(granian_workers) == 2, workers
    os.kill(granian_workers[0], signal.SIGKILL)
    deadline = time.monotonic() + 15
    while True:  # every answer a 200 again, from both workers' share of the connections
        time.sleep(0.5)
        alive = [int(p) for p in subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True,
                                                text=True).stdout.split()]
        replaced = granian_workers[0] not in alive and len(alive) == len(workers)
        if replaced:
            break
        assert server.proc.poll() is None, f"granian stopped when a worker died: {server.log_tail()}"
        assert time.monotonic() < deadline, f"the worker was not replaced: {alive}"
    statuses = {requests.get(f"{server.url}/health", timeout=5).status_code for _ in range(20)}
    assert statuses == {200}
