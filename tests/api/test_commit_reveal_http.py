"""Commit-reveal Tributes (Dynasties option ``commit_reveal_tributes``, R17a) over real HTTP.

Each seat is a client of its own that computes its seal itself (sha256(salt || card id),
a fresh 128-bit salt it keeps to itself) from what legal-commands says, and reveals it once
every seat has sealed. A reveal that does not open the seal is refused with the reason and
changes nothing. No seat is ever shown another seat's unrevealed Tribute or salt (the
preimage of its seal), and the finished game's export passes ``verify-fairness``.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets

import pytest

from domain.games import default_registry
from service.play.fairness import verify_fairness
from tests.api.test_full_game_http import cards_in, hidden_from

MAX_COMMANDS = 3000


def seal(salt: str, card: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + card.encode("ascii")).hexdigest()


@pytest.mark.api
@pytest.mark.parametrize("seats,seed", [(2, 21), (3, 22)])
def test_r17a_a_commit_reveal_game_plays_to_the_end_over_http_and_a_wrong_reveal_is_refused(live_server, seats,
                                                                                              seed):
    rng = random.Random(seed)
    url = live_server.url
    clients = [live_server.new_player(f"player-{i}")[1] for i in range(seats)]
    created = clients[0].post(f"{url}/games", json={"type": "dynasties", "seats": seats,
                                                    "options": {"starting_gold": 10, "commit_reveal_tributes": True}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for client in clients:
        assert client.post(f"{url}/games/{game_id}/join", json={}).status_code == 200
    spectator = live_server.client()
    salts: dict[int, str] = {}  # each seat's salt, known to that client only until the reveal
    public: set[str] = set()
    seals = reveals = refusals = seen = 0

    def catch_up(after: int) -> int:
        """What a spectator has been shown so far is public (its events, and its view: once the
        game is over that shows what the end revealed, every hand); returns the last version read."""
        public.update(cards_in(spectator.get(f"{url}/games/{game_id}/state").text))
        while True:
            page = spectator.get(f"{url}/games/{game_id}/events", params={"after": after}).json()
            public.update(cards_in(str(page["events"])))
            after = page["events"][-1]["version"] if page["events"] else after
            if page["next_after"] is None:
                return after

    def check_no_leak(seat: int, text: str) -> None:
        state = live_server.games.load(game_id).state
        leaked = cards_in(text) & hidden_from(state, seat, public)
        where = [part for part in text.split("},{") if any(card in part for card in leaked)]
        assert not leaked, f"seat {seat} was shown {leaked}: {where}"
        for other, salt in salts.items():  # a salt still to be revealed to all is its seat's alone
            if other != seat and state.tribute_hash[other] is not None:
                assert salt not in text, f"seat {seat} was shown seat {other}'s salt"

    for _ in range(MAX_COMMANDS):
        summary = spectator.get(f"{url}/games/{game_id}").json()
        if summary["status"] == "finished":
            break
        seat = rng.choice(summary["to_move"])
        client = clients[seat]
        legal = client.get(f"{url}/games/{game_id}/legal-commands")
        check_no_leak(seat, legal.text)
        prompt = legal.json()["prompt"]
        choices = prompt["choices"]
        if "CommitTribute" in choices:
            assert legal.json()["commands"] == [] and choices["CommitTribute"]["allows"] == "free"
            assert choices["CommitTribute"]["pattern"] == "[0-9a-f]{64}"
            hand = client.get(f"{url}/games/{game_id}/state").json()["view"]["hand"]
            salts[seat] = secrets.token_hex(16)
            command = {"type": "CommitTribute", "args": {"hash": seal(salts[seat], rng.choice(hand))}}
            seals += 1
        elif "RevealTribute" in choices:
            wrong = secrets.token_hex(16)
            before = spectator.get(f"{url}/games/{game_id}").json()["version"]
            refused = client.post(f"{url}/games/{game_id}/commands",
                                  json={"type": "RevealTribute", "args": {"salt": wrong}})
            assert refused.status_code == 422, refused.text
            assert refused.headers["Content-Type"].startswith("application/problem+json")
            assert "your reveal does not match your seal" in refused.json()["detail"]
            assert spectator.get(f"{url}/games/{game_id}").json()["version"] == before  # nothing changed
            refusals += 1
            command = {"type": "RevealTribute", "args": {"salt": salts[seat]}}
            reveals += 1
        else:
            command = rng.choice(legal.json()["commands"])
        posted = client.post(f"{url}/games/{game_id}/commands", json=command)
        assert posted.status_code == 201, posted.text
        seen = catch_up(seen)
        check_no_leak(seat, posted.text)
        for other, other_client in enumerate(clients):
            check_no_leak(other, other_client.get(f"{url}/games/{game_id}/state").text)
            check_no_leak(other, other_client.get(f"{url}/games/{game_id}/events").text)
    final = spectator.get(f"{url}/games/{game_id}").json()
    assert final["status"] == "finished" and final["outcome"]["winners"]
    assert seals >= seats and reveals == seals and refusals == reveals
    export = spectator.get(f"{url}/games/{game_id}/export")
    assert export.status_code == 200
    events = [json.loads(line) for line in export.text.splitlines()][1:]
    sealed = [e for e in events if e["type"] == "TributeSealed"]
    opened = [row for e in events if e["type"] == "TributesRevealed" for row in e["data"]["tributes"]]
    assert len(sealed) == len(opened) == seals
    assert {seal(row["salt"], row["card"]) for row in opened} == {e["data"]["hash"] for e in sealed}
    verdict = verify_fairness(export.text, default_registry())
    assert verdict.moves >= seals + reveals
