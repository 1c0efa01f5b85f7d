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


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def connect(url: str, **options):
    """A client for ``url``: ``redis://HOST:PORT/DB`` (a ``redis.Redis`` on a
    ``LeanConnectionPool``) or ``redis-cluster://HOST:PORT[,HOST:PORT...]`` (a
    ``redis.RedisCluster`` that discovers the cluster from any of those nodes)."""
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
