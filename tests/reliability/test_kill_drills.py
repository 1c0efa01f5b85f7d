"""Kill -9 drills: the server (and Redis) killed mid-load and restarted; no acknowledged
command is lost and none is applied twice.

Each client plays games of its own through `python -m service serve` (two gunicorn
workers), posting every command with an Idempotency-Key. A command whose POST dies with the
server is sent again, with the same key, once the server is back: the answer is then the
first one (it had been stored) or the command acts now (it had not). Afterwards every
acknowledged answer must be in the store as answered, and each game must hold exactly one
move per acknowledged key.

The quick drills run in `make test`; the long ones (more clients, several kills) are marked
``drill``: `make drills` (``pytest -m drill tests/reliability``).
"""

from __future__ import annotations

import threading
import time

import pytest
import requests

from tests.reliability.conftest import namespace

ENV = {"GAMES_LIMITS": "off", "GAMES_PROJECTIONS": "inline", "GAMES_STORE_TIMEOUT": "2"}


class Client(threading.Thread):
    def __init__(self, url: str, label: str, stop: threading.Event):
        super().__init__(daemon=True)
        self.url, self.label, self.stop = url, label, stop
        self.acked: dict[str, dict] = {}  # key -> its (first) answer
        self.keys: dict[str, str] = {}  # key -> game id
        self.games: list[str] = []
        self.retried = 0
        self.error: str | None = None

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        """Through connection errors and 503s (the server or its store is restarting). A call
        that met the kill counts as retried too: with a fast POST, the kill often lands
        while every client is between posts, and the drill must still count as one."""
        deadline = time.monotonic() + 90
        failed = False
        while True:
            try:
                answer = requests.request(method, f"{self.url}{path}", timeout=10, **kwargs)
                if answer.status_code != 503:
                    return answer
            except requests.RequestException:
                pass
            if not failed:
                self.retried += 1
                failed = True
            if time.monotonic() > deadline:
                raise AssertionError(f"{method} {path}: the server did not come back")
            time.sleep(0.1)

    def new_game(self) -> tuple[str, dict[str, str]]:
        number = len(self.games)
        tokens = {}
        for i in range(2):
            # a registration retried after a kill may create a second player: harmless here
            player = self.call("POST", "/players", json={"name": f"{self.label}-{number}-{i}"}).json()
            tokens[player["id"]] = player["token"]
        first = next(iter(tokens.values()))
        game = self.call("POST", "/games", json={"type": "dynasties", "seats": 2}, headers={
            "Authorization": f"Bearer {first}", "Idempotency-Key": f"{self.label}-game-{number}"}).json()
        for token in tokens.values():
            self.call("POST", f"/games/{game['id']}/join", json={}, headers={"Authorization": f"Bearer {token}"})
        self.games.append(game["id"])
        return game["id"], tokens

    def run(self):
        try:
            game_id, tokens = self.new_game()
            n = 0
            while not self.stop.is_set():
                game = self.call("GET", f"/games/{game_id}").json()
                if game["status"] == "finished":
                    game_id, tokens = self.new_game()
                    continue
                seat = game["to_move"][0]
                auth = {"Authorization": f"Bearer {tokens[game['seats'][seat]['player_id']]}"}
                legal = self.call("GET", f"/games/{game_id}/legal-commands", headers=auth).json()
                key = f"{self.label}-{n}"
                n += 1
                self.keys[key] = game_id
                self.acked[key] = self.post(game_id, legal["commands"][0], auth, key)
        except Exception as exc:  # reported by the test
            self.error = repr(exc)

    def post(self, game_id: str, command: dict, auth: dict, key: str) -> dict:
        failed = False
        deadline = time.monotonic() + 90
        while True:
            try:
                answer = requests.post(f"{self.url}/games/{game_id}/commands", json=command,
                                       headers={**auth, "Idempotency-Key": key}, timeout=10)
                if answer.status_code != 503:
                    assert answer.status_code == 201, (key, answer.status_code, answer.text)
                    return answer.json()
            except requests.RequestException:
                pass
            if not failed:
                self.retried += 1
                failed = True
            assert time.monotonic() < deadline, f"{key}: the server did not come back"
            time.sleep(0.1)


