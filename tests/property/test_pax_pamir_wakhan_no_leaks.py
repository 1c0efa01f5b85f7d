"""Non-interference with Wakhan (rules.md section 20): her decisions depend on nothing hidden.

The worlds of ``test_pax_pamir_no_leaks`` with her at the table (1 and 2 humans): world B
differs from A only in hidden facts (the cards nobody ever sees exchanged in the deck and
among the unused cards; a human's hand held in another order before every command), the
humans make the same choices, and every human and a spectator must be shown the same views,
prompts, legal commands and redacted events in both; so her decisions, all public events,
are the same in both worlds. No redacted event or view names a hidden card or shows the
order of her AI deck while the game runs.
"""

from __future__ import annotations

import random

from domain.games.pax_pamir import RULES
from domain.kernel.events import redact
from tests.property.test_pax_pamir_no_leaks import (
    World,
    assert_same_to,
    check_nothing_hidden_is_named,
    exchanged,
    hand_shuffler,
    setup_events,
    viewers_of,
    with_deck,
)

GAMES = [(seed, humans) for seed in range(3) for humans in (1, 2)]
WAKHAN = {"wakhan": True}


def her_decisions(world: World) -> list[dict]:
    return [e.data for e in world.stream if e.type == "WakhanDecided"]


def test_exchanging_the_cards_nobody_ever_sees_changes_no_decision_of_hers_and_nothing_anyone_is_shown():
    for seed, humans in GAMES:
        setup = setup_events(seed, humans, WAKHAN)
        a = World(seed, setup)
        original = next(e for e in setup if e.type == "DeckBuilt").secret
        dealt = len(original["deck"]) - len(a.final.deck)
        deck, out = exchanged(random.Random(seed), original["deck"], dealt, original["out"])
        b = World(seed, with_deck(setup, deck, out), script=a.script)
        assert (b.final.deck, b.final.out_of_game) != (a.final.deck, a.final.out_of_game)
        assert her_decisions(a) and her_decisions(a) == her_decisions(b)
        assert_same_to(a, b, viewers_of(humans))


def test_the_order_a_humans_hand_is_held_in_changes_no_decision_of_hers():
    for seed, humans in GAMES:
        setup = setup_events(seed, humans, WAKHAN)
        a = World(seed, setup)
        b = World(seed, setup, script=a.script, before_each=hand_shuffler(seed % humans))
        assert her_decisions(a) == her_decisions(b)
        assert_same_to(a, b, viewers_of(humans))


def test_no_redacted_event_or_view_names_a_hidden_card_or_her_ai_deck_order():
    for seed, humans in GAMES:
        world = World(seed, setup_events(seed, humans, {**WAKHAN, "wakhan_spy_movement": True}))
        check_nothing_hidden_is_named(world, humans + 1)
        for event in world.stream:
            for viewer in viewers_of(humans + 1):
                assert "ai_deck" not in str(redact(event, viewer)), f"{event.type} shows her AI deck to {viewer}"
        for state in world.states:
            if not state.over:
                assert all("revealed" not in RULES.view(state, viewer) for viewer in viewers_of(humans))
