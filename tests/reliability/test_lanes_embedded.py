"""Lanes on the embedded store: the web process runs no background work; the background
process (``python -m service background``, which ``serve`` supervises) tails a real SQLite
file and plays the bots, runs the clocks and delivers the webhooks, each with threads of its
own: a webhook receiver that never answers delays neither a bot nor a clock of another game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import requests

from service.base.config import Config
from service.wiring.bootstrap import build_service
from tests.helpers.lanes import BlackHole, lanes_hold

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def embedded(tmp_path):
    url = f"sqlite:///{tmp_path / 'events.db'}"
    config = Config(store_url=url, projections="inline", background="process", webhook_allow=("127.0.0.1/32",))
    service = build_service(config)  # as a web process builds it: no bot lane, no timer, no deliveries here
    assert service.bots.driver is None
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_BOT_THINK_SECONDS": "0.3",
           "GAMES_WEBHOOK_ALLOW": "127.0.0.1/32", "GAMES_BOT_SEARCH_PROCESSES": "1"}
    with open(tmp_path / "background.log", "wb") as log:
        background = subprocess.Popen([sys.executable, "-m", "service", "background", "--store", url], cwd=ROOT,
                                      env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    deadline = time.monotonic() + 30
    while service.store.load_checkpoints("background-tail") is None:  # it follows the log from here on
        assert background.poll() is None and time.monotonic() < deadline, (tmp_path / "background.log").read_text()
        time.sleep(0.1)
    yield service, tmp_path / "background.log", background.pid
    os.killpg(background.pid, signal.SIGKILL)
    background.wait(timeout=10)


def test_a_receiver_that_never_answers_delays_no_bot_and_no_clock_of_another_game(embedded):
    service, log, pid = embedded
    hole = BlackHole()
    try:
        seen = lanes_hold(service, hole, patience=8.0)
    finally:
        hole.close()
    # the decisions ran in processes of their own, at a lower priority than the clocks' and webhooks'
    # threads: nice 10 (as far as 19 allows) and, on Linux, the idle scheduling policy
    background = psutil.Process(pid)
    assert background.nice() == psutil.Process().nice()
    searchers = [child for child in background.children(recursive=True)
                 if child.nice() >= min(19, psutil.Process().nice() + 10)]
    assert searchers
    if hasattr(os, "SCHED_IDLE"):
        assert os.sched_getscheduler(background.pid) == os.sched_getscheduler(0)  # kept what it was started with
        assert all(os.sched_getscheduler(child.pid) == os.SCHED_IDLE for child in searchers)
    assert seen["held"] >= 1
    assert len(seen["bot_replies"]) >= 3 and max(seen["bot_replies"]) < 5.0, seen
    assert seen["timeout_lateness"] < 2.5, seen
    assert "bot-decision game=" in log.read_text()  # the background process made the moves


def test_serve_answers_quickly_while_hard_bots_think_and_their_moves_arrive(server_process, tmp_path):
    """``serve`` on SQLite (gevent web workers, its projector and its background process):
    while three tree-search bots at their hardest level think, another client's ``/health``
    stays fast, because no search runs in a web process; and the bots' moves arrive."""
    server = server_process(f"sqlite:///{tmp_path / 'events.db'}", env={"GAMES_BOT_THINK_SECONDS": "0"})
    token = requests.post(f"{server.url}/players", json={"name": "person"}, timeout=10).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    games = []
    for _ in range(3):
        created = requests.post(f"{server.url}/games", headers=auth, timeout=10, json={
            "type": "dynasties", "seats": 2, "options": {"starting_gold": 30},
            "bots": [{"kind": "mcts", "level": "hard"}]}).json()
        assert requests.post(f"{server.url}/games/{created['id']}/join", headers=auth, json={},
                             timeout=10).status_code == 200
        games.append(created["id"])

    def bot_moves(game_id: str) -> int:
        events = requests.get(f"{server.url}/games/{game_id}/events", headers=auth, timeout=10).json()["events"]
        return sum(1 for event in events if event.get("bot"))

    def my_move(game_id: str) -> bool:
        legal = requests.get(f"{server.url}/games/{game_id}/legal-commands", headers=auth, timeout=10).json()
        if not legal["commands"]:
            return False
        posted = requests.post(f"{server.url}/games/{game_id}/commands", headers=auth, timeout=10,
                               json={**legal["commands"][0], "expected_version": legal["version"]})
        return posted.status_code == 201

    waits: list[float] = []
    deadline = time.monotonic() + 90
    while not all(bot_moves(g) >= 2 for g in games):
        assert time.monotonic() < deadline, [bot_moves(g) for g in games]
        for game_id in games:
            my_move(game_id)
        for _ in range(10):  # another client, meanwhile
            started = time.perf_counter()
            assert requests.get(f"{server.url}/health", timeout=10).status_code == 200
            waits.append(time.perf_counter() - started)
            time.sleep(0.02)
    waits.sort()
    assert waits[int(len(waits) * 0.99) - 1] < 0.5, waits[-10:]
