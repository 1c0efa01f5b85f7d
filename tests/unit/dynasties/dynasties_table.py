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
from domain.games.dynasties.events import card_drawn
from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from tests.helpers.scenario import Given, When, expect, given


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


def deal_rest_to(seat: int, *hands: Sequence[str], **options: Any) -> Given:
    """Like ``deal``, then the whole rest of the deck goes to ``seat`` before round 1: a
    crafted history (no rule hands out 40 cards) for the edge cases where the deck and the
    Graveyard are both empty (R14, R46, R54, R55). Round 1 then runs as recorded."""
    events = setup_events(*hands, **options)
    start = next(i for i, event in enumerate(events) if event.type == "RoundStarted")
    state = fold(RULES, events[:start])
    events[start:start] = [card_drawn(seat, card, "deal") for card in state.deck]
    return given(RULES, events)


def state_at(g: Given, type_: str, **fields: Any) -> Any:
    """The state right after the last event of ``type_`` (whose data holds ``fields``)."""
    matcher = expect(type_, **fields)
    index = max(i for i, event in enumerate(g.history) if matcher.matches(event))
    return fold(RULES, g.history[: index + 1])


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


# A plain two-seat round 1, used by several tests. Seat 0 leads with the 10; seat 1 leads
# Turns 2 and 3 and wins 18 to 9; both hands are then empty.
ROUND_ONE_HANDS = (["spade-10", "coppe-02", "denari-03", "bastoni-04"],
                   ["spade-09", "coppe-05", "denari-06", "bastoni-07"])
ROUND_ONE_TRIBUTES = ("spade-10", "spade-09")
ROUND_ONE_PLACEMENTS = ("coppe-02", "coppe-05", "denari-06", "denari-03", "bastoni-07", "bastoni-04")


def play_round_one(deck: Sequence[str] = (), **options: Any) -> When:
    return place(tributes(deal(*ROUND_ONE_HANDS, deck=deck, **options), *ROUND_ONE_TRIBUTES),
                 *ROUND_ONE_PLACEMENTS)


# Four seats with 6 gold: everyone pays all of it; seats 0-2 tie at 20 with no card left to
# play (mid_round_enquire = never), so the tie cannot be broken.
BROKE = (["spade-06", "coppe-13", "denari-05", "spade-02"],
         ["bastoni-04", "denari-13", "spade-05", "bastoni-02"],
         ["denari-03", "spade-13", "bastoni-05", "coppe-02"],
         ["coppe-07", "bastoni-03", "coppe-04", "denari-06"])


def broke_at_the_conclusion(**options):
    g = tributes(deal(*BROKE, starting_gold=6, legacy=10, mid_round_enquire="never", **options),
                 "spade-06", "bastoni-04", "denari-03", "coppe-07")
    return place(g, "bastoni-03", "coppe-13", "denari-13", "spade-13", "coppe-04", "denari-05", "spade-05",
                 "bastoni-05", "denari-06", "spade-02", "bastoni-02", "coppe-02")
