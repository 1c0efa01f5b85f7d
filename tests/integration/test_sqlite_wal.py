"""The SQLite store's WAL file does not keep the largest size it ever reached (real file)."""

from __future__ import annotations

import os

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
