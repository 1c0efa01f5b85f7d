"""Derived quantities (rules.md section 6) and the small predicates the steps read.

Nothing here changes state. Rulers, stars, influence, hostages and supplies are always
computed from the pieces and cards where they are (R-CMP-5).
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.games.pax_pamir.data.board import (
    BLOCKS_PER_COALITION,
    BORDERS_OF,
    CYLINDERS_PER_PLAYER,
    GIFT_VALUES,
    MARKET_COLUMNS,
    MARKET_ROWS,
    Coalition,
    Region,
    Suit,
)
from domain.games.pax_pamir.data.cards import (
    ALWAYS_FAVORED,
    COURT_CARDS,
    NEW_TACTICS,
    Ability,
    CourtCard,
    EventEffect,
    is_dominance_check,
)
from domain.games.pax_pamir.state import PaxState

#: R-TRN-2: actions in a turn.
ACTIONS_PER_TURN = 2
#: R-BRB-4: declined negotiations allowed per turn.
DECLINED_BRIBES_LIMIT = 3


def card(number: int) -> CourtCard:
    return COURT_CARDS[number]


def owner_of(s: PaxState, number: int) -> int | None:
    """The seat whose court holds ``number``, or None."""
    for seat, player in enumerate(s.players):
        if number in player.court:
            return seat
    return None


def court_cards(s: PaxState) -> Iterator[tuple[int, int]]:
    """(seat, card) for every card in every court, in seat order, left to right (the spy track)."""
    for seat, player in enumerate(s.players):
        for number in player.court:
            yield seat, number


def has_ability(s: PaxState, seat: int, ability: Ability) -> bool:
    """R-SA: an ability is active only while its card is in its owner's court."""
    return any(card(n).special_ability == ability for n in s.players[seat].court)


def effect_active(s: PaxState, effect: EventEffect, seat: int | None = None) -> bool:
    """Is ``effect`` in force (for ``seat``, if it is a personal effect)?"""
    if effect not in s.effects:
        return False
    holder = s.effects[effect]
    return holder is None or seat is None or holder == seat


# -- 6.1 rulers ------------------------------------------------------------------------------

def tribes(s: PaxState, seat: int, region: Region) -> int:
    return s.tribes[region][seat]


def ruling_pieces(s: PaxState, seat: int, region: Region) -> int:
    loyalty = s.players[seat].loyalty
    return s.tribes[region][seat] + (s.armies[region][loyalty] if loyalty else 0)


def ruler_of(s: PaxState, region: Region) -> int | None:
    """R-RUL: the one seat with a tribe there whose ruling pieces beat every other seat's and
    every coalition's army count; None otherwise."""
    best_armies = max(s.armies[region].values(), default=0)
    counts = [ruling_pieces(s, seat, region) for seat in range(s.seats)]
    top = max(counts)
    if top <= best_armies or counts.count(top) > 1:
        return None
    seat = counts.index(top)
    return seat if s.tribes[region][seat] >= 1 else None


def rules(s: PaxState, seat: int, region: Region) -> bool:
    return ruler_of(s, region) == seat


def ruled_regions(s: PaxState, seat: int) -> list[Region]:
    return [region for region in Region if ruler_of(s, region) == seat]


# -- 6.2 stars -------------------------------------------------------------------------------

def stars(s: PaxState, seat: int, suit: Suit) -> int:
    """R-STR: ranks of the court cards of ``suit`` (91 and 99 keep their printed suit)."""
    return sum(card(n).rank for n in s.players[seat].court if card(n).suit == suit)


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
    patriots = sum(1 for n in player.court if card(n).patriot == player.loyalty)
    if s.effects.get(EventEffect.RUMOR, -1) == seat:  # Rumor targets one player
        patriots = 0
    gift_value = 1
    if EventEffect.EMBARRASSMENT_OF_RICHES in s.effects:
        gift_value = 0
    elif s.effects.get(EventEffect.KOH_I_NOOR_RECOVERED, -1) == seat:
        gift_value = 2
    return 1 + patriots + len(player.prizes) + gift_value * len(player.gifts)


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
    return (sum(s.tribes[r][seat] for r in Region) + sum(c[seat] for c in s.spies.values())
            + len(s.players[seat].gifts))


def cylinders_in_supply(s: PaxState, seat: int) -> int:
    return CYLINDERS_PER_PLAYER - cylinders_in_play(s, seat)


def blocks_in_play(s: PaxState, coalition: Coalition) -> int:
    return (sum(s.armies[r][coalition] for r in Region)
            + sum(c[coalition] for c in s.roads.values()))


def blocks_in_supply(s: PaxState, coalition: Coalition) -> int:
    return BLOCKS_PER_COALITION - blocks_in_play(s, coalition)


def free_gift_spaces(s: PaxState, seat: int) -> list[int]:
    return [value for value in GIFT_VALUES if value not in s.players[seat].gifts]


# -- favored suit and the market ---------------------------------------------------------------

def counts_as_favored(s: PaxState, seat: int, number: int) -> bool:
    """R-TRN-3: of the favored suit, card 91 or 99, or military under New Tactics."""
    court_card = card(number)
    if court_card.suit == s.favored or number in ALWAYS_FAVORED:
        return True
    return court_card.suit == Suit.MILITARY and s.effects.get(EventEffect.NEW_TACTICS, -1) == seat


def market_slots(s: PaxState) -> Iterator[tuple[int, int, int]]:
    """(row, column, card) for every card in the market."""
    for row in range(MARKET_ROWS):
        for column in range(MARKET_COLUMNS):
            number = s.market[row][column]
            if number is not None:
                yield row, column, number


def dominance_checks_left(s: PaxState) -> int:
    """Section 23 item 10: checks left in the deck and the market (public)."""
    in_market = sum(1 for _, _, n in market_slots(s) if is_dominance_check(n))
    return in_market + sum(1 for n in s.deck if is_dominance_check(n))


def roads_touching(s: PaxState, region: Region) -> Iterator[tuple[str, Coalition, int]]:
    for border in BORDERS_OF[region]:
        for coalition, count in s.roads[border].items():
            if count:
                yield border, coalition, count


__all__ = ["ACTIONS_PER_TURN", "DECLINED_BRIBES_LIMIT", "NEW_TACTICS"]
