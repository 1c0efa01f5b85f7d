"""Hot routes without flask-smorest's per-request wrappers.

flask-smorest documents an operation from decorators that also wrap the view: one wrapper
per documented answer (``alt_response``: five on a game's routes, one per problem status),
one that parses arguments with webargs (the ``If-None-Match`` header of a conditional GET,
parsed and thrown away: ``answer`` reads it from the request), one that dumps the result
through its schema, one for ``doc``. On the routes every cycle of play calls (legal
commands, state, a command) they were about half of the route's own time.

``lean`` goes right under ``@blp.route``: the operation is documented from the decorators
below it as before (openapi.yaml does not change), but Flask calls the function they wrap.
That function reads its own query (``query``), and returns a finished answer: a
``Response`` (``json_answer``), or the ``(Response, headers)`` of ``conditional.answer``.

What a hot route reads of the request and the app it reads from the objects themselves
(``current_request``, ``extensions``), not through Flask's ``request`` and ``current_app``
proxies: a proxy forwards an attribute only once the lookup on its own class failed, and
Python builds that failure's ``AttributeError``, message and all, before dropping it (about
0.96 µs a read against 0.13; a GET and a POST made about ten such reads).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from flask import Request, Response, current_app, request
from marshmallow import Schema

from service.adapters.codec import dumps


def lean(documented: Callable[..., Any]) -> Callable[..., Any]:
    view = inspect.unwrap(documented)
    if view is documented:
        raise TypeError(f"{documented.__name__}: lean goes above the decorators that document the route")
    view._apidoc = documented._apidoc  # type: ignore[attr-defined]  # what flask-smorest documents, and input_guard reads
    return view


def json_answer(result: Any, status: int) -> Response:
    """The answer of a hot route, encoded as it is: the service builds it in the documented
    shape (tests check it against the schema), so dumping it through marshmallow again would
    only cost time."""
    return Response(dumps(result), status=status, content_type="application/json")


def query(schema: Schema) -> dict[str, Any]:
    """The request's query loaded with ``schema`` (a ValidationError is a 422 naming the
    parameter, as for the routes whose arguments flask-smorest parses)."""
    return schema.load(request.args.to_dict(flat=True)) if request.args else schema.load({})


def current_request() -> Request:
    """The request being handled (not Flask's ``request`` proxy: see the module's docstring)."""
    return request._get_current_object()  # type: ignore[attr-defined]


def extensions() -> dict[str, Any]:
    """The app's extensions: the game service, the command schemas, ... (read from the app
    itself, not through ``current_app``: see the module's docstring)."""
    return current_app._get_current_object().extensions  # type: ignore[attr-defined]
