"""The scene of the lane tests: a receiver that never answers, subscribed to one game, while
a person plays against a bot in another and a turn clock runs out in a third."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from domain.kernel.clocks import CLOCK_STARTED, CLOCK_TIMED_OUT, seconds_between
from service.streams.envelopes import stream_of


class BlackHole:
    """A TCP server that accepts every connection and never answers a byte."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"
        self.held: list[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.server.close()
        for conn in self.held:
            conn.close()


def seated(service: Any, game_id: str, players: list[dict]) -> list[dict]:
    table = service.load(game_id).table
    by_id = {p["id"]: p for p in players}
    return [by_id.get(table.players[s]) for s in range(table.seats)]


def two_seat_game(service: Any, names: tuple[str, str], options: dict) -> tuple[str, list[dict]]:
    first, second = service.players.create(names[0]), service.players.create(names[1])
    game = service.create_game(first, "dynasties", options, 2)
    service.join_game(game.id, first)
    service.join_game(game.id, second)
    return game.id, seated(service, game.id, [first, second])


def move(service: Any, game_id: str, players: list[dict]) -> bool:
    """The first legal command of the first seat asked; False when nobody is."""
    game = service.load(game_id)
    if game.over:
        return False
    for seat in game.rules.to_move(game.state):
        if players[seat] is not None:
            service.submit_command(game_id, players[seat], game.rules.legal_commands(game.state, seat)[0])
            return True
    return False


def bot_replies(service: Any, person: dict, moves: int, patience: float) -> list[float]:
    """A person plays ``moves`` moves against a greedy bot; the seconds each bot reply took
    (from the person's move to the person's next prompt)."""
    game = service.create_game(person, "dynasties", {"starting_gold": 30}, 2, bots=[{"kind": "greedy"}])
    service.join_game(game.id, person)
    seat = service.load(game.id).table.seat_of(person["id"])
    replies: list[float] = []
    asked_at = time.monotonic()
    while len(replies) < moves:
        game_now = service.load(game.id)
        if game_now.over:
            break
        if seat in game_now.rules.to_move(game_now.state):
            if replies or asked_at:
                replies.append(time.monotonic() - asked_at)
            service.submit_command(game.id, person, game_now.rules.legal_commands(game_now.state, seat)[0])
            asked_at = time.monotonic()
        else:
            assert time.monotonic() - asked_at < patience, f"the bot kept the person waiting {patience} s"
            time.sleep(0.05)
    return replies[1:]  # the first is the game's start, not a reply


def timeout_lateness(service: Any, game_id: str) -> float | None:
    """Seconds from the deadline of the clock that ran out to its ClockTimedOut being stored."""
    deadlines: dict[int, str] = {}
    for record in service.store.read(stream_of(game_id)):
        data = record.event["data"]
        if record.event["type"] == CLOCK_STARTED:
            deadlines[data["version"]] = data["deadline"]
        elif record.event["type"] == CLOCK_TIMED_OUT:
            return seconds_between(deadlines[data["started_version"]], record.event["at"])
    return None


def lanes_hold(service: Any, hole: BlackHole, patience: float = 8.0) -> dict[str, Any]:
    """Webhooks of one game pile up on a receiver that never answers; meanwhile a bot in
    another game answers within ``patience`` seconds each time, and a 3 s clock in a third
    game runs out within ``patience`` seconds of its deadline."""
    carl, dave = service.players.create("carl"), service.players.create("dave")
    service.webhooks.subscribe(carl["id"], hole.url, "my_games")
    game_a = service.create_game(carl, "dynasties", {"starting_gold": 30}, 2)
    service.join_game(game_a.id, carl)
    service.join_game(game_a.id, dave)
    players_a = seated(service, game_a.id, [carl, dave])
    for _ in range(6):  # each of these events is a delivery to the black hole
        move(service, game_a.id, players_a)
    deadline = time.monotonic() + 30
    while hole.accepted == 0:  # the webhooks' lane is stuck on it now
        assert time.monotonic() < deadline, "no delivery reached the receiver"
        time.sleep(0.1)
    game_c, players_c = two_seat_game(service, ("fay", "gus"), {"starting_gold": 30, "clock_bank_seconds": 3})
    move(service, game_c, players_c)  # the other seat's 3 s start now; nobody answers
    clock_started = time.monotonic()
    replies = bot_replies(service, service.players.create("eve"), 4, patience)
    while timeout_lateness(service, game_c) is None:
        assert time.monotonic() - clock_started < 3 + patience, "the clock's timeout did not act in time"
        time.sleep(0.05)
    return {"bot_replies": replies, "timeout_lateness": timeout_lateness(service, game_c), "held": hole.accepted}


class LaneWorkers:
    """``python -m service worker --lanes LANE`` processes, one per lane, on one Redis namespace."""

    def __init__(self, url: str, config: Any, env: dict[str, str], root: Any, logs: Any):
        self.url, self.config, self.env, self.root, self.logs = url, config, env, root, logs
        self.processes: dict[str, Any] = {}
        self.started = 0

    def start(self, lane: str) -> None:
        import subprocess
        import sys

        self.started += 1
        with open(self.logs / f"worker-{lane}-{self.started}.log", "wb") as log:
            self.processes[lane] = subprocess.Popen(
                [sys.executable, "-m", "service", "worker", "--store", self.url, "--queue", self.config.queue_name,
                 "--lanes", lane], cwd=self.root, env=self.env, stdout=subprocess.DEVNULL, stderr=log,
                start_new_session=True)

    def kill(self, lane: str) -> None:
        import os
        import signal

        process = self.processes.pop(lane)
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)

    def stop(self) -> None:
        for lane in list(self.processes):
            self.kill(lane)