def stored_events(url: str, game_id: str) -> list[dict]:
    """Every event of a game as a spectator reads it, page by page; none for a game the
    store does not know (its creation lost, as a failover with the replica setting off may
    lose it: every acknowledged move of it then counts as lost)."""
    events: list[dict] = []
    after = 0
    while True:
        answer = requests.get(f"{url}/games/{game_id}/events?after={after}&limit=1000", timeout=10)
        if answer.status_code == 404 and after == 0:
            return []
        assert answer.status_code == 200, (answer.status_code, answer.text)
        page = answer.json()
        events += page["events"]
        if page["next_after"] is None:
            return events
        after = page["next_after"]


def verify(url: str, clients: list[Client]) -> dict[str, int]:
    """Every acknowledged answer is stored as answered; each game has one move per key."""
    lost = doubled = acked = 0
    for client in clients:
        assert client.error is None, client.error
        by_game: dict[str, list[dict]] = {}
        for key, answer in client.acked.items():
            by_game.setdefault(client.keys[key], []).append(answer)
        for game_id in client.games:
            events = stored_events(url, game_id)
            stored = {e["version"]: e for e in events}
            answers = by_game.get(game_id, [])
            acked += len(answers)
            for answer in answers:
                for event in answer["events"]:
                    mine = stored.get(event["version"])
                    if mine is None or (mine["type"], mine["data"]) != (event["type"], event["data"]):
                        lost += 1
                        break
            moves = {e["version"] for e in events if e["source"] == "game" and e["actor"] is not None}
            answered = {e["version"] for a in answers for e in a["events"] if e["actor"] is not None}
            doubled += len(moves - answered)  # a stored move that no acknowledged key accounts for
    return {"acknowledged": acked, "lost": lost, "doubled": doubled,
            "retried": sum(c.retried for c in clients)}


def drill(server, clients_count: int, kills: int, seconds_between: float, restart_store=None) -> dict[str, int]:
    stop = threading.Event()
    clients = [Client(server.url, f"c{i}", stop) for i in range(clients_count)]
    for client in clients:
        client.start()
    for _ in range(kills):
        time.sleep(seconds_between)
        server.kill()  # SIGKILL to the whole process group: master and workers
        if restart_store is not None:
            restart_store()
        server.start()
    time.sleep(seconds_between)
    stop.set()
    for client in clients:
        client.join(120)
    result = verify(server.url, clients)
    result["kills"] = kills
    print(f"kill -9 drill: {result}")
    return result


def test_kill_9_of_the_server_on_sqlite_loses_and_doubles_nothing(server_process, tmp_path):
    server = server_process(f"sqlite:///{tmp_path}/events.db", workers=2, env=ENV)
    result = drill(server, clients_count=4, kills=1, seconds_between=3)
    assert result["acknowledged"] > 20 and result["retried"] >= 1
    assert result["lost"] == 0 and result["doubled"] == 0


def test_kill_9_of_the_server_and_redis_with_aof_always_loses_and_doubles_nothing(server_process, private_redis):
    backend = private_redis(appendonly=True)
    server = server_process(backend.url, workers=2, env={**ENV, "GAMES_REDIS_PREFIX": namespace()})

    def restart_redis():
        backend.kill()
        backend.start()

    result = drill(server, clients_count=4, kills=1, seconds_between=3, restart_store=restart_redis)
    assert result["acknowledged"] > 20 and result["retried"] >= 1
    assert result["lost"] == 0 and result["doubled"] == 0


@pytest.mark.drill
def test_drill_many_kills_on_sqlite(server_process, tmp_path):
    server = server_process(f"sqlite:///{tmp_path}/events.db", workers=2, env=ENV)
    result = drill(server, clients_count=16, kills=6, seconds_between=5)
    assert result["lost"] == 0 and result["doubled"] == 0


@pytest.mark.drill
def test_drill_many_kills_on_redis_with_aof_always(server_process, private_redis):
    backend = private_redis(appendonly=True)
    server = server_process(backend.url, workers=2, env={**ENV, "GAMES_REDIS_PREFIX": namespace()})

    def restart_redis():
        backend.kill()
        backend.start()

    result = drill(server, clients_count=16, kills=6, seconds_between=5, restart_store=restart_redis)
    assert result["lost"] == 0 and result["doubled"] == 0
