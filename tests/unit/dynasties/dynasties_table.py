"""Building Dynasties tables for scenario tests.

``deal(hands..., deck=[...], **options)`` runs the real ``setup`` with a shuffle rigged so
that seat ``s`` is dealt ``hands[s]`` and the deck then starts with ``deck``; everything
after that is played with real commands (``tribute``, ``place``, ``take``, ``retire``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.games.dynasties import RULES
from domain.games.dynasties.cards import DECK
from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from tests.helpers.scenario import Given, When, given


class StackedRng(Rng):
    """An ``Rng`` whose first shuffle returns ``order``; later shuffles are seeded as usual."""

    def __init__(self, order: Sequence[str], seed: int | str = 0):
        super().__init__(seed)
        self._order: list[str] | None = list(order)

    def shuffled(self, items):  # type: ignore[no-untyped-def]
        if self._order is not None:
            order, self._order = self._order, None
            assert sorted(order) == sorted(items), "a stacked deck must hold every card once"
            return order
        return super().shuffled(items)


def stacked_order(hands: Sequence[Sequence[str]], deck: Sequence[str] = ()) -> list[str]:
    """The deck order that deals ``hands`` one card at a time clockwise from seat 0 (R7),
    then ``deck`` on top of the rest, which follow in display order."""
    seats, size = len(hands), len(hands[0])
    assert all(len(hand) == size for hand in hands), "every seat is dealt the same number of cards"
    top = [hands[k % seats][k // seats] for k in range(seats * size)] + list(deck)
    assert len(set(top)) == len(top), f"a card is used twice: {top}"
    placed = set(top)
    return top + [card for card in DECK if card not in placed]


def setup_events(*hands: Sequence[str], deck: Sequence[str] = (), seed: int | str = 0,
                 **options: Any) -> list[Event]:
    normalized = RULES.check_options({"starting_hand": len(hands[0]), **options})
    return RULES.setup(len(hands), normalized, StackedRng(stacked_order(hands, deck), seed))


def deal(*hands: Sequence[str], deck: Sequence[str] = (), **options: Any) -> Given:
    return given(RULES, setup_events(*hands, deck=deck, **options))


def tribute_cmd(card: str) -> Command:
    return Command("SubmitTribute", {"card": card})


def place_cmd(card: str) -> Command:
    return Command("PlaceNoble", {"card": card})


def take_cmd(*cards: str) -> Command:
    return Command("ChooseConclaveCards", {"cards": list(cards)})


def retire_cmd(*cards: str) -> Command:
    return Command("RetireNobles", {"cards": list(cards)})


def owner(g: Given, card: str) -> int:
    hands = g.state.hands
    return next(seat for seat, hand in enumerate(hands) if card in hand)


def tributes(g: Given, *cards: str) -> When:
    """Seat ``s`` gives ``cards[s]`` as its Tribute, in seat order; returns the last command."""
    result: Any = g
    for seat, card in enumerate(cards):
        result = result.when(seat, tribute_cmd(card))
        if result.error is not None:
            return result
    return result


def place(g: Given, *cards: str) -> When:
    """Whoever holds each card places it, in this order (decide refuses a wrong order)."""
    result: Any = g
    for card in cards:
        result = result.when(owner(result, card), place_cmd(card))
        if result.error is not None:
            return result
    return result


def events_of(events: Sequence[Event], type_: str) -> list[Event]:
    return [event for event in events if event.type == type_]
