"""The hot path builds no marshmallow schema per request: argument schemas are instances
made once at import (webargs builds a new instance per request from a schema *class*,
about a twentieth of a request's CPU), and command bodies are loaded by one schema
instance per command type, made on the type's first use (``service.api.commands``)."""

from __future__ import annotations

import marshmallow
import pytest

from tests.helpers.play import start_game


@pytest.fixture
def schemas_built(monkeypatch):
    built: list[str] = []
    original = marshmallow.Schema.__init__

    def counting(self, *args, **kwargs):
        built.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(marshmallow.Schema, "__init__", counting)
    return built


def _cycle(live_server, game_id, players):
    """GET the legal commands (and again with the ETag: 304), POST the first, GET the lobby
    and the state."""
    clients = [live_server.client(player["token"]) for player in players]
    loaded = live_server.games.load(game_id)
    seat = loaded.rules.to_move(loaded.state)[0]
    listed = clients[seat].get(f"{live_server.url}/games/{game_id}/legal-commands")
    assert listed.status_code == 200, listed.text
    tag = listed.headers["ETag"]
    assert clients[seat].get(f"{live_server.url}/games/{game_id}/legal-commands",
                             headers={"If-None-Match": tag}).status_code == 304
    posted = clients[seat].post(f"{live_server.url}/games/{game_id}/commands", json=listed.json()["commands"][0])
    assert posted.status_code == 201, posted.text
    lobby = clients[seat].get(f"{live_server.url}/games", params={"limit": 5})
    assert lobby.status_code == 200, lobby.text
    state = clients[seat].get(f"{live_server.url}/games/{game_id}/state")
    assert state.status_code == 200, state.text


@pytest.mark.api
def test_a_game_cycle_and_the_lobby_build_no_schema(live_server, schemas_built):
    _cycle(live_server, *start_game(live_server.games, "dynasties", 2))  # first uses of the command types
    game_id, players = start_game(live_server.games, "dynasties", 2)
    schemas_built.clear()
    _cycle(live_server, game_id, players)
    assert schemas_built == [], f"schemas built per request: {sorted(set(schemas_built))}"


@pytest.fixture
def framework_calls(monkeypatch):
    """Each call of webargs' parser and of a marshmallow dump, by what it was for."""
    import webargs.core

    calls: list[str] = []
    parse, dump = webargs.core.Parser.parse, marshmallow.Schema.dump

    def counting_parse(self, argmap, *args, **kwargs):
        calls.append(f"webargs parse {type(argmap).__name__}")
        return parse(self, argmap, *args, **kwargs)

    def counting_dump(self, *args, **kwargs):
        calls.append(f"dump {type(self).__name__}")
        return dump(self, *args, **kwargs)

    monkeypatch.setattr(webargs.core.Parser, "parse", counting_parse)
    monkeypatch.setattr(marshmallow.Schema, "dump", counting_dump)
    return calls


@pytest.mark.api
def test_the_hot_routes_run_without_argument_parsing_or_response_dumping(live_server, framework_calls):
    """GET legal-commands (200 and 304), POST a command, GET state (200, 304, `at`, a bad
    `at`): the views Flask calls are the routes' own functions (``service.api.lean``), not
    flask-smorest's wrappers, and the answers are still what the contract says."""
    game_id, players = start_game(live_server.games, "dynasties", 2)
    loaded = live_server.games.load(game_id)
    seat = loaded.rules.to_move(loaded.state)[0]
    client = live_server.client(players[seat]["token"])
    url = f"{live_server.url}/games/{game_id}"
    framework_calls.clear()
    listed = client.get(f"{url}/legal-commands")
    assert listed.status_code == 200 and listed.headers["Content-Type"] == "application/json", listed.text
    assert listed.headers["Cache-Control"] == "private, no-cache" and listed.headers["Vary"] == "Authorization"
    assert client.get(f"{url}/legal-commands", headers={"If-None-Match": listed.headers["ETag"]}).status_code == 304
    posted = client.post(f"{url}/commands", json=listed.json()["commands"][0])
    assert posted.status_code == 201 and posted.json()["version"] == loaded.version + len(posted.json()["events"])
    state = client.get(f"{url}/state")
    assert state.status_code == 200 and state.json()["seat"] == seat and state.json()["version"] == posted.json()["version"]
    assert client.get(f"{url}/state", headers={"If-None-Match": state.headers["ETag"]}).status_code == 304
    earlier = client.get(f"{url}/state", params={"at": 1})
    assert earlier.status_code == 200 and earlier.json()["version"] == 1
    bad = client.get(f"{url}/state", params={"at": "soon"})
    assert bad.status_code == 422 and bad.headers["Content-Type"] == "application/problem+json"
    assert bad.json()["code"] == "invalid_input" and "at" in bad.json()["errors"], bad.text
    assert framework_calls == [], f"per-request framework work on the hot routes: {framework_calls}"
