"""The SQLite store under load: its WAL file does not keep its largest size, and a slow COMMIT
does not stop a gevent worker (real files)."""

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


CHILD = """
from gevent import monkey; monkey.patch_all()
import gevent, time
from gevent import monkey as m
from service.adapters.sqlite_store import datastore
blocking_sleep = m.get_original("time", "sleep")
ticks = []
def ticker():
    for _ in range(20):
        ticks.append(time.monotonic()); gevent.sleep(0.01)
t = gevent.spawn(ticker)
gevent.sleep(0)
datastore._off_the_loop(lambda: blocking_sleep(0.3))  # a C call that waits, as a slow COMMIT does
print(len(ticks))
"""


def test_a_commit_that_waits_in_c_code_does_not_stop_the_other_requests_of_a_gevent_worker():
    """Under gevent the COMMIT runs in the hub's thread pool: while it waits, the other
    greenlets (requests) go on."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 15  # the ticker ran on during the 0.3 s wait
