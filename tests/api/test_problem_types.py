"""Problem types: every error's ``type`` is ``/problems/<code>`` on this server, that page
describes it, and every code the source can raise is listed (in the code, on /docs and in
docs/api.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from service.api.problems import PROBLEM_TYPES
from service.base.errors import ServiceError
from tests.helpers.play import start_game

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"""\bcode\s*=\s*["']([a-z_]+)["']""")


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def codes_in_the_source() -> set[str]:
    found = {cls.code for cls in (ServiceError, *_subclasses(ServiceError))}
    for package in ("service", "domain"):
        for path in (ROOT / package).rglob("*.py"):
            found |= set(CODE.findall(path.read_text()))
    return found


def test_every_code_raised_anywhere_is_a_listed_problem_type():
    missing = codes_in_the_source() - set(PROBLEM_TYPES)
    assert not missing, f"add these to service/api/problems.py and docs/api.md: {sorted(missing)}"


def test_docs_api_md_lists_every_problem_type():
    text = (ROOT / "docs" / "api.md").read_text()
    for code, problem in PROBLEM_TYPES.items():
        assert re.search(rf"^\| `{code}` \| {problem.status} \|", text, re.M), f"docs/api.md does not list {code}"


@pytest.mark.api
def test_an_errors_type_leads_to_its_description(live_server):
    _, client = live_server.new_player("asker")
    game_id, players = start_game(live_server.games, "dynasties", 2)
    seat = live_server.client(players[0]["token"])
    errors = {
        "not_found": client.get(f"{live_server.url}/games/{'0' * 16}"),
        "unauthorized": live_server.client("nobody").get(f"{live_server.url}/games/{game_id}/state"),
        "forbidden": client.get(f"{live_server.url}/games/{game_id}/legal-commands"),
        "invalid_input": client.get(f"{live_server.url}/games", params={"limit": 0}),
        "method_not_allowed": client.delete(f"{live_server.url}/games"),
        "version_conflict": seat.post(f"{live_server.url}/games/{game_id}/commands",
                                      json={"type": "PlaceNoble", "args": {"card": "coppe-01"}, "expected_version": 1}),
    }
    for code, answer in errors.items():
        assert answer.headers["Content-Type"] == "application/problem+json", code
        problem = answer.json()
        assert problem["code"] == code and problem["type"] == f"/problems/{code}", problem
        page = requests.get(live_server.url + problem["type"], timeout=10)  # relative to the server
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        assert code in page.text and PROBLEM_TYPES[code].title in page.text


@pytest.mark.api
def test_an_unknown_problem_type_is_not_found_and_docs_lists_them_all(live_server):
    unknown = requests.get(f"{live_server.url}/problems/no_such_code", timeout=10)
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    docs = requests.get(f"{live_server.url}/docs", timeout=10).text
    for code in PROBLEM_TYPES:
        assert f'id="{code}"' in docs
