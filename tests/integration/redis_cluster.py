"""A real Redis Cluster for tests: three masters started here, on spare ports.

Each node is ``redis-server --cluster-enabled yes`` (no persistence, its own directory);
``redis-cli --cluster create`` assigns the 16,384 slots over them. The cluster bus of a
node listens on its port + 10000, so both must be free.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import pytest


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ports(count: int) -> list[int]:
    rng = random.Random()
    found: list[int] = []
    while len(found) < count:
        port = rng.randrange(20000, 40000)
        if port not in found and _free(port) and _free(port + 10000):
            found.append(port)
    return found


@dataclass
class RedisCluster:
    ports: list[int]
    processes: list[subprocess.Popen] = field(default_factory=list)
    workdir: str = ""

    @property
    def url(self) -> str:
        return "redis-cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_cluster(masters: int = 3) -> RedisCluster:
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        pytest.skip("redis-server and redis-cli are needed for the Redis Cluster tests")
    cluster = RedisCluster(_ports(masters), workdir=tempfile.mkdtemp(prefix="redis-cluster-"))
    try:
        for port in cluster.ports:
            cluster.processes.append(subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", "5000",
                 "--save", "", "--appendonly", "no", "--dir", cluster.workdir],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in cluster.ports:
            _wait(lambda port=port: _cli(cli, port, "ping") == "PONG", "a cluster node did not start")
        created = subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in cluster.ports),
                                  "--cluster-replicas", "0", "--cluster-yes"], capture_output=True, text=True,
                                 timeout=60)
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
        for port in cluster.ports:
            _wait(lambda port=port: "cluster_state:ok" in _cli(cli, port, "cluster", "info"),
                  "the cluster did not become ready")
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _cli(cli: str, port: int, *args: str) -> str:
    try:
        return subprocess.run([cli, "-p", str(port), *args], capture_output=True, text=True, timeout=5).stdout.strip()
    except subprocess.TimeoutExpired:
        return ""


def _wait(check, message: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(message)
        time.sleep(0.1)
