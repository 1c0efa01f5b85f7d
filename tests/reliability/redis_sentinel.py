"""A real Redis master with replicas and three sentinels, started here on spare ports.

``start_sentinels`` starts ``redis-server`` processes: a master, its replicas, and three
``redis-server --sentinel`` processes watching it (quorum 2, a master down after 1 s), each
with a directory of its own. ``master`` asks a sentinel which node is the master now.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import pytest
import redis

from tests.integration.redis_replicas import free_port

NAME = "queue"


@dataclass
class SentinelRedis:
    ports: list[int]                 # the data nodes; ports[0] is the first master
    sentinel_ports: list[int]
    processes: dict[int, subprocess.Popen] = field(default_factory=dict)
    workdir: str = ""

    def url(self, db: int = 0, wait: int = 0) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{NAME}/{db}" + (f"?wait={wait}" if wait else "")

    def master(self) -> int:
        """The port of the node the sentinels name as the master now."""
        for port in self.sentinel_ports:
            try:
                host, master_port = redis.Redis(port=port, socket_timeout=1).sentinel_get_master_addr_by_name(NAME)
                return int(master_port)
            except (redis.RedisError, TypeError):
                continue
        raise RuntimeError("no sentinel answers")

    def kill(self, port: int) -> None:
        os.kill(self.processes[port].pid, signal.SIGKILL)
        self.processes[port].wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_sentinels(replicas: int = 2, sentinels: int = 3, down_after_ms: int = 1000) -> SentinelRedis:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is needed to start a master, replicas and sentinels")
    started = SentinelRedis([free_port() for _ in range(1 + replicas)], [free_port() for _ in range(sentinels)],
                            workdir=tempfile.mkdtemp(prefix="redis-sentinel-"))
    master = started.ports[0]

    def spawn(port: int, *extra: str) -> None:
        directory = os.path.join(started.workdir, str(port))
        os.makedirs(directory)
        started.processes[port] = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        spawn(master)
        for port in started.ports[1:]:
            spawn(port, "--replicaof", "127.0.0.1", str(master))
        for port in started.sentinel_ports:
            config = os.path.join(started.workdir, f"sentinel-{port}.conf")
            with open(config, "w") as f:
                f.write(f"port {port}\nbind 127.0.0.1\ndir {started.workdir}\n"
                        f"sentinel monitor {NAME} 127.0.0.1 {master} 2\n"
                        f"sentinel down-after-milliseconds {NAME} {down_after_ms}\n"
                        f"sentinel failover-timeout {NAME} 10000\n"
                        f"sentinel parallel-syncs {NAME} 1\n")
            started.processes[port] = subprocess.Popen([server, config, "--sentinel"],
                                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:  # every replica linked, every sentinel knowing both replicas and the other sentinels
            try:
                linked = all(redis.Redis(port=p, socket_timeout=1).info("replication").get("master_link_status") == "up"
                             for p in started.ports[1:])
                known = all(
                    int(redis.Redis(port=p, socket_timeout=1).sentinel_master(NAME)["num-other-sentinels"]) == sentinels - 1
                    and len(redis.Redis(port=p, socket_timeout=1).sentinel_slaves(NAME)) == replicas
                    for p in started.sentinel_ports)
                if linked and known:
                    break
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, "the replicas and sentinels did not come up"
            time.sleep(0.1)
    except BaseException:
        started.stop()
        raise
    return started
