"""Shared fixtures: a real Redis server for the tests that need one.

Redis comes from ``REDIS_URL``, else a server already on 127.0.0.1:6379, else a private
``redis-server`` started on a free port. Without any of these the Redis tests are
skipped, unless ``REQUIRE_REDIS=1`` (as in CI), where they fail instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

import pytest
import redis

from tests.helpers.engine import (
    built_beside_the_sources,
    compiled_build_present,
    stale_sources,
    use_compiled_domain,
)

# The engine under test: the mypyc build where `make compile` made one in build/engine (the
# default), or the Python sources with DOMAIN_PURE=1 (tests/helpers/engine.py).
if leftovers := built_beside_the_sources():
    raise pytest.UsageError(f"compiled modules beside the sources ({leftovers[0]}...) would run instead of them: "
                            "remove them (`make pure`; builds now go to build/)")
if os.environ.get("DOMAIN_PURE") != "1" and compiled_build_present():
    if stale := stale_sources():
        raise pytest.UsageError(f"the compiled engine (build/engine) was built from other sources than "
                                f"{', '.join(stale[:3])}{' and more' if len(stale) > 3 else ''}: run `make compile` "
                                f"(or `make pure`, or DOMAIN_PURE=1)")
    use_compiled_domain()


def _reachable(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def redis_server_url():
    """The base URL of a running Redis server (db 0)."""
    candidates = [os.environ.get("REDIS_URL"), "redis://127.0.0.1:6379/0"]
    for url in filter(None, candidates):
        if _reachable(url):
            yield url
            return
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail("REQUIRE_REDIS=1 but no Redis is reachable and redis-server is not on PATH")
        pytest.skip("no Redis server: set REDIS_URL or install redis-server")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="redis-test-")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while not _reachable(url):
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(timeout=10)
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def redis_url(redis_server_url):
    """A Redis URL with a key prefix of its own, so tests never see each other's keys.

    Yields ``(url, namespace)``; stores built from it must use the namespace as key prefix.
    The namespace's keys are deleted afterwards.
    """
    namespace = f"test-{uuid.uuid4().hex[:10]}"
    yield redis_server_url, namespace
    client = redis.Redis.from_url(redis_server_url)
    keys = list(client.scan_iter(match=f"{namespace}*", count=1000))
    keys += list(client.scan_iter(match=f"*{namespace}*", count=1000))
    if keys:
        client.delete(*set(keys))
