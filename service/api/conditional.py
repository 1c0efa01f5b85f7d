"""Conditional GETs: an ``ETag`` made from what an answer depends on, read cheaply, so that
a matching ``If-None-Match`` is answered ``304 Not Modified`` before the answer is built.

A game's tag depends on the game's version (one read of the stream's length: no event is
read, nothing is folded), on who asks (the player's id; a seat belongs to one player, so
each seat has its own tags) and on the query (``at``). The lobby's tag depends on how far
the lobby has read the log (``ReadModels.lobby_version``) and on the query. Every
tag also depends on the API version and on each hosted game's ``rules_version``, so a
release that changes what an answer looks like changes the tags.

The version is read before the answer is built. If a move lands in between, the answer is
newer than its tag, and the next request simply gets a 200 again: a stale 304 cannot
happen, because versions only grow.

Tags are strong (the same tag, the same bytes). Answers that depend on the caller say
``Cache-Control: private, no-cache`` and ``Vary: Authorization``; the others ``no-cache``:
anyone may keep them, and must ask again (cheaply, with the tag) before using them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import wraps
from typing import Any

import orjson
from flask import Response
from flask_smorest import Blueprint
from marshmallow import EXCLUDE, Schema, fields
from werkzeug.http import quote_etag

from service.api.lean import current_flask, current_request, extensions

#: the headers of a conditional answer (``@blp.response(200, ..., headers=HEADERS)``)
HEADERS = {
    "ETag": {"description": "the answer's version: send it back as If-None-Match", "schema": {"type": "string"}},
    "Cache-Control": {"description": "no-cache: ask again (with If-None-Match) before reusing an answer",
                      "schema": {"type": "string"}},
}
PUBLIC = {"Cache-Control": "no-cache"}
PRIVATE = {"Cache-Control": "private, no-cache", "Vary": "Authorization"}


class ConditionalHeadersSchema(Schema):
    class Meta:
        unknown = EXCLUDE  # every other header

    if_none_match = fields.String(data_key="If-None-Match", metadata={
        "description": "the ETag of an earlier answer: 304 Not Modified, with no body, while it still holds"})


def conditional(blueprint: Blueprint):
    """Document an operation's If-None-Match parameter and its 304 answer (its 200 answer
    lists ``HEADERS``); the view answers with ``answer``."""
    def decorate(fn):
        @wraps(fn)
        def view(*args, if_none_match=None, **kwargs):  # answer() reads it from the request
            return fn(*args, **kwargs)

        view = blueprint.arguments(ConditionalHeadersSchema(), location="headers", as_kwargs=True)(view)
        return blueprint.alt_response(304, description="Not Modified: the answer is still the one with this ETag",
                                      headers=HEADERS)(view)
    return decorate


def etag(*parts: Any) -> str:
    """A tag for an answer that depends on exactly ``parts`` (JSON-able values)."""
    data = orjson.dumps([_release(), *parts], option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
    return hashlib.sha256(data).hexdigest()[:32]


def answer(tag: str | None, build, headers: Mapping[str, str] = PUBLIC):
    """``304`` if the client already holds ``tag``; else ``build()`` with the tag.

    ``tag`` None: nothing to compare (say, no such game); ``build`` gives the answer or the
    error. ``If-None-Match`` is compared weakly, as RFC 9110 asks. A tag matches only an
    answer that was a 200 for the same caller at the same version, so the request would
    succeed again. ``*`` promises nothing of the kind: the answer is built (its errors
    stand) and then withheld.
    """
    if tag is None:
        return build()
    out = {"ETag": quote_etag(tag), **headers}
    current = current_request()
    if not current.environ.get("HTTP_IF_NONE_MATCH"):  # nothing held: no header to parse
        return build(), out
    matches = current.if_none_match
    if matches.star_tag:
        build()
        return Response(status=304, headers=out)
    if matches.contains_weak(tag):
        return Response(status=304, headers=out)
    return build(), out


def player_id(player: Mapping[str, Any] | None) -> str | None:
    return player["id"] if player else None


def _release() -> list[Any]:
    """What every answer's shape depends on: the API version and the hosted games' rules."""
    kept = extensions()
    found = kept.get("etag_release")
    if found is None:
        registry = kept["games"].registry
        found = [current_flask().config["API_VERSION"],
                 sorted([kind, str(getattr(rules, "rules_version", "1"))] for kind, rules in registry.items())]
        kept["etag_release"] = found
    return found
