"""Wakhan's two orders of court cards (rules.md section 20): her card priority, for any
choice of a court card, and her cleanup discard order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from domain.games.pax_pamir.data.board import Coalition, Suit
from domain.games.pax_pamir.data.cards import COURT_CARDS
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps.court import is_leveraged
from domain.games.pax_pamir.steps.dominance import dominant_coalition


def dominant(s: PaxState) -> Coalition | None:
    """The coalition a Dominance Check would find dominant now (R-DOM-2)."""
    return dominant_coalition(s)[0]


def card_priority(s: PaxState, seat: int, number: int, leader: Coalition | None) -> tuple[int, ...]:
    """Higher is preferred: an opponent's card, the favored suit, a patriot of the dominant
    coalition, a prize of it, another patriot, leveraged, the highest rank, the highest number."""
    card = COURT_CARDS[number]
    return (int(number not in s.players[seat].court),
            int(card.suit == s.favored),
            int(leader is not None and card.patriot == leader),
            int(leader is not None and card.prize == leader),
            int(card.patriot is not None),
            int(is_leveraged(number)),
            card.rank,
            number)


def top_priority(s: PaxState, seat: int, cards: Iterable[int]) -> int:
    """The card of ``cards`` her priority puts first."""
    leader = dominant(s)
    return max(cards, key=lambda number: card_priority(s, seat, number, leader))


def discard_order(s: PaxState, seat: int, number: int) -> tuple[int, ...]:
    """Lower is discarded first: non-political cards, non-patriots, non-leveraged cards, the
    cards where the other players' spies outnumber hers the most, the fewest spies, the
    lowest rank, not the favored suit, the lowest number."""
    card = COURT_CARDS[number]
    spies: Mapping[int, int] = s.spies.get(number) or {}
    mine = spies.get(seat, 0)
    others = sum(count for owner, count in spies.items() if owner != seat)
    return (int(card.suit == Suit.POLITICAL),
            int(card.patriot is not None),
            int(is_leveraged(number)),
            -(others - mine),
            mine + others,
            card.rank,
            int(card.suit == s.favored),
            number)


def first_to_discard(s: PaxState, seat: int, cards: Iterable[int]) -> int:
    return min(cards, key=lambda number: discard_order(s, seat, number))


def spies_in_play(s: PaxState, seat: int) -> int:
    return sum(spies.get(seat, 0) for spies in s.spies.values())


__all__ = ["card_priority", "discard_order", "dominant", "first_to_discard", "spies_in_play", "top_priority"]
