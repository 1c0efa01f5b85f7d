"""Export and import over real HTTP: a finished game leaves as JSON Lines and comes back
whole; anything else sent to the import is refused with a reason and writes nothing."""

from __future__ import annotations

import random

import pytest

from tests.helpers.play import play_randomly, start_game


@pytest.fixture
def finished(live_server):
    service = live_server.games
    game_id, players = start_game(service, "dynasties", 3, {"starting_gold": 8})
    play_randomly(service, game_id, players, random.Random(2))
    assert service.load(game_id).over
    return game_id


def test_a_finished_game_exports_and_imports_to_the_same_game(live_server, finished):
    _, client = live_server.new_player("archivist")
    exported = client.get(f"{live_server.url}/games/{finished}/export")
    assert exported.status_code == 200
    assert exported.headers["Content-Type"].startswith("application/x-ndjson")
    imported = client.post(f"{live_server.url}/games/import", data=exported.content,
                           headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 201, imported.text
    copy = imported.json()
    original = client.get(f"{live_server.url}/games/{finished}").json()
    assert copy["id"] != finished
    # the game is already on this server: the copy is recognised and does not count again
    assert copy["ranked"] is False and original["ranked"] is True
    assert {k: v for k, v in copy.items() if k not in ("id", "ranked")} == \
        {k: v for k, v in original.items() if k not in ("id", "ranked")}
    assert client.get(f"{live_server.url}/games/{copy['id']}/state").json()["view"] == \
        client.get(f"{live_server.url}/games/{finished}/state").json()["view"]


@pytest.mark.parametrize("body, reason", [
    (b"", "empty"),
    (b"\x00\xff not json", "line 1 is not JSON"),
    (b'{"format": "game-log", "events": 0}', "no events"),
    (b'{"format": "chess-pgn"}\n{"version": 1, "type": "GameCreated"}', "header"),
    (b'{"format": "game-log", "events": 1, "game_type": "dynasties"}\n{"version": 2, "type": "X"}', "version 1"),
    (b'{"format": "game-log", "events": 1, "game_type": "dynasties"}\n{"version": 1, "type": "X", "data": 5}',
     "line 2, field data: must be a JSON object"),
])
def test_a_broken_log_is_refused_with_a_reason_and_nothing_is_written(live_server, body, reason):
    _, client = live_server.new_player("archivist")
    before = live_server.games.store.log_head(0)
    refused = client.post(f"{live_server.url}/games/import", data=body, headers={"Content-Type": "text/plain"})
    assert refused.status_code == 422, refused.text
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert reason in refused.json()["detail"]
    assert live_server.games.store.log_head(0) == before


def test_an_unfinished_game_cannot_be_exported_without_every_seats_consent(live_server):
    _, client = live_server.new_player("reader")
    service = live_server.games
    game_id, players = start_game(service, "dynasties", 2)
    refused = client.get(f"{live_server.url}/games/{game_id}/export")
    assert refused.status_code == 403  # not seated: a game in play is exported to its seats only
    seated = live_server.client(players[0]["token"]).get(f"{live_server.url}/games/{game_id}/export")
    assert seated.status_code == 409 and seated.json()["code"] == "export_not_allowed"


def test_a_body_over_the_size_limit_is_refused_before_it_is_read(live_server):
    _, client = live_server.new_player("archivist")
    refused = client.post(f"{live_server.url}/games/import", data=b"x" * (17 * 1024 * 1024),
                          headers={"Content-Type": "text/plain"})
    assert refused.status_code == 413
    assert refused.headers["Content-Type"] == "application/problem+json"

