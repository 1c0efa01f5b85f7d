"""Setup (rules.md section 3, R-SET) and the round of turns (R-TRN-6, R-CLN-7)."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    MARKET_COLUMNS,
    MARKET_ROWS,
    PILE_COUNT,
    PILE_EXTRAS,
    STARTING_RUPEES,
    Coalition,
    pile_size,
)
from domain.games.pax_pamir.data.cards import ALL_CARDS, COURT_CARDS, DOMINANCE_CHECKS, EVENT_CARDS
from domain.games.pax_pamir.options import PaxOptions, wakhan_loyalty_order
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play
from domain.games.pax_pamir.steps.event_cards import start_of_turn
from domain.kernel.prompt import COALITION, Arg, Prompt, Verb
from domain.kernel.rng import Rng
from domain.kernel.steps import Frame, Step, handles


def build_deck(rng: Rng, seats: int) -> tuple[list[int], list[int]]:
    """R-SET-1: six piles of ``5 + seats`` court cards; pile 1 (the top) gets no event, pile 2
    two events, piles 3-6 one event and one Dominance Check each; each pile shuffled on its
    own, then stacked with pile 1 on top. Returns (deck top first, cards left out)."""
    court = rng.shuffled(sorted(COURT_CARDS))
    events = rng.shuffled(sorted(EVENT_CARDS))
    checks = sorted(DOMINANCE_CHECKS)
    size = pile_size(seats)
    deck: list[int] = []
    for index, (event_count, check_count) in enumerate(PILE_EXTRAS):
        pile = court[index * size:(index + 1) * size] + events[:event_count] + checks[:check_count]
        events, checks = events[event_count:], checks[check_count:]
        deck += rng.shuffled(pile)
    return deck, court[PILE_COUNT * size:] + events


def market_fill_order() -> tuple[tuple[int, int], ...]:
    """R-SET-2, R-CLN-5: column by column from the left, top row before bottom row."""
    return _FILL_ORDER


#: ``market_fill_order``, made once (every cleanup refills the market)
_FILL_ORDER: Final = tuple([(row, column) for column in range(MARKET_COLUMNS) for row in range(MARKET_ROWS)])


def setup(t: Play, seats: int, options: PaxOptions) -> None:
    """R-SET-1 to R-SET-5: the deck, the market, 4 rupees each, then loyalty choices from a
    random seat (or seat 0) clockwise; the last to choose takes the first turn. A given deal
    (section 23 item 12) fixes the deck and the order of the choices instead of the rng."""
    rng = t.rng
    assert rng is not None
    # The deal is the deck order: the game's own record of its options leaves it out (the
    # deck is in DeckBuilt, a secret of nobody's).
    t.emit(ev.setup_started({**options.to_json(), "deal": None}, seats))
    if options.deal is not None:
        deck, out, order = dealt(options.deal, seats)
    else:
        deck, out = build_deck(rng, seats)
        if options.wakhan:  # section 20, R-SET-5: her seating fixes the order
            order = wakhan_loyalty_order(seats)
        else:
            first = 0 if options.first_chooser == "seat_0" else rng.randint(0, seats - 1)
            order = [(first + step) % seats for step in range(seats)]
    t.emit(ev.deck_built(deck, out))
    first_turn = order[-1]
    if options.wakhan:
        wakhan = t.state.wakhan
        assert wakhan is not None  # her AI deck is shuffled at her first draw
        order = [seat for seat in order if seat != wakhan.seat]  # she takes no loyalty
        first_turn = wakhan.seat  # and she takes the first turn
    for row, column in market_fill_order():
        t.emit(ev.card_dealt(t.state.deck[0], row, column))
    for seat in range(seats):
        t.emit(ev.rupees_moved(STARTING_RUPEES, "bank", places.purse(seat), "setup"))
    t.emit(ev.loyalty_order_chosen(order))
    t.call(names.TURNS, None, next=first_turn)
    t.call(names.LOYALTY, order[0], order=order, index=0)


def dealt(deal: dict[str, list[int]], seats: int) -> tuple[list[int], list[int], list[int]]:
    """Section 23 item 12: the deck, the cards left out and the loyalty order of a given deal,
    which ``PaxOptions`` has checked, for this seat count too (``check_setup``)."""
    deck = list(deal["deck"])
    return deck, sorted(set(ALL_CARDS) - set(deck)), list(deal["loyalty_order"])


#: the verbs of this module, each said once: declared here, handled and offered by name
CHOOSE_LOYALTY: Final = Verb("ChooseLoyalty", "Choose the coalition you are loyal to (R-SET-5).", Arg("coalition", COALITION),
                             refusal="you are not choosing a loyalty now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Loyalty(Step[PaxState]):
    """R-SET-5: each seat in turn chooses a coalition; choices are free."""

    name = names.LOYALTY

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        return Prompt(frame.owner_seat, "Choose the coalition you are loyal to.").one_of(
            "ChooseLoyalty", [c.value for c in Coalition])

    @handles(CHOOSE_LOYALTY)
    def choose(self, t: Play, frame: Frame, seat: int, coalition: str) -> None:
        t.emit(ev.loyalty_chosen(seat, coalition))
        following = frame.index + 1
        if following < len(frame.order):
            t.goto(names.LOYALTY, frame.order[following], order=frame.order, index=following)
        else:
            t.end()


@mypyc_attr(allow_interpreted_subclasses=True)
class Turns(Step[PaxState]):
    """R-TRN: seats take turns clockwise until the game ends; each turn starts here."""

    name = names.TURNS

    def advance(self, t: Play, frame: Frame) -> None:
        seat = frame.next
        t.update(next=(seat + 1) % t.state.seats)
        t.emit(ev.turn_started(seat, q.ACTIONS_PER_TURN))
        if is_wakhan(t.state, seat):  # section 20: her turn runs by itself
            t.call(names.WAKHAN_TURN, seat)
            return
        t.call(names.TURN, seat)
        start_of_turn(t, seat)


VERBS = (
    CHOOSE_LOYALTY,
)

STEPS = (Loyalty(), Turns())
