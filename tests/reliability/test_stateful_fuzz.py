"""Schemathesis in stateful mode: sequences of linked operations (create a game, then join,
read, play, export it; register a player, then read it) generated from the OpenAPI links,
against a live server. No 500, no response outside the contract."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from service.app import committed_spec_path


@pytest.mark.api
def test_schemathesis_stateful_over_linked_operations(make_server, tmp_path):
    server = make_server(limit_waiting_games_per_player=1000)
    player, _ = server.new_player("fuzzer")
    binary = shutil.which("schemathesis", path=os.path.dirname(sys.executable)) or shutil.which("schemathesis")
    assert binary, "schemathesis is a dev dependency"
    result = subprocess.run(
        [binary, "run", str(committed_spec_path()), "--url", server.url, "--phases", "stateful",
         "--checks", "all", "--exclude-checks", "positive_data_acceptance",
         "--header", f"Authorization: Bearer {player['token']}",
         "--max-examples", os.environ.get("SCHEMATHESIS_STATEFUL_EXAMPLES", "30"),
         "--seed", "1", "--no-color", "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=900,
    )
    print(result.stdout[-1500:])
    assert "Stateful" in result.stdout or "stateful" in result.stdout
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
