"""Seeded random games of Pax Pamir against Wakhan (rules.md section 20), 1 and 2 humans,
with and without her published variants, from setup to the end: the same checks as every
random game (``test_pax_pamir_random_play.play_game``: every invariant after every event, no
dead end, only the humans are ever asked anything, refused commands, re-folding the stored
events gives the state, a replay gives the same events), and then hers: every turn of hers
draws an AI card and is recorded decision by decision, each with the AI card and the rule,
and she scores like any seat (at every successful check she is ranked).

``PAX_WAKHAN_GAMES`` games per seat count (default 6)::

    PAX_WAKHAN_GAMES=200 .venv/bin/python -m pytest tests/property/test_pax_pamir_wakhan_random_play.py
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.property.test_pax_pamir_random_play import THOROUGH_EVERY, play_game

GAMES = int(os.environ.get("PAX_WAKHAN_GAMES", "6"))
FIRST_SEED = int(os.environ.get("PAX_SEED", "0"))
OPTION_SETS: tuple[dict[str, Any], ...] = (
    {"wakhan": True},
    {"wakhan": True, "wakhan_steadfast_loyalty": True, "wakhan_spy_movement": True},
    {"wakhan": True, "wakhan_savvy_purchasing": True, "open_hands": True, "wakhan_paced": True},
)


def check_her_record(result: dict[str, Any], humans: int) -> None:
    stream, state = result["stream"], result["state"]
    wakhan = humans
    assert state.seats == humans + 1 and state.wakhan.seat == wakhan
    turns = [e for e in stream if e.type == "TurnStarted" and e.data["seat"] == wakhan]
    draws = [e for e in stream if e.type == "WakhanCardDrawn"]
    assert turns and len(draws) == len(turns), "one AI card drawn each turn of hers"
    decided = [e for e in stream if e.type == "WakhanDecided"]
    assert decided and all(e.data["seat"] == wakhan and e.data["ai_card"] in range(1, 25)
                           and e.data["rule"].startswith(f"AI card {e.data['ai_card']}: ") for e in decided)
    for e in stream:
        if e.type == "DominanceCheckResolved" and e.data["dominant"] is not None:
            assert wakhan in {score["seat"] for score in e.data["scores"]}, "she scores at every successful check"
    assert len(state.outcome["vp"]) == humans + 1


@pytest.mark.parametrize("humans", (1, 2))
def test_random_games_against_wakhan_keep_every_invariant_and_end_with_her_scored(humans: int) -> None:
    for seed in range(FIRST_SEED, FIRST_SEED + GAMES):
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        try:
            check_her_record(play_game(seed, humans, options, thorough=seed % THOROUGH_EVERY == 0), humans)
        except AssertionError as failure:
            raise AssertionError(f"seed {seed}, {humans} human(s), options {options}: {failure}") from failure
