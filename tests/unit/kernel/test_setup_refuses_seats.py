"""``setup`` refuses a seat count its game cannot be played with, even for a caller in process
that skipped ``check_setup``: as ``check_setup`` does, with the reason, and nothing is dealt
(before, 0 seats ran away for 10,000 events and 7 or 8 seats raised an ``IndexError``)."""

from __future__ import annotations

import pytest

from domain.games import default_registry
from domain.kernel.errors import InvalidOptions
from domain.kernel.rng import Rng

GAMES = sorted(default_registry())


@pytest.mark.parametrize("kind", GAMES)
@pytest.mark.parametrize("offset", ["none", "above", "far above"])
def test_setup_refuses_a_seat_count_outside_the_game(kind, offset):
    rules = default_registry()[kind]
    seats = {"none": 0, "above": rules.max_seats + 1, "far above": rules.max_seats + 3}[offset]
    with pytest.raises(InvalidOptions, match=f"is for {rules.min_seats} to {rules.max_seats} seats, not {seats}"):
        rules.setup(seats, rules.check_options({}), Rng(1, 0))


def test_pax_pamir_setup_refuses_one_seat_without_wakhan_and_deals_it_with_her():
    rules = default_registry()["pax_pamir"]
    with pytest.raises(InvalidOptions, match="Pax Pamir needs 2 seats, or 1 with the option wakhan"):
        rules.setup(1, rules.check_options({}), Rng(1, 0))
    assert rules.setup(1, rules.check_options({"wakhan": True}), Rng(1, 0))


@pytest.mark.parametrize("kind", GAMES)
def test_setup_still_deals_every_seat_count_the_game_is_for(kind):
    rules = default_registry()[kind]
    for seats in range(max(rules.min_seats, 2), rules.max_seats + 1):
        state = None
        for event in rules.setup(seats, rules.check_options({}), Rng(seats, 0)):
            state = rules.evolve(state, event)
        assert rules.seat_count(state) == seats and rules.to_move(state)
