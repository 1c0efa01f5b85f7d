"""A real Redis master with replicas for tests, started here on spare ports.

Each server has its own directory and no persistence unless asked; ``pause`` and
``resume`` send SIGSTOP / SIGCONT to a replica, which is how a replica that lags (a slow
disk, a busy machine, a network hiccup) looks to its master: it stops acknowledging.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import pytest
import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ReplicatedRedis:
    master_port: int
    replica_ports: list[int]
    processes: dict[int, subprocess.Popen] = field(default_factory=dict)
    workdir: str = ""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.master_port}/0"

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=5)

    def pause(self, port: int) -> None:
        os.kill(self.processes[port].pid, signal.SIGSTOP)

    def resume(self, port: int) -> None:
        os.kill(self.processes[port].pid, signal.SIGCONT)

    def wait_in_sync(self, timeout: float = 10) -> None:
        """Until every replica has everything the master wrote."""
        master = self.client(self.master_port)
        deadline = time.monotonic() + timeout
        while master.execute_command("WAIT", len(self.replica_ports), 100) < len(self.replica_ports):
            assert time.monotonic() < deadline, "the replicas did not catch up"

    def stop(self) -> None:
        for process in self.processes.values():
            try:
                os.kill(process.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_replicated(replicas: int = 1) -> ReplicatedRedis:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is needed to start a master with replicas")
    started = ReplicatedRedis(free_port(), [free_port() for _ in range(replicas)],
                              workdir=tempfile.mkdtemp(prefix="redis-replicas-"))

    def spawn(port: int, *extra: str) -> None:
        directory = os.path.join(started.workdir, str(port))
        os.makedirs(directory)
        started.processes[port] = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        spawn(started.master_port)
        for port in started.replica_ports:
            spawn(port, "--replicaof", "127.0.0.1", str(started.master_port))
        deadline = time.monotonic() + 20
        for port in started.replica_ports:
            while True:
                try:
                    if started.client(port).info("replication").get("master_link_status") == "up":
                        break
                except redis.RedisError:
                    pass
                assert time.monotonic() < deadline, "a replica did not connect to its master"
                time.sleep(0.05)
    except BaseException:
        started.stop()
        raise
    return started
