"""A Redis store whose finished games may have moved to an archive (``GAMES_ARCHIVE_URL``).

``ArchivedRedisStore`` is ``RedisStore`` with an archive behind it
(``service.adapters.postgres_archive``): what Redis no longer holds is read from the
archive, so every reader (a game's load, its events, replay and export, a projection's
rebuild) gets the same events whether a game is archived or not.

* **A game's stream**: a game stream Redis does not hold (no key) is looked up in the
  archive; a game in play is never looked up there (its key exists), so the command path
  costs what it did. Only game streams (``archived_prefix``) are archived.
* **The log**: ``drop_archived`` deletes an archived game's log entries and, in the same
  script, raises the partition's archive mark (``P:{pN}:archived``) to the game's highest
  position. A log read fetches the mark after its entries, in the same round trip: a read
  from a position below it also reads the archive there and merges both by position (an
  entry met in both is taken once). Entries deleted before the read are then covered by
  the mark it fetched; entries deleted after it were in what it read. ``compact_log`` lets
  every entry up to a position go the same way (those of games in play and of players' feeds
  too, copied to the archive first), raising the mark to it.

Retention's own keys (``service.running.archiving`` drives them):

    P:{pN}:archived        String, the partition's archive mark: below it a log read looks in the archive too
    P:archive:due          Sorted set, game id by the time it ended (epoch seconds)
    P:archive:followed     Hash, partition -> the log position the archiver has read to
    P:archive:lock         String, held by the archive job that runs
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.adapters.postgres_archive import PostgresArchive
from service.adapters.redis_store import RedisStore
from service.adapters.redis_store.streams import _log_entries
from service.adapters.store import Recorded

# KEYS: 1 game stream, 2 idempotency hash, 3 partition log, 4 partition's archive mark,
#       5 the partition's snapshot registry, 6.. the stream's snapshot keys
# ARGV: 1 the game's version as archived, 2 its highest log position, 3.. its log entry ids
# (nothing is deleted, and 0 returned, if the stream moved past the version archived)
DROP_ARCHIVED = """
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
local mark = tonumber(redis.call('GET', KEYS[4]) or '0')
if tonumber(ARGV[2]) > mark then redis.call('SET', KEYS[4], ARGV[2]) end
for i = 3, #ARGV, 500 do
  redis.call('XDEL', KEYS[3], unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
redis.call('DEL', KEYS[1], KEYS[2])
for i = 6, #KEYS do
  redis.call('DEL', KEYS[i])
  redis.call('SREM', KEYS[5], KEYS[i])
end
return 1
"""


# KEYS: 1 partition log, 2 partition's archive mark; ARGV: 1 the position up to which the
# archive now holds the log: the mark rises to it and every entry at or below it leaves Redis
TRIM_LOG = """
local mark = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[1]) > mark then redis.call('SET', KEYS[2], ARGV[1]) end
return redis.call('XTRIM', KEYS[1], 'MINID', (tonumber(ARGV[1]) + 1) .. '-0')
"""

#: log entries copied to the archive per round of a compaction
COMPACT_BATCH = 1000


class ArchivedRedisStore(RedisStore):
    """``RedisStore`` reading through to ``archive`` for game streams it no longer holds."""

    def __init__(self, url: str, archive: PostgresArchive, archived_prefix: str, **options):
        super().__init__(url, **options)
        self.archive = archive
        self.archived_prefix = archived_prefix
        self._drop = self._redis.register_script(DROP_ARCHIVED)
        self._trim_log = self._redis.register_script(TRIM_LOG)

    # -- streams: Redis first, then the archive ---------------------------------------------
    def _may_be_archived(self, stream: str) -> bool:
        return stream.startswith(self.archived_prefix)

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        found = super().read(stream, after, until)
        if found or (until is not None and until <= after) or not self._may_be_archived(stream):
            return found
        if self._redis.exists(self._game(stream)[1]):  # held here: nothing in that range
            return found
        return self.archive.read(stream, after, until)

    def version(self, stream: str) -> int:
        version = super().version(stream)
        if version or not self._may_be_archived(stream):
            return version
        return self.archive.version(stream)

    def versions(self, streams: Sequence[str]) -> list[int]:
        found = super().versions(streams)
        return [version if version or not self._may_be_archived(stream) else self.archive.version(stream)
                for stream, version in zip(streams, found, strict=True)]

    def version_and_token_generation(self, stream: str) -> tuple[int, int]:
        version, generation = super().version_and_token_generation(stream)
        if not version and self._may_be_archived(stream):
            version = self.archive.version(stream)
        return version, generation

    # -- the log: Redis's entries, and the archive's below the partition's mark -----------------
    def _mark_key(self, partition: int) -> str:
        return f"{self._tag(partition)}:archived"

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        return self.read_logs({partition: (after, limit)})[partition]

    def read_logs(self, reads: Mapping[int, tuple[int, int]]) -> dict[int, list[Recorded]]:
        """Each partition's entries and then its mark, in one pipeline (on a cluster both keys
        of a partition are on one node, read in that order); the archive where a read starts
        below the mark."""
        found: dict[int, list[Recorded]] = {p: [] for p in reads}
        wanted = [(p, after, limit) for p, (after, limit) in reads.items() if limit > 0]
        if not wanted:
            return found
        with self._redis.pipeline(transaction=False) as pipe:
            for partition, after, limit in wanted:
                self._check_partition(partition)
                pipe.xrange(f"{self._tag(partition)}:log", str(max(after, 0) + 1), "+", count=limit)
                pipe.get(self._mark_key(partition))
            replies = pipe.execute()
        for i, (partition, after, limit) in enumerate(wanted):
            entries = _log_entries(partition, replies[2 * i])
            mark = int(replies[2 * i + 1] or 0)
            if after < mark:
                # a full page ends where Redis's entries end; past it the next read goes on
                upto = min(mark, entries[-1].position) if len(entries) == limit else mark
                older = self.archive.read_log(partition, after, upto, limit)
                merged = {r.position: r for r in older}
                merged.update((r.position, r) for r in entries)
                entries = [merged[position] for position in sorted(merged)][:limit]
            found[partition] = entries
        return found

    def compact_log(self, partition: int, upto: int) -> int:
        """Let Redis's log of ``partition`` go up to position ``upto``: every entry still held
        there (of games in play, of players' feeds, of games not archived yet) is copied to
        the archive first, then the mark rises to ``upto`` and the entries leave Redis (one
        script). A log read below the mark reads the archive there, so every reader, a rebuild
        from the first position among them, still gets each entry once. The entries removed."""
        self._check_partition(partition)
        log = f"{self._tag(partition)}:log"
        start = "-"
        while True:
            entries = self._redis.xrange(log, start, f"{upto}-1", count=COMPACT_BATCH)
            self.archive.store_log(_log_entries(partition, entries))
            if len(entries) < COMPACT_BATCH:
                break
            start = f"({entries[-1][0].decode()}"
        return int(self._trim_log(keys=[log, self._mark_key(partition)], args=[upto]))

    # -- retention's bookkeeping ---------------------------------------------------------------
    def _retention_key(self, name: str) -> str:
        return f"{self.prefix}:archive:{name}"

    def drop_archived(self, records: Sequence[Recorded], snapshot_schemas: Sequence[str]) -> bool:
        """Delete from Redis an archived game (``records``: its whole stream as read): the
        stream, its idempotency records, its snapshots and its log entries, raising the
        partition's archive mark first (one script, so no reader sees one without the other).
        False, and nothing deleted, if the stream holds more than ``records`` now."""
        stream = records[0].stream
        partition, game = self._game(stream)
        tag = self._tag(partition)
        snapshots = [key for schema in snapshot_schemas for key in self._snapshot_keys(stream, schema)]
        return bool(self._drop(keys=[game, f"{tag}:idem:{stream}", f"{tag}:log", self._mark_key(partition),
                                     f"{tag}:snaps", *snapshots],
                               args=[records[-1].version, max(r.position for r in records),
                                     *(f"{r.position}-1" for r in records)]))

    def holds(self, stream: str) -> bool:
        """Does Redis still hold ``stream`` itself (not the archive)?"""
        return bool(self._redis.exists(self._game(stream)[1]))

    def add_due(self, ended: Mapping[str, float]) -> None:
        """Games that ended, by the time they ended (epoch seconds)."""
        if ended:
            self._redis.zadd(self._retention_key("due"), dict(ended))

    def due(self, ended_before: float, limit: int) -> list[str]:
        """The games that ended before ``ended_before``, the earliest first."""
        raw = self._redis.zrangebyscore(self._retention_key("due"), "-inf", ended_before, start=0, num=limit)
        return [key.decode() for key in raw]

    def waiting_count(self) -> int:
        """Games that ended and are not archived yet."""
        return int(self._redis.zcard(self._retention_key("due")))

    def remove_due(self, game_id: str) -> None:
        self._redis.zrem(self._retention_key("due"), game_id)

    def followed(self) -> dict[int, int]:
        """How far in each partition's log the archiver has looked for games that ended."""
        raw = self._redis.hgetall(self._retention_key("followed"))
        return {int(p): int(v) for p, v in raw.items()}

    def save_followed(self, positions: Mapping[int, int]) -> None:
        if positions:
            self._redis.hset(self._retention_key("followed"), mapping={str(p): v for p, v in positions.items()})

    def retention_lock(self, ttl: float):
        """A lock held by the archive job that runs (a redis-py lock: ``acquire``, ``extend``, ``release``)."""
        return self._redis.lock(self._retention_key("lock"), timeout=ttl, thread_local=False)

    def close(self) -> None:
        super().close()
        self.archive.close()
