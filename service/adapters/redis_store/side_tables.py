"""Snapshots, players, secrets and small sets on Redis.

Snapshots live under their stream's partition tag (a sorted set of versions and a hash of
states per stream and schema, and a registry per partition naming them for deletion);
players each under a tag of their own (``{player:<id>}``, one hash), so a token swap is one
single-slot script and the players spread over a cluster's slots; secrets and sets are
single keys.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from service.adapters.codec import dumps, loads
from service.adapters.redis_store.datastore import RedisDatastore, RedisRecorder
from service.adapters.store import PlayerRecorder, SharedStateRecorder, SnapshotRecorder

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

# KEYS: 1 the player's hash; ARGV: 1 id, 2 name, 3 token hash
ADD_PLAYER = """
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'token_hash', ARGV[3])
return 1
"""

# KEYS: 1 the player's hash; ARGV: 1 id, 2 name, 3 token hash (a player moved from the old
# layout: written only if the new record is not there yet, so a rotation meanwhile stands)
MOVE_PLAYER = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'token_hash', ARGV[3])
return 1
"""

# KEYS: 1 the player's hash, 2 (one Redis, not a cluster) the token generation; ARGV: 1 old
# token hash, 2 new token hash ('' to revoke)
REPLACE_TOKEN = """
local current = redis.call('HGET', KEYS[1], 'token_hash')
if (not current) or current == '' or current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
if KEYS[2] then redis.call('INCR', KEYS[2]) end
return 1
"""


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A")


class RedisSnapshotRecorder(RedisRecorder, SnapshotRecorder):
    """``P:{pN}:snapv:<s>:<h>`` / ``snapd`` per stream and schema, ``P:{pN}:snaps`` registries.
    Keeps the newest ``keep_snapshots`` of each stream and schema."""

    keep_snapshots = 3

    def __init__(self, datastore: RedisDatastore) -> None:
        super().__init__(datastore)
        self._save_snapshot = self._redis.register_script(SAVE_SNAPSHOT)
        self._load_snapshot = self._redis.register_script(LOAD_SNAPSHOT)

    def _snapshot_keys(self, stream: str, schema: str) -> tuple[str, str]:
        tag = self._stream_tag(stream)[1]
        name = f"{_escape(stream)}:{_escape(schema)}"
        return f"{tag}:snapv:{name}", f"{tag}:snapd:{name}"

    def save_snapshot(self, stream: str, version: int, schema: str, state: dict[str, Any]) -> None:
        versions, states = self._snapshot_keys(stream, schema)
        registry = f"{self._stream_tag(stream)[1]}:snaps"
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


