"""Counting Redis round trips at the socket: every write of a request (or of a pipeline) to
any Redis connection of this process is one round trip, whoever sends it."""

from __future__ import annotations

import threading

import pytest
import redis.connection


class Trips:
    """Every round trip to Redis made by this process, with the commands it carried."""

    def __init__(self):
        self.sent: list[list[str]] = []
        self._lock = threading.Lock()

    def record(self, commands: list[str]) -> None:
        with self._lock:
            self.sent.append([threading.current_thread().name, *commands])

    def take(self) -> list[list[str]]:
        with self._lock:
            taken, self.sent = self.sent, []
        return taken


#: a script run on a player's feed (``service.players.player_feed``), told apart from the game's own
FEED_SCRIPT = "EVALSHA:feed"


def _names(packed) -> list[str]:
    """The command names in a packed request (RESP arrays: ``*N``, then ``$len`` + arg lines);
    a script whose first key is a player's feed stream is named ``FEED_SCRIPT``."""
    raw = b"".join(bytes(part) for part in (packed if isinstance(packed, list | tuple) else [packed]))
    names, lines, i = [], raw.split(b"\r\n"), 0
    while i < len(lines):
        if lines[i].startswith(b"*"):
            name = lines[i + 2].decode(errors="replace").upper()
            arity = int(lines[i][1:])
            if name == "EVALSHA" and arity > 3 and b":game:feed-" in lines[i + 8]:
                name = FEED_SCRIPT
            names.append(name)
            i += 1 + 2 * arity
        else:
            i += 1
    return names


@pytest.fixture
def trips(monkeypatch):
    counted = Trips()
    original = redis.connection.AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        counted.record(_names(command))
        return original(self, command, check_health)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counting)
    return counted
