"""``GET /health`` says which rules engine the server runs: the mypyc build or the sources."""

from __future__ import annotations

import os

import requests

from tests.helpers.engine import compiled_build_present


def test_health_names_the_engine_that_runs(live_server):
    body = requests.get(f"{live_server.url}/health", timeout=5).json()
    # this process runs the compiled build where `make compile` made one, unless DOMAIN_PURE=1
    expected = "compiled" if compiled_build_present() and os.environ.get("DOMAIN_PURE") != "1" else "pure"
    assert body["status"] == "ok" and body["engine"] == expected
