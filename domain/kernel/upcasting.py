"""Event schema versions: an old stored event is upcast when read, never rewritten.

Every stored event carries ``v``, the schema version of its type when it was written
(absent means 1). An ``Upcasters`` table is the schema history of one namespace: the
platform's own events, or one game's. Its steps bring a stored body up one version at a
time; a type may also be renamed (a stored event of the old type reads as the new type, at
the new type's version 1, after the old type's own steps).

Each game has its own namespace (``GameRules.upcasters``, named after the game): both games
may have a ``TurnStarted``, and an upcaster of one never touches the other's. The tables
are plain values, declared once where the events are; nothing registers anything at run
time. ``domain.kernel.table.read_event`` picks the platform's table or the game's for a
stored body.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

#: The stored source of a game's own events (the platform's are ``"platform"``); absent means
#: this. Which game's namespace they are in is the stream's game type.
GAME = "game"


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Upcasters:
    """The schema history of one namespace's events.

    ``steps[(type, n)]`` returns a body of ``type`` at version n + 1 from one at n;
    ``renames[old] = new`` reads a stored ``old`` as ``new``. Renaming one type in a circle
    is an error."""

    namespace: str
    steps: Mapping[tuple[str, int], Upcaster] = field(default_factory=dict)
    renames: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for old in self.renames:
            seen = {old}
            name: str | None = self.renames[old]
            while name is not None:
                if name in seen:
                    raise ValueError(f"renaming {self.namespace} event type {old!r} makes a circle")
                seen.add(name)
                name = self.renames.get(name)
        current: dict[str, int] = {}
        for event_type, from_version in self.steps:
            current[event_type] = max(current.get(event_type, 1), from_version + 1)
        object.__setattr__(self, "_current", current)

    def current_version(self, event_type: str) -> int:
        current: dict[str, int] = self.__dict__["_current"]
        return current.get(event_type, 1)

    def upcast(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` at its type's current version (a new dict when anything changed)."""
        while True:
            event_type = body["type"]
            version = body.get("v", 1)
            target = self.current_version(event_type)
            while version < target:
                body = self.steps[(event_type, version)](dict(body))
                version += 1
                body["v"] = version
            new_type = self.renames.get(event_type)
            if new_type is None:
                return body
            body = {**body, "type": new_type, "v": 1}


#: A namespace with no history yet.
NONE = Upcasters("none")
