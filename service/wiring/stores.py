"""The event store for a store URL: ``sqlite:///PATH``, ``redis://HOST:PORT/DB`` (also
``redis-cluster://``), or ``memory://``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from service.adapters.store import EventStore
from service.base.config import Config
from service.players.player_feed import FEED_PREFIX


def open_store(config: Config) -> EventStore:
    url = config.store_url
    scheme = urlparse(url).scheme
    if config.redis_wait_replicas and not scheme.startswith(("redis", "rediss")):
        raise ValueError("GAMES_REDIS_WAIT_REPLICAS applies to a Redis store only; for SQLite, "
                         "GAMES_SQLITE_SYNCHRONOUS=FULL makes each commit durable")
    if config.archive_url and not scheme.startswith(("redis", "rediss")):
        raise ValueError("GAMES_ARCHIVE_URL applies to a Redis store only: the embedded store keeps every game, "
                         "finished ones included, in its own file")
    if scheme == "sqlite":
        from service.adapters.sqlite_store import SqliteStore

        path = url.removeprefix("sqlite:///")
        return SqliteStore(path or "./data/events.db", synchronous=config.sqlite_synchronous)
    if scheme in ("redis", "rediss", "redis-cluster", "rediss-cluster", "redis+sentinel"):
        from service.adapters.redis_store import RedisStore

        options: dict[str, Any] = {"partitions": config.redis_partitions, "prefix": config.redis_prefix,
                   "timeout": config.store_timeout or None, "wait_replicas": config.redis_wait_replicas,
                   "wait_timeout": config.redis_wait_timeout, "kept": {FEED_PREFIX: config.feed_kept}}
        if config.archive_url:  # finished games may have moved to the archive: read through to it
            from projections.base import STREAM_PREFIX
            from service.adapters.postgres_archive import PostgresArchive
            from service.adapters.redis_store.archived import ArchivedRedisStore

            return ArchivedRedisStore(url, PostgresArchive(config.archive_url), STREAM_PREFIX, **options)
        return RedisStore(url, **options)
    if scheme == "memory":
        from service.adapters.memory_store import MemoryStore

        return MemoryStore()
    raise ValueError(f"unknown store URL {url!r}: use sqlite:///PATH, redis://HOST:PORT/DB or memory://")
