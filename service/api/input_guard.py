"""Bounds on what a request may be, checked before any route runs.

Every refusal is application/problem+json with a 4xx status:

* a URL longer than ``MAX_URL`` characters: 414;
* more than ``MAX_HEADERS`` header fields, or more than ``MAX_HEADER_BYTES`` of them: 431;
* a query parameter the operation does not declare: 422 (``unknown_query_parameter``);
* an ``Idempotency-Key`` that is blank or out of bounds, or sent to an operation that does
  not take one (it would protect no retry): 422 (``invalid_input``);
* a body whose ``Content-Type`` declares a charset other than UTF-8 (or its subset
  US-ASCII): 415 (``unsupported_media_type``): every body is read as UTF-8;
* a JSON body that is not strict JSON (invalid UTF-8, a lone surrogate ``\\ud800``, NaN),
  nests deeper than ``MAX_JSON_DEPTH``, or holds an integer too large for 64 bits (a
  4,300-digit number included): 422 (``invalid_json``, like any other invalid body), before
  anything parses it again.

The body is parsed once here, by ``request.get_json`` itself: the app's JSON provider
(``StrictJson``) reads with orjson (which refuses what the standard library would turn
into a 500: recursion errors, huge integers, surrogates), its request class
(``GuardedRequest``) says why a body is not JSON, and werkzeug keeps what it parsed for
the route's own ``get_json``. What each operation declares (its query parameters, the
header fields it takes) is read from the API's OpenAPI document, as its clients read it.
Behind gunicorn, request lines and header fields over gunicorn's own limits are refused by
gunicorn itself, also as problem+json (``service.running.gunicorn_worker``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from apispec import APISpec
from flask import Flask, Request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest

from service.api.auth import idempotency_key_problem
from service.api.errors import problem
from service.api.lean import current_request

MAX_URL = 4000
MAX_HEADERS = 100
MAX_HEADER_BYTES = 16 * 1024
MAX_JSON_DEPTH = 32


#: the charsets a body may declare (every body is read as UTF-8; ASCII is a subset of it)
BODY_CHARSETS = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})
IDEMPOTENCY_KEY = "Idempotency-Key"
IDEMPOTENCY_KEY_ENVIRON = "HTTP_IDEMPOTENCY_KEY"
#: the environ keys that werkzeug reads as header fields besides HTTP_* (when not empty), and
#: the HTTP_* ones it does not (``EnvironHeaders``)
_BODY_FIELDS = frozenset({"CONTENT_TYPE", "CONTENT_LENGTH"})
_NOT_FIELDS = frozenset({"HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"})


class StrictJson(DefaultJSONProvider):
    """The app's JSON provider (``app.json``, which Flask hands every request as its
    ``json_module``): Flask's, reading with orjson, which refuses invalid UTF-8, lone
    surrogates and NaN, and never recurses."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s) if not kwargs else super().loads(s, **kwargs)


class BodyNotJson(BadRequest):
    """A body declared as JSON that is not (a 400 wherever the guard did not answer first)."""

    def __init__(self, reason: ValueError) -> None:
        super().__init__(f"the body is not valid JSON: {reason}")
        self.reason = reason


class GuardedRequest(Request):
    """The app's request class (``app.request_class``): Flask's, raising ``BodyNotJson`` for
    a body declared as JSON that is not."""

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:  # not declared as JSON
            return super().on_json_loading_failed(e)
        raise BodyNotJson(e)


