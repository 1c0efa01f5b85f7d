"""The kernel's nested decisions over real HTTP, with the Bargain test game and one client
per seat: seat 0 asks seat 1 for a card, seat 1 chooses it, play returns to seat 0.

Undo works inside seat 0's own uninterrupted steps and is refused across the hand-over;
the card chosen inside the sub-decision reaches seats 0 and 1 only, never seat 2 or a
spectator, by any route (state, events, legal commands, replay, live stream).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from domain.games.dynasties import RULES as DYNASTIES
from tests.games.bargain import RULES as BARGAIN

pytestmark = pytest.mark.api

TURN = "Your turn: ask another seat for a card, discard one or two cards, or pass."


@pytest.fixture
def game_registry():
    return {DYNASTIES.kind: DYNASTIES, BARGAIN.kind: BARGAIN}


@dataclass
class Reader:
    """One client of one game: a seat (with its token) or a spectator (without)."""

    url: str
    client: requests.Session
    seat: int | None = None

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        response = self.client.get(f"{self.url}{path}", params=params, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    def legal(self) -> dict[str, Any]:
        return self.get("/legal-commands")

    def view(self) -> dict[str, Any]:
        return self.get("/state")["view"]

    def post(self, command: str, **args: Any) -> requests.Response:
        return self.client.post(f"{self.url}/commands", json={"type": command, "args": args}, timeout=10)

    def play(self, command: str, **args: Any) -> dict[str, Any]:
        response = self.post(command, **args)
        assert response.status_code == 201, response.text
        return response.json()

    def undo(self) -> requests.Response:
        return self.client.post(f"{self.url}/undo", timeout=10)

    def everything_read(self) -> dict[str, str]:
        """What this reader can learn of the game now, by each route, as text."""
        events, after = [], 0
        while after is not None:
            page = self.get("/events", after=after)
            events += page["events"]
            after = page["next_after"]
        read = {"state": str(self.get("/state")), "events": str(events), "replay": str(self.get("/replay")),
                "stream": self.client.get(f"{self.url}/stream", timeout=10).text}
        if self.seat is not None:
            read["legal-commands"] = str(self.legal())
        return read


def refused(response: requests.Response) -> str:
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "rule_violated"
    return response.json()["detail"]


def bargain_for_three(live_server) -> tuple[list[Reader], Reader]:
    """A started three-seat Bargain game: a reader per seat, and a spectator."""
    players = [live_server.new_player(f"player-{seat}") for seat in range(3)]
    created = players[0][1].post(f"{live_server.url}/games", json={"type": "bargain", "seats": 3})
    assert created.status_code == 201, created.text
    url = f"{live_server.url}/games/{created.json()['id']}"
    seats = []
    for seat, (_, client) in enumerate(players):
        joined = client.post(f"{url}/join", json={})
        assert joined.status_code == 200 and joined.json()["seat"] == seat, joined.text
        seats.append(Reader(url, client, seat))
    return seats, Reader(url, live_server.client())


def test_an_ask_is_answered_by_the_asked_seat_and_play_returns_to_the_asker_over_http(live_server):
    (s0, s1, s2), spectator = bargain_for_three(live_server)
    opening = s0.legal()
    assert opening["prompt"]["text"] == TURN and {"type": "Ask", "args": {}} in opening["commands"]
    assert s1.legal() == {"version": opening["version"], "seat": 1, "prompt": None, "commands": []}

    s0.play("Ask")
    assert s0.legal()["prompt"]["choices"] == {"AskSeat": {"allows": "one_of", "options": [1, 2]}}
    s0.play("AskSeat", seat=1)
    assert s0.legal()["prompt"]["choices"] == {"Bid": {"allows": "between", "min": 0, "max": 3}}
    s0.play("Bid", coins=2)

    asked = s1.legal()
    hand = s1.view()["hand"]
    assert asked["prompt"]["text"] == ("Seat 0 bids 2 coins for a card: choose the card you hand over "
                                       "(only you and seat 0 will see it).")
    assert asked["commands"] == [{"type": "GiveCard", "args": {"card": card}} for card in hand]
    assert s0.legal()["commands"] == [] and s2.legal()["commands"] == []
    assert spectator.get("")["to_move"] == [1]
    assert refused(s0.post("Settle", choice="keep")) == (
        "no card was handed to you to keep or return (waiting for seat 1)")
    assert refused(s1.post("GiveCard", card="card-99")).startswith("card-99 is not in your hand (Seat 0 bids 2")

    card = hand[-1]
    s1.play("GiveCard", card=card)
    resumed = s0.legal()
    assert resumed["prompt"]["text"] == f"Seat 1 handed you {card}: keep it and pay 2 coins, or return it."
    assert resumed["commands"] == [{"type": "Settle", "args": {"choice": choice}} for choice in ("keep", "return")]
    s0.play("Settle", choice="keep")
    assert card in s0.view()["hand"] and card not in s1.view()["hand"]
    assert s2.view()["coins"] == [1, 5, 3]
    assert spectator.get("")["to_move"] == [1] and s1.legal()["prompt"]["text"] == TURN

    play_to_the_end(live_server, [s0, s1, s2], random.Random(8))
    finished = spectator.get("")
    assert finished["status"] == "finished" and finished["outcome"]["winners"]
    assert spectator.view()["hands"] == s2.view()["hands"], "once over, everything is revealed to all"


def play_to_the_end(live_server, seats: list[Reader], r: random.Random) -> None:
    for _ in range(200):
        game = seats[0].get("")
        if game["status"] == "finished":
            return
        (seat,) = game["to_move"]
        command = r.choice(seats[seat].legal()["commands"])
        seats[seat].play(command["type"], **command["args"])
    pytest.fail("the game did not end")


def test_undo_works_inside_the_askers_own_steps_and_is_refused_across_the_hand_over(live_server):
    (s0, s1, _), _ = bargain_for_three(live_server)
    s0.play("Ask")
    s0.play("AskSeat", seat=2)
    assert s0.undo().status_code == 201
    assert list(s0.legal()["prompt"]["choices"]) == ["AskSeat"], "back to choosing the seat"
    assert s0.undo().status_code == 201
    assert s0.legal()["prompt"]["text"] == TURN, "back to the start of the turn"
    assert refused(s0.undo()) == "you have no move to undo"

    s0.play("Ask")
    s0.play("AskSeat", seat=1)
    s0.play("Bid", coins=1)
    assert refused(s0.undo()) == ("your last move revealed hidden information or drew cards, or handed the "
                                  "decision to another seat; it cannot be undone")
    assert s1.legal()["prompt"]["text"].startswith("Seat 0 bids 1 coin for a card"), "the refusal changed nothing"

    s1.play("GiveCard", card=s1.view()["hand"][0])
    assert refused(s0.undo()) == "another seat has acted since your last move; it can no longer be undone"
    assert refused(s1.undo()).endswith("handed the decision to another seat; it cannot be undone")
    assert list(s0.legal()["prompt"]["choices"]) == ["Settle"]


def test_the_card_chosen_inside_the_sub_decision_reaches_only_the_two_seats_of_the_bargain(live_server):
    (s0, s1, s2), spectator = bargain_for_three(live_server)
    s0.play("Ask")
    s0.play("AskSeat", seat=1)
    s0.play("Bid", coins=1)
    card = s1.view()["hand"][0]
    answer = s1.play("GiveCard", card=card)
    assert card in str(answer["events"]), "the giver's own answer shows the card it gave"

    def check(moment: str, holders: tuple[Reader, ...]) -> None:
        for outsider in (s2, spectator):
            for route, text in outsider.everything_read().items():
                assert card not in text, f"{moment}: {card} leaked to seat {outsider.seat} through {route}"
        for involved in (s0, s1):
            read = involved.everything_read()
            routes = ("state", "events", "stream", "replay") if involved in holders else ("events", "stream")
            for route in routes:
                assert card in read[route], f"{moment}: seat {involved.seat} does not see {card} in {route}"

    assert s2.view()["offer"] == {"from": 1, "to": 0} and spectator.view()["offer"] == {"from": 1, "to": 0}
    assert s0.view()["offer"] == {"from": 1, "to": 0, "card": card}
    check("while the card is on offer", holders=(s0, s1))
    s0.play("Settle", choice="keep")
    check("after it was kept", holders=(s0,))
