"""High Card: a tiny test-only game that exercises the platform without Dynasties' rules.

Each seat is dealt three secret cards from a shuffled deck of 1..12. Seats play one card
each in turn order; when every seat has played, the highest card scores a point and its
owner leads the next trick. After three tricks the most points win.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from domain.kernel import Event, Outcome
from domain.kernel.engine import StepRules
from domain.kernel.events import EVERYONE
from domain.kernel.prompt import CARD, Arg, Prompt, Verb
from domain.kernel.rules import GameOptions, option
from domain.kernel.steps import Flow, Frame, Step, handles, step_table

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


@dataclass(frozen=True)
class HighCardOptions(GameOptions):
    tricks: int = option(TRICKS, "tricks to play", minimum=1, maximum=3)


class PlayTrick(Step[State]):
    """The seat due plays a card; when every seat has played, the highest card wins."""

    name = "play"

    def ask(self, s: State, frame: Frame) -> Prompt:
        return Prompt(s.next_seat, "Play a card from your hand.").one_of(
            "PlayCard", sorted(s.hands[s.next_seat]), why="you must play a card from your hand")

    @handles("PlayCard")
    def play(self, t: Flow[State], frame: Frame, seat: int, card: str) -> None:
        t.emit(Event("CardPlayed", {"seat": seat, "card": card}))
        if len(t.state.trick) == t.state.seats:
            winner = max(t.state.trick, key=lambda sc: sc[1])[0]
            t.emit(Event("TrickWon", {"seat": winner}))
            if t.state.tricks_done == TRICKS:
                t.emit(Event("GameOver", {"points": t.state.points}, barrier=True))


class HighCard(StepRules[State]):
    kind = "highcard"
    title = "High Card (test game)"
    min_seats = 2
    max_seats = 4
    options_type = HighCardOptions
    verbs = (Verb("PlayCard", "play a card from your hand", Arg("card", CARD), refusal="it is not your turn"),)
    steps = step_table(PlayTrick())

    def check_options(self, given):
        return HighCardOptions.check(given)

    def frames(self, s: State) -> list[Frame]:
        return [] if s.over or len(s.hands) < s.seats else [Frame("play", s.next_seat)]

    def is_over(self, s: State) -> bool:
        return s.over

    def copy(self, s: State) -> State:
        return replace(s, deck=list(s.deck), hands={k: list(v) for k, v in s.hands.items()},
                       trick=list(s.trick), points=dict(s.points))

    def setup(self, seats, options, rng):
        t = Flow(None, self.evolve)
        order = rng.shuffled(DECK)
        t.emit(Event("Dealt", {"seats": seats}, secret={"order": order}, secret_to=frozenset(), barrier=True))
        for seat in range(seats):
            t.emit(Event("HandDealt", {"seat": seat, "count": 3},
                         secret={"cards": order[seat * 3:seat * 3 + 3]}, secret_to=frozenset({seat}), barrier=True))
        return t.events

    def apply(self, s, e):
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
