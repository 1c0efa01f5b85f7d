"""Redis clients for the hot path: a connection pool without the per-checkout health check.

redis-py's ``ConnectionPool.get_connection`` polls every connection it hands out
(``can_read``: a ``select`` on the socket) to catch one that was returned with unread
data or closed by the server. Under gevent that poll goes through the hub and cost about
a tenth of a web worker's CPU in the profiles (see bench/README.md). redis-py returns a
connection to the pool only after it read a whole reply, and disconnects one whose
command failed, so a pooled connection holds no unread data; a connection the server
closed meanwhile fails on its next command, which redis-py's retry then sends again on a
fresh connection. So the check buys nothing here and the lean pool skips it.
"""

from __future__ import annotations

import redis


class LeanConnectionPool(redis.ConnectionPool):
    """A ``ConnectionPool`` that hands out pooled connections without polling them first."""

    def get_connection(self, command_name=None, *keys, **options):  # noqa: D401 - redis-py's signature
        self._checkpid()
        with self._lock:
            try:
                connection = self._available_connections.pop()
            except IndexError:
                connection = self.make_connection()
            self._in_use_connections.add(connection)
        try:
            connection.connect()  # a no-op for a connected one
        except BaseException:
            self.release(connection)
            raise
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
