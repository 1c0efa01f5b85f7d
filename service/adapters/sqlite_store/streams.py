"""Streams and the log on SQLite: one ``events`` table whose rowid is the log position.

``UNIQUE(stream, version)`` makes a second appender of the same version fail even if two
processes race past the version check. Appends run in ``BEGIN IMMEDIATE`` transactions,
so the version check, the events and the idempotency record commit together. The log has
one partition: the whole table in rowid order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from service.adapters.codec import digest_of, dumps, loads
from service.adapters.sqlite_store.datastore import SqliteRecorder
from service.adapters.store import (
    DuplicateRequest,
    LogRecorder,
    Recorded,
    StreamRecorder,
    TokensChanged,
    VersionConflict,
)

#: the token generation, the stream's version and its last event (each NULL if none)
APPEND_CHECKS = ("SELECT (SELECT value FROM counters WHERE name = 'token_generation'), "
                 "(SELECT MAX(version) FROM events WHERE stream = ?1), "
                 "(SELECT body FROM events WHERE stream = ?1 AND version = "
                 "(SELECT MAX(version) FROM events WHERE stream = ?1))")


class SqliteStreamRecorder(SqliteRecorder, StreamRecorder):
    """``events`` rows by (stream, version), and ``idempotency`` records by (stream, key)."""

    def append(self, stream: str, version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None, head: str = "",
               token_generation: int | None = None) -> int:
        with self._db.write() as db:
            # what the checks below compare, read in one statement
            generation, current, last = db.execute(APPEND_CHECKS, (stream,)).fetchone()
            if token_generation is not None:
                generation = int(generation) if generation is not None else 0
                if generation != token_generation:
                    raise TokensChanged(generation)
            if idempotency:
                row = db.execute("SELECT record FROM idempotency WHERE stream = ? AND key = ?",
                                 (stream, idempotency[0])).fetchone()
                if row:
                    raise DuplicateRequest(idempotency[0], loads(row[0]))
            current = current or 0
            if current != version:
                raise VersionConflict(stream, version, current)
            if head and last is not None and digest_of(last) != head:  # another event at that version
                raise VersionConflict(stream, version, current)
            try:
                db.executemany(
                    "INSERT INTO events (stream, version, body) VALUES (?, ?, ?)",
                    [(stream, version + i + 1, dumps(e)) for i, e in enumerate(events)],
                )
            except sqlite3.IntegrityError as exc:  # a racing process won this version
                raise VersionConflict(stream, version, _version(db, stream)) from exc
            if idempotency:
                db.execute("INSERT INTO idempotency (stream, key, record) VALUES (?, ?, ?)",
                           (stream, idempotency[0], dumps(idempotency[1])))
            return version + len(events)

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        rows = self._db.rows(
            "SELECT version, body, position FROM events WHERE stream = ? AND version > ? AND version <= ?"
            " ORDER BY version",
            (stream, after, until if until is not None else 2**62),
        )
        return [Recorded(stream, v, loads(body), 0, pos) for v, body, pos in rows]

    def version(self, stream: str) -> int:
        with self._db.reading() as db:
            return _version(db, stream)

    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        row = self._db.row("SELECT record FROM idempotency WHERE stream = ? AND key = ?", (stream, key))
        return loads(row[0]) if row else None


class SqliteLogRecorder(SqliteRecorder, LogRecorder):
    """The ``events`` table in rowid order: one partition, the rowid as the position."""

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        rows = self._db.rows(
            "SELECT stream, version, body, position FROM events WHERE position > ? ORDER BY position LIMIT ?",
            (after, limit),
        )
        return [Recorded(s, v, loads(body), 0, pos) for s, v, body, pos in rows]

    def log_head(self, partition: int) -> int:
        row = self._db.row("SELECT MAX(position) FROM events")  # one row, NULL when empty
        return (row[0] if row else None) or 0


def _version(db: sqlite3.Connection, stream: str) -> int:
    row = db.execute("SELECT MAX(version) FROM events WHERE stream = ?", (stream,)).fetchone()
    return row[0] or 0
