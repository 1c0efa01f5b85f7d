"""Where cards, rupees and pieces are, as the short strings events and commands carry:
every place name is built and read back here, and nowhere else (``state`` lists them).

* a card is at ``deck``, ``market:<row>:<col>``, ``hand:<seat>``, ``court:<seat>``,
  ``prizes:<seat>`` or ``discard``;
* rupees move between ``bank``, ``seat:<n>`` (a player's purse) and ``market:<row>:<col>``;
  ``removed`` is the bank too, named apart where the rules say rupees leave the game;
* a piece is named ``<kind>:<place>`` (``army:kabul``, ``road:herat_kabul``, ``spy:54``,
  ``gift:4``), and a piece a Battle may remove also names its owner
  (``army:kabul:british``, ``tribe:kabul:1``).
"""

from __future__ import annotations

from typing import Final

from domain.games.pax_pamir.data.board import MARKET_COLUMNS, MARKET_ROWS, MAX_SEATS

BANK: Final = "bank"
REMOVED: Final = "removed"
DECK: Final = "deck"
DISCARD: Final = "discard"


def market(row: int, column: int) -> str:
    return _MARKET[row][column]


def purse(seat: int) -> str:
    """A player's rupees."""
    return _PURSE[seat]


def hand(seat: int) -> str:
    return _HAND[seat]


def court(seat: int) -> str:
    return _COURT[seat]


def prizes(seat: int) -> str:
    return _PRIZES[seat]


def parse(place: str) -> tuple[str, tuple[int, ...]]:
    """``market:1:3`` -> ("market", (1, 3)); ``hand:2`` -> ("hand", (2,)); ``deck`` -> ("deck", ())."""
    known = _PARSED.get(place)
    if known is not None:
        return known
    return _parse(place)


def _parse(place: str) -> tuple[str, tuple[int, ...]]:
    kind, _, rest = place.partition(":")
    return kind, tuple(int(part) for part in rest.split(":")) if rest else ()


#: each seat's places, named once (a card or rupees move to or from one on most commands)
_PURSE: Final = tuple([f"seat:{seat}" for seat in range(MAX_SEATS)])
_HAND: Final = tuple([f"hand:{seat}" for seat in range(MAX_SEATS)])
_COURT: Final = tuple([f"court:{seat}" for seat in range(MAX_SEATS)])
_PRIZES: Final = tuple([f"prizes:{seat}" for seat in range(MAX_SEATS)])

#: each market slot's name, made once (a card or rupees move on or off the market on most commands)
_MARKET: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f"market:{row}:{column}" for column in range(MARKET_COLUMNS)) for row in range(MARKET_ROWS))

#: every place events name often, read once at import (``parse`` is on every event's path)
_PARSED: Final[dict[str, tuple[str, tuple[int, ...]]]] = {
    name: _parse(name) for name in (
        BANK, REMOVED, DECK, DISCARD,
        *(market(row, column) for row in range(MARKET_ROWS) for column in range(MARKET_COLUMNS)),
        *(f(seat) for f in (purse, hand, court, prizes) for seat in range(MAX_SEATS)))}


def piece(kind: str, place: str | int) -> str:
    return f"{kind}:{place}"


def parse_piece(name: str) -> tuple[str, str]:
    """``spy:54`` -> ("spy", "54")."""
    kind, _, place = name.partition(":")
    return kind, place


def enemy(kind: str, place: str | int, owner: str | int) -> str:
    """A piece a Battle may remove, with its owner (a coalition or a seat)."""
    return f"{kind}:{place}:{owner}"


def parse_enemy(name: str) -> tuple[str, str, str]:
    kind, place, owner = name.split(":")
    return kind, place, owner


def placed_key(kind: str, owner: str | int, place: str | int) -> str:
    """The state's count of pieces placed this turn (section 23 item 8) is kept per
    ``<kind>:<owner>:<place>``."""
    return f"{kind}:{owner}:{place}"
