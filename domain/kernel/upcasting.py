"""Event schema versions: an old stored event is upcast when read, never rewritten.

Every stored event carries ``v``, the schema version of its type when it was written
(absent means 1). ``upcast`` brings a stored body up to the current version by applying
the registered steps in order, one version at a time. ``Event.from_json`` calls it, so
every reader (fold, views, history, projections, export) sees current-shape events.

A type may also be renamed: ``renamed`` makes a stored event of the old type read as the
new type (at the new type's version 1, after the old type's own steps). Game events of
every game share the source ``"game"``, so a renamed game-event type is retired for every
game: no game may emit the old name again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

#: The source of a game's own events (the platform's are ``"platform"``); absent means this.
GAME = "game"

#: (source, event type, from version) -> function returning the body at from version + 1
_STEPS: dict[tuple[str, str, int], Upcaster] = {}
#: (source, event type) -> current version
CURRENT: dict[tuple[str, str], int] = {}
#: (source, old event type) -> the type it was renamed to
_RENAMED: dict[tuple[str, str], str] = {}


def upcaster(source: str, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register ``fn`` as the step from ``from_version`` to ``from_version + 1``."""

    def register(fn: Upcaster) -> Upcaster:
        _STEPS[(source, event_type, from_version)] = fn
        CURRENT[(source, event_type)] = max(CURRENT.get((source, event_type), 1), from_version + 1)
        return fn

    return register


def renamed(source: str, old_type: str, new_type: str) -> None:
    """Stored events of ``old_type`` read as ``new_type``. Registering the same rename
    twice is harmless; renaming one type to two names, or in a circle, is an error."""
    known = _RENAMED.get((source, old_type))
    if known is not None and known != new_type:
        raise ValueError(f"{source} event type {old_type!r} is already renamed to {known!r}")
    seen: set[str] = {old_type}
    name: str | None = new_type
    while name is not None:
        if name in seen:
            raise ValueError(f"renaming {source} event type {old_type!r} to {new_type!r} makes a circle")
        seen.add(name)
        name = _RENAMED.get((source, name))
    _RENAMED[(source, old_type)] = new_type


def current_version(source: str, event_type: str) -> int:
    return CURRENT.get((source, event_type), 1)


def upcast(body: dict[str, Any]) -> dict[str, Any]:
    source = body.get("source", GAME)
    while True:
        event_type = body["type"]
        version = body.get("v", 1)
        target = current_version(source, event_type)
        while version < target:
            body = _STEPS[(source, event_type, version)](dict(body))
            version += 1
            body["v"] = version
        new_type = _RENAMED.get((source, event_type))
        if new_type is None:
            return body
        body = {**body, "type": new_type, "v": 1}
