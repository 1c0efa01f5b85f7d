"""Event schema versions: an old stored event is upcast when read, never rewritten.

Every stored event carries ``v``, the schema version of its type when it was written
(absent means 1). ``upcast`` brings a stored body up to the current version by applying
the registered steps in order, one version at a time. ``Event.from_json`` calls it, so
every reader (fold, views, history, projections, export) sees current-shape events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

#: (source, event type, from version) -> function returning the body at from version + 1
_STEPS: dict[tuple[str, str, int], Upcaster] = {}
#: (source, event type) -> current version
CURRENT: dict[tuple[str, str], int] = {}


def upcaster(source: str, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` as the step from ``from_version`` to ``from_version + 1``."""

    def register(fn: Upcaster) -> Upcaster:
        _STEPS[(source, event_type, from_version)] = fn
        CURRENT[(source, event_type)] = max(CURRENT.get((source, event_type), 1), from_version + 1)
        return fn

    return register


def current_version(source: str, event_type: str) -> int:
    return CURRENT.get((source, event_type), 1)


def upcast(body: dict[str, Any]) -> dict[str, Any]:
    source, event_type = body.get("source", "game"), body["type"]
    version = body.get("v", 1)
    target = current_version(source, event_type)
    while version < target:
        body = _STEPS[(source, event_type, version)](dict(body))
        version += 1
        body["v"] = version
    return body
