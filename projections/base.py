"""What a projection is, and the one door through which events reach it.

A projection is a pure fold: ``apply(model, envelope) -> model`` with a ``name`` and an
``initial()`` model. Models are plain JSON (dicts with string keys, lists, strings,
numbers, booleans, None), so a model stored and loaded again is equal to the one in
memory, and a rebuild can be compared with the model that incremental updates gave.
``apply`` may update ``model`` in place and return it (as ``GameRules.evolve`` may): the
runner owns the model it passes in. ``apply`` never changes the envelope: the runner builds
each one once and hands it to every projection in turn (it may keep parts of it in rows).

``envelope`` builds the only input a projection ever gets: the event as a spectator sees
it (``redact(event, None)``), plus where it sits in the store and the public facts of the
envelope. The event's ``secret`` never reaches a projection, so a read model cannot leak
a hand, whichever fields it chooses to keep.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from domain.kernel.events import redact
from domain.kernel.table import PLATFORM, read_event

#: a stored game stream is named ``game-<id>`` (see service.streams.envelopes.stream_of)
STREAM_PREFIX = "game-"


class Projection(Protocol):
    """A model is a dict of **tables**, each a flat mapping of string keys to JSON rows
    (``initial()`` names the tables, each empty). ``apply`` reads and writes rows by key
    and changes the model in place; it never iterates over a whole table, so applying an
    event costs the same with 100 games as with 100,000. The runner stores each row on
    its own (a SQLite row, a Redis hash field) and hands ``apply`` tables that load rows
    on first access; in memory (tests, ``replay``) a table is a plain dict.

    ``indexes(table, key, row)`` says which ordered indexes a row belongs to, with its
    score in each: an index lists its keys by ``(score, key)``. Readers page through an
    index (the lobby, a history, a scoreboard); ``apply`` may walk one with ``scan`` (a
    rare, whole-index operation: the scoreboard's re-rating of a type).
    """

    name: str

    def initial(self) -> dict[str, Any]:
        """The model before any event: ``{table name: {}}``."""

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        """The model after ``envelope`` (a public envelope, see ``envelope``)."""


def restated(event: Mapping[str, Any]) -> bool:
    """Is ``event`` (a stored body, or its envelope: both have ``source`` and ``after``)
    neither the platform's nor the last of its append (which carries ``after``)? That is a
    game's own event before the last of its command's, or an event of a stream that is no
    game (a webhook's journal). Everything the first could change in the read models here
    (the game's version, its last activity) the last event of the same append states again,
    with ``after`` (the status, the seats to move, the outcome); the second changes nothing.
    The projections ignore both, and the runner then need not even build their envelopes
    (``wants``). Most events of a command are such events."""
    return event.get("source") != PLATFORM and event.get("after") is None


def wants(projection: Any, event: Mapping[str, Any]) -> bool:
    """Would ``apply`` change anything for ``event`` (a stored body)? False only where the
    projection says so (its ``wants``); the runner skips the envelope of an event that no
    projection wants. ``apply`` itself leaves the model unchanged for such an event, so a
    fold that hands it every event (a replay) gives the same model."""
    own = getattr(projection, "wants", None)
    return own(event) if own is not None else True


def indexes_of(projection: Any, table: str, key: str, row: Any) -> dict[str, float]:
    """The indexes ``row`` belongs to (none for a projection that declares no ``indexes``)."""
    find = getattr(projection, "indexes", None)
    return find(table, key, row) if find is not None else {}


def scan(projection: Any, table: Mapping[str, Any], table_name: str, index: str) -> list[str]:
    """The keys of ``table`` in ``index``, ordered by (score, key). A stored table answers
    from its index (``table.scan``); a plain dict is walked whole (tests, replays)."""
    own = getattr(table, "scan", None)
    if own is not None:
        return own(index)
    found = []
    for key, row in table.items():
        score = indexes_of(projection, table_name, key, row).get(index)
        if score is not None:
            found.append((score, key))
    found.sort()
    return [key for _, key in found]


def time_score(at: str) -> float:
    """An ISO time (``2026-01-02T03:04:05.678Z``) as milliseconds since the epoch."""
    if not at:
        return 0.0
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000


def envelope(stream: str, version: int, body: Mapping[str, Any], partition: int = 0,
             position: int = 0) -> dict[str, Any]:
    """The public envelope of one stored event (``body`` as the store keeps it).

    Keys: ``type``, ``data`` (and ``redacted: true`` when a secret was withheld),
    ``game_id``, ``version``, ``partition``, ``position``, ``source`` (platform or game),
    ``actor`` (a seat or None), ``at`` (ISO time of the append), and on the last event of
    every append ``after``: ``{status, to_move, outcome}`` as they stand after it.
    """
    out = redact(read_event(dict(body)), None)  # platform events upcast; read models read no game's own
    out.update(
        game_id=stream.removeprefix(STREAM_PREFIX),
        version=version,
        partition=partition,
        position=position,
        source=body.get("source", "game"),
        actor=body.get("actor"),
        at=body.get("at") or "",
    )
    after = body.get("after")
    if after is not None:
        out["after"] = after
    imported = body.get("imported")
    if imported is not None:  # on the first event of an imported log: whether it counts for rankings
        out["ranked"] = bool(imported.get("ranked"))
    return out


def unranked(envelope: Mapping[str, Any]) -> bool:
    """Is this the first event of an imported game that must not count for rankings?"""
    return envelope.get("ranked") is False


def ranks(winners: list[int], scores: Mapping[str, int], seats: int) -> list[int]:
    """A rank per seat (1 is best): the winners share rank 1; the others follow by score,
    equal scores sharing a rank (2, 2, 3 ...). A seat without a score ranks last."""
    won = set(winners)
    others = sorted({scores.get(str(s), _NO_SCORE) for s in range(seats) if s not in won}, reverse=True)
    place = {score: i + (2 if won else 1) for i, score in enumerate(others)}
    return [1 if s in won else place[scores.get(str(s), _NO_SCORE)] for s in range(seats)]


_NO_SCORE = -(2**62)
