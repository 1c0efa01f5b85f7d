"""A job for the queue failover drill: it records that it ran (a member of a set in another Redis)."""

from __future__ import annotations

import redis


def probe(url: str, key: str, token: str) -> None:
    redis.Redis.from_url(url).sadd(key, token)
