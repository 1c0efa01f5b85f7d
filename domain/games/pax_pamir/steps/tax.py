"""Tax (R-TAX, rules.md section 10): up to the card's rank in rupees, from market cards or
from players whose court holds a card of a region the taxer rules."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import MARKET_COLUMNS, MARKET_ROWS, Region
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    Ability,
)
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    CARD,
    STOP_ACTION,
    ActionStep,
    Play,
    seat_of,
)
from domain.kernel.prompt import SEAT, Arg, Prompt, Verb
from domain.kernel.steps import Frame, handles


def taxable_market_cards(s: PaxState) -> list[int]:
    """R-TAX-1, section 23 item 1: cards with rupees on them (never an empty slot)."""
    found: list[int] = []  # (the market read slot by slot: no triple made for every card)
    for row in range(MARKET_ROWS):
        cards, rupees = s.market[row], s.market_rupees[row]
        for column in range(MARKET_COLUMNS):
            number = cards[column]
            if number is not None and rupees[column] > 0:
                found.append(number)
    return found


def taxable_seats(s: PaxState, seat: int) -> list[int]:
    """R-TAX-1, R-TAX-2: another seat with a court card of a region ``seat`` rules (any
    region with Claim of Ancient Lineage, but never a seat with an empty court) and rupees
    above its tax shelter."""
    claim = q.has_ability(s, seat, Ability.CLAIM_OF_ANCIENT_LINEAGE)
    ruled = set(q.ruled_regions(s, seat))
    found = []
    for other, player in enumerate(s.players):
        if other == seat or not player.court:
            continue
        if not claim and not _holds_card_of(player.court, ruled):
            continue
        if player.rupees > q.tax_shelter(s, other):
            found.append(other)
    return found


def _holds_card_of(court: list[int], regions: set[Region]) -> bool:
    """Is a card of one of ``regions`` in ``court``? (a loop: a generator given to ``any`` is
    made and resumed item by item)"""
    for number in court:
        if COURT_CARDS[number].region in regions:
            return True
    return False


#: the verbs of this module, each said once: declared here, handled and offered by name
TAX_MARKET: Final = Verb("TaxMarket", "Tax: take one rupee from this market card (R-TAX-1).", Arg("card", CARD),
                         refusal="you are not taxing now")
TAX_PLAYER: Final = Verb("TaxPlayer", "Tax: take one rupee from this player (R-TAX-1).", Arg("seat", SEAT),
                         refusal="you are not taxing now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Tax(ActionStep):
    """R-TAX-1 to R-TAX-3: up to the card's rank in rupees, one at a time, from market cards
    or from taxable seats (never below their shelter); stopping early is allowed."""

    name = names.TAX

    def asks(self, s: PaxState, frame: Frame) -> bool:
        """Rupees left to take, and somewhere to take one from (the market first, the cheaper
        question)."""
        if frame.left <= 0:
            return False
        return bool(taxable_market_cards(s)) or bool(taxable_seats(s, seat_of(frame)))

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if not self.asks(s, frame):
            return None
        seat = seat_of(frame)
        return (Prompt(seat, f"Tax: take up to {frame.left} more rupee(s), one at a time, from market cards "
                       "or from players you may tax.")
                .one_of(TAX_MARKET, taxable_market_cards(s)).one_of(TAX_PLAYER, taxable_seats(s, seat))
                .nothing(STOP_ACTION))

    @handles(TAX_MARKET)
    def market(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        row, column = next((r, c) for r, c, n in q.market_slots(t.state) if n == number)
        t.update(left=frame.left - 1)
        t.emit(ev.rupees_moved(1, places.market(row, column), places.purse(seat), "tax"))

    @handles(TAX_PLAYER)
    def player(self, t: Play, frame: Frame, seat: int, other: int) -> None:
        t.update(left=frame.left - 1)
        t.emit(ev.rupees_moved(1, places.purse(other), places.purse(seat), "tax"))


VERBS = (
    TAX_MARKET,
    TAX_PLAYER,
)

STEPS = (Tax(),)
