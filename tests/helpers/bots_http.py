"""A person playing a whole game over HTTP against bot seats (tests of bot seats)."""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from collections.abc import Callable
from typing import Any


def play_against_bots(server: Any, kind: str, seats: int, bots: list[dict[str, Any]],
                      options: dict[str, Any] | None = None, seed: int = 0, timeout: float = 240,
                      waiting: Callable[[dict[str, Any]], None] | None = None) -> dict:
    """One person at the seat left open plays random legal commands until the game ends;
    ``waiting(game)`` is called while a bot is to move. Returns the game's summary, its
    events and the person's seat."""
    rng = random.Random(seed)
    _, session = server.new_player("person")
    client = _Patient(session)
    created = client.post(f"{server.url}/games", json={"type": kind, "seats": seats, "options": options or {},
                                                        "bots": bots})
    assert created.status_code == 201, created.text
    game = created.json()
    assert sum(1 for seat in game["seats"] if seat.get("bot")) == len(bots)
    game_id = game["id"]
    joined = client.post(f"{server.url}/games/{game_id}/join", json={})
    assert joined.status_code == 200, joined.text
    deadline = time.monotonic() + timeout
    salt = ""  # the person's salt of a sealed Tribute (R17a), kept until its reveal
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        summary = client.get(f"{server.url}/games/{game_id}").json()
        if summary["status"] == "finished":
            break
        legal = client.get(f"{server.url}/games/{game_id}/legal-commands").json()
        choices = (legal["prompt"] or {}).get("choices", {})
        if "CommitTribute" in choices:  # a free choice: the person computes its seal (R17a)
            salt = secrets.token_hex(16)
            card = rng.choice(client.get(f"{server.url}/games/{game_id}/state").json()["view"]["hand"])
            legal["commands"] = [{"type": "CommitTribute",
                                  "args": {"hash": hashlib.sha256(bytes.fromhex(salt) + card.encode()).hexdigest()}}]
        elif "RevealTribute" in choices:
            legal["commands"] = [{"type": "RevealTribute", "args": {"salt": salt}}]
        if not legal["commands"]:
            if waiting is not None:
                waiting(summary)
            time.sleep(0.01)  # a bot's move
            continue
        command = rng.choice(legal["commands"])
        posted = client.post(f"{server.url}/games/{game_id}/commands",
                             json={**command, "expected_version": legal["version"]})
        assert posted.status_code in (201, 409), posted.text  # 409: a bot's simultaneous Tribute came first
    events = []
    after = 0
    while after is not None:
        page = client.get(f"{server.url}/games/{game_id}/events", params={"after": after, "limit": 1000}).json()
        events += page["events"]
        after = page["next_after"]
    return {"summary": summary, "events": events, "human": joined.json()["seat"]}


class _Patient:
    """A client that honours ``429 Too Many Requests``: it waits the Retry-After the server
    names and asks again, as a well-behaved front end does. With a fast engine the person's
    loop (two reads and a command a move, while bots answer at once) can pass the per-token
    rate; the limits themselves are tested in tests/reliability/test_limits.py."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def get(self, url: str, **kwargs: Any) -> Any:
        return self._patiently("get", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Any:
        return self._patiently("post", url, **kwargs)

    def _patiently(self, method: str, url: str, **kwargs: Any) -> Any:
        for _ in range(30):
            answer = getattr(self.session, method)(url, **kwargs)
            if answer.status_code != 429:
                return answer
            time.sleep(float(answer.headers["Retry-After"]))
        raise AssertionError(f"still rate limited after 30 waits: {answer.text}")
