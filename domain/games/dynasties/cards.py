"""The Noble Deck (R1, R2): four lineages of thirteen Nobles, one copy of each.

A card id is ``<lineage>-<value two digits>``, for example ``coppe-01``. The 1 of each
lineage is its Coronation card; the 13 is its King. Values 11 and 12 (Fante, Cavallo)
are names only.
"""

from __future__ import annotations

from typing import Final

#: The four lineages, in display order.
COPPE, DENARI, SPADE, BASTONI = "coppe", "denari", "spade", "bastoni"
LINEAGES: Final[tuple[str, ...]] = (COPPE, DENARI, SPADE, BASTONI)

#: The Coronation card "plays as a 1 for all purposes" (R2, R30).
CORONATION: Final = 1
#: Kings are the 13s; an activated Coronation removes them from every Family (R31).
KING: Final = 13
VALUES: Final[tuple[int, ...]] = tuple(range(CORONATION, KING + 1))


def card_id(lineage: str, value: int) -> str:
    return f"{lineage}-{value:02d}"


#: Every card, in display order: Coppe 1..13, Denari 1..13, Spade 1..13, Bastoni 1..13.
DECK: Final[tuple[str, ...]] = tuple(card_id(lineage, value) for lineage in LINEAGES for value in VALUES)

_VALUE: Final[dict[str, int]] = {card: int(card.rsplit("-", 1)[1]) for card in DECK}
#: (each card's lineage is the very string of ``LINEAGES``: lineages compared, as Purebloods are
#: counted after every placement, are then found equal by identity at once)
_LINEAGE: Final[dict[str, str]] = {card: lineage for lineage in LINEAGES for card in DECK
                                   if card.startswith(f"{lineage}-")}
#: each card's lineage as its place in ``LINEAGES`` (0 to 3)
_LINEAGE_PLACE: Final[dict[str, int]] = {card: LINEAGES.index(lineage) for card, lineage in _LINEAGE.items()}
_DISPLAY_RANK: Final[dict[str, int]] = {card: rank for rank, card in enumerate(DECK)}


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in _VALUE


def value_of(card: str) -> int:
    """Face value, 1-13. A Coronation is 1 for every purpose but the tally (R30)."""
    return _VALUE[card]


def lineage_of(card: str) -> str:
    return _LINEAGE[card]


def lineage_place(card: str) -> int:
    """The card's lineage as its place in ``LINEAGES``: Coppe 0, Denari 1, Spade 2, Bastoni 3."""
    return _LINEAGE_PLACE[card]


def is_coronation(card: str) -> bool:
    return _VALUE[card] == CORONATION


def is_king(card: str) -> bool:
    return _VALUE[card] == KING


def in_display_order(cards: list[str]) -> list[str]:
    """Cards sorted by lineage (display order), then value: how a hand is shown. (Their
    places in ``DECK``, sorted in place as numbers: cheaper than a sort by a key function, and
    every prompt of a hand sorts it. A list, so that compiled code walks it by index.)"""
    ranks = [_DISPLAY_RANK[card] for card in cards]
    ranks.sort()
    return [DECK[rank] for rank in ranks]
