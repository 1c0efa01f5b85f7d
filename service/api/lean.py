"""Hot routes without flask-smorest's per-request wrappers.

flask-smorest documents an operation from decorators that also wrap the view: one wrapper
per documented answer (``alt_response``: five on a game's routes, one per problem status),
one that parses arguments with webargs (the ``If-None-Match`` header of a conditional GET,
parsed and thrown away: ``answer`` reads it from the request), one that dumps the result
through its schema, one for ``doc``. On the routes every cycle of play calls (legal
commands, state, a command) they were about half of the route's own time.

``lean`` goes right under ``@blp.route``: the operation is documented from the decorators
below it as before (openapi.yaml does not change), but Flask calls the function they wrap
(``mount_lean`` makes it the endpoint's view with Flask's public ``app.endpoint``).
That function reads its own query (``query``), and returns a finished answer: a
``Response`` (``json_answer``), or the ``(Response, headers)`` of ``conditional.answer``.

What a hot route reads of the request and the app it reads from the objects themselves
(``current_request``, ``extensions``), not through Flask's ``request`` and ``current_app``
proxies: a proxy forwards an attribute only once the lookup on its own class failed, and
Python builds that failure's ``AttributeError``, message and all, before dropping it (about
0.96 µs a read against 0.13; a GET and a POST made about ten such reads).

**The play routes skip Flask's request cycle** (``PlayRoutes``): a request of Flask costs
about 345 k instructions before and after its view (a request context pushed and popped,
the URL map bound and matched, session, signals, the response's headers rebuilt), as much
as the ceiling app's whole view and more than most of ours. ``GameApp.wsgi_app`` hands
``GET /games/<id>/legal-commands``, ``GET /games/<id>/state`` and ``POST /games/<id>/commands``
to ``PlayRoutes`` instead, which runs what Flask would run for them and nothing else: the
app's before-request hooks in order (the input guard, the rate limits), the same view
function, and on an exception the handler Flask would pick (``handler_for``, the same
lookup over the handlers ``errors`` and ``faults`` register). Every other request, a HEAD
or an OPTIONS of those paths included, goes through Flask. While it serves one,
``current_request`` and ``extensions`` answer from the request it made (a context
variable: greenlet-local under gevent, as Flask's own context is). An app with
after-request functions (CORS, when configured) or hooks of a blueprint serves every
request through Flask: the fast path would skip them.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from flask import Flask, Request, Response, current_app, request
from marshmallow import Schema
from werkzeug.exceptions import HTTPException, InternalServerError

from service.adapters.codec import dumps


def lean(documented: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a documented route to be served by the function its decorators wrap: flask-smorest
    registers and documents ``documented`` as ever, and ``mount_lean`` (once the blueprints
    are registered) makes the bare function the endpoint's view."""
    view = inspect.unwrap(documented)
    if view is documented:
        raise TypeError(f"{documented.__name__}: lean goes above the decorators that document the route")
    documented.lean_view = view  # type: ignore[attr-defined]  # our own mark, read by mount_lean
    return documented


def mount_lean(app: Flask) -> list[str]:
    """Make each route marked ``lean`` served by its bare function, through Flask's public
    ``app.endpoint`` (the registered rule, its endpoint and its documentation stay); the
    endpoints it changed."""
    mounted = []
    for endpoint, view in list(app.view_functions.items()):
        bare = getattr(view, "lean_view", None)
        if bare is not None:
            app.endpoint(endpoint)(bare)
            mounted.append(endpoint)
    return mounted


def json_answer(result: Any, status: int) -> Response:
    """The answer of a hot route, encoded as it is: the service builds it in the documented
    shape (tests check it against the schema), so dumping it through marshmallow again would
    only cost time."""
    return Response(dumps(result), status=status, content_type="application/json")


def query(schema: Schema) -> dict[str, Any]:
    """The request's query loaded with ``schema`` (a ValidationError is a 422 naming the
    parameter, as for the routes whose arguments flask-smorest parses)."""
    args = current_request().args
    return schema.load(args.to_dict(flat=True)) if args else schema.load({})


#: the request ``PlayRoutes`` is serving in this greenlet or thread, and its app (None: Flask is)
_serving: ContextVar[tuple[Request, Flask] | None] = ContextVar("play_request", default=None)


def current_request() -> Request:
    """The request being handled (not Flask's ``request`` proxy: see the module's docstring).
    Where Flask serves it, the request werkzeug keeps in its environ (``werkzeug.request``,
    set by every request it makes, ``populate_request``): one read through the proxy."""
    found = _serving.get()
    return found[0] if found is not None else request.environ["werkzeug.request"]


