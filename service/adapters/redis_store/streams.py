"""Streams and the partitioned log on Redis: one atomic Lua script per append.

Appends: one Lua script (``APPEND``) checks, when the appender names the token generation
its caller's token was checked at, that no token was rotated or revoked since (on one
Redis; a cluster's generation is in another slot, read just before), then the idempotency key, then the version (a
game stream's length: its entries are never deleted or trimmed; a stream given a length to
keep, a player's feed, trims its oldest entries, and its version is its newest entry's) and, when the appender says
which event it decided on, that the stream's last entry is that one (each game-stream
entry keeps its event's digest as ``h``: after a failover the stream can be back at the
same length with other events), XADDs every event to the game
stream and to the partition log with ids derived from the version and from an INCRBY on
the partition's position counter, and stores the idempotency record. A script runs
atomically, and it does every check before its first write, so it never stops half way.
Refusals come back as ``["tokens", generation]`` / ``["dup", record]`` / ``["conflict", current]``
replies, which the Python side maps to ``TokensChanged`` / ``DuplicateRequest`` / ``VersionConflict``. As the counter and the log
move together inside the script, no reader sees position ``n + 1`` before ``n``: a
projection's checkpoint never skips an event that commits later.

The log entries carry a copy of the event body rather than a reference to the game stream:
``read_log`` is then a single XRANGE on one key, and a projection rebuild never touches
the per-game streams (a reference would need one more lookup per event). The price is the
memory of a second copy of each body; events are small, and the game stream stays the
source of truth for ``read``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.adapters.codec import digest_of, dumps, loads
from service.adapters.redis_store.datastore import RedisDatastore, RedisRecorder
from service.adapters.store import (
    DuplicateRequest,
    LogRecorder,
    Recorded,
    StreamRecorder,
    TokensChanged,
    VersionConflict,
)

# KEYS: 1 game stream, 2 partition log, 3 position counter, 4 idempotency hash
# ARGV: 1 stream name, 2 expected version, 3 "1" if an idempotency key is given,
#       4 idempotency key, 5 idempotency record, 6 the digest of the event decided on at the
#       expected version ('' : not checked), 7 the token generation ('' : not checked),
#       8 the entries the stream keeps ('' : all of them), 9.. pairs of event body and its digest
APPEND = """
if ARGV[7] ~= '' then
  local generation = redis.call('GET', KEYS[5]) or '0'
  if generation ~= ARGV[7] then return {'tokens', generation} end
end
local with_key = ARGV[3] == '1'
if with_key then
  local seen = redis.call('HGET', KEYS[4], ARGV[4])
  if seen then return {'dup', seen} end
end
local expected = tonumber(ARGV[2])
local current
if ARGV[8] == '' then
  current = redis.call('XLEN', KEYS[1])
else
  local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  current = newest and tonumber(string.match(newest[1], '^%d+')) or 0
end
if current ~= expected then return {'conflict', current} end
if ARGV[6] ~= '' and current > 0 then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][2]
  for i = 1, #last, 2 do
    if last[i] == 'h' and last[i + 1] ~= ARGV[6] then return {'conflict', current} end
  end
end
local count = (#ARGV - 8) / 2
if count > 0 then
  local first = redis.call('INCRBY', KEYS[3], count) - count
  for i = 1, count do
    local version = string.format('%d', expected + i)
    local position = string.format('%d', first + i)
    local body = ARGV[7 + 2 * i]
    redis.call('XADD', KEYS[1], version .. '-1', 'e', body, 'n', position, 'h', ARGV[8 + 2 * i])
    redis.call('XADD', KEYS[2], position .. '-1', 's', ARGV[1], 'v', version, 'e', body)
  end
  if ARGV[8] ~= '' then redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[8]) end
