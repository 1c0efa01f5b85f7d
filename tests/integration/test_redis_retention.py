"""What keeps Redis from growing while games are played (issue 38): the log's entries that every
reader has read leave Redis for the archive, and a player's feed keeps its newest notices.

Real Redis and real PostgreSQL (``archive_url``: a schema of the test's own)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import redis

from service.adapters.postgres_archive import PostgresArchive
from service.adapters.redis_store.archived import ArchivedRedisStore
from service.adapters.store import VersionConflict
from service.players.player_feed import PlayerFeed, feed_stream
from service.running.archiving import Archiver
from service.streams.appending import Clock

pytestmark = pytest.mark.integration

PARTITIONS = 2


@pytest.fixture
def store(redis_url, archive_url):
    url, namespace = redis_url
    built = ArchivedRedisStore(url, PostgresArchive(archive_url), "game-", partitions=PARTITIONS,
                               prefix=namespace, kept={"feed-": 10})
    yield built
    built.close()


def _whole_log(store) -> list[tuple]:
    return [(r.partition, r.position, r.stream, r.version, r.event) for p in range(PARTITIONS)
            for r in store.read_log(p, 0, 1_000_000)]


def _play(store, streams: list[str], rounds: int) -> None:
    """``rounds`` appends to each stream in turn (one or two events each), feeds among them."""
    for n in range(rounds):
        for stream in streams:
            events = [{"type": "Moved", "n": n, "stream": stream}] * (1 + n % 2)
            store.append(stream, store.version(stream), events)


def test_the_log_let_go_to_the_archive_reads_the_same_from_every_position_and_frees_redis(store, redis_url):
    url, namespace = redis_url
    client = redis.Redis.from_url(url)
    streams = ["game-a1", "game-b2", "game-c3", "feed-p1"]
    _play(store, streams, 60)
    before = _whole_log(store)
    heads = store.log_heads()
    logs = [f"{namespace}:{{p{p}}}:log" for p in range(PARTITIONS)]
    memory_before = sum(client.memory_usage(key, samples=0) for key in logs)

    for partition, head in heads.items():
        assert store.compact_log(partition, head - 5) == head - 5  # every entry up to there left Redis
    assert [client.xlen(key) for key in logs] == [5] * PARTITIONS
    assert sum(client.memory_usage(key, samples=0) for key in logs) < memory_before / 3

    assert _whole_log(store) == before
    for partition, head in heads.items():  # a read from any position, of any size, reads what it did
        entries = [e for e in before if e[0] == partition]
        for after in (0, 1, head // 2, head - 6, head - 5, head - 1):
            for limit in (1, 7, 1000):
                got = [(r.partition, r.position, r.stream, r.version, r.event)
                       for r in store.read_log(partition, after, limit)]
                assert got == [e for e in entries if e[1] > after][:limit], (partition, after, limit)

    # again: nothing new to let go, nothing changes; appends go on after it
    assert all(store.compact_log(p, h - 5) == 0 for p, h in heads.items())
    _play(store, streams, 2)  # 1 + 2 events to each stream
    after = _whole_log(store)
    old = {(e[0], e[1]) for e in before}
    assert [e for e in after if (e[0], e[1]) in old] == before and len(after) == len(before) + 3 * len(streams)


def test_the_archiver_lets_go_only_what_every_reader_has_read_and_keeps_the_newest(store):
    _play(store, ["game-a1", "game-b2", "feed-p1"], 40)
    heads = store.log_heads()
    # one read model behind the other; the archive's follower at the heads
    slow = {p: h // 2 for p, h in heads.items()}
    store.save_rows("fast", dict(heads), None, [], [])
    store.save_rows("slow", slow, None, [], [])
    store.save_followed(heads)
    before = _whole_log(store)
    archiver = Archiver(SimpleNamespace(store=store), 0, ["fast", "slow"], log_kept=3)

    archiver.compact()
    for p, head in heads.items():  # the slow reader's checkpoint entry and all after it stay in Redis
        held = [r.position for r in store.read_log(p, 0, 1000) if store._redis.xrange(  # noqa: SLF001
            f"{store.prefix}:{{p{p}}}:log", f"{r.position}-1", f"{r.position}-1")]
        assert held == list(range(slow[p], head + 1)), p
    assert _whole_log(store) == before

    store.save_rows("slow", dict(heads), slow, [], [])  # it caught up: all but the newest 3 go
    archiver.compact()
    for p in heads:
        assert store._redis.xlen(f"{store.prefix}:{{p{p}}}:log") == 3  # noqa: SLF001
    assert _whole_log(store) == before

    archiver_with_a_rebuild = Archiver(SimpleNamespace(store=store), 0, ["fast", "never-saved"], log_kept=0)
    assert archiver_with_a_rebuild.compact() == 0  # a model with no checkpoint reads from the start: nothing goes


def test_a_feed_keeps_its_newest_notices_and_its_numbers(store, redis_url):
    url, namespace = redis_url
    client = redis.Redis.from_url(url)
    stream = feed_stream("p1")
    feed = PlayerFeed(store, Clock())
    for n in range(1, 351):
        feed.post("p1", [{"type": "your_turn", "data": {"game_id": "g", "n": n}}], f"g:{n}")
    assert store.version(stream) == 350
    held = store.read(stream)
    assert 10 <= len(held) <= 110 < 350, len(held)  # trimmed in whole nodes of 100 entries
    assert [r.version for r in held] == list(range(351 - len(held), 351))
    assert client.xlen(next(iter(client.scan_iter(match=f"{namespace}:*:game:{stream}")))) == len(held)

    # an append at a stale number is refused with the feed's real one; at the real one it goes on
    with pytest.raises(VersionConflict) as refused:
        store.append(stream, len(held), [{"type": "x", "data": {}}])
    assert refused.value.current == 350
    assert store.append(stream, 350, [{"type": "your_turn", "data": {"game_id": "g", "n": 351}}]) == 351

    # a page asked from before the oldest notice kept starts at it; the next page follows on
    oldest = store.read(stream)[0].version
    page = feed.page("p1", 0, 20)
    assert [e["id"] for e in page["events"]] == list(range(oldest, oldest + 20))
    assert page["last_id"] == 351 and page["next_after"] == oldest + 19
    following = feed.page("p1", page["next_after"], 20)
    assert following["events"][0]["id"] == oldest + 20


def test_the_versions_of_many_streams_read_at_once_are_each_ones_version(store):
    """``versions`` (the bots' sweep reads every bot game's version with it) answers as
    ``version`` does: whole streams, a feed that keeps only its newest entries, a stream that
    does not exist."""
    games = [f"game-v{n}" for n in range(5)]
    _play(store, games, 4)
    feed = PlayerFeed(store, Clock())
    for n in range(1, 131):
        feed.post("p9", [{"type": "your_turn", "data": {"game_id": "g", "n": n}}], f"g:{n}")
    streams = [*games, feed_stream("p9"), "game-none"] * 300  # more than one round trip's thousand
    found = store.versions(streams)
    assert found == [store.version(stream) for stream in streams]
    assert found[:7] == [6, 6, 6, 6, 6, 130, 0]