def current_flask() -> Flask:
    """The app handling the request: where Flask serves it, ``current_app`` itself."""
    found = _serving.get()
    return found[1] if found is not None else current_app


def extensions() -> dict[str, Any]:
    """The app's extensions: the game service, the command schemas, ... (read from the app
    itself, not through ``current_app``: see the module's docstring)."""
    return current_flask().extensions


def handler_for(app: Flask, exc: Exception, blueprints: Iterable[str]) -> Callable[[Exception], Any] | None:
    """The error handler Flask picks for ``exc``, found in the handlers the app registered
    (its public ``error_handler_spec``, which ``errorhandler`` fills): by status code, then by
    class, the blueprints' before the app's, the nearest class in the exception's MRO first,
    as Flask's documentation of error handlers states the order."""
    code = exc.code if isinstance(exc, HTTPException) else None
    for status in (code, None) if code is not None else (None,):
        for scope in (*blueprints, None):
            handlers = app.error_handler_spec.get(scope, {}).get(status)
            if not handlers:
                continue
            for cls in type(exc).__mro__:
                handler = handlers.get(cls)
                if handler is not None:
                    return handler
    return None


class PlayRoutes:
    """The three routes of play served without Flask's request cycle (see the module's
    docstring); ``route`` says whether a request is one of them."""

    PATH = re.compile(r"/games/([0-9a-f]{16})/(legal-commands|state|commands)\Z")
    ENDPOINTS = {("GET", "legal-commands"): "games.get_legal_commands", ("GET", "state"): "games.get_state",
                 ("POST", "commands"): "games.post_command"}

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.request_class = app.request_class
        self.json = app.json
        self.hooks = list(app.before_request_funcs.get(None, ()))
        self.max_body = app.config["MAX_CONTENT_LENGTH"]
        self.routes = {}
        for key, endpoint in self.ENDPOINTS.items():
            rule = next(app.url_map.iter_rules(endpoint))
            self.routes[key] = (rule, app.view_functions[endpoint])

    @classmethod
    def of(cls, app: Flask) -> PlayRoutes | None:
        """The play routes of ``app``, or None when Flask must serve them (see the docstring)."""
        if any(app.after_request_funcs.values()) or any(app.teardown_request_funcs.values()) \
                or any(name is not None for name, funcs in app.before_request_funcs.items() if funcs) \
                or any(app.url_value_preprocessors.values()):
            return None
        return cls(app)

    def route(self, environ: dict[str, Any]) -> tuple[Any, Callable[..., Any], str] | None:
        method = environ.get("REQUEST_METHOD")
        if method != "GET" and method != "POST":
            return None
        matched = self.PATH.match(environ.get("PATH_INFO", ""))
        if matched is None:
            return None
        found = self.routes.get((method, matched.group(2)))
        return None if found is None else (*found, matched.group(1))

    def serve(self, found: tuple[Any, Callable[..., Any], str], environ: dict[str, Any],
              start_response: Callable[..., Any]) -> Iterable[bytes]:
        rule, view, game_id = found
        current = self.request_class(environ)
        current.json_module = self.json  # as Flask's request context does
        current.url_rule = rule
        current.view_args = {"game_id": game_id}
        current.max_content_length = self.max_body
        serving = _serving.set((current, self.app))
        try:
            try:
                answer: Any = None
                for hook in self.hooks:
                    answer = hook()
                    if answer is not None:
                        break
                else:
                    answer = view(game_id=game_id)
            except Exception as exc:
                answer = self._error_answer(exc, current)
            if type(answer) is tuple:  # (answer, headers), as Flask's make_response takes it
                answer, headers = answer
                answer.headers.update(headers)
            if not isinstance(answer, Response):
                raise TypeError(f"a play route answered {type(answer).__name__}, not a finished Response")
            if answer.status_code == 304 or type(answer.response) is not list or "Content-Length" not in answer.headers:
                return answer(environ, start_response)
            # a body already set, its length said: what werkzeug's ``Response.__call__`` would
            # send (it copies the headers to adjust them, and has nothing to adjust here)
            start_response(answer.status, answer.headers.to_wsgi_list())
            return answer.response
        finally:
            _serving.reset(serving)

    def _error_answer(self, exc: Exception, current: Request) -> Any:
        """The answer of the handler Flask would pick for ``exc``; if that handler fails too,
        the one for an ``InternalServerError`` wrapping it (as Flask's ``handle_exception``)."""
        handler = handler_for(self.app, exc, current.blueprints)
        if handler is None:
            raise exc
        try:
            return handler(exc)
        except Exception as failed:
            server_error = InternalServerError(original_exception=failed)
            fallback = handler_for(self.app, server_error, current.blueprints)
            if fallback is None:
                raise
            return fallback(server_error)
