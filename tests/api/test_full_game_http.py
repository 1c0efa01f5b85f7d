"""Whole Dynasties games over real HTTP: one client per seat, each using only legal-commands.

After every response to a seat, no card that another seat holds unseen (its hand, its
committed Tribute) may appear in it. "Unseen" is measured against what a spectator has
been shown so far, so a card that became public (a flipped Enquire card, a revealed
Tribute) is allowed.
"""

from __future__ import annotations

import random
import re

import pytest

CARD = re.compile(r"\b(?:coppe|denari|spade|bastoni)-\d\d\b")
MAX_COMMANDS = 3000


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def hidden_from(state, seat: int, public: set[str]) -> set[str]:
    """Cards other seats hold that no spectator has seen."""
    hidden: set[str] = set()
    for other in range(state.seats):
        if other != seat:
            hidden |= set(state.hands[other])
            if state.tribute_commit[other] is not None:
                hidden.add(state.tribute_commit[other])
    return hidden - public - set(state.hands[seat])


@pytest.mark.api
@pytest.mark.parametrize("seats,seed", [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_a_whole_game_over_http_never_shows_a_seat_another_seats_hidden_cards(live_server, seats, seed):
    play_whole_game(live_server, seats, seed)


@pytest.mark.api
@pytest.mark.integration
def test_a_whole_game_over_http_on_the_redis_store(live_server_on_redis):
    play_whole_game(live_server_on_redis, seats=3, seed=5)


def play_whole_game(live_server, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    clients = [live_server.new_player(f"player-{i}") for i in range(seats)]
    creator = clients[0][1]
    created = creator.post(f"{live_server.url}/games",
                           json={"type": "dynasties", "seats": seats, "options": {"starting_gold": 12}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for _, client in clients:
        joined = client.post(f"{live_server.url}/games/{game_id}/join", json={})
        assert joined.status_code == 200, joined.text
    spectator = live_server.client()
    public: set[str] = set()
    seen_version = 0

    def catch_up_public():
        nonlocal seen_version
        while True:
            page = spectator.get(f"{live_server.url}/games/{game_id}/events", params={"after": seen_version}).json()
            public.update(cards_in(str(page["events"])))
            if page["events"]:
                seen_version = page["events"][-1]["version"]
            if page["next_after"] is None:
                break
        public.update(cards_in(spectator.get(f"{live_server.url}/games/{game_id}/state").text))

    def check_no_leak(seat: int, text: str):
        state = live_server.games.load(game_id).state
        if state.phase == "over":
            return
        leaked = cards_in(text) & hidden_from(state, seat, public)
        assert not leaked, f"seat {seat} was shown {leaked}"

    commands = 0
    while commands < MAX_COMMANDS:
        summary = spectator.get(f"{live_server.url}/games/{game_id}").json()
        if summary["status"] == "finished":
            break
        assert summary["to_move"], "an active game always waits for someone"
        seat = rng.choice(summary["to_move"])
        client = clients[seat][1]
        legal = client.get(f"{live_server.url}/games/{game_id}/legal-commands")
        assert legal.status_code == 200
        check_no_leak(seat, legal.text)
        assert legal.json()["commands"], "a seat the game waits for has a legal command"
        posted = client.post(f"{live_server.url}/games/{game_id}/commands", json=rng.choice(legal.json()["commands"]))
        assert posted.status_code == 201, posted.text
        commands += 1
        catch_up_public()
        check_no_leak(seat, posted.text)
        for other, (_, other_client) in enumerate(clients):
            check_no_leak(other, other_client.get(f"{live_server.url}/games/{game_id}/state").text)
            check_no_leak(other, other_client.get(f"{live_server.url}/games/{game_id}/events",
                                                  params={"after": max(0, seen_version - 30)}).text)
    final = spectator.get(f"{live_server.url}/games/{game_id}").json()
    assert final["status"] == "finished", f"no Game Over after {commands} commands"
    assert final["outcome"]["winners"]
    # once over, the whole game is revealed to anyone
    assert spectator.get(f"{live_server.url}/games/{game_id}/state").json()["view"]["revealed"]["hands"]
