"""Events and the one redaction function every reader goes through.

An event has public ``data`` and optional ``secret`` data that only the seats in
``secret_to`` may see (an empty ``secret_to`` means nobody: the deck order). A game marks
an event as a ``barrier`` when it draws randomness or reveals hidden information; undo
never crosses a barrier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from domain.kernel.upcasting import Upcasters

#: ``viewer`` value for "every seat may see everything" (a finished game, the server itself).
EVERYONE = "everyone"

#: Who looks: a seat, ``None`` for a spectator, or ``EVERYONE``.
Viewer = int | str | None


@dataclass(init=False)
class Event:
    """Never changed once made (``with_barrier`` or ``dataclasses.replace`` make a changed
    copy): its fields are ``Final``, which mypy enforces and, where the engine is compiled,
    the native class too (a field cannot be set after ``__init__``). Not a frozen dataclass:
    compiled, its fields are C struct slots, read by every ``evolve``, set by the compiled
    ``__init__`` below; a frozen one's would set each field through ``object.__setattr__``,
    and every command makes several."""

    type: Final[str]
    data: Final[dict[str, Any]]
    secret: Final[dict[str, Any] | None]
    secret_to: Final[frozenset[int]]
    barrier: Final[bool]

    def __init__(self, type: str, data: dict[str, Any] | None = None, secret: dict[str, Any] | None = None,
                 secret_to: frozenset[int] = frozenset(), barrier: bool = False):
        self.type = type
        self.data = {} if data is None else data
        self.secret = secret
        self.secret_to = secret_to
        self.barrier = barrier

    def with_barrier(self) -> Event:
        """This event marked as a barrier: what ``dataclasses.replace(event, barrier=True)``
        gives, as a compiled call (``replace`` runs interpreted; the kernel marks a command's
        last event so whenever the seat to move changes)."""
        return Event(self.type, self.data, self.secret, self.secret_to, True)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "data": self.data}
        if self.secret is not None:
            out["secret"] = self.secret
            out["secret_to"] = sorted(self.secret_to)
        if self.barrier:
            out["barrier"] = True
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any], upcasters: Upcasters | None = None) -> Event:
        """A stored event, upcast first by ``upcasters`` (its namespace's schema history) if
        given; ``domain.kernel.table.read_event`` picks the table for a stored body."""
        if upcasters is not None:
            raw = upcasters.upcast(raw)
        return cls(
            type=raw["type"],
            data=raw.get("data") or {},
            secret=raw.get("secret"),
            secret_to=frozenset(raw.get("secret_to") or ()),
            barrier=bool(raw.get("barrier", False)),
        )

    def hidden(self) -> dict[str, Any]:
        """The secret part of an event that has one (a shuffle's order, a drawn card): what
        ``evolve`` reads. An event without one is a programming error here."""
        if self.secret is None:
            raise TypeError(f"a {self.type} event has no secret part")
        return self.secret

    def visible_to(self, viewer: Viewer) -> bool:
        """May ``viewer`` (a seat, ``None`` for a spectator, or EVERYONE) see the secret?"""
        if self.secret is None or viewer == EVERYONE:
            return True
        return viewer is not None and viewer in self.secret_to


def redact(event: Event, viewer: Viewer) -> dict[str, Any]:
    """The event as ``viewer`` may see it, as JSON: secrets outside the audience are dropped.

    The public shape says that something secret happened (``"redacted": true``) without
    saying what, so a log can still read "seat 2 drew a card".
    """
    out: dict[str, Any] = {"type": event.type, "data": event.data}
    if event.secret is not None:
        if event.visible_to(viewer):
            out["secret"] = event.secret
        else:
            out["redacted"] = True
    return out
