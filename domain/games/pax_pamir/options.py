"""Game-creation options of Pax Pamir. The seat count (2-5) comes from the platform.

``deal`` fixes the whole deal (rules.md section 23 item 12): the deck top first, whose first
12 cards fill the market in the R-SET-2 order, and the order of the loyalty choices. The seat
count is not known here, so ``validate`` checks everything a deal says by itself (its size
names the seat count it is for) and setup refuses a deal made for another seat count.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir.data.board import (
    MAX_SEATS,
    MIN_SEATS,
    PILE_BASE_SIZE,
    PILE_COUNT,
    PILE_EXTRAS,
    deck_size,
    pile_size,
)
from domain.games.pax_pamir.data.cards import ALL_CARDS, is_court_card, is_dominance_check, is_event
from domain.kernel.errors import InvalidOptions
from domain.kernel.rules import GameOptions, option

DEAL: Final = "deal"
#: Section 20: Wakhan plays with 1 or 2 humans; the published variants of her rules.
WAKHAN_HUMAN_SEATS = (1, 2)
WAKHAN_VARIANTS = ("wakhan_steadfast_loyalty", "wakhan_savvy_purchasing", "wakhan_spy_movement", "wakhan_paced")


def wakhan_loyalty_order(table: int) -> list[int]:
    """R-SET-5 with Wakhan (BGA's seating): she sits in the last seat, immediately before the
    last chooser, seat 0, and takes the first turn; so the choices run clockwise from seat 1
    (her place in the order passes: she takes no loyalty)."""
    return [(1 + step) % table for step in range(table)]
DEAL_KEYS = ("deck", "loyalty_order")

#: R-SET table: the seat count each legal deck size is for.
SEATS_OF_DECK_SIZE: dict[int, int] = {deck_size(seats): seats for seats in range(MIN_SEATS, MAX_SEATS + 1)}


def _refuse(reason: str) -> InvalidOptions:
    return InvalidOptions(DEAL, reason)


def _whole_numbers(value: Any, what: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise _refuse(f"{what} must be a list of whole numbers")
    return value


def pile_bounds(seats: int) -> list[tuple[int, int]]:
    """R-SET-1: where each of the six piles lies in the deck, pile 1 (the top) first."""
    bounds, start = [], 0
    for events, checks in PILE_EXTRAS:
        end = start + pile_size(seats) + events + checks
        bounds.append((start, end))
        start = end
    return bounds


def check_deal(deal: Any) -> int:
    """Refuse (``InvalidOptions`` naming ``deal``) a deal the R-SET-1 pile construction cannot
    produce; return the seat count it is for."""
    if not isinstance(deal, dict):
        raise _refuse("must be an object {deck, loyalty_order} or null")
    unknown = sorted(set(deal) - set(DEAL_KEYS))
    missing = [key for key in DEAL_KEYS if key not in deal]
    if unknown or missing:
        raise _refuse(f"takes exactly the keys {', '.join(DEAL_KEYS)}"
                      + (f"; unknown {', '.join(map(str, unknown))}" if unknown else "")
                      + (f"; missing {', '.join(missing)}" if missing else ""))
    deck = _whole_numbers(deal["deck"], "deck")
    order = _whole_numbers(deal["loyalty_order"], "loyalty_order")
    seats = SEATS_OF_DECK_SIZE.get(len(deck))
    if seats is None:
        sizes = ", ".join(f"{size} ({n} seats)" for size, n in SEATS_OF_DECK_SIZE.items())
        raise _refuse(f"the deck has {len(deck)} cards; a deck has {sizes}")
    strangers = sorted({n for n in deck if n not in ALL_CARDS})
    if strangers:
        raise _refuse(f"the deck holds unknown cards {strangers}; cards are numbered 1 to {max(ALL_CARDS)}")
    twice = sorted(n for n, count in Counter(deck).items() if count > 1)
    if twice:
        raise _refuse(f"the deck holds cards more than once: {twice}")
    totals = (sum(map(is_court_card, deck)), sum(map(is_event, deck)), sum(map(is_dominance_check, deck)))
    wanted = (PILE_COUNT * pile_size(seats), sum(e for e, _ in PILE_EXTRAS), sum(c for _, c in PILE_EXTRAS))
    if totals != wanted:
        raise _refuse(f"a {seats}-seat deck holds {wanted[0]} court cards, exactly {wanted[1]} events and exactly "
                      f"{wanted[2]} Dominance Checks, not {totals[0]}, {totals[1]} and {totals[2]} (R-SET-1)")
    for pile, ((start, end), (events, checks)) in enumerate(zip(pile_bounds(seats), PILE_EXTRAS, strict=True), 1):
        cards = deck[start:end]
        found = (sum(map(is_event, cards)), sum(map(is_dominance_check, cards)), sum(map(is_court_card, cards)))
        if found != (events, checks, PILE_BASE_SIZE + seats):
            raise _refuse(
                f"deck cards {start + 1}-{end} are pile {pile} of a {seats}-seat deck, which holds "
                f"{PILE_BASE_SIZE + seats} court cards, {events} event(s) and {checks} Dominance Check(s), "
                f"not {found[2]}, {found[0]} and {found[1]} (R-SET-1)")
    if sorted(order) != list(range(seats)) or any(order[i] != (order[0] + i) % seats for i in range(seats)):
        raise _refuse(f"loyalty_order must be the {seats} seats clockwise from the first chooser "
                      f"(such as {list(range(seats))}), not {order}")
    return seats


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class PaxOptions(GameOptions):
    open_hands: bool = option(False, "Every hand is shown to every seat (R-SET-6: hands are hidden otherwise).")
    first_chooser: str = option(
        "random", "Who chooses loyalty first: a random seat (R-SET-5), or seat 0 as in tournament play.",
        choices=("random", "seat_0"))
    wakhan: bool = option(
        False, "Wakhan, the automated opponent (rules.md section 20), takes one more seat: for 1 or 2 human "
        "seats. She counts as a seat for the deck size, takes the first turn, and no client plays for her.")
    wakhan_steadfast_loyalty: bool = option(
        False, "Wakhan variant Steadfast Pragmatic Loyalty: of the coalitions no human holds, she takes the one "
        "with the most blocks in play (ties: her AI card's order).")
    wakhan_savvy_purchasing: bool = option(
        False, "Wakhan variant Savvy Purchasing: a court card her arrows pick gives way to a cheaper one of the "
        "same suit and at least its rank (the cheapest, then the leftmost); with a check in the market, no "
        "dominant coalition and no card with a spy or tribe icon, she takes the card that nets her the most rupees.")
    wakhan_spy_movement: bool = option(
        False, "Wakhan variant Spy Movement: a Move with no army to move moves an idle spy of hers (one not tied "
        "up by enemy spies) to the top-priority card it can reach where she does not have the most spies.")
    wakhan_paced: bool = option(
        False, "Pace Wakhan's turn: after each of her actions the game waits until the human who plays after "
        "her lets her go on (NextWakhanAction), so a client can show her moves one at a time. Off, her whole "
        "turn comes in one command.")
    deal: dict[str, Any] | None = option(
        None,
        "A given deal instead of a shuffled one (tournaments, replays of a physical game, tests): an object "
        "{deck: [card numbers, top first], loyalty_order: [seats]}. The deck is one R-SET-1 pile construction "
        "for the seat count (52, 58, 64 or 70 cards for 2 to 5 seats: no event in the first 5+n cards, 2 events "
        "in the next pile, then one event and one Dominance Check in each of the four piles after it); its first "
        "12 cards fill the market column by column, top row first (R-SET-2). loyalty_order is every seat, "
        "clockwise from the first to choose; the last chooser takes the first turn. The deal is a secret "
        "option: it is kept with the game's hidden facts and shown to no seat until the game is over. "
        "null: shuffle.",
        kind="object", secret=True, shape={
            "type": "object", "required": list(DEAL_KEYS), "additionalProperties": False, "properties": {
                "deck": {"type": "array", "minItems": min(SEATS_OF_DECK_SIZE), "maxItems": max(SEATS_OF_DECK_SIZE),
                         "items": {"type": "integer", "minimum": min(ALL_CARDS), "maximum": max(ALL_CARDS)}},
                "loyalty_order": {"type": "array", "minItems": MIN_SEATS, "maxItems": MAX_SEATS,
                                  "items": {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1}}}})

    def validate(self) -> None:
        variants = [name for name in WAKHAN_VARIANTS if getattr(self, name)]
        if variants and not self.wakhan:
            raise InvalidOptions(variants[0], "is a variant of Wakhan: it needs the option wakhan")
        if self.deal is None:
            return
        check_deal(self.deal)
        if not self.wakhan and self.first_chooser == "seat_0" and self.deal["loyalty_order"][0] != 0:
            raise _refuse("first_chooser is seat_0 but the deal's loyalty_order starts with seat "
                          f"{self.deal['loyalty_order'][0]}")

    def table_seats(self, seats: int) -> int:
        """The seats at the table for ``seats`` human seats: Wakhan takes one more (R-SET)."""
        return seats + 1 if self.wakhan else seats

    def validate_seats(self, seats: int) -> None:
        """Wakhan plays with 1 or 2 humans, and one human needs her (R-SET); a deal is made for
        one seat count (its deck size says which), Wakhan's seat included."""
        if self.wakhan and seats not in WAKHAN_HUMAN_SEATS:
            raise InvalidOptions("wakhan", f"Wakhan plays with 1 or 2 human seats, not {seats}")
        if not self.wakhan and seats < MIN_SEATS:
            raise InvalidOptions("seats", f"Pax Pamir needs {MIN_SEATS} seats, or 1 with the option wakhan")
        table = self.table_seats(seats)
        if self.deal is not None and check_deal(self.deal) != table:
            raise _refuse(f"the deal's deck of {len(self.deal['deck'])} cards is for {check_deal(self.deal)} "
                          f"seats, not {table}" + (" (Wakhan's seat included)" if self.wakhan else ""))
        if self.deal is not None and self.wakhan and self.deal["loyalty_order"] != wakhan_loyalty_order(table):
            raise _refuse(f"with Wakhan the loyalty order is {wakhan_loyalty_order(table)} (seat 1 first, seat 0 "
                          "last; Wakhan, the last seat, chooses nothing), not "
                          f"{self.deal['loyalty_order']}")
