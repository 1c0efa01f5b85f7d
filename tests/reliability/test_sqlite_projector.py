"""``serve`` on SQLite runs the projections in a projector process of their own
(``service.running.projector``): appends ask nothing of the web workers, the read models still
become current without any read asking, a projector killed -9 mid-play is replaced by the
running server (and when the server itself restarts), and the models end exactly as a clean
replay makes them."""

from __future__ import annotations

import os
import signal
import time

import psutil
import requests

from service.background.projections_runner import ProjectionRunner
from service.base.config import Config
from service.wiring.stores import open_store
from tests.reliability.conftest import ServerProcess


def _play(url: str, moves: int) -> None:
    players = [requests.post(f"{url}/players", json={"name": f"p{i}"}, timeout=10).json() for i in range(2)]
    sessions = []
    for player in players:
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {player['token']}"
        sessions.append(session)
    game = sessions[0].post(f"{url}/games", json={"type": "dynasties", "seats": 2}, timeout=10).json()["id"]
    for session in sessions:
        assert session.post(f"{url}/games/{game}/join", json={}, timeout=10).status_code == 200
    by_id = {p["id"]: s for p, s in zip(players, sessions, strict=True)}
    for _ in range(moves):
        summary = requests.get(f"{url}/games/{game}", timeout=10).json()
        if summary["status"] == "finished":
            return
        session = by_id[summary["seats"][summary["to_move"][0]]["player_id"]]
        command = session.get(f"{url}/games/{game}/legal-commands", timeout=10).json()["commands"][0]
        assert session.post(f"{url}/games/{game}/commands", json=command, timeout=10).status_code == 201


def _projector(server: ServerProcess) -> psutil.Process:
    found = [p for p in psutil.Process(server.proc.pid).children(recursive=True)
             if "project" in p.cmdline()]
    assert len(found) == 1, [p.cmdline() for p in psutil.Process(server.proc.pid).children(recursive=True)]
    return found[0]


def _current(runner: ProjectionRunner, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while any(runner.lag(name) for name in runner.names):
        assert time.monotonic() < deadline, {name: runner.lag(name) for name in runner.names}
        time.sleep(0.1)


def test_serve_on_sqlite_keeps_the_projections_in_a_projector_process(server_process, tmp_path):
    store_url = f"sqlite:///{tmp_path}/events.db"
    server = server_process(store_url, workers=2)
    _projector(server)
    runner = ProjectionRunner(open_store(Config(store_url=store_url)))
    _play(server.url, 30)
    _current(runner)  # no read of a projection asked: the projector did it

    killed = _projector(server)
    os.kill(killed.pid, signal.SIGKILL)
    _play(server.url, 20)
    deadline = time.monotonic() + 20
    while True:  # the server starts another projector, which catches up with no read asking
        try:
            again = _projector(server)
            if again.pid != killed.pid:
                break
        except (AssertionError, psutil.NoSuchProcess):
            pass
        assert time.monotonic() < deadline, "no projector was started again"
        time.sleep(0.1)
    _current(runner)
    os.kill(_projector(server).pid, signal.SIGKILL)  # killed again mid-play, and the server with it
    _play(server.url, 10)
    server.kill()
    server.start()
    _current(runner)
    for name in runner.names:
        assert runner.model(name) == runner.replay(name), name


def test_a_projector_that_keeps_dying_is_started_again_with_growing_pauses():
    import sys

    from service.running.supervision import RESTART_FIRST, Supervised

    projector = Supervised({}, command=[sys.executable, "-c", "raise SystemExit(3)"])
    projector.start()
    try:
        time.sleep(RESTART_FIRST * 2 + RESTART_FIRST * 4 + 1.0)  # room for the pauses 1 s and 2 s at most
        assert 1 <= projector.restarts <= 3, projector.restarts  # not every 0.2 s: the pause doubled
    finally:
        projector.stop()
    stopped_at = projector.restarts
    time.sleep(1.5)
    assert projector.restarts == stopped_at, "a stopped projector is not started again"
