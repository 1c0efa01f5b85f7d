"""GET /games/{id}/stream over real HTTP: Server-Sent Events read with requests while
other clients play. Every event arrives once and in order, a reconnect with
Last-Event-ID resumes without a gap or a repeat, and a seat never receives another
seat's secret."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from domain.kernel.events import Event
from service.api.app import create_app
from service.base.config import Config

pytestmark = pytest.mark.api

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, app, server):
        self.app = app
        self.url = f"http://127.0.0.1:{server.server_port}"
        self.server = server

    @property
    def games(self):
        return self.app.extensions["games"]


def start_server(store_url: str, **settings) -> Server:
    from werkzeug.serving import make_server

    settings = {"stream_poll": 0.02, "stream_heartbeat": 0.3, "stream_max_seconds": 60, **settings}
    config = Config(store_url=store_url, projections="inline", **settings)
    app = create_app(config)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return Server(app, server)


@pytest.fixture
def servers(tmp_path):
    """Two servers (two apps, two stores, two caches) over one SQLite file, as two processes would be."""
    started = [start_server(f"sqlite:///{tmp_path}/events.db") for _ in range(2)]
    yield started
    for server in started:
        server.server.shutdown()


class Listener(threading.Thread):
    """Reads one SSE stream in the background: events, comments, the end."""

    def __init__(self, url: str, token: str | None = None, last_event_id: int | None = None,
                 stop_after: int | None = None):
        super().__init__(daemon=True)
        self.url = url
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        if last_event_id is not None:
            self.headers["Last-Event-ID"] = str(last_event_id)
        self.stop_after = stop_after
        self.events: list[dict] = []
        self.ids: list[int] = []
        self.comments = 0
        self.ended: dict | None = None
        self.status: int | None = None
        self.content_type = ""
        self.error: BaseException | None = None
        self.connected = threading.Event()

    def run(self):
        try:
            with requests.get(self.url, headers=self.headers, stream=True, timeout=(5, 30)) as response:
                self.status = response.status_code
                self.content_type = response.headers.get("Content-Type", "")
                self.connected.set()
                if response.status_code != 200:
                    return
                buffer = ""
                for chunk in response.iter_content(chunk_size=None, decode_unicode=True):
                    buffer += chunk
                    while "\n\n" in buffer:
                        block, buffer = buffer.split("\n\n", 1)
                        self.message(block)
                        if self.ended or (self.stop_after is not None and len(self.events) >= self.stop_after):
                            return  # leaving the with block drops the connection
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.connected.set()

    def message(self, block: str):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                self.comments += 1
            elif line:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
        if fields.get("event") == "end":
            self.ended = requests.compat.json.loads(fields["data"])
        elif "data" in fields:
            event = requests.compat.json.loads(fields["data"])
            self.ids.append(int(fields["id"]))
            self.events.append(event)

    def wait_for(self, version: int, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while (not self.ids or self.ids[-1] < version) and self.error is None:
            assert time.monotonic() < deadline, f"stream stuck at {self.ids[-1:]} waiting for {version}"
            time.sleep(0.005)
        assert self.error is None, self.error


def player(server: Server, name: str) -> tuple[dict, requests.Session]:
    created = requests.post(f"{server.url}/players", json={"name": name}, timeout=10).json()
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {created['token']}"
    return created, session


def new_game(server: Server, seats: int = 2) -> tuple[str, list[tuple[dict, requests.Session]]]:
    clients = [player(server, f"p{i}") for i in range(seats)]
    game = clients[0][1].post(f"{server.url}/games", json={"type": "dynasties", "seats": seats}).json()
    return game["id"], clients


def join_all(server: Server, game_id: str, clients) -> list[tuple[dict, requests.Session]]:
    """Everyone takes a seat; returns the clients by seat (the game may seat them at random)."""
    for _, session in clients:
        assert session.post(f"{server.url}/games/{game_id}/join", json={}).status_code == 200
    seats = requests.get(f"{server.url}/games/{game_id}").json()["seats"]
    by_id = {p["id"]: (p, s) for p, s in clients}
    return [by_id[seat["player_id"]] for seat in seats]


def play(server: Server, game_id: str, by_seat, rng: random.Random, moves: int | None = None, after_each=None):
    """Random legal moves over HTTP (None: to the end); ``after_each(version)`` after every move."""
    played = 0
    while moves is None or played < moves:
        summary = requests.get(f"{server.url}/games/{game_id}").json()
        if summary["status"] == "finished":
            return summary
        seat = rng.choice(summary["to_move"])
        session = by_seat[seat][1]
        legal = session.get(f"{server.url}/games/{game_id}/legal-commands").json()["commands"]
        posted = session.post(f"{server.url}/games/{game_id}/commands", json=rng.choice(legal))
        assert posted.status_code == 201, posted.text
        played += 1
        if after_each:
            after_each(posted.json()["version"])
    return requests.get(f"{server.url}/games/{game_id}").json()


def stream_url(server: Server, game_id: str, after: int | None = None) -> str:
    return f"{server.url}/games/{game_id}/stream" + (f"?after={after}" if after is not None else "")


def test_seats_and_spectators_receive_every_event_live_in_order_once_and_never_anothers_secret(servers):
    watched, played_on = servers  # streams from one server while the moves go to the other
    game_id, clients = new_game(played_on, seats=3)
    tokens = {p["id"]: p["token"] for p, _ in clients}
    spectator = Listener(stream_url(watched, game_id))
    early = {pid: Listener(stream_url(watched, game_id), token) for pid, token in tokens.items()}
    for listener in [spectator, *early.values()]:
        listener.start()
        listener.connected.wait(5)
        assert listener.status == 200 and listener.content_type.startswith("text/event-stream")
    by_seat = join_all(played_on, game_id, clients)
    seat_of = {p["id"]: seat for seat, (p, _) in enumerate(by_seat)}
    listeners = [spectator, *early.values()]

    def in_lockstep(version):  # every stream has the move before the next is played
        for listener in listeners:
            listener.wait_for(version)

    final = play(played_on, game_id, by_seat, random.Random(5), after_each=in_lockstep)
    assert final["status"] == "finished"
    for listener in listeners:
        listener.join(10)
        assert listener.error is None and listener.ended == {"version": final["version"], "status": "finished"}
        assert listener.ids == list(range(1, final["version"] + 1))  # in order, each exactly once
        assert [e["version"] for e in listener.events] == listener.ids

    records = {r.version: r.event for r in played_on.games.store.read(f"game-{game_id}")}
    last_batch = records[final["version"]]["batch"]  # the move that ended the game reveals everything
    for pid, listener in [(None, spectator), *early.items()]:
        seat = seat_of.get(pid)
        for event in listener.events:
            stored = Event.from_json(records[event["version"]])
            assert event["type"] == stored.type and event["data"] == stored.data
            if event["version"] >= last_batch or stored.secret is None:
                continue
            if seat is not None and seat in stored.secret_to:
                assert event["secret"] == stored.secret
            else:
                assert "secret" not in event and event["redacted"] is True, (seat, event)


def test_a_reconnect_with_last_event_id_resumes_without_a_gap_or_a_repeat(servers):
    server = servers[0]
    game_id, clients = new_game(server)
    by_seat = join_all(server, game_id, clients)
    rng = random.Random(8)
    play(server, game_id, by_seat, rng, moves=6)
    token = by_seat[0][0]["token"]
    first = Listener(stream_url(server, game_id), token, stop_after=7)
    first.start()
    first.join(10)
    assert first.ids == list(range(1, 8)) and first.error is None
    play(server, game_id, by_seat, rng, moves=4)  # moves made while disconnected
    second = Listener(stream_url(server, game_id, after=2), token, last_event_id=first.ids[-1])  # the header wins
    second.start()
    final = play(server, game_id, by_seat, rng)
    second.join(20)
    assert second.error is None and second.ended
    assert first.ids + second.ids == list(range(1, final["version"] + 1))


def test_after_starts_a_first_connection_part_way(servers):
    server = servers[0]
    game_id, clients = new_game(server)
    by_seat = join_all(server, game_id, clients)
    final = play(server, game_id, by_seat, random.Random(3))
    listener = Listener(stream_url(server, game_id, after=final["version"] - 3))
    listener.start()
    listener.join(10)
    assert listener.ids == [final["version"] - 2, final["version"] - 1, final["version"]] and listener.ended


def test_a_quiet_stream_sends_heartbeats(servers):
    server = servers[0]
    game_id, _ = new_game(server)
    listener = Listener(stream_url(server, game_id))
    listener.start()
    deadline = time.monotonic() + 5
    while listener.comments < 2:
        assert time.monotonic() < deadline and listener.error is None
        time.sleep(0.05)
    assert listener.ids == [1] and listener.ended is None  # GameCreated, then only heartbeats


@pytest.mark.parametrize("path,headers,status,code", [
    ("/games/0123456789abcdef/stream", {}, 404, "not_found"),
    ("/games/{game}/stream", {"Last-Event-ID": "seven"}, 422, "invalid_input"),
    ("/games/{game}/stream?after=-1", {}, 422, "invalid_input"),
    ("/games/{game}/stream", {"Authorization": "Bearer not-a-token"}, 401, "unauthorized"),
])
def test_a_stream_that_cannot_start_answers_with_a_problem(servers, path, headers, status, code):
    server = servers[0]
    game_id, _ = new_game(server)
    response = requests.get(server.url + path.format(game=game_id), headers=headers, timeout=10)
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == code


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_one_gevent_worker_holds_many_open_streams_and_still_answers(tmp_path):
    """`python -m service serve` runs gunicorn's gevent worker: 60 open streams, one worker."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_STREAM_HEARTBEAT": "0.5", "GAMES_PROJECTIONS": "inline"}
    with open(tmp_path / "server.log", "wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "service", "serve", "--port", str(port), "--workers", "1",
                                   "--store", f"sqlite:///{tmp_path}/events.db"],
                                  cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if requests.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):  # the worker may still be booting
                pass
            assert time.monotonic() < deadline, (tmp_path / "server.log").read_text()[-3000:]
            time.sleep(0.1)
        created = requests.post(f"{url}/players", json={"name": "host"}, timeout=10).json()
        game = requests.post(f"{url}/games", json={"type": "dynasties", "seats": 2},
                             headers={"Authorization": f"Bearer {created['token']}"}, timeout=10).json()
        listeners = [Listener(f"{url}/games/{game['id']}/stream") for _ in range(60)]
        for listener in listeners:
            listener.start()
        deadline = time.monotonic() + 15
        while not all(listener.comments for listener in listeners):
            assert time.monotonic() < deadline, "not every stream got a heartbeat"
            time.sleep(0.1)
        started = time.monotonic()
        assert requests.get(f"{url}/games/{game['id']}", timeout=5).status_code == 200
        assert time.monotonic() - started < 2
        assert all(listener.ids == [1] and listener.error is None for listener in listeners)
    finally:
        os.killpg(server.pid, signal.SIGINT)  # gunicorn's quick shutdown: streams are still open
        server.wait(timeout=15)


