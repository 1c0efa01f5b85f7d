"""The production store: Redis Streams, one atomic Lua script per append, a partitioned log.

One recorder class per capability (``service.adapters.store``), all on one
``RedisDatastore`` (the clients, the key prefix, the number of log partitions), composed
into ``RedisStore``:

* ``datastore``: ``RedisDatastore`` and ``RedisRecorder``, the base with the partition tags;
* ``streams``: ``RedisStreamRecorder`` and ``RedisLogRecorder`` (the append script);
* ``read_models``: ``RedisProjectionRecorder`` (the save script);
* ``side_tables``: ``RedisSnapshotRecorder``, ``RedisPlayerRecorder`` and
  ``RedisSharedStateRecorder``.

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
    P:{player:<id>}          Hash ``id``, ``name``, ``token_hash`` (a token names its player,
                             so a token check reads this one key)
    P:{players}:token-generation  String, moved (INCR) by every token rotation and revocation
    P:{players}:player:<id>  the old layout, read for tokens issued before tokens named their
    P:{players}:tokens       player (hash per player; token hash -> ``{id, name}`` JSON)
    P:{rm:<name>}:c          String, the read model's checkpoints (JSON, canonical)
    P:{rm:<name>}:t:<table>  Hash, key -> row JSON (one per table of the read model)
    P:{rm:<name>}:i:<index>  Sorted set, key by score (one per index of the read model)
    P:{rm:<name>}:keys       Set naming the read model's table and index keys (for deletion)
    P:secret:<name>          String, a server secret (SET NX: the first value stays)
    P:set:<name>             Set, a small named set

Every key an append touches carries the partition's hash tag, so the append script is
single-slot; every other multi-key operation stays in one slot too (snapshots: the
partition's tag; a player: ``{player:<id>}``; a read model: ``{rm:<name>}``, so its save, one
script writing rows, index entries and checkpoints with a compare-and-set, is atomic). The
layout is thus ready for Redis Cluster: a ``redis-cluster://`` URL connects through a
cluster client (``service.adapters.redis_client``), and nothing else changes. The prefix
stays outside the braces and must not contain braces itself.

Durability. What survives a crash is what Redis's persistence settings put on disk:

* ``appendonly yes`` + ``appendfsync always``: the AOF is fsynced before the reply is
  sent, so an acknowledged append is never lost. Recommended in production.
* ``appendfsync everysec`` (the AOF default): about one second (two at worst) of
  acknowledged appends can be lost when the machine or the Redis process dies.
* RDB snapshots only (``appendonly no``): everything since the last snapshot can be lost.

A script's writes reach the AOF and the replicas as one MULTI/EXEC block, and Redis drops
an unfinished block at the tail of the AOF when it loads it, so a recovered store never
holds half an append. Replication is asynchronous: a failover to a replica can lose the
last acknowledged appends, unless ``wait_replicas`` makes every write an answer depends
on wait for that many replicas (``RedisDatastore``; docs/operations.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from service.adapters.redis_store.datastore import RedisDatastore
from service.adapters.redis_store.read_models import RedisProjectionRecorder
from service.adapters.redis_store.side_tables import (
    RedisPlayerRecorder,
    RedisSharedStateRecorder,
    RedisSnapshotRecorder,
)
from service.adapters.redis_store.streams import RedisLogRecorder, RedisStreamRecorder
from service.adapters.store import EventStore


class RedisStore(RedisStreamRecorder, RedisLogRecorder, RedisProjectionRecorder, RedisSnapshotRecorder,
                 RedisPlayerRecorder, RedisSharedStateRecorder, EventStore):
    """Every Redis recorder over one datastore on ``url``. ``keep_snapshots``: how many
    snapshots of each stream and schema are kept; ``kept``: the newest entries a stream keeps,
    by its name's prefix (``RedisStreamRecorder``); ``timeout``: see ``RedisDatastore``."""

    def __init__(self, url: str, partitions: int = 16, prefix: str = "dyn", keep_snapshots: int = 3,
                 timeout: float | None = None, wait_replicas: int = 0, wait_timeout: float = 1.0,
                 kept: Mapping[str, int] | None = None):
        if keep_snapshots < 1:
            raise ValueError("keep_snapshots must be >= 1")
        datastore = RedisDatastore(url, partitions=partitions, prefix=prefix, timeout=timeout,
                                   wait_replicas=wait_replicas, wait_timeout=wait_timeout)
        super().__init__(datastore, kept)
        self.url = url
        self.keep_snapshots = keep_snapshots

    def version_and_token_generation(self, stream: str) -> tuple[int, int]:
        if self.kept(stream) is not None:  # a trimmed stream (no game's): two reads
            return self.version(stream), int(self._redis.get(self._token_generation_key()) or 0)
        commands = (("XLEN", self._game(stream)[1]), ("GET", self._token_generation_key()))
        if self._datastore.cluster:  # the keys are in two slots: a pipeline asks each node
            with self._redis.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                version, generation = pipe.execute()
        else:
            version, generation = self._datastore.in_one_trip(commands)
        return int(version), int(generation or 0)

    @property
    def tokens_cacheable(self) -> bool:
        return not self._datastore.cluster

    def close(self) -> None:
        self._datastore.close()

    def ping(self) -> None:
        self._datastore.ping()
