"""The queue's URL behind Sentinel: its sentinels, its master's name, its database and its wait."""

from __future__ import annotations

import pytest

from service.adapters.redis_client import sentinel_address


def test_a_sentinel_url_names_its_sentinels_master_database_and_the_replicas_a_write_waits_for():
    assert sentinel_address("redis+sentinel://s1:26379,s2:26380,s3/queue/2?wait=1") == (
        [("s1", 26379), ("s2", 26380), ("s3", 26379)], "queue", 2, 1)
    assert sentinel_address("redis+sentinel://10.0.0.1:26379/queue") == ([("10.0.0.1", 26379)], "queue", 0, 0)


@pytest.mark.parametrize("url", ["redis+sentinel://s1:26379", "redis+sentinel:///queue",
                                 "redis+sentinel://s1/queue?wait=all", "redis+sentinel://s1/queue?timeout=3"])
def test_a_sentinel_url_without_its_master_or_with_an_unknown_option_is_refused(url):
    with pytest.raises(ValueError, match="Sentinel URL"):
        sentinel_address(url)
