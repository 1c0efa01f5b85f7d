"""A real Redis Cluster for tests: three masters started here, on spare ports.

Each node is ``redis-server --cluster-enabled yes`` (no persistence unless asked, its own
directory); ``redis-cli --cluster create`` assigns the 16,384 slots over them (and, with
``replicas``, that many replicas to each master). The cluster bus of a node listens on its
port + 10000, so both must be free. A failover drill kills a master (``kill``) and makes a
replica lag (``pause``/``resume``: SIGSTOP/SIGCONT).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import pytest
import redis


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ports(count: int) -> list[int]:
    """Free ports for nodes whose cluster bus ports (port + 10000) are free too, both below
    Linux's ephemeral range (32768 up), where any outgoing connection may take one between
    this check and the node's bind."""
    rng = random.Random()
    found: list[int] = []
    while len(found) < count:
        port = rng.randrange(10000, 22000)
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

    def process(self, port: int) -> subprocess.Popen:
        return self.processes[self.ports.index(port)]

    def pause(self, port: int) -> None:
        os.kill(self.process(port).pid, signal.SIGSTOP)

    def resume(self, port: int) -> None:
        os.kill(self.process(port).pid, signal.SIGCONT)

    def lag(self, port: int) -> None:
        """Make the replica on ``port`` lag: stop it (SIGSTOP) and cut its replication link on
        its master's side, so that the master's next writes stay in the master's backlog. (A
        stop alone does not: on loopback, the master's stream keeps filling the stopped
        replica's socket buffer, and the replica reads it all when it resumes.)"""
        replica = redis.Redis(port=port, socket_timeout=5)
        link = next(c for c in replica.client_list() if "M" in c["flags"])
        master_port = int(link["addr"].rsplit(":", 1)[1])
        self.pause(port)
        redis.Redis(port=master_port, socket_timeout=5).client_kill_filter(addr=link["laddr"])

    def kill(self, port: int) -> None:
        self.process(port).kill()
        self.process(port).wait(timeout=10)

    def nodes(self) -> list[dict]:
        """``CLUSTER NODES`` as seen by a live node: port, id, role, its master's id, slot ranges."""
        for port in self.ports:
            if self.process(port).poll() is None:
                text = _cli(shutil.which("redis-cli") or "redis-cli", port, "cluster", "nodes")
                if text:
                    break
        found = []
        for line in text.splitlines():
            parts = line.split()
            found.append({"id": parts[0], "port": int(parts[1].split(":")[1].split("@")[0]),
                          "role": "master" if "master" in parts[2] else "replica",
                          "failed": "fail" in parts[2] and "fail?" not in parts[2],
                          "master": parts[3] if parts[3] != "-" else None, "slots": parts[8:]})
        return found

    def slots_of(self, port: int) -> set[int]:
        """The slots the master on ``port`` serves."""
        found: set[int] = set()
        for node in self.nodes():
            if node["port"] == port:
                for spec in node["slots"]:
                    if spec[0] != "[":
                        low, _, high = spec.partition("-")
                        found.update(range(int(low), int(high or low) + 1))
        return found

    def master_of_slot(self, slot: int) -> int:
        for node in self.nodes():
            if node["role"] == "master" and not node["failed"]:
                for spec in node["slots"]:
                    low, _, high = spec.partition("-")
                    if spec[0] != "[" and int(low) <= slot <= int(high or low):
                        return node["port"]
        raise LookupError(f"no master serves slot {slot}")

    def replicas_of(self, port: int) -> list[int]:
        nodes = self.nodes()
        master = next(n for n in nodes if n["port"] == port)
        return [n["port"] for n in nodes if n["master"] == master["id"]]

    def wait_healthy(self, timeout: float = 30) -> None:
        cli = shutil.which("redis-cli") or "redis-cli"
        live = [p for p in self.ports if self.process(p).poll() is None]
        _wait(lambda: all("cluster_state:ok" in _cli(cli, p, "cluster", "info") for p in live),
              "the cluster did not become healthy", timeout)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.kill(process.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_cluster(masters: int = 3, replicas: int = 0, node_timeout_ms: int = 5000,
                  aof_always: bool = False) -> RedisCluster:
    """A cluster of fresh redis-server processes; started again on other ports if a node
    could not start (another process bound one of its ports first)."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        pytest.skip("redis-server and redis-cli are needed for the Redis Cluster tests")
    for attempt in range(3):
        try:
            return _start_cluster(server, cli, masters, replicas, node_timeout_ms, aof_always)
        except _NodeDidNotStart:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class _NodeDidNotStart(RuntimeError):
    pass


def _start_cluster(server: str, cli: str, masters: int, replicas: int, node_timeout_ms: int,
                   aof_always: bool) -> RedisCluster:
    cluster = RedisCluster(_ports(masters * (1 + replicas)), workdir=tempfile.mkdtemp(prefix="redis-cluster-"))
    persistence = ["--appendonly", "yes", "--appendfsync", "always"] if aof_always else ["--appendonly", "no"]
    try:
        for port in cluster.ports:
            directory = os.path.join(cluster.workdir, str(port))
            os.makedirs(directory)
            cluster.processes.append(subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", str(node_timeout_ms),
                 "--save", "", *persistence, "--dir", directory],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port, process in zip(cluster.ports, cluster.processes, strict=True):
            try:
                _wait(lambda port=port, process=process: process.poll() is None and _cli(cli, port, "ping") == "PONG"
                      or process.poll() is not None, "a cluster node did not start")
            except RuntimeError:
                raise _NodeDidNotStart(f"the node on port {port} did not answer") from None
            if process.poll() is not None:
                raise _NodeDidNotStart(f"the node on port {port} exited (its port or bus port was taken)")
        created = subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in cluster.ports),
                                  "--cluster-replicas", str(replicas), "--cluster-yes"], capture_output=True,
                                 text=True, timeout=60)
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
        for port in cluster.ports:
            _wait(lambda port=port: "cluster_state:ok" in _cli(cli, port, "cluster", "info"),
                  "the cluster did not become ready")
        if replicas:
            _wait(lambda: sum(n["role"] == "replica" for n in cluster.nodes()) == masters * replicas,
                  "the replicas did not join")
            for port in cluster.ports:
                _wait(lambda port=port: _cli(cli, port, "info", "replication").count("state=online")
                      == (replicas if "role:master" in _cli(cli, port, "info", "replication") else 0),
                      "a master's replicas did not come online")
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
