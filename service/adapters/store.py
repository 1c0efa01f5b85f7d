"""The event store protocol: one interface per capability, several backends (memory, SQLite, Redis).

A store keeps, per game, an append-only stream of events numbered 1, 2, 3, ... (the
version), and a global log that orders every appended event for the projections. The log
is split into ``partitions`` (one for SQLite and memory; a fixed number for Redis, so a
Redis Cluster can spread them); each partition has its own increasing positions.

Events reach the store as JSON-able dicts and come back the same: the store never looks
inside them. Beside the streams a store keeps small side tables that must live in the
same backend: idempotency records (written atomically with the append they describe),
players, snapshots (never the source of truth) and projection read models with their
checkpoints (written together, so a crash cannot apply an event twice or skip one).

A read model is stored **per row**: each projection has tables of JSON rows by key and
ordered indexes of keys by score (see ``projections.base.Projection``). A save writes the
rows and index entries that changed, with the checkpoints, in one atomic compare-and-set,
so its cost follows the rows an event touched, never the size of the model.

The protocol is split by capability, the way the eventsourcing library splits its
recorders, so a caller can ask for only what it uses and each capability has a contract
suite of its own (``tests/contract/``):

* ``StreamRecorder``: append at an expected version, read, version, idempotency records;
* ``LogRecorder``: the global ordered log, read by partition;
* ``ProjectionRecorder``: read models stored per row, saved with their checkpoints;
* ``SnapshotRecorder``: a cache of folded states;
* ``PlayerRecorder``: players and their token hashes;
* ``SharedStateRecorder``: what every process of a deployment must agree on and that fits
  none of the above (server secrets, small named sets).

``ReadModelStore`` is what a projection runner needs (the log and the read models), and
``EventStore`` is every capability in one object with its connections (``ping``,
``close``): a backend is one class per capability sharing one connection (a "datastore"),
composed into the backend's ``EventStore``. Appends write the stream and the log in one
atomic step, so the stream and log recorders of a backend always share their datastore.
"""

from __future__ import annotations

import time
import zlib
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple


class VersionConflict(Exception):
    """The stream is not at the version the appender expected."""

    def __init__(self, stream: str, expected: int, current: int):
        super().__init__(f"stream {stream} is at version {current}, not {expected}")
        self.stream = stream
        self.expected = expected
        self.current = current


class DuplicateRequest(Exception):
    """The idempotency key was already used; ``record`` is what the first request stored."""

    def __init__(self, key: str, record: dict[str, Any]):
        super().__init__(f"idempotency key {key} was already used")
        self.key = key
        self.record = record


class TokensChanged(Exception):
    """A token was rotated or revoked since the caller checked its own (the token
    generation is ``current`` now): nothing was appended; check the token again."""

    def __init__(self, current: int):
        super().__init__(f"the token generation moved on to {current}")
        self.current = current


class CheckpointMoved(Exception):
    """Another runner saved the projection since this one loaded it."""


class Recorded(NamedTuple):
    """One stored event: its stream, version in the stream, and position in its log partition.

    A named tuple (immutable, as a frozen dataclass): one is made for every event appended
    or read, the projections' log reads included, and a frozen dataclass's ``__init__``
    (an ``object.__setattr__`` per field) cost about five times as much."""

    stream: str
    version: int
    event: dict[str, Any]
    partition: int = 0
    position: int = 0


#: a row write: (table, key, JSON bytes), or None as the bytes to delete the row
RowWrite = tuple[str, str, bytes | None]
#: an index write: (index, key, score), or None as the score to take the key out
IndexWrite = tuple[str, str, float | None]


@dataclass(frozen=True)
class RowsSave:
    """One projection's save (``ProjectionRecorder.save_rows``'s arguments), for ``save_many``."""

    name: str
    checkpoints: dict[int, int]
    previous: dict[int, int] | None
    rows: Sequence[RowWrite]
    index: Sequence[IndexWrite]


def partition_of(stream: str, partitions: int) -> int:
    """A stable partition for a stream (crc32, so every process agrees)."""
    return zlib.crc32(stream.encode()) % partitions


