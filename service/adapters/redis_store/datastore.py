"""The Redis connection the recorders share, and the key layout they have in common.

``RedisDatastore`` holds the client (a ``redis.Redis`` or, for a ``redis-cluster://`` URL,
a ``redis.RedisCluster``), a second client for health probes, the key prefix and the
number of log partitions. ``RedisRecorder`` is the base of the Redis recorders: the
datastore, and the partition hash tags every stream, log and snapshot key starts with.
"""

from __future__ import annotations

from service.adapters.redis_client import connect
from service.adapters.store import partition_of


class RedisDatastore:
    """Clients for ``url`` with keys under ``prefix`` and a log of ``partitions`` partitions.
    With a ``timeout`` a Redis that is down or frozen fails a call within it."""

    def __init__(self, url: str, partitions: int = 16, prefix: str = "dyn", timeout: float | None = None):
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
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
        self.partitions = datastore.partitions
        self.prefix = datastore.prefix

    def _tag(self, partition: int) -> str:
        """The prefix and hash tag of every key of ``partition``."""
        return f"{self.prefix}:{{p{partition}}}"

    def _stream_tag(self, stream: str) -> tuple[int, str]:
        """The partition of ``stream`` and its tag."""
        partition = partition_of(stream, self.partitions)
        return partition, self._tag(partition)

    def _check_partition(self, partition: int) -> None:
        if not 0 <= partition < self.partitions:
            raise ValueError(f"partition {partition} is not in 0..{self.partitions - 1}")
