"""Bargain: a tiny test-only game whose one action asks another seat to decide.

Two or three seats are each dealt four secret cards (``card-01`` .. ``card-15``, worth
their number) and hold three coins. Seats take turns; on your turn you may

- **Ask** another seat for a card: choose the seat, then bid 0 to all of your coins. The
  asked seat, not you, chooses which card of its hand to hand over, face down: only the
  two of you learn which. Play then returns to you: **keep** the card and pay your bid to
  the asked seat, or **return** it.
- **Discard** (``DiscardCards``) one or two of your cards, face up.
- **Pass**.

After ``turns`` turns each, the hand worth the most without going over 30 wins (a hand
over 30 scores nothing).

It exists to drive the kernel's nested decisions end to end, so it keeps an **explicit**
frame stack in ``State.frames`` that only the kernel's frame events change (``Flow.call``,
``goto``, ``end``, ``update``). An Ask plays out as::

    table                      the table deals out turns (automatic)
    table > turn               seat 0: Ask, Discard or Pass
    table > choose_seat        seat 0: which seat?           (goto)
    table > bid                seat 0: how many coins?       (goto)
    table > settle > hand_over seat 1: which card?           (goto settle, call hand_over)
    table > settle             seat 0: keep or return?       (hand_over ended: settle resumes)
    table > turn               seat 1's turn                  (settle ended; the table called turn)

Frame events are public, so no secret ever goes into a frame's locals: the card on
offer lives in ``State.offer``, set by an event whose card is secret to the two seats.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from domain.kernel.engine import StepRules
from domain.kernel.events import EVERYONE, Event
from domain.kernel.prompt import AMOUNT, CARD, CHOICE, SEAT, Arg, Prompt, Verb
from domain.kernel.rng import Rng
from domain.kernel.rules import GameOptions, Outcome, option
from domain.kernel.steps import Flow, Frame, Step, handles, step_table

DECK = tuple(f"card-{value:02d}" for value in range(1, 16))
HAND_SIZE = 4
#: A hand worth more than this scores nothing.
LIMIT = 30
KEEP, RETURN = "keep", "return"


def value_of(card: str) -> int:
    return int(card.removeprefix("card-"))


def worth(hand: list[str]) -> int:
    total = sum(value_of(card) for card in hand)
    return total if total <= LIMIT else 0


def coins(count: int) -> str:
    return f"{count} coin" + ("" if count == 1 else "s")


@dataclass(frozen=True)
class Offer:
    """A card on its way from ``giver`` to ``taker``; ``card`` is secret to those two."""

    card: str
    giver: int
    taker: int


@dataclass
class State:
    seats: int
    turns: int  # turns each seat plays
    hands: list[list[str]]
    coins: list[int]
    discards: list[str] = field(default_factory=list)
    offer: Offer | None = None
    over: bool = False
    frames: list[Frame] = field(default_factory=list)

    def others_holding_cards(self, seat: int) -> list[int]:
        return [other for other in range(self.seats) if other != seat and self.hands[other]]


@dataclass(frozen=True)
class BargainOptions(GameOptions):
    turns: int = option(2, "turns each seat plays", minimum=1, maximum=5)
    coins: int = option(3, "coins each seat starts with", minimum=0, maximum=9)


Play = Flow[State]


# -- the steps, one per procedure --------------------------------------------------------

class Table(Step[State]):
    """The table gives each seat its turn in order, ``turns`` times round, then ends the
    game. It asks nobody anything; its local ``turn`` counts the turns dealt out."""

    name = "table"

    def advance(self, t: Play, frame: Frame) -> None:
        s = t.state
        if frame.turn == s.turns * s.seats:
            t.end()
            t.emit(Event("GameEnded", {"hands": [sorted(hand) for hand in s.hands],
                                       "scores": [worth(hand) for hand in s.hands]}, barrier=True))
            return
        t.update(turn=frame.turn + 1)
        t.call("turn", frame.turn % s.seats)


class TakeTurn(Step[State]):
    """Your turn: Ask another seat for a card, Discard one or two cards, or Pass."""

    name = "turn"

    def ask(self, s: State, frame: Frame) -> Prompt:
        seat: int = frame.seat  # type: ignore[assignment]
        prompt = Prompt(seat, "Your turn: ask another seat for a card, discard one or two cards, or pass.")
        if s.others_holding_cards(seat):
            prompt.nothing("Ask")
        return (prompt.subset_of("DiscardCards", s.hands[seat], 1, 2,
                                 why=lambda card: f"{card} is not in your hand")
                .nothing("Pass"))

    @handles("Ask")
    def ask_for_card(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.goto("choose_seat", seat)

    @handles("DiscardCards")
    def discard(self, t: Play, frame: Frame, seat: int, cards: list[str]) -> None:
        t.emit(Event("CardsDiscarded", {"seat": seat, "cards": sorted(cards)}))
        t.end()

    @handles("Pass")
    def pass_turn(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.emit(Event("Passed", {"seat": seat}))
        t.end()


class ChooseSeat(Step[State]):
    """Ask, first question: which seat to ask (one that holds a card)."""

    name = "choose_seat"

    def ask(self, s: State, frame: Frame) -> Prompt:
        return Prompt(frame.seat, "Ask: which seat do you ask for a card?").one_of(  # type: ignore[arg-type]
            "AskSeat", s.others_holding_cards(frame.seat),  # type: ignore[arg-type]
            why=lambda seat: f"seat {seat} cannot be asked for a card")

    @handles("AskSeat")
    def choose(self, t: Play, frame: Frame, seat: int, asked: int) -> None:
        t.goto("bid", seat, asked=asked)


class Bid(Step[State]):
    """Ask, second question: how many coins to bid. Then the asked seat chooses a card
    (``hand_over``), and play comes back to ``settle``."""

    name = "bid"

    def ask(self, s: State, frame: Frame) -> Prompt:
        seat: int = frame.seat  # type: ignore[assignment]
        return Prompt(seat, f"Ask: how many coins do you bid for a card of seat {frame.asked}'s choosing? "
                            f"You have {coins(s.coins[seat])}.").between("Bid", 0, s.coins[seat])

    @handles("Bid")
    def bid(self, t: Play, frame: Frame, seat: int, amount: int) -> None:
        t.emit(Event("BidMade", {"seat": seat, "asked": frame.asked, "coins": amount}))
        t.goto("settle", seat, asked=frame.asked, bid=amount)
        t.call("hand_over", frame.asked, asker=seat, bid=amount)


class HandOver(Step[State]):
    """The asked seat (not the asking one) chooses the card to hand over, face down."""

    name = "hand_over"

    def ask(self, s: State, frame: Frame) -> Prompt:
        return Prompt(frame.seat, f"Seat {frame.asker} bids {coins(frame.bid)} for a card: choose the card "  # type: ignore[arg-type]
                                  f"you hand over (only you and seat {frame.asker} will see it).").one_of(
            "GiveCard", sorted(s.hands[frame.seat]), why=lambda card: f"{card} is not in your hand")  # type: ignore[index]

    @handles("GiveCard")
    def give(self, t: Play, frame: Frame, seat: int, card: str) -> None:
        t.emit(Event("CardHandedOver", {"seat": seat, "to": frame.asker},
                     secret={"card": card}, secret_to=frozenset({seat, frame.asker})))
        t.end()


class Settle(Step[State]):
    """Back with the asking seat: keep the card handed over (and pay the bid) or return it."""

    name = "settle"

    def ask(self, s: State, frame: Frame) -> Prompt:
        offer = s.offer
        assert offer is not None, "settle resumes only once a card was handed over"
        return Prompt(frame.seat, f"Seat {offer.giver} handed you {offer.card}: keep it and pay "  # type: ignore[arg-type]
                                  f"{coins(frame.bid)}, or return it.").one_of("Settle", (KEEP, RETURN))

    @handles("Settle")
    def settle(self, t: Play, frame: Frame, seat: int, choice: str) -> None:
        if choice == KEEP:
            t.emit(Event("OfferKept", {"seat": seat, "paid_to": frame.asked, "coins": frame.bid}))
        else:
            t.emit(Event("OfferReturned", {"seat": seat, "to": frame.asked}))
        t.end()


VERBS = (
    Verb("Ask", "Ask another seat for a card; you then choose the seat and your bid.",
         refusal="you can ask for a card only at the start of your turn"),
    Verb("DiscardCards", "Discard one or two cards from your hand, face up.", Arg("cards", CARD, many=True),
         refusal="you can discard only at the start of your turn"),
    Verb("Pass", "End your turn doing nothing.", refusal="you can pass only at the start of your turn"),
    Verb("AskSeat", "Choose the seat you ask for a card.", Arg("seat", SEAT),
         refusal="you are not choosing a seat to ask"),
    Verb("Bid", "Bid coins for the card you asked for.", Arg("coins", AMOUNT), refusal="you are not bidding"),
    Verb("GiveCard", "Hand over the card you choose to the seat that asked you.", Arg("card", CARD),
         refusal="nobody is waiting for a card from you"),
    Verb("Settle", "Keep the card handed to you (paying your bid) or return it.", Arg("choice", CHOICE),
         refusal="no card was handed to you to keep or return"),
)


class Bargain(StepRules[State]):
    kind = "bargain"
    title = "Bargain (test game)"
    min_seats = 2
    max_seats = 3
    options_type = BargainOptions
    verbs = VERBS
    steps = step_table(Table(), TakeTurn(), ChooseSeat(), Bid(), HandOver(), Settle())
    #: undo stops where the seat owing the decision changes (the asked seat's card choice)
    barrier_on_handover = True

    def check_options(self, given: Any) -> BargainOptions:
        return BargainOptions.check(given)

    def setup(self, seats: int, options: BargainOptions, rng: Rng) -> list[Event]:
        t = self.begin(None, rng)  # type: ignore[arg-type]
        order = rng.shuffled(DECK)
        t.emit(Event("GameBegan", {"seats": seats, "turns": options.turns, "coins": options.coins}))
        for seat in range(seats):
            cards = sorted(order[seat * HAND_SIZE:(seat + 1) * HAND_SIZE])
            t.emit(Event("HandDealt", {"seat": seat, "count": HAND_SIZE}, secret={"cards": cards},
                         secret_to=frozenset({seat}), barrier=True))
        t.call("table", None, turn=0)
        self.run_until_input(t)
        return t.events

    def apply(self, s: State | None, e: Event) -> State:
        if e.type == "GameBegan":
            seats = e.data["seats"]
            return State(seats=seats, turns=e.data["turns"], hands=[[] for _ in range(seats)],
                         coins=[e.data["coins"]] * seats)
        assert s is not None
        if e.type == "HandDealt":
            s.hands[e.data["seat"]] = list(e.secret["cards"])  # type: ignore[index]
        elif e.type == "CardsDiscarded":
            for card in e.data["cards"]:
                s.hands[e.data["seat"]].remove(card)
                s.discards.append(card)
        elif e.type == "CardHandedOver":
            card = e.secret["card"]  # type: ignore[index]
            s.hands[e.data["seat"]].remove(card)
            s.offer = Offer(card, e.data["seat"], e.data["to"])
        elif e.type == "OfferKept":
            s.hands[e.data["seat"]].append(s.offer.card)  # type: ignore[union-attr]
            s.coins[e.data["seat"]] -= e.data["coins"]
            s.coins[e.data["paid_to"]] += e.data["coins"]
            s.offer = None
        elif e.type == "OfferReturned":
            s.hands[e.data["to"]].append(s.offer.card)  # type: ignore[union-attr]
            s.offer = None
        elif e.type == "GameEnded":
            s.over = True
        return s  # BidMade and Passed change nothing but the log

    def is_over(self, s: State) -> bool:
        return s.over

    def copy(self, s: State) -> State:
        return replace(s, hands=[list(hand) for hand in s.hands], coins=list(s.coins),
                       discards=list(s.discards), frames=list(s.frames))

    def view(self, s: State, viewer: int | str | None) -> dict[str, Any]:
        everything = s.over or viewer == EVERYONE
        out: dict[str, Any] = {
            "steps": [frame.to_json() for frame in s.frames],
            "coins": list(s.coins),
            "hand_counts": [len(hand) for hand in s.hands],
            "discards": sorted(s.discards),
            "offer": None,
        }
        if isinstance(viewer, int) and 0 <= viewer < s.seats:
            out["hand"] = sorted(s.hands[viewer])
        if s.offer is not None:
            out["offer"] = {"from": s.offer.giver, "to": s.offer.taker}
            if everything or viewer in (s.offer.giver, s.offer.taker):
                out["offer"]["card"] = s.offer.card
        if everything:
            out["hands"] = [sorted(hand) for hand in s.hands]
        return out

    def outcome(self, s: State) -> Outcome | None:
        if not s.over:
            return None
        scores = {seat: worth(hand) for seat, hand in enumerate(s.hands)}
        best = max(scores.values())
        return Outcome(tuple(seat for seat, score in scores.items() if score == best), scores,
                       {"coins": list(s.coins)})


RULES = Bargain()