end
if with_key then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
return {'ok', expected + count}
"""

_READ_CHUNK = 5000


def _with_digests(events: Sequence[dict[str, Any]]) -> list[bytes | str]:
    """Each event's body and its digest (kept in the game stream's entry as ``h``)."""
    out: list[bytes | str] = []
    for event in events:
        body = dumps(event)
        out += [body, digest_of(body)]
    return out


def _number(entry_id: bytes) -> int:
    """The version or position encoded in a stream entry id ``<n>-1``."""
    return int(entry_id[: entry_id.index(b"-")])


def _log_entries(partition: int, entries: list[Any]) -> list[Recorded]:
    """A partition log's XRANGE reply as ``Recorded`` entries."""
    return [Recorded(fields[b"s"].decode(), int(fields[b"v"]), loads(fields[b"e"]), partition, _number(entry_id))
            for entry_id, fields in entries]


class RedisStreamRecorder(RedisRecorder, StreamRecorder):
    """``P:{pN}:game:<stream>`` streams and ``P:{pN}:idem:<stream>`` hashes; an append also
    writes the partition's log and position counter (``RedisLogRecorder`` reads them)."""

    def __init__(self, datastore: RedisDatastore, kept: Mapping[str, int] | None = None) -> None:
        """``kept``: by a stream name's prefix, how many of its newest entries a stream keeps
        (the oldest are trimmed as new ones come, in whole nodes of about 100 entries); every
        other stream keeps all of its entries."""
        super().__init__(datastore)
        self._append = self._redis.register_script(APPEND)
        self._kept = dict(kept or {})
        if any(n < 1 for n in self._kept.values()):
            raise ValueError("a stream keeps at least 1 entry")

    def kept(self, stream: str) -> int | None:
        """How many of its newest entries ``stream`` keeps (None: all)."""
        for prefix, count in self._kept.items():
            if stream.startswith(prefix):
                return count
        return None

    def _game(self, stream: str) -> tuple[int, str]:
        partition, tag = self._stream_tag(stream)
        return partition, f"{tag}:game:{stream}"

    def append(self, stream: str, version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None, head: str = "",
               token_generation: int | None = None) -> int:
        partition, game = self._game(stream)
        tag = self._tag(partition)
        if idempotency:
            key_args: list[Any] = ["1", idempotency[0], dumps(idempotency[1])]
        else:
            key_args = ["0", "", ""]
        keys = [game, f"{tag}:log", f"{tag}:logpos", f"{tag}:idem:{stream}"]
        guard = ""
        if token_generation is not None:
            if self._datastore.cluster:  # the generation is in another slot: read it first
                current = int(self._redis.get(self._token_generation_key()) or 0)
                if current != token_generation:
                    raise TokensChanged(current)
            else:  # one Redis: the script checks it, in the append's own round trip
                keys.append(self._token_generation_key())
                guard = str(int(token_generation))
        kept = self.kept(stream)
        reply = self._write(self._append, keys, [stream, int(version), *key_args, head, guard,
                                                 "" if kept is None else kept, *_with_digests(events)])
        outcome, value = reply
        if outcome == b"ok":
            return int(value)
        if outcome == b"tokens":
            raise TokensChanged(int(value))
        if outcome == b"conflict":
            raise VersionConflict(stream, version, int(value))
        if outcome == b"dup":
            assert idempotency is not None
            self._datastore.confirm(game)  # another connection stored the record: confirm it too
            raise DuplicateRequest(idempotency[0], loads(value))
        raise RuntimeError(f"unexpected reply from the append script: {reply!r}")  # pragma: no cover

    def read(self, stream: str, after: int = 0, until: int | None = None) -> list[Recorded]:
        if until is not None and until <= after:
            return []
        partition, game = self._game(stream)
        start = max(after, 0) + 1
        end = "+" if until is None else str(until)
        found: list[Recorded] = []
        while True:
            entries = self._redis.xrange(game, str(start), end, count=_READ_CHUNK)
            for entry_id, fields in entries:
                found.append(Recorded(stream, _number(entry_id), loads(fields[b"e"]), partition, int(fields[b"n"])))
            if len(entries) < _READ_CHUNK:
                return found
            start = found[-1].version + 1

    def version(self, stream: str) -> int:
        if self.kept(stream) is None:  # every entry is there: the length is the version
            return self._redis.xlen(self._game(stream)[1])
        newest = self._redis.xrevrange(self._game(stream)[1], "+", "-", count=1)
        return _number(newest[0][0]) if newest else 0

    def versions(self, streams: Sequence[str]) -> list[int]:
        """Pipelines of ``version``'s reads, a thousand streams a round trip (on a cluster, one
        read a stream)."""
        if self._datastore.cluster or len(streams) < 2:
            return super().versions(streams)
        found: list[int] = []
        for start in range(0, len(streams), 1000):
            with self._redis.pipeline(transaction=False) as pipe:
                for stream in streams[start:start + 1000]:
                    key = self._game(stream)[1]
                    if self.kept(stream) is None:
                        pipe.xlen(key)
                    else:
                        pipe.xrevrange(key, "+", "-", count=1)
                replies = pipe.execute()
            found += [reply if isinstance(reply, int) else _number(reply[0][0]) if reply else 0 for reply in replies]
        return found

    def confirm(self, stream: str) -> None:
        self._datastore.confirm(self._game(stream)[1])

    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        """The record, once replicated as the durability setting asks (an answer is built on it)."""
        idem = f"{self._stream_tag(stream)[1]}:idem:{stream}"
        raw = self._redis.hget(idem, key)
        if raw is None:
            return None
        self._datastore.confirm(idem)
        return loads(raw)