class StreamRecorder(ABC):
    """The streams a command writes: append at a version, read back, refuse a repeated request."""

    @abstractmethod
    def append(
        self,
        stream: str,
        version: int,
        events: Sequence[dict[str, Any]],
        idempotency: tuple[str, dict[str, Any]] | None = None,
        head: str = "",
        token_generation: int | None = None,
    ) -> int:
        """Append ``events`` as versions ``version + 1 ...`` and return the new version
        (``version``: the stream's version the appender decided them on).

        Atomic: either every event is appended, with its log entry and the idempotency
        record, or nothing is. Raises ``VersionConflict`` if the stream is not at
        ``version`` and ``DuplicateRequest`` if the idempotency key (scoped to
        ``stream``) exists; the key is checked before the version. ``head``: the digest
        (``service.adapters.codec.digest``) of the event the appender decided on at
        ``version``; if the stream holds another event there (the store went back
        in time and on again), ``VersionConflict`` too, its ``current`` = ``version``.
        ``token_generation``: the ``PlayerRecorder.token_generation`` the caller's token was
        checked at; if a token was rotated or revoked since, ``TokensChanged`` (checked
        first, with the rest: in the append's one round trip where the store allows it).
        """

    @abstractmethod
    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        """Events with ``after < version <= until`` in version order."""

    @abstractmethod
    def version(self, stream: str) -> int:
        """The stream's latest version (0 for a stream that does not exist)."""

    def versions(self, streams: Sequence[str]) -> list[int]:
        """``version`` of each of ``streams``, in their order (stores that can answer in one
        round trip do: the bots' sweep asks it of every game with a bot seat)."""
        return [self.version(stream) for stream in streams]

    @abstractmethod
    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        """What the append that used ``key`` on ``stream`` stored (keys are scoped per stream)."""

    def confirm(self, stream: str) -> None:  # noqa: B027 - most stores need nothing
        """Return once what ``stream`` holds is as durable as an acknowledged append (an
        answer built on another request's write: Redis with the durability setting waits
        for the replicas; other stores acknowledge nothing they have not made durable)."""


class LogRecorder(ABC):
    """The global ordered log: every appended event once, in append order within its
    partition, at increasing positions (from 1) that a reader can resume after."""

    #: how many partitions the log has (``read_log`` takes 0 .. partitions - 1)
    partitions: int = 1

    @abstractmethod
    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        """Log entries of ``partition`` with position > ``after``, oldest first."""

    @abstractmethod
    def log_head(self, partition: int) -> int:
        """The newest position in ``partition`` (0 if empty)."""

    def log_heads(self) -> dict[int, int]:
        """Every partition's newest position (stores with many partitions answer in one round trip)."""
        return {p: self.log_head(p) for p in range(self.partitions)}

    def read_logs(self, reads: Mapping[int, tuple[int, int]]) -> dict[int, list[Recorded]]:
        """``read_log(partition, after, limit)`` for each ``partition: (after, limit)`` of
        ``reads`` (backends that can answer in one round trip do)."""
        return {p: self.read_log(p, after, limit) for p, (after, limit) in reads.items()}

    def wait_for_log(self, after: dict[int, int], timeout: float) -> None:
        """Return once some partition holds an entry past ``after`` (partition -> position),
        or after about ``timeout`` seconds. Backends that can block on the log do (Redis:
        one blocking read); this one looks at the heads every few milliseconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            heads = self.log_heads()
            if any(head > after.get(p, 0) for p, head in heads.items()):
                return
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))

class ProjectionRecorder(ABC):
    """Read models stored per row (tables of JSON rows, ordered indexes of keys) with the
    checkpoints that track how far in the log each model is; both change only together."""

    @abstractmethod
    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        """The projection's checkpoint per partition (None: it has never been saved)."""

    @abstractmethod
    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        """Write ``rows`` and ``index`` changes and the new ``checkpoints`` together, only if
        the stored checkpoints still equal ``previous`` (None: never saved); else
        ``CheckpointMoved`` and nothing is written."""

    def load_checkpoints_many(self, names: Sequence[str]) -> dict[str, dict[int, int] | None]:
        """``load_checkpoints`` of each of ``names`` (one round trip where the store allows it)."""
        return {name: self.load_checkpoints(name) for name in names}

    def save_many(self, saves: Sequence[RowsSave]) -> set[str]:
        """``save_rows`` of several projections; returns the names whose stored checkpoints
        were not the expected ones (nothing of theirs is written; the others' saves stand).
        Each save is atomic on its own, as ``save_rows``; a backend may send them together."""
        moved: set[str] = set()
        for save in saves:
            try:
                self.save_rows(save.name, save.checkpoints, save.previous, save.rows, save.index)
            except CheckpointMoved:
                moved.add(save.name)
        return moved

    @abstractmethod
    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        """The rows of ``keys`` (JSON bytes; None where there is no row)."""

    @abstractmethod
    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        """Keys of ``index`` by (score, key), from ``offset``, at most ``limit`` (None: all)."""

    @abstractmethod
    def index_count(self, name: str, index: str) -> int:
        """How many keys ``index`` holds (kept as a count: no scan)."""

    @abstractmethod
    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        """Every (key, score) of ``index`` in order (a whole-index walk: rare operations only)."""

    @abstractmethod
    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        """Every row of a table (tests and tools: it reads the whole table)."""

    @abstractmethod
    def delete_projection(self, name: str) -> None:
        """Drop the projection's rows, indexes and checkpoints (harmless if there are none)."""


