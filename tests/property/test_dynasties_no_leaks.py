"""Non-interference: what a seat holds in secret never reaches anyone else.

World B differs from world A only in one seat p's hidden cards: the same setup with a
deck in which two cards that p alone ever holds are swapped (p draws them in the other
order), or p's dealt cards come in another order. The same commands are replayed in B.
For every other seat q and for a spectator, every ``view`` and the redacted event
history (``redact(e, q)``) must be identical in A and B (I8, R57).

Separately, no redacted event and no view for q names a card that q cannot see at that
moment (another seat's hand or Tribute, the deck, a retired card), and under commit-reveal
(R17a) none shows q another seat's salt (its seal's preimage) before the Tributes are revealed.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from domain.games.dynasties import RULES
from domain.games.dynasties.cards import DECK
from domain.kernel.commands import Command
from domain.kernel.errors import RuleViolation
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from tests.property.test_dynasties_random_play import computed, salt_of
from tests.unit.dynasties.dynasties_table import StackedRng

CARDS = frozenset(DECK)


def play(seed: int, seats: int, options: dict[str, Any], setup_rng: Rng,
         script: list[tuple[int, Command]] | None = None) -> tuple[list[Event], list[tuple[int, Command]], list[Any]]:
    """Plays ``script`` (or random legal commands, recorded); returns the stream, the script
    and the state after setup and after each command."""
    r = random.Random(seed)
    options = RULES.check_options(options)
    stream = RULES.setup(seats, options, setup_rng)
    state = None
    for event in stream:
        state = RULES.evolve(state, event)
    states = [RULES.copy(state)]
    played: list[tuple[int, Command]] = []
    steps = iter(script) if script is not None else None
    while state.phase != "game_over":
        if steps is not None:
            step = next(steps, None)
            if step is None:
                break
            seat, command = step
        else:
            seat = r.choice(RULES.to_move(state))
            command = r.choice(RULES.legal_commands(state, seat) + computed(state, seat, salt_of(seed, seat, stream)))
        events = RULES.decide(state, seat, command, Rng(seed, len(stream)))
        for event in events:
            state = RULES.evolve(state, event)
        stream.extend(events)
        played.append((seat, command))
        states.append(RULES.copy(state))
    return stream, played, states


def seen_by(stream: list[Event], viewer: int | None) -> list[dict[str, Any]]:
    return [redact(event, viewer) for event in stream]


def secretly_drawn(stream: list[Event], seat: int) -> list[str]:
    """Cards ``seat`` drew face down from the first deck (before any reshuffle), in order."""
    flipped = {e.data["revealed_card"] for e in stream if e.type == "ProspectsEnquired"}
    cards = []
    for event in stream:
        if event.type == "GraveyardReshuffled":
            break
        if event.type == "CardDrawn" and event.data["seat"] == seat and event.secret["card"] not in flipped:
            cards.append(event.secret["card"])
    return cards


def assert_same_for_others(a: tuple, b: tuple, seats: int, p: int) -> None:
    stream_a, _, states_a = a
    stream_b, _, states_b = b
    assert len(stream_a) == len(stream_b)
    for q in [None, *(s for s in range(seats) if s != p)]:
        assert seen_by(stream_a, q) == seen_by(stream_b, q), f"seat {q} can tell p's hidden cards apart"
        for state_a, state_b in zip(states_a, states_b, strict=True):
            assert RULES.view(state_a, q) == RULES.view(state_b, q), f"seat {q}'s view depends on p's cards"


GAMES = [(seed, 2 + seed % 5, options) for seed in range(30)
         for options in ({}, {"enquire_price_card": "discard", "draw_per_round": 2}, {"commit_reveal_tributes": True})
         ][:60]


def test_swapping_two_cards_only_p_ever_holds_changes_nothing_anyone_else_sees():
    tested = 0
    for seed, seats, options in GAMES:
        setup_rng = Rng(seed, 0)
        a = play(seed, seats, options, setup_rng)
        order = a[0][1].secret["order"]
        p = seed % seats
        drawn = secretly_drawn(a[0], p)
        for x, y in itertools.pairwise(drawn):
            swapped = list(order)
            i, j = swapped.index(x), swapped.index(y)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            try:
                b = play(seed, seats, options, StackedRng(swapped, seed), script=a[1])
            except RuleViolation:
                continue  # p played x before drawing y in world A: not the same public game
            if len(b[1]) != len(a[1]):
                continue
            assert_same_for_others(a, b, seats, p)
            assert seen_by(a[0], p) != seen_by(b[0], p), "the swap must change what p itself sees"
            tested += 1
    assert tested >= 40, f"only {tested} swaps could be replayed"


def test_dealing_p_the_same_cards_in_another_order_changes_nothing_anyone_else_sees():
    for seed, seats, options in GAMES[:20]:
        a = play(seed, seats, options, Rng(seed, 0))
        order = list(a[0][1].secret["order"])
        p = (seed + 1) % seats
        dealt = RULES.check_options(options).starting_hand * seats
        positions = [k for k in range(dealt) if k % seats == p]
        cards = [order[k] for k in positions]
        random.Random(seed).shuffle(cards)
        cards = cards[1:] + cards[:1]  # a rotation: a different order, certainly
        for k, card in zip(positions, cards, strict=True):
            order[k] = card
        b = play(seed, seats, options, StackedRng(order, seed), script=a[1])
        assert_same_for_others(a, b, seats, p)
        assert RULES.view(a[2][0], p) == RULES.view(b[2][0], p), "a hand is shown in display order"


def card_ids(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if value in CARDS else set()
    if isinstance(value, dict):
        return set().union(*(card_ids(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(card_ids(v) for v in value)) if value else set()
    return set()


def visible_to(state: Any, q: int | None) -> set[str]:
    """Cards q may name: its own hand and Tribute, and everything face up."""
    cards = set(state.tribute_zone)
    for family in state.families:
        cards.update(family)
    if q is not None:
        cards.update(state.hands[q])
        if state.tribute_commit[q] is not None:
            cards.add(state.tribute_commit[q])
    return cards


def test_no_redacted_event_or_view_names_a_card_hidden_from_its_reader():
    for seed, seats, options in GAMES:
        stream, _, _ = play(seed, seats, options, Rng(seed, 0))
        state = None
        round_public: set[str] = set()  # this round's placements and flips stay on record
        for event in stream:
            before = RULES.copy(state) if state is not None else None
            state = RULES.evolve(state, event)
            if event.type == "RoundStarted":
                round_public = set()
            if event.type == "NoblePlaced":
                round_public.add(event.data["card"])
            announced = {event.data["revealed_card"]} if event.type == "ProspectsEnquired" else set()
            round_public |= announced
            if before is None or state.phase == "game_over":
                continue
            for q in [None, *range(seats)]:
                allowed = visible_to(before, q) | visible_to(state, q) | announced
                leaked = card_ids(redact(event, q)) - allowed
                assert not leaked, f"{event.type} shows {leaked} to seat {q}"
                leaked = card_ids(RULES.view(state, q)) - visible_to(state, q) - round_public
                assert not leaked, f"the view after {event.type} shows {leaked} to seat {q}"


def test_r17a_no_redacted_event_or_view_shows_another_seats_salt_before_the_reveal():
    tested = 0
    for seed, seats, options in GAMES:
        if not options.get("commit_reveal_tributes"):
            continue
        stream, _, _ = play(seed, seats, options, Rng(seed, 0))
        state = None
        for event in stream:
            state = RULES.evolve(state, event)
            if state.phase == "game_over":
                break
            unopened = {seat: salt for seat, salt in enumerate(state.tribute_salt) if salt is not None}
            for q in [None, *range(seats)]:
                shown = repr(redact(event, q)) + repr(RULES.view(state, q))
                for seat, salt in unopened.items():
                    if seat != q:
                        assert salt not in shown, f"{event.type} shows seat {seat}'s salt to {q}"
                        tested += 1
    assert tested > 1000
