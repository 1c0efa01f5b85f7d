"""An in-memory store for fast unit and API tests. Same contract as the real ones.

One recorder class per capability (``service.adapters.store``), all working on one
``MemoryDatastore`` (the dicts and the lock that makes each operation atomic), composed
into ``MemoryStore``. Everything a caller hands in or gets back is a copy, as with the
real stores, which encode and decode.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.adapters.codec import digest, dumps, loads
from service.adapters.store import (
    CheckpointMoved,
    DuplicateRequest,
    EventStore,
    IndexWrite,
    LogRecorder,
    PlayerRecorder,
    ProjectionRecorder,
    Recorded,
    RowWrite,
    SharedStateRecorder,
    SnapshotRecorder,
    StreamRecorder,
    TokensChanged,
    VersionConflict,
)


@dataclass
class MemoryDatastore:
    """What the memory recorders share; every operation holds ``lock``."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    streams: dict[str, list[Recorded]] = field(default_factory=dict)
    log: list[Recorded] = field(default_factory=list)
    idempotency: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    token_generation: int = 0
    snapshots: dict[tuple[str, str], dict[int, bytes]] = field(default_factory=dict)
    checkpoints: dict[str, dict[int, int]] = field(default_factory=dict)
    rows: dict[tuple[str, str], dict[str, bytes]] = field(default_factory=dict)
    indexes: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    sets: dict[str, set[str]] = field(default_factory=dict)


class MemoryRecorder:
    """The base of the memory recorders: the datastore they work on (a new one if none is given)."""

    def __init__(self, datastore: MemoryDatastore | None = None) -> None:
        self._data = datastore if datastore is not None else MemoryDatastore()


class MemoryStreamRecorder(MemoryRecorder, StreamRecorder):
    """Streams as lists of ``Recorded``; an append also extends the (single-partition) log."""

    def append(self, stream: str, version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None, head: str = "",
               token_generation: int | None = None) -> int:
        data = self._data
        with data.lock:
            if token_generation is not None and token_generation != data.token_generation:
                raise TokensChanged(data.token_generation)
            if idempotency and (stream, idempotency[0]) in data.idempotency:
                raise DuplicateRequest(idempotency[0], _copy(data.idempotency[(stream, idempotency[0])]))
            records = data.streams.setdefault(stream, [])
            if len(records) != version or (head and records and digest(records[-1].event) != head):
                raise VersionConflict(stream, version, len(records))
            for event in events:
                stored = Recorded(stream, len(records) + 1, loads(dumps(event)), 0, len(data.log) + 1)
                records.append(stored)
                data.log.append(stored)
            if idempotency:
                data.idempotency[(stream, idempotency[0])] = loads(dumps(idempotency[1]))
            return len(records)

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        with self._data.lock:
            return [_detached(r) for r in self._data.streams.get(stream, [])[after:until]]

    def version(self, stream: str) -> int:
        with self._data.lock:
            return len(self._data.streams.get(stream, []))

    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        found = self._data.idempotency.get((stream, key))
        return _copy(found) if found is not None else None


class MemoryLogRecorder(MemoryRecorder, LogRecorder):
    """One partition: the list of every appended ``Recorded``, position = index + 1."""

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        with self._data.lock:
            return [_detached(r) for r in self._data.log[after:after + limit]]

    def log_head(self, partition: int) -> int:
        return len(self._data.log)


