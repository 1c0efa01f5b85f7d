"""The small SQLite tables beside the events: snapshots, players, secrets and small sets."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from service.adapters.codec import dumps, loads
from service.adapters.sqlite_store.datastore import SqliteRecorder
from service.adapters.store import PlayerRecorder, SharedStateRecorder, SnapshotRecorder


class SqliteSnapshotRecorder(SqliteRecorder, SnapshotRecorder):
    """``snapshots`` by (stream, schema, version); every snapshot is kept."""

    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        with self._db.write() as db:
            db.execute("INSERT OR REPLACE INTO snapshots (stream, schema, version, state) VALUES (?, ?, ?, ?)",
                       (stream, schema, version, dumps(state)))

    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None):
        row = self._db.row(
            "SELECT version, state FROM snapshots WHERE stream = ? AND schema = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1",
            (stream, schema, at_most if at_most is not None else 2**62),
        )
        return (row[0], loads(row[1])) if row else None

    def delete_snapshots(self) -> None:
        with self._db.write() as db:
            db.execute("DELETE FROM snapshots")


class SqlitePlayerRecorder(SqliteRecorder, PlayerRecorder):
    """``players`` by id, with a unique index on the token hash (a revoked token becomes
    ``revoked:<id>``, which no token hashes to)."""

    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        with self._db.write() as db:
            db.execute("INSERT INTO players (id, name, token_hash) VALUES (?, ?, ?)", (player_id, name, token_hash))

    def player(self, player_id: str) -> dict[str, Any] | None:
        row = self._db.row("SELECT id, name FROM players WHERE id = ?", (player_id,))
        return {"id": row[0], "name": row[1]} if row else None

    def player_by_token(self, token_hash: str, player_id: str | None = None) -> dict[str, Any] | None:
        row = self._db.row("SELECT id, name FROM players WHERE token_hash = ?", (token_hash,))
        if row is None or (player_id is not None and row[0] != player_id):
            return None
        return {"id": row[0], "name": row[1]}

    def current_tokens(self, credentials: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        asked = set(credentials)
        hashes = [h for _, h in asked]
        found: set[tuple[str, str]] = set()
        for start in range(0, len(hashes), 500):  # SQLite binds at most 999 parameters by default
            chunk = hashes[start:start + 500]
            rows = self._db.rows(f"SELECT id, token_hash FROM players WHERE token_hash IN ({','.join('?' * len(chunk))})",
                                 tuple(chunk))
            found.update((row[0], row[1]) for row in rows)
        return found & asked

    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        with self._db.write() as db:
            changed = db.execute("UPDATE players SET token_hash = ? WHERE id = ? AND token_hash = ?",
                                 (new_hash or f"revoked:{player_id}", player_id, old_hash)).rowcount
            if changed == 1:
                db.execute("INSERT INTO counters (name, value) VALUES ('token_generation', 1) "
                           "ON CONFLICT (name) DO UPDATE SET value = value + 1")
            return changed == 1

    def token_generation(self) -> int:
        row = self._db.row("SELECT value FROM counters WHERE name = 'token_generation'")
        return int(row[0]) if row else 0


class SqliteSharedStateRecorder(SqliteRecorder, SharedStateRecorder):
    """``secrets`` by name and ``small_sets`` by (name, member)."""

    def secret(self, name: str, candidate: str) -> str:
        with self._db.write() as db:
            db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, candidate))
            return db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0]

    def set_add(self, name: str, member: str) -> None:
        with self._db.write() as db:
            db.execute("INSERT OR IGNORE INTO small_sets (name, member) VALUES (?, ?)", (name, member))

    def set_remove(self, name: str, member: str) -> None:
        with self._db.write() as db:
            db.execute("DELETE FROM small_sets WHERE name = ? AND member = ?", (name, member))

    def set_members(self, name: str) -> list[str]:
        return [row[0] for row in self._db.rows("SELECT member FROM small_sets WHERE name = ? ORDER BY member",
                                                (name,))]
