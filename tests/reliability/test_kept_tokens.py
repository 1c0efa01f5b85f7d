"""A process keeps the tokens it checked (``service.players.players``), and a token rotated or
revoked through another process still stops at once on this one: its next GET and its
next POST are refused, and the POST stores nothing. Two servers over one store, each with
its own kept tokens, over real HTTP; on SQLite and on Redis."""

from __future__ import annotations

import threading

import pytest
import requests
from werkzeug.serving import make_server

from service.api.app import create_app
from service.base.config import Config


@pytest.fixture(params=["sqlite", "redis"])
def two_servers(request, tmp_path):
    if request.param == "sqlite":
        config = Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline")
    else:
        url, namespace = request.getfixturevalue("redis_url")
        config = Config(store_url=url, redis_prefix=namespace, redis_partitions=4, projections="inline")
    servers, apps = [], []
    for _ in range(2):
        app = create_app(config)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        apps.append(app)
    yield [f"http://127.0.0.1:{server.server_port}" for server in servers], apps
    for server in servers:
        server.shutdown()


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def _started_game(url: str, seats: int = 2):
    players = [requests.post(f"{url}/players", json={"name": f"p{i}"}, timeout=10).json() for i in range(seats)]
    sessions = {p["id"]: _session(p["token"]) for p in players}
    game = sessions[players[0]["id"]].post(f"{url}/games", json={"type": "dynasties", "seats": seats},
                                           timeout=10).json()["id"]
    for player in players:
        assert sessions[player["id"]].post(f"{url}/games/{game}/join", json={}, timeout=10).status_code == 200
    return game, players, sessions


def _mover(url: str, game: str, sessions):
    summary = requests.get(f"{url}/games/{game}", timeout=10).json()
    return summary["seats"][summary["to_move"][0]]["player_id"]


@pytest.mark.parametrize("change", ["rotate", "revoke"])
def test_a_token_changed_on_another_process_stops_at_once_on_this_one(two_servers, change):
    (here, there), apps = two_servers
    game, players, sessions = _started_game(here)
    mover = _mover(here, game, sessions)
    session = sessions[mover]
    listed = session.get(f"{here}/games/{game}/legal-commands", timeout=10)  # the token is kept here now
    assert listed.status_code == 200, listed.text
    version = listed.json()["version"]
    if change == "rotate":
        assert session.post(f"{there}/players/me/token", timeout=10).status_code == 201
    else:
        assert session.delete(f"{there}/players/me/token", timeout=10).status_code == 204
    refused = session.get(f"{here}/games/{game}/legal-commands", timeout=10)
    assert refused.status_code == 401, refused.text
    assert refused.headers["Content-Type"] == "application/problem+json"
    posted = session.post(f"{here}/games/{game}/commands", json=listed.json()["commands"][0], timeout=10)
    assert posted.status_code == 401, posted.text
    assert apps[0].extensions["games"].current_version(game) == version, "the refused command stored nothing"


def test_a_command_with_a_kept_token_is_stored_once_after_another_players_rotation(two_servers):
    """Another player's rotation moves the generation: the kept token is checked again, the
    command stored once."""
    (here, there), apps = two_servers
    game, players, sessions = _started_game(here)
    mover = _mover(here, game, sessions)
    listed = sessions[mover].get(f"{here}/games/{game}/legal-commands", timeout=10)
    version = listed.json()["version"]
    bystander = requests.post(f"{there}/players", json={"name": "bystander"}, timeout=10).json()
    assert _session(bystander["token"]).post(f"{there}/players/me/token", timeout=10).status_code == 201
    posted = sessions[mover].post(f"{here}/games/{game}/commands", json=listed.json()["commands"][0], timeout=10)
    assert posted.status_code == 201, posted.text
    stored = apps[0].extensions["games"].current_version(game)
    assert posted.json()["version"] == stored == version + len(posted.json()["events"]) > version


def test_a_token_revoked_on_another_process_gets_no_refusal_nor_replay_on_this_one(two_servers):
    """Answers that no append checks: a command the rules refuse, and a retry answered from
    its Idempotency-Key's record. A revoked token gets 401 for both, not the refusal's reason
    nor the first answer again."""
    (here, there), _ = two_servers
    game, players, sessions = _started_game(here)
    session = sessions[_mover(here, game, sessions)]
    command = session.get(f"{here}/games/{game}/legal-commands", timeout=10).json()["commands"][0]
    first = session.post(f"{here}/games/{game}/commands", json=command, headers={"Idempotency-Key": "k1"}, timeout=10)
    assert first.status_code == 201, first.text
    assert session.post(f"{here}/games/{game}/commands", json=command, headers={"Idempotency-Key": "k1"},
                        timeout=10).json() == first.json(), "a retry gets the first answer while the token stands"
    assert session.delete(f"{there}/players/me/token", timeout=10).status_code == 204
    replay = session.post(f"{here}/games/{game}/commands", json=command, headers={"Idempotency-Key": "k1"}, timeout=10)
    assert replay.status_code == 401, replay.text
    refused = session.post(f"{here}/games/{game}/commands", json={"type": "no-such-move", "args": {}}, timeout=10)
    assert refused.status_code == 401, refused.text
