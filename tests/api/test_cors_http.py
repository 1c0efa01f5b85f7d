"""CORS over real HTTP: off by default; with GAMES_CORS_ORIGINS, pages of the listed origins
(and only those) may call the API, preflights included, and read its ETags."""

from __future__ import annotations

import pytest
import requests

from service.api.app import create_app
from service.base.config import Config
from tests.api.conftest import serve

pytestmark = pytest.mark.api

FRONT = "https://play.example.org"
PREFLIGHT = {"Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization,content-type,idempotency-key"}


@pytest.fixture
def server_with_cors(tmp_path):
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            cors_origins=(FRONT,)))
    server = serve(app)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_no_origin_is_allowed_by_default(live_server):
    answer = requests.options(f"{live_server.url}/games", headers={"Origin": FRONT, **PREFLIGHT}, timeout=10)
    assert "Access-Control-Allow-Origin" not in answer.headers
    answer = requests.get(f"{live_server.url}/games", headers={"Origin": FRONT}, timeout=10)
    assert answer.status_code == 200 and "Access-Control-Allow-Origin" not in answer.headers


def test_a_listed_origin_may_call_the_api(server_with_cors):
    answer = requests.options(f"{server_with_cors}/games", headers={"Origin": FRONT, **PREFLIGHT}, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == FRONT
    allowed = {h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key"} <= allowed
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]

    player = requests.post(f"{server_with_cors}/players", json={"name": "Ann"}, headers={"Origin": FRONT},
                           timeout=10)
    assert player.status_code == 201 and player.headers["Access-Control-Allow-Origin"] == FRONT
    lobby = requests.get(f"{server_with_cors}/games", headers={"Origin": FRONT}, timeout=10)
    assert "etag" in lobby.headers["Access-Control-Expose-Headers"].lower()
    # an error answer is readable too, so the page can show its reason
    refused = requests.get(f"{server_with_cors}/games/0123456789abcdef", headers={"Origin": FRONT}, timeout=10)
    assert refused.status_code == 404 and refused.headers["Access-Control-Allow-Origin"] == FRONT
    # never credentials: tokens go in a header, not in cookies
    assert "Access-Control-Allow-Credentials" not in lobby.headers


def test_an_unlisted_origin_is_not_allowed(server_with_cors):
    evil = "https://evil.example"
    answer = requests.options(f"{server_with_cors}/games", headers={"Origin": evil, **PREFLIGHT}, timeout=10)
    assert "Access-Control-Allow-Origin" not in answer.headers
    answer = requests.get(f"{server_with_cors}/games", headers={"Origin": evil}, timeout=10)
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_the_origins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("GAMES_CORS_ORIGINS", f"{FRONT}, http://localhost:5173")
    assert Config.from_env().cors_origins == (FRONT, "http://localhost:5173")
    monkeypatch.delenv("GAMES_CORS_ORIGINS")
    assert Config.from_env().cors_origins == ()
