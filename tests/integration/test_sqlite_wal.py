"""The SQLite store's WAL file does not keep the largest size it ever reached, and a writer
waits for another's write lock for a bounded time (real files)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import pytest

from service.adapters.sqlite_store import SqliteStore, datastore


def test_the_wal_is_cut_back_to_its_limit_once_sqlite_starts_it_over(tmp_path, monkeypatch):
    monkeypatch.setattr(datastore, "WAL_SIZE_LIMIT", 64 * 1024)
    # as under gevent: no checkpoint inside commits; the checkpointer thread's turn is far off
    monkeypatch.setattr(datastore, "_under_gevent", lambda: True)
    monkeypatch.setattr(datastore, "CHECKPOINT_EVERY", 3600)
    path = str(tmp_path / "events.db")
    store = SqliteStore(path)
    body = {"type": "Padded", "data": {"pad": "x" * 3000}}
    for version in range(400):  # about 1.2 MB of WAL frames
        store.append("game-wal", version, [body])
    wal = path + "-wal"
    assert os.path.getsize(wal) > 1024 * 1024
    with store._db.reading() as db:  # what the checkpointer does, then a write starts the WAL over
        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    store.append("game-wal", 400, [body])
    assert os.path.getsize(wal) <= 64 * 1024
    assert store.version("game-wal") == 401


def _hold_the_write_lock(path: str, seconds: float):
    """Another connection (as another process would) takes the write lock for ``seconds``."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(seconds, lambda: (other.execute("COMMIT"), other.close()))
    releaser.start()
    return releaser


def test_an_append_waits_for_another_writer_and_then_commits(tmp_path):
    path = str(tmp_path / "events.db")
    store = SqliteStore(path)
    releaser = _hold_the_write_lock(path, 0.3)  # longer than the spin: the wait turns cooperative
    started = time.monotonic()
    assert store.append("game-lock", 0, [{"type": "A", "data": {}}]) == 1
    assert time.monotonic() - started >= 0.25
    releaser.join()
    assert store.version("game-lock") == 1


def test_an_append_gives_up_with_locked_after_the_lock_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(datastore, "LOCK_WAIT", 0.2)
    path = str(tmp_path / "events.db")
    store = SqliteStore(path)
    releaser = _hold_the_write_lock(path, 1.0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        store.append("game-lock", 0, [{"type": "A", "data": {}}])
    releaser.join()
    assert store.version("game-lock") == 0
