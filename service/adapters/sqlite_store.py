"""The embedded default store: one SQLite file in WAL mode, safe across threads and processes.

``events`` holds every stream; its rowid is the global log position, and
``UNIQUE(stream, version)`` makes a second appender of the same version fail even if two
processes race past the version check. Appends run in ``BEGIN IMMEDIATE`` transactions,
so the version check, the events and the idempotency record commit together.

Read models live in ``rm_rows`` (one row per projection, table and key), ``rm_index``
(ordered indexes: key and score, with an index on the order) and ``rm_counts`` (the
size of each index, kept as a count so a lobby's total is one lookup), with the
checkpoints in ``rm_checkpoints``. (The ``projections`` table of whole documents from
earlier versions is dropped; the read models rebuild themselves from the log.)
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
    IndexWrite,
    Recorded,
    RowWrite,
    VersionConflict,
)

#: SQLite's page cache per connection, in KiB (its default, 2 MiB, holds the interior pages
#: of a read model of a few thousand games; 64 MiB keeps those of several hundred thousand)
CACHE_KIB = 65536

#: seconds between two checkpoints of the WAL (see ``SqliteStore._start_checkpointer``)
CHECKPOINT_EVERY = 0.5


def _os_thread(target) -> object:
    """Start ``target`` in a real OS thread, also in a gevent-patched process (where the
    threading module's Thread would be a greenlet)."""
    import _thread

    start = _thread.start_new_thread
    try:
        from gevent import monkey

        if monkey.is_module_patched("threading"):
            start = monkey.get_original("_thread", "start_new_thread")
    except ImportError:  # pragma: no cover - gevent is a dependency
        pass
    return start(target, ())


def _under_gevent() -> bool:
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return False
    return monkey.is_module_patched("threading")


def _os_sleep():
    try:
        from gevent import monkey

        if monkey.is_module_patched("time"):
            return monkey.get_original("time", "sleep")
    except ImportError:  # pragma: no cover
        pass
    return time.sleep


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
DROP TABLE IF EXISTS projections;
CREATE TABLE IF NOT EXISTS rm_checkpoints (name TEXT PRIMARY KEY, checkpoints BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS rm_rows (
    name TEXT NOT NULL, tbl TEXT NOT NULL, key TEXT NOT NULL, row BLOB NOT NULL,
    PRIMARY KEY (name, tbl, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rm_index (
    name TEXT NOT NULL, idx TEXT NOT NULL, key TEXT NOT NULL, score REAL NOT NULL,
    PRIMARY KEY (name, idx, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rm_index_order ON rm_index (name, idx, score, key);
CREATE TABLE IF NOT EXISTS rm_counts (
    name TEXT NOT NULL, idx TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (name, idx)
) WITHOUT ROWID;
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
        self._checkpointer: object | None = None
        self._closed = False
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
        db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # read models: keep their B-trees in memory
        if _under_gevent():  # the checkpointer thread does it, off the requests
            db.execute("PRAGMA wal_autocheckpoint=0")
            self._start_checkpointer()
        return db

    def _start_checkpointer(self) -> None:
        """Copy the WAL back into the database file every ``CHECKPOINT_EVERY`` seconds from a
        real OS thread. SQLite would otherwise checkpoint inside whichever commit crosses
        1,000 pages, fsync included, and under gevent that stops every request of the
        worker for as long. A PASSIVE checkpoint never waits for readers or writers; the
        sqlite3 module releases the GIL meanwhile. Only in a gevent-patched process (a
        gunicorn gevent worker, which never forks): elsewhere SQLite's own checkpoint after
        a commit blocks only that thread, and a thread of our own would make a later
        ``fork`` unsafe."""
        if self._checkpointer is not None:
            return
        self._checkpointer = _os_thread(self._checkpoint_loop)

    def _checkpoint_loop(self) -> None:
        sleep = _os_sleep()
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        while not self._closed:
            sleep(CHECKPOINT_EVERY)
            try:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error:  # busy or closed: the next round tries again
                pass
        db.close()

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
            self._begin(db)
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @staticmethod
    def _begin(db: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE``, waiting for another writer without stopping the process.

        SQLite's own busy handler sleeps inside the C call, in steps that grow to 100 ms;
        under gevent that sleep stops every request of the worker, not just this one (it
        was the p99 of a POST on SQLite). So the write lock is asked for with no busy
        timeout, and a locked database is tried again after a cooperative sleep of at most
        a few milliseconds, for up to ``LOCK_WAIT`` seconds."""
        db.execute("PRAGMA busy_timeout=0")
        try:
            pause, deadline = 0.0002, time.monotonic() + LOCK_WAIT
            while True:
                try:
                    db.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() > deadline:
                        raise
                time.sleep(pause)
                pause = min(pause * 2, 0.004)
        finally:
            db.execute(f"PRAGMA busy_timeout={int(LOCK_WAIT * 1000)}")

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._reading() as db:
            return db.execute(sql, params).fetchall()

    def _row(self, sql: str, params: tuple = ()) -> tuple | None:
        with self._reading() as db:
            return db.execute(sql, params).fetchone()

    def close(self) -> None:
        self._closed = True
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
        assert row is not None, "an aggregate query answers one row"
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

    # -- read models, per row ----------------------------------------------------------
    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        row = self._row("SELECT checkpoints FROM rm_checkpoints WHERE name = ?", (name,))
        return {int(k): v for k, v in loads(row[0]).items()} if row else None

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        with self._write() as db:
            row = db.execute("SELECT checkpoints FROM rm_checkpoints WHERE name = ?", (name,)).fetchone()
            current = {int(k): v for k, v in loads(row[0]).items()} if row else None
            if current != previous:
                raise CheckpointMoved(name)
            deletes = [(name, t, k) for t, k, raw in rows if raw is None]
            if deletes:
                db.executemany("DELETE FROM rm_rows WHERE name = ? AND tbl = ? AND key = ?", deletes)
            db.executemany("INSERT OR REPLACE INTO rm_rows (name, tbl, key, row) VALUES (?, ?, ?, ?)",
                           [(name, t, k, raw) for t, k, raw in rows if raw is not None])
            counts: dict[str, int] = {}
            for idx, key, score in index:
                if score is None:
                    gone = db.execute("DELETE FROM rm_index WHERE name = ? AND idx = ? AND key = ?",
                                      (name, idx, key)).rowcount
                    counts[idx] = counts.get(idx, 0) - gone
                elif not db.execute("UPDATE rm_index SET score = ? WHERE name = ? AND idx = ? AND key = ?",
                                    (score, name, idx, key)).rowcount:
                    db.execute("INSERT INTO rm_index (name, idx, key, score) VALUES (?, ?, ?, ?)",
                               (name, idx, key, score))
                    counts[idx] = counts.get(idx, 0) + 1
            db.executemany(
                "INSERT INTO rm_counts (name, idx, n) VALUES (?, ?, ?)"
                " ON CONFLICT (name, idx) DO UPDATE SET n = n + excluded.n",
                [(name, idx, n) for idx, n in counts.items() if n])
            db.execute("INSERT OR REPLACE INTO rm_checkpoints (name, checkpoints) VALUES (?, ?)",
                       (name, dumps(checkpoints)))

    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        if not keys:
            return []
        found: dict[str, bytes] = {}
        with self._reading() as db:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                marks = ",".join("?" * len(chunk))
                found.update(db.execute(f"SELECT key, row FROM rm_rows WHERE name = ? AND tbl = ? AND key IN ({marks})",
                                        (name, table, *chunk)).fetchall())
        return [found.get(key) for key in keys]

    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        rows = self._rows("SELECT key FROM rm_index WHERE name = ? AND idx = ? ORDER BY score, key LIMIT ? OFFSET ?",
                          (name, index, -1 if limit is None else limit, offset))
        return [key for (key,) in rows]

    def index_count(self, name: str, index: str) -> int:
        row = self._row("SELECT n FROM rm_counts WHERE name = ? AND idx = ?", (name, index))
        return row[0] if row else 0

    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        return [(key, score) for key, score in self._rows(
            "SELECT key, score FROM rm_index WHERE name = ? AND idx = ? ORDER BY score, key", (name, index))]

    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        return dict(self._rows("SELECT key, row FROM rm_rows WHERE name = ? AND tbl = ?", (name, table)))

    def delete_projection(self, name: str) -> None:
        with self._write() as db:
            for table in ("rm_checkpoints", "rm_rows", "rm_index", "rm_counts"):
                db.execute(f"DELETE FROM {table} WHERE name = ?", (name,))

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
