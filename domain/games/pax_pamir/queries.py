"""Derived quantities (rules.md section 6) and the small predicates the steps read.

Nothing here changes state. Rulers, stars, influence, hostages and supplies are always
computed from the pieces and cards where they are (R-CMP-5).
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from domain.games.pax_pamir.data.board import (
    BLOCKS_PER_COALITION,
    COALITIONS,
    CYLINDERS_PER_PLAYER,
    GIFT_VALUES,
    Coalition,
    Region,
    Suit,
)
from domain.games.pax_pamir.data.cards import (
    ALWAYS_FAVORED,
    COURT_CARDS,
    DOMINANCE_CHECKS,
    Ability,
    CourtCard,
    EventEffect,
    cards_with_ability,
)
from domain.games.pax_pamir.state import PaxState

#: R-TRN-2: actions in a turn.
ACTIONS_PER_TURN: Final = 2
#: R-BRB-4: declined negotiations allowed per turn.
DECLINED_BRIBES_LIMIT: Final = 3

# The predicates below run thousands of times per game (every prompt reads them), so they
# read these flat tables rather than the card objects, iterate tuples rather than the
# enums, and read counters with ``get`` (a missing key costs a Python-level __missing__).
_REGIONS: Final[tuple[Region, ...]] = tuple(Region)
_RANK: Final[dict[int, int]] = {n: c.rank for n, c in COURT_CARDS.items()}
_SUIT: Final[dict[int, Suit]] = {n: c.suit for n, c in COURT_CARDS.items()}
_PATRIOT: Final[dict[int, Coalition | None]] = {n: c.patriot for n, c in COURT_CARDS.items()}
_PRIZE: Final[dict[int, Coalition | None]] = {n: c.prize for n, c in COURT_CARDS.items()}
#: (keyed by the members, the keys the rules look up: a dict of plain strings looked up with a
#: member compares the two, where a member key is found by identity)
_CARDS_WITH: Final[dict[Ability, tuple[int, ...]]] = {ability: cards_with_ability(ability) for ability in Ability}


def card(number: int) -> CourtCard:
    return COURT_CARDS[number]


def owner_of(s: PaxState, number: int) -> int | None:
    """The seat whose court holds ``number``, or None."""
    for seat, player in enumerate(s.players):
        if number in player.court:
            return seat
    return None


def court_cards(s: PaxState) -> list[tuple[int, int]]:
    """(seat, card) for every card in every court, in seat order, left to right (the spy track).
    (A list, not a generator: compiled, a generator's every item is a call of its helper.)"""
    found: list[tuple[int, int]] = []
    for seat, player in enumerate(s.players):
        for number in player.court:
            found.append((seat, number))
    return found


def has_ability(s: PaxState, seat: int, ability: Ability) -> bool:
    """R-SA: an ability is active only while its card is in its owner's court."""
    court = s.players[seat].court
    for number in _CARDS_WITH[ability]:
        if number in court:
            return True
    return False


def holds_any(s: PaxState, seat: int, cards: frozenset[int]) -> bool:
    """Is one of ``cards`` in the seat's court? (``has_ability`` for several abilities at once,
    in one pass over the court)"""
    for number in s.players[seat].court:
        if number in cards:
            return True
    return False


def effect_active(s: PaxState, effect: EventEffect, seat: int | None = None) -> bool:
    """Is ``effect`` in force (for ``seat``, if it is a personal effect)?"""
    if effect not in s.effects:
        return False
    holder = s.effects[effect]
    return holder is None or seat is None or holder == seat


# -- 6.1 rulers ------------------------------------------------------------------------------

def tribes(s: PaxState, seat: int, region: Region) -> int:
    return s.tribes[region].get(seat, 0)


def ruler_of(s: PaxState, region: Region) -> int | None:
    """R-RUL: the one seat with a tribe there whose ruling pieces beat every other seat's and
    every coalition's army count; None otherwise."""
    armies = s.armies[region]
    tribes_here = s.tribes[region]
    most_armies = 0  # a seat must beat every coalition's armies
    for coalition in COALITIONS:  # (a Counter's ``values`` is a Python-level method call)
        count = armies.get(coalition, 0)
        if count > most_armies:
            most_armies = count
    top = most_armies
    wakhan = s.wakhan.seat if s.wakhan is not None else None
    ruler: int | None = None
    for seat, player in enumerate(s.players):
        loyalty = player.loyalty
        if seat == wakhan:  # section 6.1: her tribes plus the most numerous coalition's armies
            count = tribes_here.get(seat, 0) + most_armies
        else:
            count = tribes_here.get(seat, 0) + (armies.get(loyalty, 0) if loyalty else 0)
        if count > top:
            top, ruler = count, seat
        elif count == top:
            ruler = None  # a tie (with a seat or with the armies) means no ruler
    if ruler is None or not _has_tribe(tribes_here, ruler):
        return None
    return ruler


def _has_tribe(tribes_here: Counter[int], seat: int) -> bool:
    """R-RUL: only a seat with a tribe in a region may rule it."""
    return tribes_here.get(seat, 0) >= 1


def rules(s: PaxState, seat: int, region: Region) -> bool:
    """Does ``seat`` rule ``region`` (``ruler_of``; a region where it has no tribe is not worked out)?"""
    return _has_tribe(s.tribes[region], seat) and ruler_of(s, region) == seat


def ruled_regions(s: PaxState, seat: int) -> list[Region]:
    """The regions ``seat`` rules (``rules``)."""
    return [region for region in _REGIONS if rules(s, seat, region)]


# -- 6.2 stars -------------------------------------------------------------------------------

def stars(s: PaxState, seat: int, suit: Suit) -> int:
    """R-STR: ranks of the court cards of ``suit`` (91 and 99 keep their printed suit)."""
    total = 0  # (a loop: a generator given to sum is made and resumed item by item)
    for n in s.players[seat].court:
        if _SUIT[n] == suit:
            total += _RANK[n]
    return total


def court_limit(s: PaxState, seat: int) -> int:
    return 3 + stars(s, seat, Suit.POLITICAL)


def hand_limit(s: PaxState, seat: int) -> int:
    return 2 + stars(s, seat, Suit.INTELLIGENCE)


def tax_shelter(s: PaxState, seat: int) -> int:
    return stars(s, seat, Suit.ECONOMIC)


# -- 6.3 influence, 6.4 hostage --------------------------------------------------------------

def influence(s: PaxState, seat: int) -> int:
    """R-INF: 1 + patriots (0 under Rumor) + prizes + gifts (x2 with Koh-i-noor, x0 under
    Embarrassment of Riches)."""
    player = s.players[seat]
    loyalty = player.loyalty
    return _influence(s, seat, sum(1 for n in player.court if _PATRIOT[n] == loyalty), len(player.prizes))


def influence_with(s: PaxState, seat: int, coalition: Coalition) -> int:
    """R-INF as if ``seat`` were loyal to ``coalition``: only its patriots and prizes count.
    Wakhan's influence at a check is this with the dominant coalition (section 20); for a
    human loyal to ``coalition`` it is ``influence`` (every patriot and prize they hold is
    of their coalition, R-LOY)."""
    player = s.players[seat]
    return _influence(s, seat, sum(1 for n in player.court if _PATRIOT[n] == coalition),
                      sum(1 for n in player.prizes if _PRIZE[n] == coalition))


def _influence(s: PaxState, seat: int, patriots: int, prizes: int) -> int:
    if s.effects.get(EventEffect.RUMOR, -1) == seat:  # Rumor targets one player
        patriots = 0
    gift_value = 1
    if EventEffect.EMBARRASSMENT_OF_RICHES in s.effects:
        gift_value = 0
    elif s.effects.get(EventEffect.KOH_I_NOOR_RECOVERED, -1) == seat:
        gift_value = 2
    return 1 + patriots + prizes + gift_value * len(s.players[seat].gifts)


def hostage_holder(s: PaxState, number: int) -> int | None:
    """R-HST: the non-owner with strictly the most spies on the card, if any."""
    spies = s.spies.get(number)
    if not spies:
        return None
    owner = owner_of(s, number)
    best = max(spies.values())
    leaders = [seat for seat, count in spies.items() if count == best and count > 0]
    if len(leaders) != 1 or leaders[0] == owner:
        return None
    return leaders[0]


# -- supplies ----------------------------------------------------------------------------------

def cylinders_in_play(s: PaxState, seat: int) -> int:
    total = len(s.players[seat].gifts)
    for tribes in s.tribes.values():
        total += tribes.get(seat, 0)
    for spies in s.spies.values():
        total += spies.get(seat, 0)
    return total


def cylinders_in_supply(s: PaxState, seat: int) -> int:
    return CYLINDERS_PER_PLAYER - cylinders_in_play(s, seat)


def blocks_in_play(s: PaxState, coalition: Coalition) -> int:
    total = 0
    for armies in s.armies.values():
        total += armies.get(coalition, 0)
    for roads in s.roads.values():
        total += roads.get(coalition, 0)
    return total


def blocks_in_supply(s: PaxState, coalition: Coalition) -> int:
    return BLOCKS_PER_COALITION - blocks_in_play(s, coalition)


def free_gift_spaces(s: PaxState, seat: int) -> list[int]:
    return [value for value in GIFT_VALUES if value not in s.players[seat].gifts]


# -- favored suit and the market ---------------------------------------------------------------

def counts_as_favored(s: PaxState, seat: int, number: int) -> bool:
    """R-TRN-3: of the favored suit, card 91 or 99, or military under New Tactics."""
    suit = _SUIT[number]
    if suit == s.favored or number in ALWAYS_FAVORED:
        return True
    return suit == Suit.MILITARY and s.effects.get(EventEffect.NEW_TACTICS, -1) == seat


def market_slots(s: PaxState) -> list[tuple[int, int, int]]:
    """(row, column, card) for every card in the market (a list, as ``court_cards`` is)."""
    found: list[tuple[int, int, int]] = []
    for row, cards in enumerate(s.market):
        for column, number in enumerate(cards):
            if number is not None:
                found.append((row, column, number))
    return found


def dominance_checks_left(s: PaxState) -> int:
    """Section 23 item 10: checks left in the deck and the market (public)."""
    in_market = sum(1 for row in s.market for n in row if n in DOMINANCE_CHECKS)
    return in_market + sum(1 for n in s.deck if n in DOMINANCE_CHECKS)
