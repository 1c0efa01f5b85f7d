"""Redis clients for the hot path: a connection pool without the per-checkout health check.

redis-py's ``ConnectionPool.get_connection`` polls every connection it hands out
(``can_read``: a ``select`` on the socket) to catch one that was returned with unread
data or closed by the server. Under gevent that poll goes through the hub and cost about
a tenth of a web worker's CPU in the profiles (see bench/README.md). redis-py returns a
connection to the pool only after it read a whole reply, and disconnects one whose
command failed, so a pooled connection holds no unread data; a connection the server
closed meanwhile fails on its next command, which redis-py's retry then sends again on a
fresh connection. So the check buys nothing here and the lean pool skips it.

One more per-command cost is skipped: redis-py asks the kernel for the process id on
every checkout and every release (``_checkpid``, a system call each: a forked child must
not share its parent's sockets); here the id is kept and renewed in a forked child
(``os.register_at_fork``), and redis-py's own check runs only when they differ.

And what redis-py 7 does around each checkout and release for features not used here: the
connect call through its retry machinery for a connection that is connected already, and
on release an ``AfterConnectionReleasedEvent`` (its listener re-authenticates a connection
only for a streaming credential provider) and two updates of its observability metrics (no
collector is configured). On release they cost about twice what is left of it.
"""

from __future__ import annotations

import os
import time
from typing import Any

import redis

#: Redis connections one process uses at once, and how long a request waits for a free one
POOL_SIZE = 500
POOL_WAIT = 30.0

#: this process's id, renewed in a forked child (``_checkpid`` compares it with the pool's)
_PID = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))


class LeanConnectionPool(redis.ConnectionPool):
    """A ``ConnectionPool`` that hands out pooled connections without polling them first,
    and waits for a free connection instead of failing when all are in use.

    Under gevent one worker serves thousands of requests at once (open live streams all
    read the store when they start); redis-py's pool refuses the 101st concurrent
    command (``MaxConnectionsError``, by default). Here at most ``max_connections``
    (``POOL_SIZE``) are open, and a command past that waits up to ``wait`` seconds for one
    to be released (polling every few milliseconds: only an overloaded process waits);
    only then does it fail, as an outage would (503)."""

    def __init__(self, *, max_connections: int | None = None, wait: float = POOL_WAIT, **kwargs: Any) -> None:
        self.size = max_connections or POOL_SIZE
        self.wait = wait
        # this class bounds the connections itself; redis-py's own count never refuses
        super().__init__(max_connections=2**31 - 1, **kwargs)

    def get_connection(self, command_name=None, *keys, **options):  # noqa: D401 - redis-py's signature
        self._checkpid()
        connection = self._take()
        if connection is None:
            deadline = time.monotonic() + self.wait
            while connection is None:
                if time.monotonic() > deadline:
                    raise redis.ConnectionError(f"no Redis connection free within {self.wait:g} s "
                                                f"({self.size} in use)")
                time.sleep(0.005)
                connection = self._take()
        if connection._sock is None:  # a new connection, or one dropped after an error
            try:
                connection.connect()
            except BaseException:
                self.release(connection)
                raise
        return connection

    def release(self, connection) -> None:
        """Back to the pool, as redis-py's ``release`` does it, without its events and metrics
        (see the module's docstring). A connection made before a fork is dropped."""
        self._checkpid()
        with self._lock:
            try:
                self._in_use_connections.remove(connection)
            except KeyError:  # not this pool's (redis-py fails gracefully too)
                return
            if connection.pid == self.pid:
                if connection.should_reconnect():
                    connection.disconnect()
                self._available_connections.append(connection)
                return
        connection.disconnect()

    def _checkpid(self) -> None:
        if self.pid != _PID[0]:  # forked: redis-py's own check resets the pool for this child
            super()._checkpid()

    def _take(self):
        """A pooled connection, a new one while fewer than ``size`` exist, else None."""
        with self._lock:
            if self._available_connections:
                connection = self._available_connections.pop()
            elif len(self._in_use_connections) < self.size:
                connection = self.make_connection()
            else:
                return None
            self._in_use_connections.add(connection)
            return connection


