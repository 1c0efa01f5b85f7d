"""Envelopes: how an event is stored, and how a stored event is shown to a reader.

A stored event (its **envelope**) is the event itself (``type``, ``data``, ``secret``,
``barrier``) plus where it came from (``source``: the platform or the game; ``actor``: the
seat that made the move, None for the server), its schema version ``v``, when it was
stored (``at``), its ``batch`` (the version before the command that made it, shared by
every event of that command), and on the last event of a batch the public facts after it
(``after``: status, whose move, outcome) so that read models never fold hidden state.

Every event a reader receives, through any endpoint, is built by ``public_event`` with
the reader's audience (``service.streams.game.audience``); an export copy made during play keeps
the envelope and drops what its seat may not see (``redacted_envelope``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.kernel import Event, redact
from domain.kernel.events import EVERYONE
from domain.kernel.table import PLATFORM, PLATFORM_UPCASTERS, UNDONE, read_event
from domain.kernel.upcasting import Upcasters
from projections.base import STREAM_PREFIX
from service.adapters.store import Recorded

#: the source of events that a game's own rules produced
GAME_SOURCE = "game"

Viewer = int | str | None  # a seat, ``EVERYONE``, or None for a spectator


def stream_of(game_id: str) -> str:
    """The name of a game's stream in the store."""
    return f"{STREAM_PREFIX}{game_id}"


def game_of(stream: str) -> str:
    """The game id of a stream named by ``stream_of``."""
    return stream.removeprefix(STREAM_PREFIX)


class NewEvent(NamedTuple):
    """An event about to be appended: by whom (a seat, or None for the server) and from where.
    (A named tuple, as ``Recorded``: one per event of every command.)"""

    event: Event
    actor: int | None = None
    source: str = PLATFORM
    #: for a game's own event, its game's schema history (``GameRules.upcasters``)
    upcasters: Upcasters | None = None
    #: the acting seat is a computer opponent: ``kind:level`` (its events say so)
    bot: str | None = None


def stored_shape(new: NewEvent) -> dict[str, Any]:
    """The stored shape of an event, before the append stamps it (``stamp``)."""
    event = new.event
    history = PLATFORM_UPCASTERS if new.source == PLATFORM else new.upcasters
    assert history is not None, "a game's event is stored with its game's schema history"
    shape = {**event.to_json(), "source": new.source, "actor": new.actor, "v": history.current_version(event.type)}
    if new.bot is not None:
        shape["bot"] = new.bot
    return shape


def stamp(events: list[NewEvent], version: int, at: str, after: dict[str, Any]) -> list[dict[str, Any]]:
    """The envelopes of one command's ``events``, appended at ``version``: stored shape,
    time, batch, and the public facts ``after`` them on the last one."""
    envelopes = [stored_shape(new) for new in events]  # each a new dict: stamped in place
    for envelope in envelopes:
        envelope["at"] = at
        envelope["batch"] = version + 1
    envelopes[-1]["after"] = after
    return envelopes


def is_platform(envelope: Mapping[str, Any]) -> bool:
    return envelope.get("source") == PLATFORM


def is_undo(envelope: Mapping[str, Any]) -> bool:
    return is_platform(envelope) and envelope["type"] == UNDONE


def public_event(record: Recorded, viewer: Viewer, game: Upcasters | None = None,
                 event: Event | None = None) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it, with its version and envelope facts
    (``event``: the event the envelope was made from, when the caller holds it; else it is
    read from the envelope).

    The platform's own secrets (the game's seed, secret options such as a given deal) are
    never sent to anyone, not even to everyone in a game of open information: the seed
    would tell the draws still to come."""
    envelope = record.event
    if event is None:
        event = read_event(envelope, game)
    out = redact(event, None if is_platform(envelope) else viewer)
    out.update(version=record.version, source=envelope.get("source", GAME_SOURCE), actor=envelope.get("actor"),
               at=envelope.get("at"))
    if "bot" in envelope:
        out["bot"] = envelope["bot"]
    return out


def redacted_envelope(envelope: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """A stored event as ``viewer`` may see it, keeping the whole envelope (an export copy
    made during play): a secret the viewer may not see is dropped and the event marked."""
    if viewer == EVERYONE or envelope.get("secret") is None or Event.from_json(envelope).visible_to(viewer):
        return envelope
    return {**{k: v for k, v in envelope.items() if k != "secret"}, "redacted": True}