class RedisPlayerRecorder(RedisRecorder, PlayerRecorder):
    """``P:{player:<id>}`` hashes (``id``, ``name``, ``token_hash``), one slot per player.

    A token names its player (``service.players.players``), so a token check reads that player's
    hash alone, wherever the cluster put it: losing one master pauses only the players on
    it. The old layout (``P:{players}:player:<id>`` hashes and the ``P:{players}:tokens``
    index, every player in one slot) stays readable: a token from before carries no id and
    is looked up in the old index, then checked against the player's new record if there is
    one; a player's first token change moves the record to the new layout.
    """

    def __init__(self, datastore: RedisDatastore) -> None:
        super().__init__(datastore)
        self._add_player = self._redis.register_script(ADD_PLAYER)
        self._move_player = self._redis.register_script(MOVE_PLAYER)
        self._replace_token = self._redis.register_script(REPLACE_TOKEN)

    def _player(self, player_id: str) -> str:
        return f"{self.prefix}:{{player:{player_id}}}"

    def _legacy_player(self, player_id: str) -> str:
        return f"{self.prefix}:{{players}}:player:{player_id}"

    def _legacy_tokens(self) -> str:
        return f"{self.prefix}:{{players}}:tokens"

    def add_player(self, player_id: str, name: str, token_hash: str) -> None:
        self._write(self._add_player, [self._player(player_id)], [player_id, name, token_hash])

    def player(self, player_id: str) -> dict[str, Any] | None:
        found_id, name = self._redis.hmget(self._player(player_id), ["id", "name"])
        if found_id is None:
            found_id, name = self._redis.hmget(self._legacy_player(player_id), ["id", "name"])
        if found_id is None:
            return None
        return {"id": found_id.decode(), "name": name.decode()}

    def player_by_token(self, token_hash: str, player_id: str | None = None) -> dict[str, Any] | None:
        if player_id is not None:
            found_id, name, current = self._redis.hmget(self._player(player_id), ["id", "name", "token_hash"])
            if not current or current.decode() != token_hash:  # '' is a revoked token
                return None
            return {"id": found_id.decode(), "name": name.decode()}
        raw = self._redis.hget(self._legacy_tokens(), token_hash)  # a token from before tokens named players
        if raw is None:
            return None
        player = loads(raw)
        current = self._redis.hget(self._player(player["id"]), "token_hash")
        if current is not None and current.decode() != token_hash:
            return None  # moved to the new layout and changed since
        return player

    def checked_token(self, token_hash: str, player_id: str | None = None) -> tuple[dict[str, Any] | None, int]:
        if player_id is None or self._datastore.cluster:  # a cluster: the generation lives in another slot
            return super().checked_token(token_hash, player_id)
        with self._redis.pipeline(transaction=False) as pipe:  # one trip, the generation read first
            pipe.get(self._token_generation_key())
            pipe.hmget(self._player(player_id), ["id", "name", "token_hash"])
            generation, (found_id, name, current) = pipe.execute()
        if not current or current.decode() != token_hash:  # '' is a revoked token
            return None, int(generation or 0)
        return {"id": found_id.decode(), "name": name.decode()}, int(generation or 0)

    def current_tokens(self, credentials: Collection[tuple[str, str]]) -> set[tuple[str, str]]:
        asked = list(credentials)
        if not asked:
            return set()
        with self._redis.pipeline(transaction=False) as pipe:  # each player's own slot
            for player_id, _ in asked:
                pipe.hget(self._player(player_id), "token_hash")
            stored = pipe.execute()
        current = {(p, h) for (p, h), now in zip(asked, stored, strict=True) if now is not None and now.decode() == h}
        legacy = [(p, h) for (p, h), now in zip(asked, stored, strict=True) if now is None]
        if legacy:  # players not yet moved to the layout of one slot per player
            records = self._redis.hmget(self._legacy_tokens(), [h for _, h in legacy])
            current.update((p, h) for (p, h), raw in zip(legacy, records, strict=True)
                           if raw is not None and loads(raw)["id"] == p)
        return current

    def token_generation(self) -> int:
        return int(self._redis.get(self._token_generation_key()) or 0)

    def replace_token(self, player_id: str, old_hash: str, new_hash: str | None) -> bool:
        key = self._player(player_id)
        if not self._redis.exists(key):
            self._move_from_legacy(player_id)
        if not self._datastore.cluster:  # one Redis: the swap moves the generation in the same script
            return bool(self._write(self._replace_token, [key, self._token_generation_key()], [old_hash, new_hash or ""]))
        replaced = bool(self._write(self._replace_token, [key], [old_hash, new_hash or ""]))
        if replaced:  # after the token's own write: the player's slot alone decides the answer
            self._redis.incr(self._token_generation_key())
        return replaced

    def _move_from_legacy(self, player_id: str) -> None:
        found_id, name, token_hash = self._redis.hmget(self._legacy_player(player_id), ["id", "name", "token_hash"])
        if found_id is not None:
            self._write(self._move_player, [self._player(player_id)],
                        [found_id, name, token_hash if token_hash is not None else b""])


class RedisSharedStateRecorder(RedisRecorder, SharedStateRecorder):
    """``P:secret:<name>`` strings and ``P:set:<name>`` sets."""

    def secret(self, name: str, candidate: str) -> str:
        key = f"{self.prefix}:secret:{name}"
        self._redis.set(key, candidate, nx=True)
        self._datastore.confirm(key)  # what it signs must outlive a failover
        return self._redis.get(key).decode()

    def set_add(self, name: str, member: str) -> None:
        self._redis.sadd(f"{self.prefix}:set:{name}", member)

    def set_remove(self, name: str, member: str) -> None:
        self._redis.srem(f"{self.prefix}:set:{name}", member)

    def set_members(self, name: str) -> list[str]:
        return sorted(m.decode() for m in self._redis.smembers(f"{self.prefix}:set:{name}"))
