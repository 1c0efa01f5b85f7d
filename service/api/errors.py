"""The one place where errors become HTTP responses: application/problem+json.

Every error (a rule violated, a bad option, a version conflict, invalid JSON, an unknown
route, even an unexpected exception) leaves the server in the same shape:
``{type, title, status, detail, code}``, plus facts a client can act on. ``type`` is
``/problems/<code>`` (``service.api.problems`` lists every code). Routes document their
problem answers with ``problem_responses``.
"""

from __future__ import annotations

import json
import logging

from flask import Flask, Response
from flask_smorest import Blueprint
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from domain.kernel import DomainError, InvalidOptions, RuleViolation
from service.api.problems import problem_type
from service.api.schemas import ProblemSchema
from service.base.errors import ServiceError

log = logging.getLogger(__name__)
#: the media type of every error answer
PROBLEM = "application/problem+json"


def problem(status: int, code: str, title: str, detail: str, **extra) -> Response:
    body = {"type": problem_type(code), "title": title, "status": status,
            "detail": detail, "code": code, **{k: v for k, v in extra.items() if v is not None}}
    # as Flask's JSON provider writes it (sorted keys, ASCII), with or without an app context:
    # the play routes answer outside Flask's request cycle (``service.api.lean``)
    return Response(json.dumps(body, sort_keys=True, default=str), status=status, mimetype=PROBLEM)


def problem_responses(blueprint: Blueprint, *statuses: int):
    """Document that an operation may answer these statuses with a problem."""
    def decorate(fn):
        for status in statuses:
            fn = blueprint.alt_response(status, schema=ProblemSchema, content_type=PROBLEM)(fn)
        return fn
    return decorate


def _describe(messages) -> str:
    """Marshmallow's nested messages as one readable sentence."""
    if isinstance(messages, dict):
        parts = []
        for name, inner in messages.items():
            text = _describe(inner)
            parts.append(f"{name}: {text}")
        return "; ".join(parts)
    if isinstance(messages, list):
        return " ".join(_describe(m) for m in messages)
    return str(messages)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def service_error(exc: ServiceError):
        extra = dict(exc.extra)
        code = extra.pop("code", exc.code)
        retry_after = extra.pop("retry_after", None)
        response = problem(exc.status, code, exc.title, exc.detail, **extra)
        if retry_after is not None:
            response.headers["Retry-After"] = str(retry_after)
        return response

    @app.errorhandler(InvalidOptions)
    def invalid_options(exc: InvalidOptions):
        return problem(422, exc.code, "Invalid game option", exc.reason, option=exc.option)

    @app.errorhandler(RuleViolation)
    def rule_violated(exc: RuleViolation):
        return problem(422, exc.code, "Not allowed by the rules", exc.reason)

    @app.errorhandler(DomainError)
    def domain_error(exc: DomainError):
        return problem(422, exc.code, "Not allowed", exc.reason)

    @app.errorhandler(ValidationError)
    def invalid_input(exc: ValidationError):
        return problem(422, "invalid_input", "Invalid input", _describe(exc.messages), errors=exc.messages)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        # webargs (flask-smorest's argument parser) reports invalid input as 422 with messages
        messages = getattr(exc, "data", {}).get("messages") if getattr(exc, "data", None) else None
        if messages:
            flat = {k: v for location in messages.values() for k, v in location.items()} \
                if all(isinstance(v, dict) for v in messages.values()) else messages
            return problem(422 if exc.code in (400, 422) else exc.code or 500, "invalid_input", "Invalid input",
                           _describe(flat), errors=flat)
        code = (exc.name or "error").lower().replace(" ", "_")
        response = problem(exc.code or 500, code, exc.name, exc.description or exc.name)
        for name, value in exc.get_headers():  # e.g. Allow on 405
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):  # a bug: say so without leaking internals
        log.exception("unhandled error")
        return problem(500, "internal_error", "Internal server error",
                       "the server failed to handle this request; it has been logged")
