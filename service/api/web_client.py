"""The web client (clients/web/) served at ``/``: static files, no build step.

The client is browser-native ES modules that use the public API and nothing else, so the
service serves it as files: ``/`` is its page, ``/web/...`` its modules and styles. It is
not part of the API's contract (it is not in openapi.yaml). A strict Content-Security-Policy
keeps its pages to their own origin's scripts and styles.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from service.base.errors import NotFound

blp = Blueprint("web_client", __name__)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def web_root() -> Path | None:
    """clients/web beside the source tree (a checkout), else in the working directory (the image)."""
    for root in (Path(__file__).resolve().parents[2] / "clients" / "web", Path.cwd() / "clients" / "web"):
        if (root / "index.html").is_file():
            return root
    return None


def _send(name: str) -> Response:
    root = web_root()
    if root is None:
        raise NotFound("the web client (clients/web) is not installed with this server")
    response = send_from_directory(root, name, max_age=0)
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@blp.get("/")
def index() -> Response:
    return _send("index.html")


@blp.get("/web/<path:name>")
def asset(name: str) -> Response:
    return _send(name)
