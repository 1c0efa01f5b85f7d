"""The prompts of the state last asked about are built once and read by ``to_move``,
``legal_commands``, ``prompt`` and ``play`` alike (``domain.kernel.steps.prompt_of``), and
forgotten the moment an event changes that state: a kept prompt never answers for a state it
was not built for."""

from __future__ import annotations

import random

import pytest

from domain.games import default_registry
from domain.kernel.rng import Rng
from domain.kernel.steps import KEPT

REGISTRY = default_registry()


def _setup(game: str, seats: int, seed: int):
    rules = REGISTRY[game]
    state = None
    for event in rules.setup(seats, rules.check_options({}), Rng(seed, 0)):
        state = rules.evolve(state, event)
    return rules, state


def test_a_state_unchanged_is_asked_with_the_same_prompt_and_an_event_forgets_it():
    rules, state = _setup("pax_pamir", 2, 1)
    seat = rules.to_move(state)[0]
    asked = rules.prompt(state, seat)
    assert asked is not None and rules.prompt(state, seat) is asked
    events, after = rules.play(state, seat, rules.legal_commands(state, seat)[0], Rng(1, 1))
    assert events and after is state
    kept = KEPT.asked  # forgotten by the first event (what is kept now was built after the last)
    assert kept is None or all(prompt is not asked for prompt in kept.prompts.values())
    assert rules.prompt(state, seat) is not asked


def test_a_copy_is_asked_afresh_and_the_original_keeps_its_prompt():
    rules, state = _setup("pax_pamir", 2, 2)
    seat = rules.to_move(state)[0]
    asked = rules.prompt(state, seat)
    twin = rules.copy(state)
    assert rules.prompt(twin, seat) is not asked and rules.prompt(twin, seat) == asked
    rules.play(twin, seat, rules.legal_commands(twin, seat)[-1], Rng(2, 1))
    assert rules.prompt(state, seat) == asked


@pytest.mark.parametrize(("game", "seats"), [("pax_pamir", 2), ("pax_pamir", 5), ("dynasties", 3)])
def test_every_state_of_random_games_is_asked_what_a_fresh_copy_is_asked(game, seats):
    """Played in place with the prompts kept between calls, each state answers ``to_move``,
    every seat's prompt and commands, and a refusal, as a copy never asked before does."""
    for seed in range(3):
        rules, state = _setup(game, seats, seed)
        choose = random.Random(seed)
        for count in range(150):
            if rules.is_over(state):
                break
            waiting = rules.to_move(state)
            fresh = rules.copy(state)
            assert rules.to_move(fresh) == waiting
            for seat in range(rules.seat_count(state)):
                assert rules.legal_commands(state, seat) == rules.legal_commands(rules.copy(state), seat)
                assert rules.prompt(state, seat) == rules.prompt(rules.copy(state), seat)
            seat = choose.choice(waiting)
            command = choose.choice(rules.legal_commands(state, seat))
            expected, _ = rules.play(rules.copy(state), seat, command, Rng(seed, count))
            events, state = rules.play(state, seat, command, Rng(seed, count))
            assert [e.to_json() for e in events] == [e.to_json() for e in expected]
