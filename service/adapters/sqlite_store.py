"""The embedded default store: one SQLite file in WAL mode, safe across threads and processes.

``events`` holds every stream; its rowid is the global log position, and
``UNIQUE(stream, version)`` makes a second appender of the same version fail even if two
processes race past the version check. Appends run in ``BEGIN IMMEDIATE`` transactions,
so the version check, the events and the idempotency record commit together.
"""

from __future__ import annotations

import fcntl
import os
import queue
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from service.adapters.codec import dumps, loads
from service.adapters.store import (
    CheckpointMoved,
    DuplicateRequest,
    EventStore,
    ProjectionRecord,
    Recorded,
    VersionConflict,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream   TEXT    NOT NULL,
    version  INTEGER NOT NULL,
    body     BLOB    NOT NULL,
    UNIQUE (stream, version)
);
CREATE TABLE IF NOT EXISTS idempotency (
    stream TEXT NOT NULL, key TEXT NOT NULL, record BLOB NOT NULL, PRIMARY KEY (stream, key)
);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS snapshots (
    stream TEXT NOT NULL, schema TEXT NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL,
    PRIMARY KEY (stream, schema, version)
);
CREATE TABLE IF NOT EXISTS projections (
    name TEXT PRIMARY KEY, checkpoints BLOB NOT NULL, model BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS small_sets (name TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (name, member));
"""


#: seconds a connection waits for a lock (busy timeout), and for the switch to WAL at boot
LOCK_WAIT = 30.0


@contextmanager
def _boot_lock(path: str) -> Iterator[None]:
    """An exclusive lock on ``PATH.lock`` while this process prepares the database."""
    with open(f"{path}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _while_locked(call, wait: float = LOCK_WAIT):
    """``call()``, retried while SQLite answers "database is locked" (up to ``wait`` seconds)."""
    deadline = time.monotonic() + wait
    pause = 0.01
    while True:
        try:
            return call()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.25)


class SqliteStore(EventStore):
    """``synchronous``: ``NORMAL`` (default; in WAL mode a killed process loses nothing, a
    power cut may lose the last commits) or ``FULL`` (every commit fsynced: nothing lost)."""

    def __init__(self, path: str, synchronous: str = "NORMAL"):
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        self.path = path
        self.synchronous = synchronous.upper()
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._pool: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        # Several processes (gunicorn workers) may open a fresh file at once: the first switches
        # it to WAL while the others would find it locked, and SQLite does not wait on a busy
        # handler for a journal-mode switch. An exclusive file lock makes the boot one at a
        # time; the switch is also retried, for any other process holding the file.
        with _boot_lock(self.path), self._reading() as db:
            db.executescript(SCHEMA)

    # A pool of connections: each operation borrows one and gives it back, so a connection
    # is never used by two threads (or greenlets) at once and is reused by the next.
    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout={int(LOCK_WAIT * 1000)}")
        _while_locked(lambda: db.execute("PRAGMA journal_mode=WAL"))
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        return db

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            db = self._open()
        try:
            yield db
        finally:
            self._pool.put(db)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock taken up front)."""
        with self._reading() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._reading() as db:
            return db.execute(sql, params).fetchall()

    def _row(self, sql: str, params: tuple = ()) -> tuple | None:
        with self._reading() as db:
            return db.execute(sql, params).fetchone()

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    def append(self, stream: str, expected_version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None) -> int:
        with self._write() as db:
            if idempotency:
                row = db.execute("SELECT record FROM idempotency WHERE stream = ? AND key = ?",
                                 (stream, idempotency[0])).fetchone()
                if row:
                    raise DuplicateRequest(idempotency[0], loads(row[0]))
            current = self._version(db, stream)
            if current != expected_version:
                raise VersionConflict(stream, expected_version, current)
            try:
                db.executemany(
                    "INSERT INTO events (stream, version, body) VALUES (?, ?, ?)",
                    [(stream, expected_version + i + 1, dumps(e)) for i, e in enumerate(events)],
                )
            except sqlite3.IntegrityError as exc:  # a racing process won this version
                raise VersionConflict(stream, expected_version, self._version(db, stream)) from exc
            if idempotency:
                db.execute("INSERT INTO idempotency (stream, key, record) VALUES (?, ?, ?)",
                           (stream, idempotency[0], dumps(idempotency[1])))
            return expected_version + len(events)

    @staticmethod
    def _version(db: sqlite3.Connection, stream: str) -> int:
        row = db.execute("SELECT MAX(version) FROM events WHERE stream = ?", (stream,)).fetchone()
        return row[0] or 0

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        rows = self._rows(
            "SELECT version, body, position FROM events WHERE stream = ? AND version > ? AND version <= ?"
            " ORDER BY version",
            (stream, after, until if until is not None else 2**62),
        )
        return [Recorded(stream, v, loads(body), 0, pos) for v, body, pos in rows]

    def version(self, stream: str) -> int:
        with self._reading() as db:
            return self._version(db, stream)

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        rows = self._rows(
            "SELECT stream, version, body, position FROM events WHERE position > ? ORDER BY position LIMIT ?",
            (after, limit),
        )
        return [Recorded(s, v, loads(body), 0, pos) for s, v, body, pos in rows]

    def log_head(self, partition: int) -> int:
        row = self._row("SELECT MAX(position) FROM events")
        return row[0] or 0

    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        row = self._row("SELECT record FROM idempotency WHERE stream = ? AND key = ?", (stream, key))
        return loads(row[0]) if row else None

    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        with self._write() as db:
            db.execute("INSERT INTO players (id, name, token_hash) VALUES (?, ?, ?)", (player_id, name, token_hash))

    def player(self, player_id: str) -> dict[str, Any] | None:
        row = self._row("SELECT id, name FROM players WHERE id = ?", (player_id,))
        return {"id": row[0], "name": row[1]} if row else None

    def player_by_token(self, token_hash: str) -> dict[str, Any] | None:
        row = self._row("SELECT id, name FROM players WHERE token_hash = ?", (token_hash,))
        return {"id": row[0], "name": row[1]} if row else None

    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO snapshots (stream, schema, version, state) VALUES (?, ?, ?, ?)",
                       (stream, schema, version, dumps(state)))

    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None):
        row = self._row(
            "SELECT version, state FROM snapshots WHERE stream = ? AND schema = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1",
            (stream, schema, at_most if at_most is not None else 2**62),
        )
        return (row[0], loads(row[1])) if row else None

    def delete_snapshots(self) -> None:
        with self._write() as db:
            db.execute("DELETE FROM snapshots")

    def load_projection(self, name: str) -> ProjectionRecord | None:
        with self._reading() as db:
            return self._load_projection(db, name)

    @staticmethod
    def _load_projection(db: sqlite3.Connection, name: str) -> ProjectionRecord | None:
        row = db.execute("SELECT checkpoints, model FROM projections WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        return ProjectionRecord({int(k): v for k, v in loads(row[0]).items()}, loads(row[1]))

    def save_projection(self, name: str, record: ProjectionRecord, previous: dict[int, int] | None) -> None:
        with self._write() as db:
            row = db.execute("SELECT checkpoints FROM projections WHERE name = ?", (name,)).fetchone()
            current = {int(k): v for k, v in loads(row[0]).items()} if row else None
            if current != previous:  # only the checkpoints are compared: the model may be large
                raise CheckpointMoved(name)
            db.execute("INSERT OR REPLACE INTO projections (name, checkpoints, model) VALUES (?, ?, ?)",
                       (name, dumps(record.checkpoints), dumps(record.model)))

    def delete_projection(self, name: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM projections WHERE name = ?", (name,))

    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        with self._write() as db:
            changed = db.execute("UPDATE players SET token_hash = ? WHERE id = ? AND token_hash = ?",
                                 (new_hash or f"revoked:{player_id}", player_id, old_hash)).rowcount
            return changed == 1

    def secret(self, name: str, candidate: str) -> str:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, candidate))
            return db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0]

    def set_add(self, name: str, member: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO small_sets (name, member) VALUES (?, ?)", (name, member))

    def set_remove(self, name: str, member: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM small_sets WHERE name = ? AND member = ?", (name, member))

    def set_members(self, name: str) -> list[str]:
        return [row[0] for row in self._rows("SELECT member FROM small_sets WHERE name = ? ORDER BY member", (name,))]
