"""The archive of finished games on PostgreSQL (``GAMES_ARCHIVE_URL=postgresql://...``).

A Redis deployment moves games finished longer ago than the retention period here
(``service.running.archiving``). Two tables, created on first use:

* ``archived_games``: one row per game: its stream, type, last version, log partition and the
  range of its log positions, when it ended and was archived, and its **signed portable log**
  (the export a finished game gets, ``GET /games/{id}/export``: verifiable offline and
  importable anywhere, so an operator can take a game out of the archive with ``psql``);
* ``archived_events``: one row per event, the bytes the event store held (the stored body,
  JSON), at its version in the game and its position in the log partition: the game's reads
  (``read``) and the projections' rebuilds (``read_log``) are served from it. It also keeps
  the log entries Redis lets go once every reader has read them (``store_log``: those of
  games in play and of players' feeds too), so a rebuild still reads the whole log.

A game is written in one transaction, and writing it again changes nothing (``ON CONFLICT DO
NOTHING``): the archive step can be repeated after a kill at any point. Where several
deployments share a database, give each its own schema (``?options=-csearch_path%3Dname`` in
the URL).

One connection per process, used by one thread at a time (a lock): archived games are read
rarely (their players have left), so a pool would only hold connections open. A lost
connection is opened again on the next call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import psycopg

from service.adapters.codec import dumps, loads
from service.adapters.store import Recorded

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS archived_games (
    game_id        text PRIMARY KEY,
    stream         text NOT NULL UNIQUE,
    game_type      text NOT NULL,
    version        integer NOT NULL,
    log_partition  integer NOT NULL,
    first_position bigint NOT NULL,
    last_position  bigint NOT NULL,
    ended_at       timestamptz NOT NULL,
    archived_at    timestamptz NOT NULL DEFAULT now(),
    signed_log     text NOT NULL
);
CREATE TABLE IF NOT EXISTS archived_events (
    stream        text NOT NULL,
    version       integer NOT NULL,
    log_partition integer NOT NULL,
    position      bigint NOT NULL,
    body          bytea NOT NULL,
    PRIMARY KEY (stream, version)
);
CREATE UNIQUE INDEX IF NOT EXISTS archived_events_log ON archived_events (log_partition, position);
"""


def _insert_events(cursor: psycopg.Cursor, records: Sequence[Recorded]) -> None:
    """The stored bytes of each event, at its version and log position (kept already: left as is)."""
    cursor.executemany(
        "INSERT INTO archived_events (stream, version, log_partition, position, body) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        [(r.stream, r.version, r.partition, r.position, dumps(r.event)) for r in records])


class PostgresArchive:
    """Archived games on the PostgreSQL database at ``url`` (a libpq URL or conninfo)."""

    def __init__(self, url: str, connect_timeout: float = 5.0):
        self.url = url
        self.connect_timeout = connect_timeout
        self._connection: psycopg.Connection | None = None
        self._lock = threading.Lock()
        self._ready = False

    # -- the connection ------------------------------------------------------------------
    def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        with self._lock:
            for attempt in (1, 2):
                connection = self._connect()
                try:
                    return work(connection)
                except psycopg.OperationalError:
                    self._drop()  # the server restarted or the link broke: once more on a new one
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")  # pragma: no cover

    def _connect(self) -> psycopg.Connection:
        if self._connection is None or self._connection.closed:
            self._connection = psycopg.connect(self.url, autocommit=True,
                                               connect_timeout=max(1, int(self.connect_timeout)))
            if not self._ready:
                self._connection.execute(SCHEMA)
                self._ready = True
        return self._connection

    def _drop(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except psycopg.Error:
                pass
        self._connection = None

    def close(self) -> None:
        with self._lock:
            self._drop()

    def ping(self) -> None:
        self._run(lambda c: c.execute("SELECT 1").fetchone())

    # -- writing ---------------------------------------------------------------------------
    def store_game(self, game_id: str, game_type: str, ended_at: datetime, signed_log: str,
                   records: Sequence[Recorded]) -> None:
        """Keep a finished game: every stored event and its signed log, in one transaction
        (again: nothing changes)."""
        if not records:
            raise ValueError(f"game {game_id} has no events to archive")
        stream, partition = records[0].stream, records[0].partition
        positions = [r.position for r in records]

        def write(connection: psycopg.Connection) -> None:
            with connection.transaction(), connection.cursor() as cursor:
                _insert_events(cursor, records)
                cursor.execute(
                    "INSERT INTO archived_games (game_id, stream, game_type, version, log_partition, first_position,"
                    " last_position, ended_at, signed_log) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT DO NOTHING",
                    (game_id, stream, game_type, records[-1].version, partition, min(positions), max(positions),
                     ended_at, signed_log))

        self._run(write)

    def store_log(self, records: Sequence[Recorded]) -> None:
        """Keep log entries (of games in play, of players' feeds) that Redis's log lets go
        (``ArchivedRedisStore.compact_log``); an entry kept before is left as it is."""
        if not records:
            return

        def write(connection: psycopg.Connection) -> None:
            with connection.transaction(), connection.cursor() as cursor:
                _insert_events(cursor, records)

        self._run(write)

    # -- reading ---------------------------------------------------------------------------
    def version(self, stream: str) -> int:
        """The archived game's last version (0: not archived)."""
        row = self._run(lambda c: c.execute("SELECT version FROM archived_games WHERE stream = %s",
                                            (stream,)).fetchone())
        return int(row[0]) if row else 0

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        """The archived events of ``stream`` with ``after < version <= until``."""
        query = ("SELECT version, log_partition, position, body FROM archived_events "
                 "WHERE stream = %s AND version > %s" + (" AND version <= %s" if until is not None else "")
                 + " ORDER BY version")
        params: tuple[Any, ...] = (stream, after) if until is None else (stream, after, until)
        rows = self._run(lambda c: c.execute(query, params).fetchall())
        return [Recorded(stream, version, loads(body), partition, position)
                for version, partition, position, body in rows]

    def read_log(self, partition: int, after: int, upto: int, limit: int) -> list[Recorded]:
        """Archived log entries of ``partition`` with ``after < position <= upto``, oldest
        first, at most ``limit``."""
        if limit <= 0 or upto <= after:
            return []
        rows = self._run(lambda c: c.execute(
            "SELECT stream, version, position, body FROM archived_events WHERE log_partition = %s"
            " AND position > %s AND position <= %s ORDER BY position LIMIT %s",
            (partition, after, upto, limit)).fetchall())
        return [Recorded(stream, version, loads(body), partition, position)
                for stream, version, position, body in rows]

    def signed_log(self, game_id: str) -> str | None:
        row = self._run(lambda c: c.execute("SELECT signed_log FROM archived_games WHERE game_id = %s",
                                            (game_id,)).fetchone())
        return row[0] if row else None
