"""Every contract suite here runs on the memory store, a real SQLite file and a real Redis."""

from __future__ import annotations

import pytest

from tests.contract.backends import BACKENDS, Spec


@pytest.fixture(params=BACKENDS)
def spec(request, tmp_path) -> Spec:
    """A backend: a fresh SQLite file per test; on Redis, 4 partitions under a key prefix of
    the test's own, deleted afterwards (``redis_url``)."""
    if request.param == "memory":
        return ("memory",)
    if request.param == "sqlite":
        return ("sqlite", str(tmp_path / "events.db"))
    url, namespace = request.getfixturevalue("redis_url")
    return ("redis", url, 4, namespace)
