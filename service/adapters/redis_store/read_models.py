"""Read models on Redis, per row, each under the hash tag ``{rm:<name>}``.

A save is one Lua script (``SAVE_ROWS``) that compares the checkpoints, writes the rows
(hashes, one per table) and index entries (sorted sets, one per index), names every key it
wrote in the model's key set (for deletion) and sets the new checkpoints. All the model's
keys share its hash tag, so the script is single-slot, also on a Redis Cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from service.adapters.codec import dumps, loads
from service.adapters.redis_store.datastore import RedisDatastore, RedisRecorder
from service.adapters.store import CheckpointMoved, IndexWrite, ProjectionRecorder, RowsSave, RowWrite

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


def _canonical(checkpoints: dict[int, int]) -> bytes:
    """One encoding per checkpoint map, so the compare-and-set can compare strings."""
    return dumps({int(k): v for k, v in sorted(checkpoints.items(), key=lambda kv: int(kv[0]))})


class RedisProjectionRecorder(RedisRecorder, ProjectionRecorder):
    """``P:{rm:<name>}:c`` (checkpoints), ``:t:<table>`` hashes, ``:i:<index>`` sorted sets
    and ``:keys`` (the set naming the tables and indexes)."""

    def __init__(self, datastore: RedisDatastore) -> None:
        super().__init__(datastore)
        self._save_rows = self._redis.register_script(SAVE_ROWS)

    def _rm(self, name: str) -> str:
        if "{" in name or "}" in name:
            raise ValueError("a projection name must not contain braces")
        return f"{self.prefix}:{{rm:{name}}}"

    def load_checkpoints(self, name: str) -> dict[int, int] | None:
        raw = self._redis.get(f"{self._rm(name)}:c")
        return {int(k): v for k, v in loads(raw).items()} if raw is not None else None

    def load_checkpoints_many(self, names: Sequence[str]) -> dict[str, dict[int, int] | None]:
        with self._redis.pipeline(transaction=False) as pipe:  # one round trip (the keys are in other slots)
            for name in names:
                pipe.get(f"{self._rm(name)}:c")
            found = pipe.execute()
        return {name: {int(k): v for k, v in loads(raw).items()} if raw is not None else None
                for name, raw in zip(names, found, strict=True)}

    def save_rows(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                  rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> None:
        if not self._write(self._save_rows, *self._save_args(name, checkpoints, previous, rows, index)):
            raise CheckpointMoved(name)

    def save_many(self, saves: Sequence[RowsSave]) -> set[str]:
        """The saves' scripts in one pipeline (one round trip); each stays atomic on its own.
        With the durability setting or on a cluster, one by one (``RedisDatastore.write``)."""
        if self._datastore.wait_replicas or self._datastore.cluster or len(saves) < 2:
            return super().save_many(saves)
        calls = [self._save_args(s.name, s.checkpoints, s.previous, s.rows, s.index) for s in saves]
        with self._redis.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                pipe.evalsha(self._save_rows.sha, len(keys), *keys, *args)
            replies = pipe.execute(raise_on_error=False)
        moved: set[str] = set()
        for save, (keys, args), reply in zip(saves, calls, replies, strict=True):
            if isinstance(reply, redis.exceptions.NoScriptError):  # a Redis that restarted: load it again
                reply = self._save_rows(keys=keys, args=args)
            elif isinstance(reply, Exception):
                raise reply
            if not reply:
                moved.add(save.name)
        return moved

    def _save_args(self, name: str, checkpoints: dict[int, int], previous: dict[int, int] | None,
                   rows: Sequence[RowWrite], index: Sequence[IndexWrite]) -> tuple[list[str], list[Any]]:
        """The keys and arguments of ``SAVE_ROWS`` for one save."""
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
        return keys, ["0" if previous is None else "1", b"" if previous is None else _canonical(previous),
                      _canonical(checkpoints), *ops]

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