class RedisLogRecorder(RedisRecorder, LogRecorder):
    """``P:{pN}:log`` streams (id ``<position>-1``) and ``P:{pN}:logpos`` counters."""

    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        self._check_partition(partition)
        if limit <= 0:
            return []
        entries = self._redis.xrange(f"{self._tag(partition)}:log", str(max(after, 0) + 1), "+", count=limit)
        return _log_entries(partition, entries)

    def read_logs(self, reads: Mapping[int, tuple[int, int]]) -> dict[int, list[Recorded]]:
        """One pipeline of XRANGEs (one round trip); on a cluster, one read per partition."""
        if self._datastore.cluster or len(reads) < 2:
            return super().read_logs(reads)
        wanted = [(p, after, limit) for p, (after, limit) in reads.items() if limit > 0]
        with self._redis.pipeline(transaction=False) as pipe:
            for partition, after, limit in wanted:
                self._check_partition(partition)
                pipe.xrange(f"{self._tag(partition)}:log", str(max(after, 0) + 1), "+", count=limit)
            replies = pipe.execute()
        found: dict[int, list[Recorded]] = {p: [] for p in reads}
        for (partition, _, _), entries in zip(wanted, replies, strict=True):
            found[partition] = _log_entries(partition, entries)
        return found

    def log_head(self, partition: int) -> int:
        self._check_partition(partition)
        head = self._redis.get(f"{self._tag(partition)}:logpos")
        return int(head) if head is not None else 0

    def log_heads(self) -> dict[int, int]:
        with self._redis.pipeline(transaction=False) as pipe:
            for partition in range(self.partitions):
                pipe.get(f"{self._tag(partition)}:logpos")
            found = pipe.execute()
        return {p: int(head) if head is not None else 0 for p, head in enumerate(found)}

    def wait_for_log(self, after: dict[int, int], timeout: float) -> None:
        if self._datastore.cluster:  # the partitions' logs are in other slots: no read blocks on all
            super().wait_for_log(after, timeout)
            return
        # one blocking read on every partition's log, from each one's position: it answers as
        # soon as any of them has an entry past it (bounded below the client's socket timeout)
        socket_timeout = self._redis.connection_pool.connection_kwargs.get("socket_timeout")
        block = timeout if socket_timeout is None else min(timeout, socket_timeout / 2)
        streams = {f"{self._tag(p)}:log": f"{max(after.get(p, 0), 0)}-1" for p in range(self.partitions)}
        self._redis.xread(streams, count=1, block=max(1, int(block * 1000)))
