"""Read models on SQLite, one row per projection, table and key.

``rm_rows`` holds the rows, ``rm_index`` the ordered indexes (key and score, with an
index on the order), ``rm_counts`` the size of each index (kept as a count so a lobby's
total is one lookup) and ``rm_checkpoints`` the checkpoints, all written in one
``BEGIN IMMEDIATE`` transaction that first compares the checkpoints.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from service.adapters.codec import dumps, loads
from service.adapters.sqlite_store.datastore import SqliteRecorder
from service.adapters.store import CheckpointMoved, IndexWrite, ProjectionRecorder, RowsSave, RowWrite


class SqliteProjectionRecorder(SqliteRecorder, ProjectionRecorder):
    """The ``rm_*`` tables."""

    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        row = self._db.row("SELECT checkpoints FROM rm_checkpoints WHERE name = ?", (name,))
        return _checkpoints(row[0]) if row else None

    def load_checkpoints_many(self, names: Sequence[str]) -> dict[str, dict[int, int] | None]:
        marks = ",".join("?" * len(names))
        found = dict(self._db.rows(f"SELECT name, checkpoints FROM rm_checkpoints WHERE name IN ({marks})",
                                   tuple(names))) if names else {}
        return {name: _checkpoints(found[name]) if name in found else None for name in names}

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        with self._db.write() as db:
            if not _write_rows(db, name, checkpoints, previous, rows, index):
                raise CheckpointMoved(name)

    def save_many(self, saves: Sequence[RowsSave]) -> set[str]:
        """Every save in one transaction (one write lock and one commit for all), each one's
        checkpoints compared on their own: a projection another runner saved meanwhile
        writes nothing, the others are saved."""
        with self._db.write() as db:
            return {s.name for s in saves if not _write_rows(db, s.name, s.checkpoints, s.previous, s.rows, s.index)}

    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        if not keys:
            return []
        found: dict[str, bytes] = {}
        with self._db.reading() as db:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                marks = ",".join("?" * len(chunk))
                found.update(db.execute(f"SELECT key, row FROM rm_rows WHERE name = ? AND tbl = ? AND key IN ({marks})",
                                        (name, table, *chunk)).fetchall())
        return [found.get(key) for key in keys]

    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        rows = self._db.rows("SELECT key FROM rm_index WHERE name = ? AND idx = ? ORDER BY score, key LIMIT ? OFFSET ?",
                             (name, index, -1 if limit is None else limit, offset))
        return [key for (key,) in rows]

    def index_count(self, name: str, index: str) -> int:
        row = self._db.row("SELECT n FROM rm_counts WHERE name = ? AND idx = ?", (name, index))
        return row[0] if row else 0

    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        return [(key, score) for key, score in self._db.rows(
            "SELECT key, score FROM rm_index WHERE name = ? AND idx = ? ORDER BY score, key", (name, index))]

    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        return dict(self._db.rows("SELECT key, row FROM rm_rows WHERE name = ? AND tbl = ?", (name, table)))

    def delete_projection(self, name: str) -> None:
        with self._db.write() as db:
            for table in ("rm_checkpoints", "rm_rows", "rm_index", "rm_counts"):
                db.execute(f"DELETE FROM {table} WHERE name = ?", (name,))


def _checkpoints(raw: bytes | str) -> dict[int, int]:
    return {int(k): v for k, v in loads(raw).items()}


def _write_rows(db: sqlite3.Connection, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> bool:
    """Within the caller's transaction: if the stored checkpoints of ``name`` are ``previous``,
    write ``rows``, ``index`` and the new ``checkpoints`` and return True; else write nothing."""
    row = db.execute("SELECT checkpoints FROM rm_checkpoints WHERE name = ?", (name,)).fetchone()
    if (_checkpoints(row[0]) if row else None) != previous:
        return False
    deletes = [(name, t, k) for t, k, raw in rows if raw is None]
    if deletes:
        db.executemany("DELETE FROM rm_rows WHERE name = ? AND tbl = ? AND key = ?", deletes)
    db.executemany("INSERT OR REPLACE INTO rm_rows (name, tbl, key, row) VALUES (?, ?, ?, ?)",
                   [(name, t, k, raw) for t, k, raw in rows if raw is not None])
    counts: dict[str, int] = {}
    for idx, key, score in index:
        if score is None:
            gone = db.execute("DELETE FROM rm_index WHERE name = ? AND idx = ? AND key = ?", (name, idx, key)).rowcount
            counts[idx] = counts.get(idx, 0) - gone
        elif not db.execute("UPDATE rm_index SET score = ? WHERE name = ? AND idx = ? AND key = ?",
                            (score, name, idx, key)).rowcount:
            db.execute("INSERT INTO rm_index (name, idx, key, score) VALUES (?, ?, ?, ?)", (name, idx, key, score))
            counts[idx] = counts.get(idx, 0) + 1
    db.executemany(
        "INSERT INTO rm_counts (name, idx, n) VALUES (?, ?, ?) ON CONFLICT (name, idx) DO UPDATE SET n = n + excluded.n",
        [(name, idx, n) for idx, n in counts.items() if n])
    db.execute("INSERT OR REPLACE INTO rm_checkpoints (name, checkpoints) VALUES (?, ?)", (name, dumps(checkpoints)))
    return True