CLUSTER_SCHEMES = ("redis-cluster://", "rediss-cluster://")
SENTINEL_SCHEMES = ("redis+sentinel://",)


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def is_sentinel(url: str) -> bool:
    return url.startswith(SENTINEL_SCHEMES)


class ReplicatedWrites(redis.Redis):
    """A client whose pipelines (RQ enqueues a job in one) return only once ``wait_replicas``
    replicas hold what the master wrote (``WAIT``; on Redis 7 a WAIT on any connection waits
    for everything the master wrote before it), else raise: an enqueue it acknowledged survives
    the master's loss, as long as one of those replicas is promoted."""

    wait_replicas = 0
    wait_timeout_ms = 1000

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction, shard_hint)
        if not self.wait_replicas:
            return pipe
        client, execute = self, pipe.execute

        def execute_then_wait(raise_on_error: bool = True) -> Any:
            results = execute(raise_on_error)
            confirmed = client.execute_command("WAIT", client.wait_replicas, client.wait_timeout_ms)
            if int(confirmed) < client.wait_replicas:
                raise redis.ConnectionError(f"{confirmed} of {client.wait_replicas} replicas confirmed the write "
                                            f"within {client.wait_timeout_ms} ms")
            return results

        pipe.execute = execute_then_wait  # type: ignore[method-assign]
        return pipe


def sentinel_address(url: str) -> tuple[list[tuple[str, int]], str, int, int]:
    """The sentinels, the master's name, the database and the replicas a write waits for, of
    ``redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB][?wait=N]``."""
    query = url.partition("?")[2]
    wait = 0
    for pair in filter(None, query.split("&")):
        key, _, value = pair.partition("=")
        if key != "wait" or not value.isdigit():
            raise ValueError(f"a Sentinel URL takes one option, wait=N (replicas a write waits for), not {pair!r}")
        wait = int(value)
    rest = url.split("://", 1)[1].split("?", 1)[0]
    hosts, _, path = rest.partition("/")
    name, _, db = path.partition("/")
    if not hosts or not name:
        raise ValueError(f"a Sentinel URL names its sentinels and its master: "
                         f"redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB], not {url!r}")
    sentinels = []
    for host in hosts.split(","):
        address, _, port = host.rpartition(":") if ":" in host else (host, "", "")
        sentinels.append((address or "127.0.0.1", int(port or 26379)))
    return sentinels, name, int(db or 0), wait


def connect(url: str, **options):
    """A client for ``url``: ``redis://HOST:PORT/DB`` (a ``redis.Redis`` on a
    ``LeanConnectionPool``), ``redis-cluster://HOST:PORT[,HOST:PORT...]`` (a
    ``redis.RedisCluster`` that discovers the cluster from any of those nodes), or
    ``redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB][?wait=N]`` (a ``redis.Redis`` whose
    connections go to the master the sentinels name: asked again after a failover, when a
    connection fails or the node it reached answers that it is a replica now; with ``wait``,
    ``ReplicatedWrites``)."""
    if is_sentinel(url):
        from redis.sentinel import Sentinel

        sentinels, name, db, wait = sentinel_address(url)
        sentinel = Sentinel(sentinels, sentinel_kwargs={"socket_timeout": 1.0, "socket_connect_timeout": 1.0})
        client = sentinel.master_for(name, redis_class=ReplicatedWrites, db=db, **options)
        client.wait_replicas = wait
        return client
    if not is_cluster(url):
        return redis.Redis(connection_pool=LeanConnectionPool.from_url(url, **options))
    from redis.cluster import ClusterNode, RedisCluster

    scheme, _, rest = url.partition("://")
    hosts = rest.split("/", 1)[0].split("?", 1)[0]
    nodes = []
    for host in hosts.split(","):
        name, _, port = host.rpartition(":")
        nodes.append(ClusterNode(name or "127.0.0.1", int(port or 6379)))
    return RedisCluster(startup_nodes=nodes, ssl=scheme.startswith("rediss"), **options)
