"""The Redis connection pool under more concurrent commands than connections (real Redis)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis

from service.adapters.redis_client import LeanConnectionPool

URL = "redis://127.0.0.1:6379/0"


def _blocking_reads(client: redis.Redis, count: int) -> list[BaseException]:
    """``count`` threads each holding a connection for 0.2 s (a BLPOP that times out)."""
    key = f"pool-test:{uuid.uuid4().hex}"
    failures: list[BaseException] = []

    def read() -> None:
        try:
            client.blpop([key], timeout=0.2)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted on
            failures.append(exc)

    threads = [threading.Thread(target=read) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_commands_past_the_pool_size_wait_for_a_connection_instead_of_failing():
    pool = LeanConnectionPool.from_url(URL, max_connections=2, wait=5.0)
    client = redis.Redis(connection_pool=pool)
    started = time.monotonic()
    assert _blocking_reads(client, 6) == []
    assert time.monotonic() - started >= 0.55  # three rounds of two: they waited their turn
    assert len(pool._in_use_connections) == 0 and len(pool._available_connections) <= 2


def test_a_command_that_finds_no_connection_within_the_wait_fails_as_an_outage():
    pool = LeanConnectionPool.from_url(URL, max_connections=1, wait=0.05)
    client = redis.Redis(connection_pool=pool)
    failures = _blocking_reads(client, 3)
    assert failures and all(isinstance(f, redis.ConnectionError) for f in failures)
    assert "no Redis connection free within 0.05 s" in str(failures[0])


def test_redis_py_pool_refuses_past_its_size():
    """What the lean pool replaces: redis-py's own pool refuses at once."""
    client = redis.Redis(connection_pool=redis.ConnectionPool.from_url(URL, max_connections=2))
    failures = _blocking_reads(client, 6)
    if not failures:
        pytest.fail("redis-py's pool accepted more commands than connections")
    assert any(isinstance(f, redis.exceptions.MaxConnectionsError | redis.ConnectionError) for f in failures)


def test_a_forked_child_uses_connections_of_its_own():
    """The pool keeps its process id instead of asking the kernel on every command: a forked
    child must still drop the parent's connections and open its own."""
    import os

    client = redis.Redis(connection_pool=LeanConnectionPool.from_url(URL))
    client.ping()
    parent = client.client_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the id of the connection it used, and the pool's pid
        try:
            os.write(write, f"{client.client_id()} {client.connection_pool.pid} {os.getpid()}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 200).decode().split()
    os.waitpid(pid, 0)
    child_connection, pool_pid, child_pid = (int(x) for x in answer)
    assert child_connection != parent  # not the parent's socket
    assert pool_pid == child_pid
    assert client.client_id() == parent  # the parent's connection is still its own
