"""The append script on a Redis that does not know it (restarted, or its scripts flushed):
the append sends EVALSHA itself (``RedisDatastore._run``), so it must load the script on
NOSCRIPT and run it again, once (real Redis)."""

from __future__ import annotations

import uuid

import redis

from service.adapters.redis_store import RedisStore
from service.adapters.redis_store.streams import APPEND


def test_an_append_loads_a_script_redis_does_not_know_and_stores_the_events_once(redis_url):
    url, namespace = redis_url
    store = RedisStore(url, partitions=2, prefix=namespace)
    client = redis.Redis.from_url(url)
    # the same script under a sha no Redis has seen, as after a restart (a SCRIPT FLUSH would
    # also empty the cache of every other test and process on this server)
    store._append = store._redis.register_script(f"{APPEND}\n-- {uuid.uuid4().hex}")
    assert client.script_exists(store._append.sha) == [False]

    assert store.append("g-1", 0, [{"type": "A"}, {"type": "B"}]) == 2
    assert client.script_exists(store._append.sha) == [True]
    assert store.append("g-1", 2, [{"type": "C"}]) == 3
    assert [(r.version, r.event) for r in store.read("g-1")] == [(1, {"type": "A"}), (2, {"type": "B"}),
                                                                  (3, {"type": "C"})]
    assert sum(len(entries) for entries in store.read_logs({0: (0, 10), 1: (0, 10)}).values()) == 3
    store.close()
