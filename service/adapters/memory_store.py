"""An in-memory store for fast unit and API tests. Same contract as the real ones."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from service.adapters.codec import dumps, loads
from service.adapters.store import (
    CheckpointMoved,
    DuplicateRequest,
    EventStore,
    IndexWrite,
    Recorded,
    RowWrite,
    VersionConflict,
)


class MemoryStore(EventStore):
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._streams: dict[str, list[Recorded]] = {}
        self._log: list[Recorded] = []
        self._idempotency: dict[tuple[str, str], dict[str, Any]] = {}
        self._players: dict[str, dict[str, Any]] = {}
        self._snapshots: dict[tuple[str, str], dict[int, bytes]] = {}
        self._checkpoints: dict[str, dict[int, int]] = {}
        self._rows: dict[tuple[str, str], dict[str, bytes]] = {}
        self._indexes: dict[tuple[str, str], dict[str, float]] = {}
        self._secrets: dict[str, str] = {}
        self._sets: dict[str, set[str]] = {}

    def append(self, stream: str, expected_version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None) -> int:
        with self._lock:
            if idempotency and (stream, idempotency[0]) in self._idempotency:
                raise DuplicateRequest(idempotency[0], _copy(self._idempotency[(stream, idempotency[0])]))
            records = self._streams.setdefault(stream, [])
            if len(records) != expected_version:
                raise VersionConflict(stream, expected_version, len(records))
            for event in events:
                stored = Recorded(stream, len(records) + 1, loads(dumps(event)), 0, len(self._log) + 1)
                records.append(stored)
                self._log.append(stored)
            if idempotency:
                self._idempotency[(stream, idempotency[0])] = loads(dumps(idempotency[1]))
            return len(records)

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        with self._lock:
            return [_detached(r) for r in self._streams.get(stream, [])[after:until]]

    def version(self, stream: str) -> int:
        with self._lock:
            return len(self._streams.get(stream, []))

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        with self._lock:
            return [_detached(r) for r in self._log[after:after + limit]]

    def log_head(self, partition: int) -> int:
        return len(self._log)

    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        found = self._idempotency.get((stream, key))
        return _copy(found) if found is not None else None

    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        with self._lock:
            self._players[player_id] = {"id": player_id, "name": name, "token_hash": token_hash}

    def player(self, player_id: str) -> dict[str, Any] | None:
        found = self._players.get(player_id)
        return {"id": found["id"], "name": found["name"]} if found else None

    def player_by_token(self, token_hash: str) -> dict[str, Any] | None:
        with self._lock:  # add_player may grow the dict while we iterate
            for found in self._players.values():
                if found["token_hash"] == token_hash:
                    return {"id": found["id"], "name": found["name"]}
        return None

    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        with self._lock:
            self._snapshots.setdefault((stream, schema), {})[version] = dumps(state)

    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None):
        with self._lock:
            taken = self._snapshots.get((stream, schema), {})
            versions = [v for v in taken if at_most is None or v <= at_most]
            if not versions:
                return None
            best = max(versions)
            return best, loads(taken[best])

    def delete_snapshots(self) -> None:
        with self._lock:
            self._snapshots.clear()

    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        with self._lock:
            found = self._checkpoints.get(name)
            return dict(found) if found is not None else None

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        with self._lock:
            if self._checkpoints.get(name) != previous:
                raise CheckpointMoved(name)
            for table, key, raw in rows:
                stored = self._rows.setdefault((name, table), {})
                if raw is None:
                    stored.pop(key, None)
                else:
                    stored[key] = bytes(raw)
            for idx, key, score in index:
                entries = self._indexes.setdefault((name, idx), {})
                if score is None:
                    entries.pop(key, None)
                else:
                    entries[key] = float(score)
            self._checkpoints[name] = {int(p): int(c) for p, c in checkpoints.items()}

    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        with self._lock:
            stored = self._rows.get((name, table), {})
            return [stored.get(key) for key in keys]

    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        with self._lock:
            entries = list(self._indexes.get((name, index), {}).items())
        entries.sort(key=lambda kv: (kv[1], kv[0]))
        return entries

    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        keys = [key for key, _ in self.index_entries(name, index)]
        return keys[offset:] if limit is None else keys[offset:offset + limit]

    def index_count(self, name: str, index: str) -> int:
        with self._lock:
            return len(self._indexes.get((name, index), {}))

    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        with self._lock:
            return dict(self._rows.get((name, table), {}))

    def delete_projection(self, name: str) -> None:
        with self._lock:
            self._checkpoints.pop(name, None)
            for store in (self._rows, self._indexes):
                for key in [k for k in store if k[0] == name]:
                    del store[key]

    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        with self._lock:
            found = self._players.get(player_id)
            if found is None or found["token_hash"] != old_hash:
                return False
            found["token_hash"] = new_hash or f"revoked:{player_id}"
            return True

    def secret(self, name: str, candidate: str) -> str:
        with self._lock:
            return self._secrets.setdefault(name, candidate)

    def set_add(self, name: str, member: str) -> None:
        with self._lock:
            self._sets.setdefault(name, set()).add(member)

    def set_remove(self, name: str, member: str) -> None:
        with self._lock:
            self._sets.get(name, set()).discard(member)

    def set_members(self, name: str) -> list[str]:
        with self._lock:
            return sorted(self._sets.get(name, set()))


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    return loads(dumps(value))


def _detached(record: Recorded) -> Recorded:
    """A copy the caller may mutate without changing the history (the real stores decode anew)."""
    return replace(record, event=_copy(record.event))
