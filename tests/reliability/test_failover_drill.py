"""The failover drill: a Redis Cluster master killed with kill -9 while its replica lags.

A cluster of three masters (AOF ``always``, node timeout 2 s), one web server (two gunicorn
workers) and two RQ workers on it, eight clients playing Dynasties with an Idempotency-Key
per command, registering players and rotating a token per game. Mid-load, a replica of the
master that holds the most games is made to lag (SIGSTOP, and its replication link cut on
the master's side so the master's writes stay in its backlog: as a replica a second behind
under load), the clients write on for 1.5 s, the master is killed with kill -9, the replica
resumed, and the cluster fails over to a replica.

Both replicas of that master lag (two per master): a replica that is behind gets promoted,
which is what loses writes. (With one replica lagging and the other in sync, the cluster
promotes the one in sync and nothing is lost either way.)

* **Setting on** (``GAMES_REDIS_WAIT_REPLICAS=1``): the victim's writes in the window are
  answered 503 (no replica confirms them), so none is acknowledged; no acknowledged
  command, player, token or rotation is lost; every game plays on without a restart; the
  read models equal a rebuild from the log.
* **Setting off**: what the old master acknowledged in the window is lost (counted and
  printed, the documented consequence of the setting); still no game is wedged (every
  client plays on) and no read model skips an event (they equal a rebuild).

Each run counts every acknowledged answer and checks it against the store afterwards
(``test_kill_drills.verify``: an acknowledged move whose events are not stored as answered
is lost; a stored move no acknowledged key accounts for is doubled). Marked ``drill`` (``make
drills``): ``pytest -m drill tests/reliability/test_failover_drill.py -s`` prints the counts.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests
from redis.crc import key_slot

from service.adapters.store import partition_of
from service.streams.envelopes import stream_of
from tests.integration.redis_cluster import start_cluster
from tests.integration.test_redis_cluster import Deployment as ClusterDeployment
from tests.reliability.test_kill_drills import stored_events, verify

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 16


class Gone(Exception):
    """The store no longer knows this player or game (lost with the setting off): start anew."""


class Player(threading.Thread):
    """One client: registers two players (rotating the first one's token), creates and joins a
    game, and plays it out, retrying through connection errors and 503s with the same
    Idempotency-Key; then the next game. Keeps every acknowledged answer."""

    def __init__(self, deployment: Deployment, label: str, stop: threading.Event):
        super().__init__(daemon=True)
        self.deployment, self.label, self.stop = deployment, label, stop
        self.acked: dict[str, dict] = {}  # key -> its (first) answer
        self.acked_at: dict[str, float] = {}
        self.sent_at: dict[str, float] = {}  # when the attempt that was acknowledged was sent
        self.last_attempt = 0.0
        self.unavailable_at: list[float] = []  # when each 503 came
        self.seats_of: dict[str, dict[str, str]] = {}  # game id -> player id -> token
        self.keys: dict[str, str] = {}  # key -> game id
        self.games: list[str] = []
        self.tokens: dict[str, str] = {}  # acknowledged registrations and rotations: token -> player id
        self.rotated_away: list[str] = []  # tokens an acknowledged rotation ended
        self.refused: dict[int, int] = {}  # answers retried, by status
        self.gone = 0
        self.rotations_cut_off = 0  # a rotation whose answer never came (not idempotent: the player is left)
        self.retried = 0
        self.error: str | None = None
        self.n = 0

    def request(self, method: str, path: str, *, retry_503: bool = True, **kwargs) -> requests.Response | None:
        """The answer, through 503s and connection errors (None: cut off and not retried)."""
        deadline = time.monotonic() + 60
        while True:
            self.last_attempt = time.monotonic()
            try:
                answer = requests.request(method, f"{self.deployment.url}{path}", timeout=10, **kwargs)
                if answer.status_code != 503:
                    return answer
                self.refused[503] = self.refused.get(503, 0) + 1
                self.unavailable_at.append(time.monotonic())
                if not retry_503:
                    return answer
            except requests.RequestException:
                if not retry_503:
                    return None
            self.retried += 1
            assert time.monotonic() < deadline, f"{method} {path}: no answer but 503s for 60 s"
            time.sleep(0.1)

    def register(self, name: str) -> tuple[str, str]:
        answer = self.request("POST", "/players", json={"name": name})
        assert answer.status_code == 201, answer.text
        player = answer.json()
        self.tokens[player["token"]] = player["id"]
        return player["id"], player["token"]

    def rotate(self, token: str) -> str:
        """A new token; the old one ended. A rotation cut off without an answer is not
        idempotent: if the old token no longer works, that player is left (``Gone``)."""
        while True:
            answer = self.request("POST", "/players/me/token", retry_503=False,
                                  headers={"Authorization": f"Bearer {token}"})
            if answer is not None and answer.status_code == 201:
                new = answer.json()["token"]
                self.tokens[new] = self.tokens.pop(token)
                self.rotated_away.append(token)
                return new
            if answer is not None and answer.status_code == 401:
                self.tokens.pop(token, None)
                self.rotations_cut_off += 1
                raise Gone("the rotation was made but its answer was cut off")
            assert answer is None or answer.status_code == 503, answer.text
            self.retried += 1
            time.sleep(0.1)

    def new_game(self) -> tuple[str, dict[str, str]]:
        number = len(self.games)
        seats = dict([self.register(f"{self.label}-{number}-{i}") for i in range(2)])
        first = next(iter(seats))
        seats[first] = self.rotate(seats[first])
        created = self.request("POST", "/games", json={"type": "dynasties", "seats": 2}, headers={
            "Authorization": f"Bearer {seats[first]}", "Idempotency-Key": f"{self.label}-game-{number}"})
        if created.status_code == 401:
            raise Gone("a player registered in the lost window")
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        for token in seats.values():
            joined = self.request("POST", f"/games/{game_id}/join", json={},
                                  headers={"Authorization": f"Bearer {token}"})
            if joined.status_code in (401, 404):
                raise Gone("a player or the game was lost")
            assert joined.status_code == 200 or joined.json()["code"] == "already_seated", joined.text
        self.games.append(game_id)
        self.seats_of[game_id] = seats
        return game_id, seats

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                try:
                    self.play(*self.new_game())
                except Gone:
                    self.gone += 1
        except Exception as exc:  # reported by the test
            self.error = f"{self.label}: {exc!r}"

    def play(self, game_id: str, seats: dict[str, str]) -> None:
        while not self.stop.is_set():
            game = self.request("GET", f"/games/{game_id}")
            if game.status_code == 404:
                raise Gone("the game was lost")
            game = game.json()
            if game["status"] == "finished":
                return
            if not game["to_move"]:
                raise Gone("the game's start was lost")
            auth = {"Authorization": f"Bearer {seats[game['seats'][game['to_move'][0]]['player_id']]}"}
            legal = self.request("GET", f"/games/{game_id}/legal-commands", headers=auth)
            if legal.status_code in (401, 403, 404, 409):
                raise Gone("a player, its seat or the game was lost")
            commands = legal.json()["commands"]
            if not commands:  # the game moved between the two reads (the store went back): read again
                self.refused[0] = self.refused.get(0, 0) + 1
                continue
            key = f"{self.label}-{self.n}"
            self.n += 1
            posted = self.request("POST", f"/games/{game_id}/commands", json=commands[0],
                                  headers={**auth, "Idempotency-Key": key})
            if posted.status_code in (401, 403, 404):
                raise Gone("a player, its seat or the game was lost")
            if posted.status_code in (409, 422):
                # chosen on a state the store no longer holds (it went back in time between the
                # read and the post): never acknowledged; read again and choose again
                self.refused[posted.status_code] = self.refused.get(posted.status_code, 0) + 1
                continue
            assert posted.status_code == 201, (key, posted.status_code, posted.text)
            self.keys[key] = game_id
            self.acked[key] = posted.json()
            self.acked_at[key] = time.monotonic()
            self.sent_at[key] = self.last_attempt


class Registrar(Player):
    """A client that only registers players and rotates their tokens, keeping every
    acknowledged token (and when it was acknowledged)."""

    def __init__(self, deployment: Deployment, label: str, stop: threading.Event):
        super().__init__(deployment, label, stop)
        self.token_at: dict[str, tuple[float, float]] = {}  # token -> (sent, acknowledged)
        self.owner: dict[str, str] = {}  # every acknowledged token -> its player

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                player_id, token = self.register(f"{self.label}-{self.n}")
                self.n += 1
                self.token_at[token], self.owner[token] = (self.last_attempt, time.monotonic()), player_id
                try:
                    rotated = self.rotate(token)
                    self.token_at[rotated], self.owner[rotated] = (self.last_attempt, time.monotonic()), player_id
                except Gone:
                    self.gone += 1
                time.sleep(0.05)
        except Exception as exc:  # reported by the test
            self.error = f"{self.label}: {exc!r}"


class Deployment(ClusterDeployment):
    """Two web processes (``url`` alternates between them) and two workers on the cluster,
    with the durability setting at ``wait_replicas``."""

    def __init__(self, cluster, queue_url: str, wait_replicas: int, tmp_path: Path):
        super().__init__(cluster, queue_url, tmp_path)
        self.cluster = cluster
        self.env.update({"GAMES_LIMITS": "off", "GAMES_SWEEP_INTERVAL": "1",
                         "GAMES_REDIS_WAIT_REPLICAS": str(wait_replicas), "GAMES_REDIS_WAIT_TIMEOUT": "1"})

    def start(self) -> None:
        for _ in range(2):
            self.start_web()
            self.start_worker()

    def slot_of(self, game_id: str) -> int:
        return key_slot(f"{self.namespace}:{{p{partition_of(stream_of(game_id), PARTITIONS)}}}".encode())

    def master_with_most_games(self, clients: list[Player]) -> tuple[int, set[int]]:
        """The master holding the most games, and the games' slots it serves."""
        slots: dict[int, set[int]] = {}
        counts: dict[int, int] = {}
        for client in clients:
            for game_id in client.games:
                slot = self.slot_of(game_id)
                master = self.cluster.master_of_slot(slot)
                counts[master] = counts.get(master, 0) + 1
                slots.setdefault(master, set()).add(slot)
        victim = max(counts, key=counts.get)
        return victim, slots[victim]


def failover_drill(deployment: Deployment, stop_replicas: int, *, clients_count: int = 8, registrars_count: int = 2,
                   warm_up_commands: int = 100, lagging: float = 1.5, after: float = 10) -> dict:
    cluster = deployment.cluster
    stop = threading.Event()
    clients = [Player(deployment, f"c{i}", stop) for i in range(clients_count)]
    registrars = [Registrar(deployment, f"r{i}", stop) for i in range(registrars_count)]
    for client in (*clients, *registrars):
        client.start()
    deadline = time.monotonic() + 120
    while sum(len(c.acked) for c in clients) < warm_up_commands or not all(c.games for c in clients):
        assert time.monotonic() < deadline and not any(c.error for c in clients), [c.error for c in clients]
        time.sleep(0.2)
    victim, _ = deployment.master_with_most_games(clients)
    # every slot the victim serves: games created after this moment land in slots of it too
    victim_slots = cluster.slots_of(victim)
    replicas = cluster.replicas_of(victim)
    paused = replicas[:stop_replicas]
    for port in paused:
        cluster.lag(port)  # the replica stops receiving what the master writes: it lags
    paused_at = time.monotonic()
    time.sleep(lagging)  # the clients write on
    cluster.kill(victim)
    killed_at = time.monotonic()
    for port in paused:
        cluster.resume(port)
    time.sleep(after)
    stop.set()
    for client in (*clients, *registrars):
        client.join(90)
    errors = [c.error for c in (*clients, *registrars) if c.error]
    assert not errors, errors[:3]
    cluster.wait_healthy()

    result = verify(deployment.url, clients)
    # verify() compares what a move did (type, data); a bot that plays the same move again
    # after its acknowledged one was lost would pass that, so compare when it was made too
    lost = _lost(deployment.url, clients)
    result["lost"] = len(lost)
    result["lost, of them on the killed master"] = sum(deployment.slot_of(game_id) in victim_slots for game_id in lost)
    # sent once the replicas lagged and answered 201 before the master died
    result["acked on the victim while its replicas lagged"] = sum(
        c.sent_at[key] >= paused_at and at <= killed_at and deployment.slot_of(c.keys[key]) in victim_slots
        for c in clients for key, at in c.acked_at.items())
    # the other masters' games go on while the cluster has not yet promoted a replica (node timeout 2 s)
    result["acked elsewhere in the 2 s after the kill"] = sum(
        killed_at <= c.sent_at[key] and at <= killed_at + 2 and deployment.slot_of(c.keys[key]) not in victim_slots
        for c in clients for key, at in c.acked_at.items())
    result["acked after the kill"] = min(sum(at > killed_at for at in c.acked_at.values()) for c in clients)
    result["games not playable"] = sum(not _playable(deployment.url, game_id, seats)
                                       for c in clients for game_id, seats in c.seats_of.items())
    result["503s"] = sum(c.refused.get(503, 0) for c in clients)
    late = [at - killed_at for c in (*clients, *registrars) for at in c.unavailable_at if at >= killed_at]
    result["seconds from the kill to the last 503"] = round(max(late), 1) if late else 0
    result["refused as chosen on a lost state"] = sum(c.refused.get(409, 0) + c.refused.get(422, 0) for c in clients)
    result["rotations cut off"] = sum(c.rotations_cut_off for c in (*clients, *registrars))
    result["players or games left after a loss"] = sum(c.gone - c.rotations_cut_off for c in clients)
    everyone = (*clients, *registrars)
    result["tokens acked on the victim while its replicas lagged"] = sum(
        paused_at <= sent and acked <= killed_at and key_slot(f"{deployment.namespace}:{{player:{r.owner[token]}}}".encode())
        in victim_slots
        for r in registrars for token, (sent, acked) in r.token_at.items())
    result["tokens lost"] = sum(_status(deployment.url, token) == 401 for c in everyone for token in c.tokens)
    result["rotated tokens back"] = sum(_status(deployment.url, token) != 401 for c in everyone
                                        for token in c.rotated_away)
    result["tokens"] = sum(len(c.tokens) for c in everyone)
    _wait_current(deployment)
    try:
        deployment.assert_converged()  # each model equals a rebuild; the lobby says what the games say
        result["models equal a rebuild"] = True
    except AssertionError as failed:
        result["models equal a rebuild"] = f"no: {failed}"
    print(f"failover drill (wait_replicas={deployment.env['GAMES_REDIS_WAIT_REPLICAS']}, "
          f"{len(replicas)} replicas per master, {stop_replicas} lagging): {result}")
    return result


def _lost(url: str, clients: list[Player]) -> list[str]:
    """The game of each acknowledged move whose events are not stored as answered (type,
    data and time)."""
    lost = []
    for client in clients:
        stored: dict[str, dict[int, dict]] = {}
        for key, answer in client.acked.items():
            game_id = client.keys[key]
            if game_id not in stored:
                stored[game_id] = {e["version"]: e for e in stored_events(url, game_id)}
            if any(stored[game_id].get(e["version"], {}).get("at") != e["at"]
                   or stored[game_id][e["version"]]["data"] != e["data"] for e in answer["events"]):
                lost.append(game_id)
    return lost


def _playable(url: str, game_id: str, seats: dict[str, str]) -> bool:
    """A game is over, or the seat to move gets a move acknowledged now, with no restart
    (a game whose players or start were lost, setting off, counts as playable: not wedged)."""
    game = requests.get(f"{url}/games/{game_id}", timeout=10)
    if game.status_code == 404 or game.json()["status"] == "finished" or not game.json()["to_move"]:
        return True
    game = game.json()
    auth = {"Authorization": f"Bearer {seats[game['seats'][game['to_move'][0]]['player_id']]}"}
    legal = requests.get(f"{url}/games/{game_id}/legal-commands", headers=auth, timeout=10)
    if legal.status_code == 401:
        return True
    posted = requests.post(f"{url}/games/{game_id}/commands", json=legal.json()["commands"][0], headers=auth,
                           timeout=10)
    return posted.status_code == 201


def _status(url: str, token: str) -> int:
    """401 if the store does not know the token (the token is checked before the game: a
    known one gets 404 for this game that does not exist)."""
    return requests.get(f"{url}/games/0000000000000000/legal-commands",
                        headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code


def _wait_current(deployment: Deployment, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        projections = requests.get(f"{deployment.url}/projections", timeout=10).json()["projections"]
        if all(p["lag"] == 0 and p["ahead"] == 0 for p in projections):
            return
        assert time.monotonic() < deadline, projections
        time.sleep(0.2)


@pytest.fixture
def deployed(redis_server_url, tmp_path):
    made: list[tuple] = []

    def deploy(replicas: int, wait_replicas: int) -> Deployment:
        cluster = start_cluster(3, replicas=replicas, node_timeout_ms=2000, aof_always=True)
        deployment = Deployment(cluster, redis_server_url, wait_replicas, tmp_path)
        made.append((cluster, deployment))
        deployment.start()
        return deployment

    yield deploy
    for cluster, deployment in made:
        deployment.stop()
        cluster.stop()


def assert_nothing_lost(result: dict, at_least: int = 50) -> None:
    assert result["acknowledged"] > at_least, result
    assert result["lost"] == 0 and result["doubled"] == 0, result
    assert result["tokens lost"] == 0 and result["rotated tokens back"] == 0, result
    assert result["players or games left after a loss"] == 0, result
    assert result["acked after the kill"] > 0 and result["games not playable"] == 0, result  # no restart
    assert result["models equal a rebuild"] is True, result


@pytest.mark.drill
@pytest.mark.parametrize("run", [1, 2, 3])
def test_failover_with_lagging_replicas_loses_nothing_acknowledged_with_the_setting_on(deployed, run):
    result = failover_drill(deployed(replicas=2, wait_replicas=1), stop_replicas=2)
    assert_nothing_lost(result)
    assert result["acked on the victim while its replicas lagged"] == 0, result  # 503s: none confirmed


def test_a_lean_failover_with_lagging_replicas_loses_nothing_acknowledged_with_the_setting_on(deployed):
    """The drill's short version, in the default run: four clients, one run."""
    result = failover_drill(deployed(replicas=2, wait_replicas=1), stop_replicas=2, clients_count=4,
                            registrars_count=1, warm_up_commands=30, after=7)
    assert_nothing_lost(result, at_least=20)
    assert result["acked on the victim while its replicas lagged"] == 0, result


@pytest.mark.drill
def test_failover_with_the_setting_off_wedges_no_game_and_skips_no_event(deployed):
    result = failover_drill(deployed(replicas=2, wait_replicas=0), stop_replicas=2)
    assert result["doubled"] == 0, result
    assert result["acked after the kill"] > 0 and result["games not playable"] == 0, result  # none wedged
    assert result["models equal a rebuild"] is True, result  # no projection skipped an event
