"""The map, the coalitions, the suits and the component counts of Pax Pamir.

Rule ids refer to ``shared/rules/paxpamir/rules.md``: the glossary (section 0), components
(R-CMP, section 1), the map (R-MAP, section 2) and setup (R-SET, section 3).
"""

from __future__ import annotations

from enum import StrEnum
from itertools import combinations
from typing import Final


class Region(StrEnum):
    """The six regions of the map (R-MAP), west to east as rules.md lists them."""

    PERSIA = "persia"
    TRANSCASPIA = "transcaspia"
    HERAT = "herat"
    KABUL = "kabul"
    KANDAHAR = "kandahar"
    PUNJAB = "punjab"


class Coalition(StrEnum):
    """The three coalitions a player can be loyal to (glossary: coalition)."""

    AFGHAN = "afghan"
    BRITISH = "british"
    RUSSIAN = "russian"


class Suit(StrEnum):
    """The four court card suits (glossary: stars / rank; R-STR)."""

    ECONOMIC = "economic"
    MILITARY = "military"
    POLITICAL = "political"
    INTELLIGENCE = "intelligence"


class Border(StrEnum):
    """The nine borders (R-MAP). An id is its two region names in alphabetical order."""

    HERAT_KABUL = "herat_kabul"
    HERAT_KANDAHAR = "herat_kandahar"
    HERAT_PERSIA = "herat_persia"
    HERAT_TRANSCASPIA = "herat_transcaspia"
    KABUL_KANDAHAR = "kabul_kandahar"
    KABUL_PUNJAB = "kabul_punjab"
    KABUL_TRANSCASPIA = "kabul_transcaspia"
    KANDAHAR_PUNJAB = "kandahar_punjab"
    PERSIA_TRANSCASPIA = "persia_transcaspia"


_BORDER_ID_SEPARATOR = "_"


def _regions_in_id(border: Border) -> tuple[Region, Region]:
    first, second = (Region(name) for name in border.value.split(_BORDER_ID_SEPARATOR))
    if first.value >= second.value:
        raise ValueError(f"border id {border.value!r} does not name its regions in alphabetical order")
    return first, second


# A member's id, in code that runs on every prompt or event, is ``str(member)`` (a StrEnum's
# ``str`` is its value, a plain ``str``), not ``member.value``: ``value`` is a property of the
# enum written in Python, an interpreted call on every read.

#: the regions and coalitions in declaration order, as tuples (iterating an enum runs
#: the enum's own generator, interpreted, for every member: several times a tuple's cost)
REGIONS: Final[tuple[Region, ...]] = tuple(Region)
COALITIONS: Final[tuple[Coalition, ...]] = tuple(Coalition)
#: each region, border and coalition by its id: what ``Region(id)`` gives, without the enum's
#: call, which runs interpreted (for ids the engine wrote itself: events, step locals)
REGION_BY_ID: Final[dict[str, Region]] = {region.value: region for region in Region}
BORDER_BY_ID: Final[dict[str, Border]] = {border.value: border for border in Border}
COALITION_BY_ID: Final[dict[str, Coalition]] = {coalition.value: coalition for coalition in Coalition}

#: The two regions a border joins, in the alphabetical order of its id.
REGIONS_OF: dict[Border, tuple[Region, Region]] = {border: _regions_in_id(border) for border in Border}

#: The borders of each region, in ``Border`` declaration order (R-MAP: herat 4, ..., punjab 2).
BORDERS_OF: Final[dict[Region, tuple[Border, ...]]] = {
    region: tuple(border for border, pair in REGIONS_OF.items() if region in pair) for region in Region
}

#: The regions across one border from each region. Army and tribe moves go one border at a time (R-MOV).
ADJACENT: dict[Region, frozenset[Region]] = {
    region: frozenset(other for pair in REGIONS_OF.values() if region in pair for other in pair if other != region)
    for region in Region
}

#: From each region, (the region across, the border crossed), by the region's name: the
#: topology a Move reads on every prompt, computed once.
CROSSINGS: dict[Region, tuple[tuple[Region, Border], ...]] = {
    region: tuple(sorted(((other, border) for border, pair in REGIONS_OF.items() if region in pair
                          for other in pair if other != region), key=lambda crossing: crossing[0].value))
    for region in Region
}

_BORDER_BY_PAIR: dict[frozenset[Region], Border] = {frozenset(pair): border for border, pair in REGIONS_OF.items()}


def border_between(a: Region, b: Region) -> Border | None:
    """The border joining two regions, in either order; ``None`` if they are not adjacent (R-MAP)."""
    return _BORDER_BY_PAIR.get(frozenset((a, b)))


#: Region pairs with no border between them (R-MAP lists six).
NON_ADJACENT_PAIRS: tuple[tuple[Region, Region], ...] = tuple(
    (a, b) for a, b in combinations(Region, 2) if border_between(a, b) is None
)

# --- Components (R-CMP) ---------------------------------------------------------------------

#: R-CMP-1: blocks of each coalition, shared by everyone loyal to it.
BLOCKS_PER_COALITION: Final = 12
#: R-CMP-2: a player's cylinders in play (tribes, spies, gifts); the eleventh is the VP marker.
CYLINDERS_PER_PLAYER: Final = 10
#: R-CMP-3 / R-SET-3: rupees each player starts with.
STARTING_RUPEES: Final = 4
#: R-CMP-4: the rupee price of each gift space on a loyalty dial, cheapest first.
GIFT_VALUES: Final[tuple[int, ...]] = (2, 4, 6)
#: R-CMP-7 / R-SET-4: the favored suit at the start of the game.
STARTING_FAVORED_SUIT = Suit.POLITICAL

# --- Market and setup (R-SET) ---------------------------------------------------------------

#: Glossary (market) / R-SET-2: the market is a grid of 2 rows by 6 columns.
MARKET_ROWS: Final = 2
MARKET_COLUMNS: Final = 6

#: R-SET: seats, Wakhan included when she plays.
MIN_SEATS: Final = 2
MAX_SEATS: Final = 5

#: R-SET-1: the deck is built from six piles of court cards.
PILE_COUNT: Final = 6
#: R-SET-1: each pile holds this many court cards plus one per seat.
PILE_BASE_SIZE: Final = 5
#: R-SET-1: (events, dominance checks) shuffled into each pile, pile 1 (the top of the deck) first.
PILE_EXTRAS: tuple[tuple[int, int], ...] = ((0, 0), (2, 0), (1, 1), (1, 1), (1, 1), (1, 1))


def _check_seats(seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"Pax Pamir seats {MIN_SEATS} to {MAX_SEATS}, not {seats}")


def pile_size(seats: int) -> int:
    """Court cards dealt to each of the six piles: ``5 + seats`` (R-SET-1)."""
    _check_seats(seats)
    return PILE_BASE_SIZE + seats


def court_cards_in_deck(seats: int) -> int:
    """Court cards used in a game of ``seats``; the rest stay out unseen (R-SET-1)."""
    return PILE_COUNT * pile_size(seats)


def deck_size(seats: int) -> int:
    """Cards in the built deck: court cards plus 6 events and 4 dominance checks (R-SET table)."""
    extras = sum(events + checks for events, checks in PILE_EXTRAS)
    return court_cards_in_deck(seats) + extras
