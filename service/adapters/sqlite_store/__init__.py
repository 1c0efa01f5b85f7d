"""The embedded default store: one SQLite file in WAL mode, safe across threads and processes.

One recorder class per capability (``service.adapters.store``), each working through one
``SqliteDatastore`` (the file, its schema and a pool of connections), composed into
``SqliteStore``:

* ``datastore``: ``SqliteDatastore`` (WAL, the connection pool, ``BEGIN IMMEDIATE``
  transactions, the WAL checkpointer under gevent) and the schema of every capability;
* ``streams``: ``SqliteStreamRecorder`` and ``SqliteLogRecorder`` (the ``events`` table,
  whose rowid is the log position, and ``idempotency``);
* ``read_models``: ``SqliteProjectionRecorder`` (``rm_rows``, ``rm_index``, ``rm_counts``,
  ``rm_checkpoints``);
* ``side_tables``: ``SqliteSnapshotRecorder``, ``SqlitePlayerRecorder`` and
  ``SqliteSharedStateRecorder`` (``snapshots``, ``players``, ``secrets``, ``small_sets``).
"""

from __future__ import annotations

from service.adapters.sqlite_store.datastore import SqliteDatastore
from service.adapters.sqlite_store.read_models import SqliteProjectionRecorder
from service.adapters.sqlite_store.side_tables import (
    SqlitePlayerRecorder,
    SqliteSharedStateRecorder,
    SqliteSnapshotRecorder,
)
from service.adapters.sqlite_store.streams import SqliteLogRecorder, SqliteStreamRecorder
from service.adapters.store import EventStore


class SqliteStore(SqliteStreamRecorder, SqliteLogRecorder, SqliteProjectionRecorder, SqliteSnapshotRecorder,
                  SqlitePlayerRecorder, SqliteSharedStateRecorder, EventStore):
    """Every SQLite recorder over one datastore on the file at ``path`` (for ``synchronous``
    see ``SqliteDatastore``)."""

    def __init__(self, path: str, synchronous: str = "NORMAL"):
        super().__init__(SqliteDatastore(path, synchronous))
        self.path = self._db.path
        self.synchronous = self._db.synchronous

    def version_and_token_generation(self, stream: str) -> tuple[int, int]:
        """Both in one statement on one pooled connection (a read of every conditional GET)."""
        row = self._db.row("SELECT (SELECT MAX(version) FROM events WHERE stream = ?), "
                           "(SELECT value FROM counters WHERE name = 'token_generation')", (stream,))
        assert row is not None, "a SELECT of two subqueries gives one row"
        return row[0] or 0, int(row[1]) if row[1] is not None else 0

    def close(self) -> None:
        self._db.close()
