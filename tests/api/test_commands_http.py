"""Posting commands over real HTTP: a body of the wrong shape is refused, never a 500."""

from __future__ import annotations

import pytest

from tests.helpers.play import start_game


@pytest.mark.parametrize("body", [{"type": {"a": 1}, "args": {}}, {"type": ["PlaceNoble"]}, {"type": None}, [1, 2]])
def test_a_command_body_of_the_wrong_shape_is_refused_with_a_reason(live_server, body):
    _, client = live_server.new_player("fuzzer")
    game_id, _ = start_game(live_server.games, "dynasties", 2)
    refused = client.post(f"{live_server.url}/games/{game_id}/commands", json=body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "invalid_input"
