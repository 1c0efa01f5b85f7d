"""The service serves the web client at / over real HTTP: the page and its modules, with a strict
Content-Security-Policy, and nothing outside clients/web."""

from __future__ import annotations

import pytest
import requests

pytestmark = pytest.mark.api


def test_the_page_and_its_modules_are_served(web_server):
    page = requests.get(f"{web_server}/", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<script type="module" src="/web/src/app.js">' in page.text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "user-scalable=no" not in page.text and 'name="viewport"' in page.text  # zoomable
    module = requests.get(f"{web_server}/web/src/app.js", timeout=10)
    assert module.status_code == 200 and "javascript" in module.headers["Content-Type"]
    assert module.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/web/../service/app.py", "/web/%2e%2e/%2e%2e/pyproject.toml", "/web/nothing.js"])
def test_nothing_else_is_served(web_server, path):
    answer = requests.get(f"{web_server}{path}", timeout=10)
    assert answer.status_code == 404
    assert "from flask" not in answer.text and "[project]" not in answer.text