class SnapshotRecorder(ABC):
    """Folded states by stream, schema and version: a cache, so deleting them changes no answer."""

    @abstractmethod
    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        """Keep ``state`` as ``stream`` at ``version`` under ``schema`` (a retake replaces it;
        a store may drop the oldest snapshots of a stream)."""

    @abstractmethod
    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot of ``stream`` taken with ``schema`` at a version <= ``at_most``."""

    @abstractmethod
    def delete_snapshots(self) -> None:
        """Drop every snapshot of every stream."""


class PlayerRecorder(ABC):
    """Players and the hash of each one's current token (one valid token per player)."""

    @abstractmethod
    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        """Record a new player with the hash of its first token."""

    @abstractmethod
    def player(self, player_id: str) -> dict[str, Any] | None:
        """``{id, name}`` or None."""

    @abstractmethod
    def player_by_token(self, token_hash: str, player_id: str | None = None) -> dict[str, Any] | None:
        """``{id, name}`` of the player whose current token has this hash, or None.
        ``player_id``: the player the token names (tokens carry their player's id, so a store
        can look in that player's record alone; None for a token issued before they did):
        another player's record never matches."""

    @abstractmethod
    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        """Atomically swap the player's token hash ``old_hash`` for ``new_hash`` (None:
        revoke it, leaving the player with no valid token). False if ``old_hash`` is not
        the player's current token (revoked or rotated meanwhile)."""

    @abstractmethod
    def token_generation(self) -> int:
        """A number that changes whenever a token is rotated or revoked (``replace_token``),
        on every process of a deployment: open live streams re-check their credentials only
        when it moved (one cheap read a second instead of a lookup per stream)."""

    def checked_token(self, token_hash: str, player_id: str | None = None) -> tuple[dict[str, Any] | None, int]:
        """``player_by_token`` and a token generation read before it (so the answer holds
        at least until the generation moves on): one round trip where the store allows it."""
        generation = self.token_generation()
        return self.player_by_token(token_hash, player_id), generation

    def current_tokens(self, credentials: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of ``credentials`` (player id, token hash) whose hash is still that player's
        current token (open live streams re-check theirs with one call for all). Backends
        answer in one round trip."""
        return {(p, h) for p, h in credentials if self.player_by_token(h, p) is not None}


class SharedStateRecorder(ABC):
    """Small values every process of a deployment must agree on: server secrets and small
    named sets (quota bookkeeping). None is the source of truth for a game."""

    @abstractmethod
    def secret(self, name: str, candidate: str) -> str:
        """The server secret ``name``; the first caller's ``candidate`` becomes it (atomic,
        so every process of a deployment agrees on one value)."""

    @abstractmethod
    def set_add(self, name: str, member: str) -> None:
        """Put ``member`` in the set ``name`` (no-op if it is there)."""

    @abstractmethod
    def set_remove(self, name: str, member: str) -> None:
        """Take ``member`` out of the set ``name`` (no-op if it is not there)."""

    @abstractmethod
    def set_members(self, name: str) -> list[str]:
        """The members of a small named set, sorted (a hint, checked against events)."""


class ReadModelStore(LogRecorder, ProjectionRecorder, ABC):
    """What a projection runner needs: the log to tail and the read models to keep."""


class EventStore(StreamRecorder, ReadModelStore, SnapshotRecorder, PlayerRecorder, SharedStateRecorder, ABC):
    """Every capability over one backend, and the backend's connections."""

    def version_and_token_generation(self, stream: str) -> tuple[int, int]:
        """``version(stream)`` and ``token_generation()`` together (a request checks its
        cached token and reads the game's version in one round trip where the store allows it)."""
        return self.version(stream), self.token_generation()

    @property
    def tokens_cacheable(self) -> bool:
        """May a process keep tokens it checked, valid while ``token_generation`` stays (read
        with the game's version, and checked by ``append``)? Not on a Redis Cluster, where the
        generation is in another slot than the game: there every request checks its token."""
        return True

    def ping(self) -> None:
        """Raise if the store does not answer (a cheap read, bounded in time)."""
        self.version("health-probe")

    def close(self) -> None:  # noqa: B027 - optional: stores without connections need nothing
        """Release connections; the store must not be used afterwards."""