def test_a_stream_the_server_ends_after_its_time_is_resumed_by_the_client(tmp_path):
    server = start_server(f"sqlite:///{tmp_path}/short.db", stream_max_seconds=0.5)
    try:
        game_id, clients = new_game(server)
        first = Listener(stream_url(server, game_id))
        first.start()
        first.join(5)
        assert not first.is_alive() and first.error is None and first.ended is None  # closed without `end`
        by_seat = join_all(server, game_id, clients)
        rng = random.Random(4)
        play(server, game_id, by_seat, rng, moves=3)
        second = Listener(stream_url(server, game_id), last_event_id=first.ids[-1])
        second.start()
        second.join(5)
        version = requests.get(f"{server.url}/games/{game_id}").json()["version"]
        assert first.ids + second.ids == list(range(1, version + 1))
    finally:
        server.server.shutdown()


def test_one_store_poll_serves_every_open_stream_of_a_process(tmp_path):
    server = start_server(f"sqlite:///{tmp_path}/fanout.db", stream_poll=0.05)
    store = server.games.store
    calls = {"read": 0, "log_heads": 0}
    for name in calls:
        original = getattr(store, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        setattr(store, name, counted)
    try:
        game_id, clients = new_game(server)
        listeners = [Listener(stream_url(server, game_id)) for _ in range(20)]
        for listener in listeners:
            listener.start()
        for listener in listeners:
            listener.wait_for(1)  # open, and through its backlog (the game's first event)
        assert server.games.live_hub.open_streams == 20
        calls.update(read=0, log_heads=0)
        time.sleep(1.0)
        assert calls["read"] == 0  # no stream reads the store on its own
        assert 5 <= calls["log_heads"] <= 40  # one poll per 0.05 s for all 20 streams, not 20 per 0.05 s
        by_seat = join_all(server, game_id, clients)
        play(server, game_id, by_seat, random.Random(5), moves=3)
        version = requests.get(f"{server.url}/games/{game_id}").json()["version"]
        for listener in listeners:
            listener.wait_for(version)
            assert listener.ids == list(range(1, version + 1))
    finally:
        server.server.shutdown()