class MemoryProjectionRecorder(MemoryRecorder, ProjectionRecorder):
    """Rows and indexes by (projection, table or index), checkpoints by projection."""

    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        with self._data.lock:
            found = self._data.checkpoints.get(name)
            return dict(found) if found is not None else None

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        data = self._data
        with data.lock:
            if data.checkpoints.get(name) != previous:
                raise CheckpointMoved(name)
            for table, key, raw in rows:
                stored = data.rows.setdefault((name, table), {})
                if raw is None:
                    stored.pop(key, None)
                else:
                    stored[key] = bytes(raw)
            for idx, key, score in index:
                entries = data.indexes.setdefault((name, idx), {})
                if score is None:
                    entries.pop(key, None)
                else:
                    entries[key] = float(score)
            data.checkpoints[name] = {int(p): int(c) for p, c in checkpoints.items()}

    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        with self._data.lock:
            stored = self._data.rows.get((name, table), {})
            return [stored.get(key) for key in keys]

    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        with self._data.lock:
            entries = list(self._data.indexes.get((name, index), {}).items())
        entries.sort(key=lambda kv: (kv[1], kv[0]))
        return entries

    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        keys = [key for key, _ in self.index_entries(name, index)]
        return keys[offset:] if limit is None else keys[offset:offset + limit]

    def index_count(self, name: str, index: str) -> int:
        with self._data.lock:
            return len(self._data.indexes.get((name, index), {}))

    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        with self._data.lock:
            return dict(self._data.rows.get((name, table), {}))

    def delete_projection(self, name: str) -> None:
        data = self._data
        with data.lock:
            data.checkpoints.pop(name, None)
            for store in (data.rows, data.indexes):
                for key in [k for k in store if k[0] == name]:
                    del store[key]


class MemorySnapshotRecorder(MemoryRecorder, SnapshotRecorder):
    """Encoded states by (stream, schema) and version; every snapshot is kept."""

    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        with self._data.lock:
            self._data.snapshots.setdefault((stream, schema), {})[version] = dumps(state)

    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None):
        with self._data.lock:
            taken = self._data.snapshots.get((stream, schema), {})
            versions = [v for v in taken if at_most is None or v <= at_most]
            if not versions:
                return None
            best = max(versions)
            return best, loads(taken[best])

    def delete_snapshots(self) -> None:
        with self._data.lock:
            self._data.snapshots.clear()


class MemoryPlayerRecorder(MemoryRecorder, PlayerRecorder):
    """Players by id with their token hash (found by token with a scan: tests are small)."""

    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        with self._data.lock:
            self._data.players[player_id] = {"id": player_id, "name": name, "token_hash": token_hash}

    def player(self, player_id: str) -> dict[str, Any] | None:
        found = self._data.players.get(player_id)
        return {"id": found["id"], "name": found["name"]} if found else None

    def player_by_token(self, token_hash: str, player_id: str | None = None) -> dict[str, Any] | None:
        with self._data.lock:  # add_player may grow the dict while we iterate
            candidates = [self._data.players.get(player_id)] if player_id is not None \
                else list(self._data.players.values())
            for found in candidates:
                if found is not None and found["token_hash"] == token_hash:
                    return {"id": found["id"], "name": found["name"]}
        return None

    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        with self._data.lock:
            found = self._data.players.get(player_id)
            if found is None or found["token_hash"] != old_hash:
                return False
            found["token_hash"] = new_hash or f"revoked:{player_id}"
            self._data.token_generation += 1
            return True

    def token_generation(self) -> int:
        return self._data.token_generation


class MemorySharedStateRecorder(MemoryRecorder, SharedStateRecorder):
    """Secrets and small sets in dicts."""

    def secret(self, name: str, candidate: str) -> str:
        with self._data.lock:
            return self._data.secrets.setdefault(name, candidate)

    def set_add(self, name: str, member: str) -> None:
        with self._data.lock:
            self._data.sets.setdefault(name, set()).add(member)

    def set_remove(self, name: str, member: str) -> None:
        with self._data.lock:
            self._data.sets.get(name, set()).discard(member)

    def set_members(self, name: str) -> list[str]:
        with self._data.lock:
            return sorted(self._data.sets.get(name, set()))


class MemoryStore(MemoryStreamRecorder, MemoryLogRecorder, MemoryProjectionRecorder, MemorySnapshotRecorder,
                  MemoryPlayerRecorder, MemorySharedStateRecorder, EventStore):
    """Every memory recorder over one ``MemoryDatastore`` (a fresh one unless given)."""


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    return loads(dumps(value))


def _detached(record: Recorded) -> Recorded:
    """A copy the caller may mutate without changing the history (the real stores decode anew)."""
    return record._replace(event=_copy(record.event))