def install(app: Flask, spec: APISpec) -> None:
    """The guard before every route of ``app``, what it allows read from ``spec`` (the API's
    OpenAPI document, its operations registered)."""
    app.request_class = GuardedRequest
    app.json = StrictJson(app)
    operations = dict(_operations(app, spec))
    allowed = {endpoint: _parameter_names(found, "query") for endpoint, found in operations.items()}
    takes_key = frozenset(endpoint for endpoint, found in operations.items()
                          if IDEMPOTENCY_KEY in _parameter_names(found, "header"))

    @app.before_request
    def guard():
        # read from the WSGI environ where it is enough: werkzeug's request properties parse
        # (headers, query, content type) on first use, and most requests need none of it;
        # and from the request itself (``current_request``), not the ``request`` proxy, which
        # looks the context up again on every read
        current = current_request()
        environ = current.environ
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI") or current.full_path
        if len(raw) > MAX_URL:
            return problem(414, "uri_too_long", "URI Too Long",
                           f"the request's URL is {len(raw)} characters long; at most {MAX_URL} are accepted")
        count, size = _header_fields(environ)
        if count > MAX_HEADERS or size > MAX_HEADER_BYTES:
            return problem(431, "request_header_fields_too_large", "Request Header Fields Too Large",
                           f"at most {MAX_HEADERS} header fields and {MAX_HEADER_BYTES} bytes of them are accepted")
        endpoint = current.endpoint
        if environ.get("QUERY_STRING") and current.args and endpoint is not None:
            unknown = sorted(set(current.args) - allowed.get(endpoint, frozenset()))
            if unknown:
                known = sorted(allowed.get(endpoint, ()))
                return problem(422, "unknown_query_parameter", "Invalid input",
                               f"unknown query parameter(s): {', '.join(unknown)[:200]}; this operation takes "
                               f"{', '.join(known) if known else 'none'}",
                               errors={name[:100]: ["Unknown field."] for name in unknown[:20]})
        key = environ.get(IDEMPOTENCY_KEY_ENVIRON)
        if key is not None and endpoint is not None:
            if endpoint not in takes_key:
                return problem(422, "invalid_input", "Invalid input",
                               f"{current.method} {current.path[:200]} does not take an Idempotency-Key "
                               "(a retry would not be recognised): send it only to the operations that "
                               "declare it", errors={IDEMPOTENCY_KEY: ["Unknown field."]})
            wrong = idempotency_key_problem(key)
            if wrong is not None:
                return problem(422, "invalid_input", "Invalid input", wrong, errors={IDEMPOTENCY_KEY: [wrong]})
        content_type = environ.get("CONTENT_TYPE")
        if not content_type:  # no body to check (a body without a type is not read as JSON)
            return None
        charset = current.mimetype_params.get("charset") if ";" in content_type else None
        if charset is not None and charset.strip().lower() not in BODY_CHARSETS:
            return problem(415, "unsupported_media_type", "Unsupported Media Type",
                           f"the body is declared as charset={charset[:40]}; this server reads bodies as UTF-8 "
                           "only: send UTF-8 and declare charset=utf-8 (or no charset)")
        if _is_json(content_type):  # an empty body (no length, or 0) reads as b"": nothing to check
            if current.get_data(cache=True):
                try:  # the type is checked above; get_json keeps what it parsed for the route
                    value = current.get_json(force=True)
                except BodyNotJson as exc:
                    return problem(422, "invalid_json", "Invalid input", f"the body is not valid JSON: {exc.reason}")
                wrong = _json_problem(value, MAX_JSON_DEPTH)
                if wrong is not None:
                    return problem(422, "invalid_json", "Invalid input", wrong)
        return None


def _header_fields(environ: dict[str, Any]) -> tuple[int, int]:
    """How many header fields the request has and their bytes (names and values), counted
    as ``request.headers`` lists them, without building their names."""
    count = size = 0
    for key in environ:  # most keys are the server's own: a first letter rules them out cheaply
        if key[:1] == "H" and key.startswith("HTTP_") and key not in _NOT_FIELDS:
            count += 1
            size += len(key) - 5 + len(environ[key])
    for key in _BODY_FIELDS:
        value = environ.get(key)
        if value:
            count += 1
            size += len(key) + len(value)
    return count, size


#: a variable part of a werkzeug rule (``<game_id>``, ``<int:n>``) and its name
_RULE_PART = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def _operations(app: Flask, spec: APISpec) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Per endpoint of ``app``, the parameters that ``spec`` documents for its operations (the
    path's own and each operation's, ``$ref`` resolved); an endpoint it does not document has
    none."""
    document = spec.to_dict()
    paths = document.get("paths", {})
    components = document.get("components", {}).get("parameters", {})

    def resolved(parameter: dict[str, Any]) -> dict[str, Any]:
        ref = parameter.get("$ref")
        return components.get(ref.rsplit("/", 1)[-1], {}) if isinstance(ref, str) else parameter

    found: dict[str, list[dict[str, Any]]] = {}
    for rule in app.url_map.iter_rules():
        item = paths.get(_RULE_PART.sub(r"{\1}", rule.rule), {})
        parameters = found.setdefault(rule.endpoint, [])
        parameters.extend(resolved(p) for p in item.get("parameters", []))
        for method in rule.methods or ():
            parameters.extend(resolved(p) for p in item.get(method.lower(), {}).get("parameters", []))
    yield from found.items()


def _parameter_names(parameters: list[dict[str, Any]], where: str) -> frozenset[str]:
    return frozenset(p["name"] for p in parameters if p.get("in") == where and "name" in p)


def _is_json(content_type: str) -> bool:
    """werkzeug's ``Request.is_json``, from the ``Content-Type`` as it is: its media type
    (before any ``;``, stripped and lowercased, as ``parse_options_header`` takes it) is
    ``application/json`` or ``application/*+json``."""
    mimetype = content_type.partition(";")[0].strip(" \t").lower()
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def _json_problem(value: Any, limit: int) -> str | None:
    """What is wrong with a parsed JSON body, found in one walk: nesting deeper than
    ``limit`` (said first), or a number too large for 64 bits (orjson reads an integer
    beyond 64 bits as a float; NaN cannot come from strict JSON); None if neither. orjson
    gives plain dicts, lists, str, int, float, bool and None: only containers are stacked."""
    huge = False
    stack: list[tuple[Any, int]] = [(value, 1)] if type(value) in (dict, list) else []
    if type(value) is float and not abs(value) < 2.0**63:
        huge = True
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return f"the JSON body nests deeper than {limit} levels"
        children: Iterable[Any] = item.values() if type(item) is dict else item
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is float and not abs(child) < 2.0**63:
                huge = True
    return "the JSON body holds a number too large for a 64-bit integer" if huge else None
