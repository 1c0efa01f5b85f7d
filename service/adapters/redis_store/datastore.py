"""The Redis connection the recorders share, and the key layout they have in common.

``RedisDatastore`` holds the client (a ``redis.Redis`` or, for a ``redis-cluster://`` URL,
a ``redis.RedisCluster``), a second client for health probes, the key prefix and the
number of log partitions. ``RedisRecorder`` is the base of the Redis recorders: the
datastore, and the partition hash tags every stream, log and snapshot key starts with.

Durability (``wait_replicas``): replication is asynchronous, so a write a master
acknowledged can vanish when a replica that did not have it yet is promoted. With
``wait_replicas`` = N the writes an answer depends on go through ``write``: the script and
a ``WAIT N timeout`` (``WAITAOF local N timeout`` on Redis 7.2+, which also waits for the
AOF fsyncs) in one pipeline on the connection that wrote (WAIT counts the replicas that
have that connection's last write), so it costs no extra round trip, only the replicas'
confirmation. Fewer replicas in time raise ``NotReplicated`` (503): the write may stand on
the master, a retry with the same Idempotency-Key answers once it is confirmed. An answer
built from what another connection wrote (an idempotent replay) is confirmed by
``confirm``: a small write on the same node (a fence) and a WAIT; replication keeps a
master's writes in order, so the fence's confirmation covers everything before it. (Redis
7.0 makes a WAIT on any connection wait for the master's whole offset, which covers it
already; the fence keeps it true where WAIT counts only the connection's own writes, as
its documentation says.)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import redis
from hiredis import pack_command  # redis[hiredis]: the packer redis-py's own serializer ends in
from redis.commands.core import Script

from service.adapters.redis_client import connect, is_cluster
from service.adapters.store import partition_of
from service.base.errors import NotReplicated

log = logging.getLogger(__name__)

#: how often a durable write is sent again after the cluster moved its slot (a failover)
_CLUSTER_RETRIES = 3


class RedisDatastore:
    """Clients for ``url`` with keys under ``prefix`` and a log of ``partitions`` partitions.
    With a ``timeout`` a Redis that is down or frozen fails a call within it."""

    def __init__(self, url: str, partitions: int = 16, prefix: str = "dyn", timeout: float | None = None,
                 wait_replicas: int = 0, wait_timeout: float = 1.0):
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
        if wait_replicas < 0 or wait_timeout <= 0:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout > 0")
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (they would move the hash tag)")
        self.url = url
        self.partitions = partitions
        self.prefix = prefix
        # with a timeout, a Redis that is down or frozen fails a call within it (the API answers
        # 503) instead of hanging; health_check_interval re-checks a connection idle for a while
        options = {} if timeout is None else {"socket_timeout": timeout, "socket_connect_timeout": min(timeout, 2.0),
                                              "health_check_interval": 30}
        self.client = connect(url, **options)
        self.probe = connect(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self.cluster = is_cluster(url)
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = max(1, int(wait_timeout * 1000))
        self._waitaof: tuple[int, ...] | None = None  # (numlocal,) once Redis 7.2+ was detected; () before 7.2

    # -- durable writes ------------------------------------------------------------------
    def write(self, script: Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run ``script`` on ``keys`` (one slot); with ``wait_replicas``, answer only once
        that many replicas confirmed it (``NotReplicated`` otherwise)."""
        if not self.wait_replicas:
            return script(keys=keys, args=args) if self.cluster else self._run(script, keys, args)
        return self._durably(keys[0], lambda pipe: pipe.evalsha(script.sha, len(keys), *keys, *args), script)

    def _run(self, script: Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """``script(keys=keys, args=args)`` on one Redis, its EVALSHA sent by ``in_one_trip``
        (redis-py's command machinery was about a fifth of an append's CPU in the web worker);
        a Redis that does not know the script (restarted, flushed) is given it, as
        ``Script.__call__`` does."""
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return self.in_one_trip((command,))[0]
        except redis.exceptions.NoScriptError:
            self.client.script_load(script.script)
            return self.in_one_trip((command,))[0]

    def confirm(self, key: str) -> None:
        """With ``wait_replicas``: return once that many replicas hold everything the master of
        ``key`` stored so far (a fence written in ``key``'s slot, then WAIT)."""
        if self.wait_replicas:
            # the fence shares the key's slot: its hash tag, or the whole key as one
            tag = key[: key.index("}") + 1] if "{" in key else f"{{{key}}}"
            self._durably(key, lambda pipe: pipe.incr(f"{tag}:fence"), None)

    def _durably(self, key: str, command, script: Script | None) -> Any:
        for attempt in range(_CLUSTER_RETRIES + 1):
            client = self._node_client(key)
            try:
                with client.pipeline(transaction=False) as pipe:
                    command(pipe)
                    self._queue_wait(pipe)
                    results = pipe.execute(raise_on_error=False)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                if not self.cluster or attempt == _CLUSTER_RETRIES:
                    raise
                self._refresh()  # the node died: ask the cluster who serves the slot now
                continue
            first = results[0]
            if isinstance(first, redis.exceptions.NoScriptError) and script is not None:
                client.script_load(script.script)
                continue
            if isinstance(first, (redis.exceptions.MovedError, redis.exceptions.AskError,
                                  redis.exceptions.ClusterDownError, redis.exceptions.TryAgainError)):
                if attempt == _CLUSTER_RETRIES:
                    raise redis.exceptions.ConnectionError(f"the cluster is moving the slot of {key}: {first}")
                self._refresh()
                continue
            if isinstance(first, Exception):
                raise first
            self._check(results[1])
            return first
        raise redis.exceptions.ConnectionError(f"could not write {key} durably")  # pragma: no cover

    def _node_client(self, key: str):
        """A client whose pipeline runs on one connection to the master serving ``key``."""
        if not self.cluster:
            return self.client
        return self.client.get_redis_connection(self.client.get_node_from_key(key))

    def _refresh(self) -> None:
        try:
            self.client.nodes_manager.initialize()
        except redis.RedisError as exc:
            log.info("could not refresh the cluster's slots yet: %s", exc)

    def _queue_wait(self, pipe) -> None:
        if self._waitaof is None:
            self._waitaof = self._detect_waitaof()
        if self._waitaof:
            pipe.execute_command("WAITAOF", self._waitaof[0], self.wait_replicas, self.wait_timeout_ms)
        else:
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)

    def _check(self, reply: Any) -> None:
        if isinstance(reply, Exception):
            raise reply
        if self._waitaof:
            local, replicas = int(reply[0]), int(reply[1])
            confirmed = local >= self._waitaof[0] and replicas >= self.wait_replicas
        else:
            replicas = int(reply)
            confirmed = replicas >= self.wait_replicas
        if not confirmed:
            raise NotReplicated(self.wait_replicas, replicas, self.wait_timeout_ms / 1000)

    def _detect_waitaof(self) -> tuple[int, ...]:
        """WAITAOF exists from Redis 7.2 on; its local count is 1 where the master keeps an AOF."""
        try:
            client = self._node_client(f"{self.prefix}:{{p0}}")
            version = tuple(int(part) for part in str(client.info("server")["redis_version"]).split(".")[:2])
            if version < (7, 2):
                return ()
            aof = client.config_get("appendonly").get("appendonly") == "yes"
            return (1 if aof else 0,)
        except (redis.RedisError, KeyError, ValueError) as exc:
            log.info("could not tell whether Redis has WAITAOF (%s): using WAIT", exc)
            return ()

    # -- reads ------------------------------------------------------------------------------
    def in_one_trip(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """The raw replies of ``commands`` (one Redis, not a cluster), sent together on one
        pooled connection: what a pipeline does, without building one (its object, its
        command stack and its per-command callbacks were half the cost of the version read
        that every conditional GET makes), packed by hiredis's ``pack_command`` (redis-py's
        serializer calls it too, after checking every argument: the arguments here are str,
        bytes, int or float, which it packs as redis-py does). A connection error is retried
        as redis-py retries any command (``Retry``); after any error the connection is
        dropped, since replies may be left unread on it."""
        packed = [b"".join(map(pack_command, commands))]
        pool = self.client.connection_pool
        connection = pool.get_connection()

        def send_and_read() -> list[Any]:
            connection.send_packed_command(packed)
            return [connection.read_response() for _ in commands]

        try:
            return connection.retry.call_with_retry(send_and_read, lambda error: connection.disconnect())
        except BaseException:
            connection.disconnect()
            raise
        finally:
            pool.release(connection)

    def ping(self) -> None:
        """Raise if Redis does not answer within a second."""
        self.probe.ping()

    def close(self) -> None:
        self.client.close()
        self.probe.close()


class RedisRecorder:
    """The base of the Redis recorders. A recorder that registers scripts extends
    ``__init__`` and calls ``super().__init__(datastore)`` (the composed store runs each once)."""

    def __init__(self, datastore: RedisDatastore) -> None:
        self._datastore = datastore
        self._redis = datastore.client
        self._write = datastore.write
        self.partitions = datastore.partitions
        self.prefix = datastore.prefix

    def _tag(self, partition: int) -> str:
        """The prefix and hash tag of every key of ``partition``."""
        return f"{self.prefix}:{{p{partition}}}"

    def _token_generation_key(self) -> str:
        """The deployment's token generation (``PlayerRecorder.token_generation``): on a
        cluster, losing its master stops the streams' re-check of tokens (logged), never a
        request's token check, which there reads the player's own slot each time."""
        return f"{self.prefix}:{{players}}:token-generation"

    def _stream_tag(self, stream: str) -> tuple[int, str]:
        """The partition of ``stream`` and its tag."""
        partition = partition_of(stream, self.partitions)
        return partition, self._tag(partition)

    def _check_partition(self, partition: int) -> None:
        if not 0 <= partition < self.partitions:
            raise ValueError(f"partition {partition} is not in 0..{self.partitions - 1}")
