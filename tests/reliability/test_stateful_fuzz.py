"""Schemathesis in stateful mode: sequences of linked operations (create a game, then join,
read, play, export it; register a player, then read it) generated from the OpenAPI links,
against a live server. No 500, no response outside the contract."""

from __future__ import annotations

import os

import pytest

from tests.api.test_contract import EVERY_CHECK, schemathesis_run


@pytest.mark.api
def test_schemathesis_stateful_over_linked_operations(make_server, tmp_path):
    server = make_server(limit_waiting_games_per_player=1000)
    player, _ = server.new_player("fuzzer")
    result = schemathesis_run(
        ["--url", server.url, "--phases", "stateful", *EVERY_CHECK,
         "--header", f"Authorization: Bearer {player['token']}",
         "--max-examples", os.environ.get("SCHEMATHESIS_STATEFUL_EXAMPLES", "30"),
         "--seed", "1", "--no-color", "--report-dir", str(tmp_path)])
    print(result.stdout[-1500:])
    assert "Stateful" in result.stdout or "stateful" in result.stdout
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    # the run's own token outlived it (tests/api/schemathesis.toml leaves the token operations out)
    assert server.client(player["token"]).post(f"{server.url}/games", json={"type": "dynasties", "seats": 2}
                                               ).status_code == 201
