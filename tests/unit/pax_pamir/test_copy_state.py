"""``copy_state`` names each field of the Pax Pamir state on an instance made without
``__init__`` (a native class where the engine is compiled): a field it forgot is missing
from the copy (reading it raises), one it copied wrongly differs, and one it shares where it
should copy is changed through the copy."""

from __future__ import annotations

import random
from dataclasses import fields

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir.state import PaxState, Player, Wakhan, copy_state
from domain.kernel import Rng

#: fields that are shared with the original: values never changed in place
SHARED = {"seats", "options", "favored", "active", "actions_left", "declined_bribes", "bank_flow",
          "checks_resolved", "outcome"}


def _random_states(seats: int, seed: int, options: dict | None = None):
    choose = random.Random(seed)
    state = None
    for event in RULES.setup(seats, RULES.check_options(options or {}), Rng(seed, 0)):
        state = RULES.evolve(state, event)
    count = 0
    while not RULES.is_over(state) and count < 400:
        yield state
        seat = choose.choice(RULES.to_move(state))
        count += 1
        _, state = RULES.play(state, seat, choose.choice(RULES.legal_commands(state, seat)), Rng(seed, count))
    yield state


def test_a_copy_equals_the_original_in_every_field_and_shares_no_container():
    seen_off_default: set[str] = set()
    for seats, seed, options in ((2, 1, {}), (3, 2, {}), (5, 3, {}), (2, 4, {"wakhan": True})):
        fresh = None
        for state in _random_states(seats, seed, options):
            fresh = fresh or {f.name: repr(getattr(state, f.name)) for f in fields(PaxState)}
            twin = copy_state(state)
            for f in fields(PaxState):
                mine, theirs = getattr(twin, f.name), getattr(state, f.name)
                assert mine == theirs, f.name
                if f.name not in SHARED and theirs is not None:
                    assert mine is not theirs, f"{f.name} is shared, not copied"
                if repr(theirs) != fresh[f.name]:
                    seen_off_default.add(f.name)
            for mine, theirs in zip(twin.players, state.players, strict=True):
                for f in fields(Player):
                    assert getattr(mine, f.name) == getattr(theirs, f.name), f.name
                assert mine.hand is not theirs.hand and mine.court is not theirs.court and mine.gifts is not theirs.gifts
            if state.wakhan is not None:
                assert twin.wakhan is not None
                for f in fields(Wakhan):
                    assert getattr(twin.wakhan, f.name) == getattr(state.wakhan, f.name), f.name
                assert twin.wakhan.deck is not state.wakhan.deck
    assert len(seen_off_default) >= 18, sorted(seen_off_default)
