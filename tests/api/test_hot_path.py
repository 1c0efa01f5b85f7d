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
