"""Setting up against Wakhan (R-SET, R-SET-5, section 20): she takes one more seat (the
last), counts for the deck, chooses no loyalty and takes the first turn."""

from __future__ import annotations

import pytest

from domain.games.pax_pamir import RULES
from domain.kernel.errors import InvalidOptions
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from tests.unit.pax_pamir.flow import cmd


@pytest.mark.parametrize(("humans", "deck", "order"), [(1, 52, [0]), (2, 58, [1, 0])])
def test_she_counts_for_the_deck_chooses_no_loyalty_and_plays_first(humans, deck, order):
    events = RULES.setup(humans, RULES.check_options({"wakhan": True}), Rng(5))
    state = fold(RULES, events)
    assert state.seats == humans + 1 and state.wakhan.seat == humans
    assert next(e for e in events if e.type == "DeckBuilt").data["deck_count"] == deck
    assert next(e for e in events if e.type == "LoyaltyOrderChosen").data["order"] == order
    for seat in order:  # the humans choose; after the last, seat 0, her turn runs by itself
        assert RULES.to_move(state) == [seat]
        for event in RULES.decide(state, seat, cmd("ChooseLoyalty", coalition="british"), Rng(5, seat)):
            state = RULES.evolve(state, event)
    assert state.wakhan.discard, "she took her first turn"
    assert state.active == 0 and RULES.to_move(state) == [0], "seat 0, the last to choose, plays after her"


def test_a_deal_with_her_is_for_her_seat_too_with_the_choices_from_seat_1():
    shuffled = fold(RULES, RULES.setup(1, RULES.check_options({"wakhan": True}), Rng(1)))
    deck = [*[n for row in zip(*shuffled.market, strict=True) for n in row], *shuffled.deck]
    assert len(deck) == 52
    made = RULES.check_options({"wakhan": True, "deal": {"deck": deck, "loyalty_order": [1, 0]}})
    state = fold(RULES, RULES.setup(1, made, Rng(2)))
    assert state.deck == shuffled.deck
    # the one check of a new game (check_setup) refuses what setup would not be given
    with pytest.raises(InvalidOptions, match="seat 1 first"):
        RULES.check_setup(1, {"wakhan": True, "deal": {"deck": deck, "loyalty_order": [0, 1]}})
    with pytest.raises(InvalidOptions, match="for 2 seats, not 3"):
        RULES.check_setup(2, {"wakhan": True, "deal": {"deck": deck, "loyalty_order": [1, 0]}})
