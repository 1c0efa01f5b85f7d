"""High Card: a tiny test-only game that exercises the platform without Dynasties' rules.

Each seat is dealt three secret cards from a shuffled deck of 1..12. Seats play one card
each in turn order; when every seat has played, the highest card scores a point and its
owner leads the next trick. After three tricks the most points win.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from domain.kernel import Command, Event, OptionSpec, Outcome, RuleViolation
from domain.kernel.engine import Turn
from domain.kernel.events import EVERYONE
from domain.kernel.rules import CommandSpec, check_options

TRICKS = 3
DECK = [f"h{value:02d}" for value in range(1, 13)]


@dataclass
class State:
    seats: int = 0
    deck: list[str] = field(default_factory=list)
    hands: dict[int, list[str]] = field(default_factory=dict)
    trick: list[tuple[int, str]] = field(default_factory=list)
    points: dict[int, int] = field(default_factory=dict)
    next_seat: int = 0
    tricks_done: int = 0
    over: bool = False


class HighCard:
    kind = "highcard"
    title = "High Card (test game)"
    min_seats = 2
    max_seats = 4
    options = (OptionSpec("tricks", "int", TRICKS, "tricks to play", minimum=1, maximum=3),)
    commands = (CommandSpec("PlayCard", {"card": "card"}, "play a card from your hand"),)

    def check_options(self, given):
        return check_options(self.options, given)

    def copy(self, s: State) -> State:
        return replace(s, deck=list(s.deck), hands={k: list(v) for k, v in s.hands.items()},
                       trick=list(s.trick), points=dict(s.points))

    def setup(self, seats, options, rng):
        t = Turn(None, self.evolve)
        order = rng.shuffled(DECK)
        t.emit(Event("Dealt", {"seats": seats}, secret={"order": order}, secret_to=frozenset(), barrier=True))
        for seat in range(seats):
            t.emit(Event("HandDealt", {"seat": seat, "count": 3},
                         secret={"cards": order[seat * 3:seat * 3 + 3]}, secret_to=frozenset({seat}), barrier=True))
        return t.events

    def evolve(self, s, e):
        if e.type == "Dealt":
            return State(seats=e.data["seats"], deck=list(e.secret["order"]), points=dict.fromkeys(range(e.data["seats"]), 0))
        if e.type == "HandDealt":
            s.hands[e.data["seat"]] = list(e.secret["cards"])
            for card in e.secret["cards"]:
                s.deck.remove(card)
        elif e.type == "CardPlayed":
            s.hands[e.data["seat"]].remove(e.data["card"])
            s.trick.append((e.data["seat"], e.data["card"]))
            s.next_seat = (e.data["seat"] + 1) % s.seats
        elif e.type == "TrickWon":
            s.points[e.data["seat"]] += 1
            s.trick = []
            s.tricks_done += 1
            s.next_seat = e.data["seat"]
        elif e.type == "GameOver":
            s.over = True
        return s

    def legal_commands(self, s, seat):
        if s.over or seat != s.next_seat:
            return []
        return [Command("PlayCard", {"card": c}) for c in sorted(s.hands[seat])]

    def decide(self, s, seat, command, rng):
        if s.over:
            raise RuleViolation("the game is over")
        if command.type != "PlayCard":
            raise RuleViolation(f"unknown command {command.type!r}")
        if seat != s.next_seat:
            raise RuleViolation("it is not your turn")
        card = command.args.get("card")
        if set(command.args) != {"card"} or card not in s.hands[seat]:
            raise RuleViolation("you must play a card from your hand")
        t = Turn(self.copy(s), self.evolve)
        t.emit(Event("CardPlayed", {"seat": seat, "card": card}))
        if len(t.state.trick) == s.seats:
            winner = max(t.state.trick, key=lambda sc: sc[1])[0]
            t.emit(Event("TrickWon", {"seat": winner}))
            if t.state.tricks_done == TRICKS:
                t.emit(Event("GameOver", {"points": t.state.points}, barrier=True))
        return t.events

    def to_move(self, s):
        return [] if s.over else [s.next_seat]

    def view(self, s, viewer):
        out = {"points": s.points, "trick": [list(x) for x in s.trick], "next_seat": s.next_seat,
               "hand_counts": {seat: len(h) for seat, h in s.hands.items()}}
        if viewer in s.hands:
            out["hand"] = sorted(s.hands[viewer])
        if s.over or viewer == EVERYONE:
            out["hands"] = {seat: sorted(h) for seat, h in s.hands.items()}
        return out

    def outcome(self, s):
        if not s.over:
            return None
        best = max(s.points.values())
        return Outcome(tuple(k for k, v in s.points.items() if v == best), dict(s.points))


RULES = HighCard()
