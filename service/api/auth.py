"""Who is calling: a player from the bearer token, or a spectator without one."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app

from service.api.lean import current_request
from service.base.errors import Unauthorized


def bearer_token(required: bool = False) -> str | None:
    """The token of the ``Authorization: Bearer`` header (None without one)."""
    header = current_request().environ.get("HTTP_AUTHORIZATION")  # what request.headers would parse it from
    if not header:
        if required:
            raise Unauthorized("send your player token as 'Authorization: Bearer <token>'")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    return token.strip()


def current_player(required: bool = False) -> dict[str, Any] | None:
    token = bearer_token(required)
    return None if token is None else current_app.extensions["games"].players.authenticate(token)


def idempotency_key() -> str | None:
    """The request's ``Idempotency-Key`` (None without one); ``input_guard`` refused a bad one."""
    key = current_request().environ.get("HTTP_IDEMPOTENCY_KEY")
    if key is None:
        return None
    problem = idempotency_key_problem(key)
    if problem is not None:
        from service.base.errors import Unprocessable

        raise Unprocessable(problem, code="invalid_input")
    return key.strip()


#: what an ``Idempotency-Key`` may be, as openapi.yaml states it: 1 to 200 printable ASCII
#: characters, the first and last not a space (a header's value reaches the server without
#: surrounding white space, so a key that began or ended with one could not come back the same)
IDEMPOTENCY_KEY_PATTERN = "^[!-~]([ -~]{0,198}[!-~])?$"
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)


def idempotency_key_problem(key: str) -> str | None:
    """What is wrong with an ``Idempotency-Key`` value, or None (``IDEMPOTENCY_KEY_PATTERN``;
    a blank key is refused: it would silently give no retry protection)."""
    key = key.strip()
    if not key:
        return "the Idempotency-Key header is blank: send 1 to 200 printable ASCII characters, or no such header"
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        return "Idempotency-Key must be 1 to 200 printable ASCII characters (pattern ^[!-~]([ -~]{0,198}[!-~])?$)"
    return None
