"""The production store: Redis Streams, one atomic Lua script per append, a partitioned log.

Layout (``P`` is the key prefix, ``{pN}`` the hash tag of partition ``N``; a game belongs to
partition ``partition_of(stream, partitions)``)::

    P:{pN}:game:<stream>     Stream, one entry per event, id ``<version>-1``,
                             fields ``e`` (event JSON) and ``n`` (log position)
    P:{pN}:log               Stream, the partition's log, id ``<position>-1``,
                             fields ``s`` (stream), ``v`` (version), ``e`` (event JSON)
    P:{pN}:logpos            String, the partition's newest position (INCRBY)
    P:{pN}:idem:<stream>     Hash, idempotency key -> record JSON (one hash per stream, so
                             the key is scoped to its stream with no separator ambiguity)
    P:{pN}:snapv:<s>:<h>     Sorted set of snapshot versions (score = member = version)
    P:{pN}:snapd:<s>:<h>     Hash, version -> state JSON  (<s>, <h>: stream and schema,
                             with ``%`` and ``:`` escaped so the pair is unambiguous)
    P:{pN}:snaps             Set naming the snapshot keys of the partition (for deletion)
    P:{players}:player:<id>  Hash ``id``, ``name``, ``token_hash``
    P:{players}:tokens       Hash, token hash -> ``{id, name}`` JSON (the token index)
    P:{rm:<name>}:c          String, the read model's checkpoints (JSON, canonical)
    P:{rm:<name>}:t:<table>  Hash, key -> row JSON (one per table of the read model)
    P:{rm:<name>}:i:<index>  Sorted set, key by score (one per index of the read model)
    P:{rm:<name>}:keys       Set naming the read model's table and index keys (for deletion)

Every key an append touches carries the partition's hash tag, so the append script is
single-slot; every other multi-key operation stays in one slot too (snapshots: the
partition's tag; players: ``{players}``; a read model: ``{rm:<name>}``, so its save, one
script writing rows, index entries and checkpoints with a compare-and-set, is atomic). The layout is thus ready for Redis Cluster
(connecting through a cluster client is the only change; this class uses
``redis.Redis.from_url``, one node). The prefix stays outside the braces and must not
contain braces itself.

Appends: one Lua script (``APPEND``) checks the idempotency key, then the version (the
game stream's length: entries are never deleted or trimmed), XADDs every event to the game
stream and to the partition log with ids derived from the version and from an INCRBY on
the partition's position counter, and stores the idempotency record. A script runs
atomically, and it does every check before its first write, so it never stops half way.
Refusals come back as ``["dup", record]`` / ``["conflict", current]`` replies, which the
Python side maps to ``DuplicateRequest`` / ``VersionConflict``. As the counter and the log
move together inside the script, no reader sees position ``n + 1`` before ``n``: a
projection's checkpoint never skips an event that commits later.

The log entries carry a copy of the event body rather than a reference to the game stream:
``read_log`` is then a single XRANGE on one key, and a projection rebuild never touches
the per-game streams (a reference would need one more lookup per event). The price is the
memory of a second copy of each body; events are small, and the game stream stays the
source of truth for ``read``.

Durability. What survives a crash is what Redis's persistence settings put on disk:

* ``appendonly yes`` + ``appendfsync always``: the AOF is fsynced before the reply is
  sent, so an acknowledged append is never lost. Recommended in production.
* ``appendfsync everysec`` (the AOF default): about one second (two at worst) of
  acknowledged appends can be lost when the machine or the Redis process dies.
* RDB snapshots only (``appendonly no``): everything since the last snapshot can be lost.

A script's writes reach the AOF and the replicas as one MULTI/EXEC block, and Redis drops
an unfinished block at the tail of the AOF when it loads it, so a recovered store never
holds half an append. Replication is asynchronous: a failover to a replica can lose the
last acknowledged appends (WAIT / WAITAOF narrow that window but do not close it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.adapters.codec import dumps, loads
from service.adapters.redis_client import connect
from service.adapters.store import (
    CheckpointMoved,
    DuplicateRequest,
    EventStore,
    IndexWrite,
    Recorded,
    RowWrite,
    VersionConflict,
    partition_of,
)

# KEYS: 1 game stream, 2 partition log, 3 position counter, 4 idempotency hash
# ARGV: 1 stream name, 2 expected version, 3 "1" if an idempotency key is given,
#       4 idempotency key, 5 idempotency record, 6.. event bodies
APPEND = """
local with_key = ARGV[3] == '1'
if with_key then
  local seen = redis.call('HGET', KEYS[4], ARGV[4])
  if seen then return {'dup', seen} end
