"""The SQLite file the recorders share: one database in WAL mode, safe across threads and processes.

``SqliteDatastore`` creates the schema (every capability's tables, see ``SCHEMA``) and lends
connections from a pool: ``reading()`` for a read, ``write()`` for one ``BEGIN IMMEDIATE``
transaction. The recorders of ``service.adapters.sqlite_store`` work through it, so a
stream recorder and a log recorder on one datastore see one file.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: SQLite's page cache per connection, in KiB (its default, 2 MiB, holds the interior pages
#: of a read model of a few thousand games; 64 MiB keeps those of several hundred thousand)
CACHE_KIB = 65536

#: bytes the WAL file is cut back to once a checkpoint let SQLite start it over (without a
#: limit the file keeps the largest size it ever reached: ~100 MB after 10 s at full load)
WAL_SIZE_LIMIT = 64 * 1024 * 1024

#: seconds between two checkpoints of the WAL (see ``SqliteDatastore._start_checkpointer``)
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


#: the tables of every capability, created together whenever a datastore opens the file
SCHEMA = """
-- streams and the log (SqliteStreamRecorder, SqliteLogRecorder): the rowid is the log position
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
-- SqlitePlayerRecorder
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE
);
-- SqliteSnapshotRecorder
CREATE TABLE IF NOT EXISTS snapshots (
    stream TEXT NOT NULL, schema TEXT NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL,
    PRIMARY KEY (stream, schema, version)
);
-- SqliteProjectionRecorder (the whole-document table of earlier versions is dropped)
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
-- SqliteSharedStateRecorder
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS small_sets (name TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (name, member));
"""


#: seconds a connection waits for a lock (busy timeout), and for the switch to WAL at boot
LOCK_WAIT = 30.0

#: seconds a writer waits for another process's write lock without yielding, and the step
#: between two tries (see ``SqliteDatastore._begin``)
SPIN, SPIN_STEP = 0.002, 0.0001


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


class SqliteDatastore:
    """The file at ``path`` and a pool of connections to it. ``synchronous``: ``NORMAL``
    (default; in WAL mode a killed process loses nothing, a power cut may lose the last
    commits) or ``FULL`` (every commit fsynced: nothing lost)."""

    def __init__(self, path: str, synchronous: str = "NORMAL"):
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        self.path = path
        self.synchronous = synchronous.upper()
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._idle: list[sqlite3.Connection] = []  # the pool, the latest returned last
        #: the writers' pool: connections with SQLite's busy handler off (``_begin`` waits itself)
        self._writers: list[sqlite3.Connection] = []
        self._checkpointer: object | None = None
        self._closed = False
        # Several processes (gunicorn workers) may open a fresh file at once: the first switches
        # it to WAL while the others would find it locked, and SQLite does not wait on a busy
        # handler for a journal-mode switch. An exclusive file lock makes the boot one at a
        # time; the switch is also retried, for any other process holding the file.
        with _boot_lock(self.path), self.reading() as db:
            db.executescript(SCHEMA)

    # A pool of connections: each operation borrows one and gives it back, so a connection
    # is never used by two threads (or greenlets) at once and is reused by the next. A plain
    # list: its pop and append are atomic (under the GIL, and no greenlet switches inside
    # them), and cost a small part of a queue's locks and condition (which were a third of
    # a version read's time).
    def _borrow(self) -> sqlite3.Connection:
        try:
            return self._idle.pop()
        except IndexError:
            return self._open()

    def _open(self, busy_timeout: float = LOCK_WAIT) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        _while_locked(lambda: db.execute("PRAGMA journal_mode=WAL"))
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # read models: keep their B-trees in memory
        db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
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
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A pooled connection, outside any transaction (autocommit: one statement each)."""
        db = self._borrow()
        try:
            yield db
        finally:
            self._idle.append(db)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction (the write lock taken up front), on a
        connection of the writers' pool."""
        try:
            db = self._writers.pop()
        except IndexError:
            db = self._open(busy_timeout=0)
        try:
            self._begin(db)
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            self._writers.append(db)

    @staticmethod
    def _begin(db: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE``, waiting for another writer without stopping the process for long.

        Under gevent no other request of this process holds the write lock while this one
        runs (a transaction never yields), so a locked database means another process is
        writing, and its transactions are short (p99 about 2 ms at full load). The lock
        is asked for again every ``SPIN_STEP`` seconds for up to ``SPIN`` seconds, the
        worker standing still meanwhile: a cooperative sleep would put this request at the
        back of the queue of every other request of the worker, one round each time, while
        the other process takes the lock again. Past ``SPIN`` the wait turns cooperative
        (sleeps of at most 4 ms that let the other requests run), for up to ``LOCK_WAIT``
        seconds. SQLite's own busy handler, which sleeps inside the C call in steps that grow
        to 100 ms, is off on the writers' connections (``write``): once the lock is held,
        nothing in a WAL transaction waits for another connection, so it would only ever run
        here (it was switched off and on again around every ``BEGIN``, two statements a
        write)."""
        os_sleep = _os_sleep()
        spin_until = time.monotonic() + SPIN
        deadline = time.monotonic() + LOCK_WAIT
        pause = 0.0002
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            if time.monotonic() < spin_until:
                os_sleep(SPIN_STEP)
            else:
                time.sleep(pause)
                pause = min(pause * 2, 0.004)

    # ``rows`` and ``row`` borrow without ``reading``'s context manager (a generator and its
    # frames per statement): they are the reads of every request
    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Every row ``sql`` selects (outside a transaction)."""
        db = self._borrow()
        try:
            return db.execute(sql, params).fetchall()
        finally:
            self._idle.append(db)

    def row(self, sql: str, params: tuple = ()) -> tuple | None:
        """The first row ``sql`` selects, or None."""
        db = self._borrow()
        try:
            return db.execute(sql, params).fetchone()
        finally:
            self._idle.append(db)

    def close(self) -> None:
        """Close every pooled connection and stop the checkpointer."""
        self._closed = True
        for pool in (self._idle, self._writers):
            while pool:
                pool.pop().close()


class SqliteRecorder:
    """The base of the SQLite recorders: the datastore they work through."""

    def __init__(self, datastore: SqliteDatastore) -> None:
        self._db = datastore
