"""The kernel builds each seat's prompt once per state object and never serves a stale one.

``to_move``, ``legal_commands`` and ``decide`` share the prompts of one state; ``evolve``
forgets them for the state it changes; applying exactly the events ``decide`` returned to
the state it decided on hands over the prompts ``decide`` already built for the result.
"""

from __future__ import annotations

import random
import threading
from dataclasses import replace

import pytest

from domain.games.pax_pamir import RULES as PAX
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from tests.games.highcard import RULES as HIGHCARD
from tests.games.highcard import PlayTrick


@pytest.fixture
def asks(monkeypatch):
    """Counts how often High Card's prompt is built."""
    calls = []
    original = PlayTrick.ask

    def counted(self, s, frame):
        calls.append(s)
        return original(self, s, frame)

    monkeypatch.setattr(PlayTrick, "ask", counted)
    return calls


def started(seats=2):
    return fold(HIGHCARD, HIGHCARD.setup(seats, HIGHCARD.check_options({}), Rng(1)))


def test_one_state_has_its_prompt_built_once_for_to_move_legal_commands_and_decide(asks):
    state = started()
    seat = HIGHCARD.to_move(state)[0]
    commands = HIGHCARD.legal_commands(state, seat)
    HIGHCARD.decide(state, seat, commands[0], Rng(1))
    assert len([s for s in asks if s is state]) == 1


def test_evolve_forgets_the_prompts_of_the_state_it_changes(asks):
    state = started()
    seat = HIGHCARD.to_move(state)[0]
    before = HIGHCARD.legal_commands(state, seat)
    events = HIGHCARD.decide(HIGHCARD.copy(state), seat, before[0], Rng(1))  # decided on another object
    for event in events:
        state = HIGHCARD.evolve(state, event)
    built = len(asks)
    after = [HIGHCARD.legal_commands(state, s) for s in range(2)]
    assert len(asks) == built + 1, "the changed state's prompt is built again"
    assert before[0] not in after[seat]
    fresh = HIGHCARD.copy(state)
    assert after == [HIGHCARD.legal_commands(fresh, s) for s in range(2)]


def test_the_events_decide_returned_hand_over_its_prompts_to_the_state_they_are_applied_to(asks):
    state = started()
    seat = HIGHCARD.to_move(state)[0]
    events = HIGHCARD.decide(state, seat, HIGHCARD.legal_commands(state, seat)[0], Rng(1))
    built = len(asks)
    for event in events:
        state = HIGHCARD.evolve(state, event)
    following = HIGHCARD.to_move(state)
    assert len(asks) == built, "the prompts decide built for the result are used"
    fresh = HIGHCARD.copy(state)
    assert following == HIGHCARD.to_move(fresh)
    assert all(HIGHCARD.legal_commands(state, s) == HIGHCARD.legal_commands(fresh, s) for s in range(2))


def test_other_events_or_another_state_get_no_prompts_handed_over(asks):
    state = started()
    seat = HIGHCARD.to_move(state)[0]
    first, second = HIGHCARD.legal_commands(state, seat)[:2]
    HIGHCARD.decide(state, seat, first, Rng(1))
    other = HIGHCARD.decide(state, seat, second, Rng(1))  # only the last decision is handed over
    twin = HIGHCARD.copy(state)
    for event in other:
        twin = HIGHCARD.evolve(twin, event)  # the same events on another object: built afresh
    built = len(asks)
    HIGHCARD.to_move(twin)
    assert len(asks) == built + 1
    for event in HIGHCARD.decide(state, seat, first, Rng(1)):
        state = HIGHCARD.evolve(state, replace(event))  # equal events, not the same ones
    built = len(asks)
    HIGHCARD.to_move(state)
    assert len(asks) == built + 1, "events that are merely equal hand nothing over"


def test_kept_prompts_are_the_prompts_built_afresh_through_a_whole_game_of_pax_pamir():
    r = random.Random(3)
    state = fold(PAX, PAX.setup(3, PAX.check_options({}), Rng(3)))
    for _ in range(400):
        if PAX.is_over(state):
            break
        fresh = PAX.copy(state)
        for seat in range(3):
            kept, built = PAX.prompt(state, seat), PAX.prompt(fresh, seat)
            assert (kept.to_json() if kept else None) == (built.to_json() if built else None)
        seat = r.choice(PAX.to_move(state))
        for event in PAX.decide(state, seat, r.choice(PAX.legal_commands(state, seat)), Rng(3)):
            state = PAX.evolve(state, event)


def test_each_thread_keeps_its_own_prompts():
    state = started()
    seat = HIGHCARD.to_move(state)[0]
    mine = HIGHCARD.prompt(state, seat)
    theirs = []
    thread = threading.Thread(target=lambda: theirs.append(HIGHCARD.prompt(state, seat)))
    thread.start()
    thread.join()
    assert theirs[0] is not mine and theirs[0].to_json() == mine.to_json()