end
local expected = tonumber(ARGV[2])
local current = redis.call('XLEN', KEYS[1])
if current ~= expected then return {'conflict', current} end
local count = #ARGV - 5
if count > 0 then
  local first = redis.call('INCRBY', KEYS[3], count) - count
  for i = 1, count do
    local version = string.format('%d', expected + i)
    local position = string.format('%d', first + i)
    redis.call('XADD', KEYS[1], version .. '-1', 'e', ARGV[5 + i], 'n', position)
    redis.call('XADD', KEYS[2], position .. '-1', 's', ARGV[1], 'v', version, 'e', ARGV[5 + i])
  end
end
if with_key then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
return {'ok', expected + count}
"""

# KEYS: 1 versions zset, 2 states hash, 3 partition registry; ARGV: 1 version, 2 state, 3 keep
SAVE_SNAPSHOT = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[1], KEYS[2])
local old = redis.call('ZRANGE', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
if #old > 0 then
  redis.call('ZREM', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[2], unpack(old))
end
return #old
"""

# KEYS: 1 versions zset, 2 states hash; ARGV: 1 highest version wanted ('+inf' for any)
LOAD_SNAPSHOT = """
local found = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], '-inf', 'LIMIT', 0, 1)
if #found == 0 then return false end
local state = redis.call('HGET', KEYS[2], found[1])
if not state then return false end
return {found[1], state}
"""

# KEYS: 1 player hash, 2 token index; ARGV: 1 id, 2 name, 3 token hash, 4 public record JSON
ADD_PLAYER = """
local old = redis.call('HGET', KEYS[1], 'token_hash')
if old and old ~= ARGV[3] then redis.call('HDEL', KEYS[2], old) end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'token_hash', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return 1
"""

# KEYS: 1 player hash, 2 token index; ARGV: 1 old token hash, 2 new token hash ('' to revoke)
REPLACE_TOKEN = """
local current = redis.call('HGET', KEYS[1], 'token_hash')
if (not current) or current ~= ARGV[1] then return 0 end
local record = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
if ARGV[2] ~= '' and record then redis.call('HSET', KEYS[2], ARGV[2], record) end
return 1
"""

# KEYS: 1 checkpoints, 2 the set naming every key of the read model, 3.. tables and indexes
# ARGV: 1 "1" if previous checkpoints are expected, 2 those (canonical JSON), 3 the new ones,
#       then groups of four: op (h: HSET, x: HDEL, z: ZADD, r: ZREM), key number, member, value
SAVE_ROWS = """
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
for i = 4, #ARGV, 4 do
  local op, key, member = ARGV[i], KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2]
  if op == 'h' then redis.call('HSET', key, member, ARGV[i + 3])
  elseif op == 'x' then redis.call('HDEL', key, member)
  elseif op == 'z' then redis.call('ZADD', key, ARGV[i + 3], member)
  else redis.call('ZREM', key, member) end
end
for i = 3, #KEYS do redis.call('SADD', KEYS[2], KEYS[i]) end
redis.call('SET', KEYS[1], ARGV[3])
return 1
"""

_READ_CHUNK = 5000


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A")


def _number(entry_id: bytes) -> int:
    """The version or position encoded in a stream entry id ``<n>-1``."""
    return int(entry_id[: entry_id.index(b"-")])


def _canonical(checkpoints: dict[int, int]) -> bytes:
    """One encoding per checkpoint map, so the compare-and-set can compare strings."""
    return dumps({int(k): v for k, v in sorted(checkpoints.items(), key=lambda kv: int(kv[0]))})


class RedisStore(EventStore):
    def __init__(self, url: str, partitions: int = 16, prefix: str = "dyn", keep_snapshots: int = 3,
                 timeout: float | None = None):
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (they would move the hash tag)")
        if keep_snapshots < 1:
            raise ValueError("keep_snapshots must be >= 1")
        self.url = url
        self.partitions = partitions
        self.prefix = prefix
        self.keep_snapshots = keep_snapshots
        # with a timeout, a Redis that is down or frozen fails a call within it (the API answers
        # 503) instead of hanging; health_check_interval re-checks a connection idle for a while
        options = {} if timeout is None else {"socket_timeout": timeout, "socket_connect_timeout": min(timeout, 2.0),
                                              "health_check_interval": 30}
        self._redis = connect(url, **options)
        self._probe = connect(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._append = self._redis.register_script(APPEND)
        self._save_snapshot = self._redis.register_script(SAVE_SNAPSHOT)
        self._load_snapshot = self._redis.register_script(LOAD_SNAPSHOT)
        self._add_player = self._redis.register_script(ADD_PLAYER)
        self._save_rows = self._redis.register_script(SAVE_ROWS)
        self._replace_token = self._redis.register_script(REPLACE_TOKEN)

    # -- keys ------------------------------------------------------------------------
    def _tag(self, partition: int) -> str:
        return f"{self.prefix}:{{p{partition}}}"

    def _game(self, stream: str) -> tuple[int, str]:
        partition = partition_of(stream, self.partitions)
        return partition, f"{self._tag(partition)}:game:{stream}"

    def _log(self, partition: int) -> str:
        self._check_partition(partition)
        return f"{self._tag(partition)}:log"

    def _check_partition(self, partition: int) -> None:
        if not 0 <= partition < self.partitions:
            raise ValueError(f"partition {partition} is not in 0..{self.partitions - 1}")

    def _idempotency(self, stream: str) -> str:
        return f"{self._tag(partition_of(stream, self.partitions))}:idem:{stream}"

    def _snapshot_keys(self, stream: str, schema: str) -> tuple[str, str]:
        tag = self._tag(partition_of(stream, self.partitions))
        name = f"{_escape(stream)}:{_escape(schema)}"
        return f"{tag}:snapv:{name}", f"{tag}:snapd:{name}"

    def _player(self, player_id: str) -> str:
        return f"{self.prefix}:{{players}}:player:{player_id}"

    def _tokens(self) -> str:
        return f"{self.prefix}:{{players}}:tokens"

    # -- streams ---------------------------------------------------------------------
    def append(self, stream: str, expected_version: int, events: Sequence[dict[str, Any]],
               idempotency: tuple[str, dict[str, Any]] | None = None) -> int:
        partition, game = self._game(stream)
        tag = self._tag(partition)
        if idempotency:
            key_args: list[Any] = ["1", idempotency[0], dumps(idempotency[1])]
        else:
            key_args = ["0", "", ""]
        reply = self._append(
            keys=[game, f"{tag}:log", f"{tag}:logpos", f"{tag}:idem:{stream}"],
            args=[stream, int(expected_version), *key_args, *(dumps(event) for event in events)],
        )
        outcome, value = reply
        if outcome == b"ok":
            return int(value)
        if outcome == b"conflict":
            raise VersionConflict(stream, expected_version, int(value))
        if outcome == b"dup":
            assert idempotency is not None
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
        return self._redis.xlen(self._game(stream)[1])

    # -- global log ------------------------------------------------------------------
    def read_log(self, partition: int, after: int, limit: int = 1000) -> list[Recorded]:
        log = self._log(partition)
        if limit <= 0:
            return []
        entries = self._redis.xrange(log, str(max(after, 0) + 1), "+", count=limit)
        return [
            Recorded(fields[b"s"].decode(), int(fields[b"v"]), loads(fields[b"e"]), partition, _number(entry_id))
            for entry_id, fields in entries
        ]

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

    # -- idempotency -----------------------------------------------------------------
    def idempotency_record(self, stream: str, key: str) -> dict[str, Any] | None:
        raw = self._redis.hget(self._idempotency(stream), key)
        return loads(raw) if raw is not None else None

    # -- players ---------------------------------------------------------------------
    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        self._add_player(keys=[self._player(player_id), self._tokens()],
                         args=[player_id, name, token_hash, dumps({"id": player_id, "name": name})])

    def player(self, player_id: str) -> dict[str, Any] | None:
        found_id, name = self._redis.hmget(self._player(player_id), ["id", "name"])
        if found_id is None:
            return None
        return {"id": found_id.decode(), "name": name.decode()}

    def player_by_token(self, token_hash: str) -> dict[str, Any] | None:
        raw = self._redis.hget(self._tokens(), token_hash)
        return loads(raw) if raw is not None else None

    # -- snapshots -------------------------------------------------------------------
    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        versions, states = self._snapshot_keys(stream, schema)
        registry = f"{self._tag(partition_of(stream, self.partitions))}:snaps"
        self._save_snapshot(keys=[versions, states, registry],
                            args=[int(version), dumps(state), self.keep_snapshots])

    def load_snapshot(self, stream: str, schema: str, at_most: int | None = None) -> tuple[int, dict[str, Any]] | None:
        versions, states = self._snapshot_keys(stream, schema)
        found = self._load_snapshot(keys=[versions, states],
                                    args=["+inf" if at_most is None else int(at_most)])
        if not found:
            return None
        return int(found[0]), loads(found[1])

    def delete_snapshots(self) -> None:
        for partition in range(self.partitions):
            registry = f"{self._tag(partition)}:snaps"
            names = list(self._redis.smembers(registry))
            for start in range(0, len(names), 500):
                chunk = names[start:start + 500]
                with self._redis.pipeline(transaction=True) as pipe:
                    pipe.delete(*chunk)
                    pipe.srem(registry, *chunk)
                    pipe.execute()

    # -- read models, per row ----------------------------------------------------------
    def _rm(self, name: str) -> str:
        if "{" in name or "}" in name:
            raise ValueError("a projection name must not contain braces")
        return f"{self.prefix}:{{rm:{name}}}"

    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        raw = self._redis.get(f"{self._rm(name)}:c")
        return {int(k): v for k, v in loads(raw).items()} if raw is not None else None

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        base = self._rm(name)
        keys = [f"{base}:c", f"{base}:keys"]
        slot: dict[str, int] = {}

        def key_number(key: str) -> int:
            if key not in slot:
                keys.append(key)
                slot[key] = len(keys)
            return slot[key]

        ops: list[Any] = []
        for table, key, raw in rows:
            number = key_number(f"{base}:t:{table}")
            ops += ["x", number, key, ""] if raw is None else ["h", number, key, raw]
        for idx, key, score in index:
            number = key_number(f"{base}:i:{idx}")
            ops += ["r", number, key, ""] if score is None else ["z", number, key, repr(float(score))]
        saved = self._save_rows(
            keys=keys,
            args=["0" if previous is None else "1", b"" if previous is None else _canonical(previous),
                  _canonical(checkpoints), *ops])
        if not saved:
            raise CheckpointMoved(name)

    def get_rows(self, name: str, table: str, keys: Sequence[str]) -> list[bytes | None]:
        if not keys:
            return []
        return self._redis.hmget(f"{self._rm(name)}:t:{table}", list(keys))

    def index_page(self, name: str, index: str, offset: int = 0, limit: int | None = None) -> list[str]:
        end = -1 if limit is None else offset + limit - 1
        if limit is not None and limit <= 0:
            return []
        return [k.decode() for k in self._redis.zrange(f"{self._rm(name)}:i:{index}", offset, end)]

    def index_count(self, name: str, index: str) -> int:
        return self._redis.zcard(f"{self._rm(name)}:i:{index}")

    def index_entries(self, name: str, index: str) -> list[tuple[str, float]]:
        return [(k.decode(), s) for k, s in self._redis.zrange(f"{self._rm(name)}:i:{index}", 0, -1, withscores=True)]

    def table_rows(self, name: str, table: str) -> dict[str, bytes]:
        return {k.decode(): v for k, v in self._redis.hscan_iter(f"{self._rm(name)}:t:{table}", count=1000)}

    def delete_projection(self, name: str) -> None:
        base = self._rm(name)
        names = list(self._redis.smembers(f"{base}:keys"))
        for start in range(0, len(names), 500):
            self._redis.unlink(*names[start:start + 500])
        self._redis.unlink(f"{base}:c", f"{base}:keys")

    def close(self) -> None:
        self._redis.close()
        self._probe.close()

    def ping(self) -> None:
        self._probe.ping()

    # -- trust: tokens, secrets, small sets ------------------------------------------------
    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        return bool(self._replace_token(keys=[self._player(player_id), self._tokens()],
                                        args=[old_hash, new_hash or ""]))

    def secret(self, name: str, candidate: str) -> str:
        key = f"{self.prefix}:secret:{name}"
        self._redis.set(key, candidate, nx=True)
        return self._redis.get(key).decode()

    def set_add(self, name: str, member: str) -> None:
        self._redis.sadd(f"{self.prefix}:set:{name}", member)

    def set_remove(self, name: str, member: str) -> None:
        self._redis.srem(f"{self.prefix}:set:{name}", member)

    def set_members(self, name: str) -> list[str]:
        return sorted(m.decode() for m in self._redis.smembers(f"{self.prefix}:set:{name}"))
