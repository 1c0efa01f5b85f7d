"""Rulings §3 and docs/rules/dynasties.md "Refused option sets": the server refuses exactly
the option sets under which a game cannot end, and every neighbour of a refused set (one
option changed) plays to Game Over.

The refused family is enquire_threshold 0, mid_round_enquire never, unresolved_tie split
and draw_per_round 1: from round 2 each seat holds the one Noble it drew, gives it as its
Tribute and can never get another while placing, so every Family stays empty, every tie
is split back and nobody can go Broke.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.games.dynasties import RULES
from domain.games.dynasties.options import never_ends
from domain.kernel.errors import InvalidOptions
from tests.property.test_dynasties_random_play import play_game

REFUSED: dict[str, Any] = {"enquire_threshold": 0, "mid_round_enquire": "never", "unresolved_tie": "split",
                           "draw_per_round": 1}

#: Every set one option away from the refused one, along the options that make it refused.
NEIGHBOURS: list[dict[str, Any]] = [
    {**REFUSED, "draw_per_round": 0},
    {**REFUSED, "draw_per_round": 2},
    {**REFUSED, "draw_per_round": 3},
    {**REFUSED, "enquire_threshold": 1},
    {**REFUSED, "mid_round_enquire": "empty"},
    {**REFUSED, "mid_round_enquire": "tda"},
    {**REFUSED, "unresolved_tie": "carry"},
]


def test_the_set_that_cannot_end_is_refused_naming_unresolved_tie():
    with pytest.raises(InvalidOptions) as refused:
        RULES.check_options(REFUSED)
    assert refused.value.option == "unresolved_tie" and "could never end" in refused.value.reason


def test_draw_per_round_1_is_the_default_so_the_three_options_alone_are_refused_too():
    with pytest.raises(InvalidOptions):
        RULES.check_options({k: v for k, v in REFUSED.items() if k != "draw_per_round"})


@pytest.mark.parametrize("options", NEIGHBOURS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_every_neighbour_of_the_refused_set_is_accepted_and_plays_to_game_over(options):
    assert not never_ends(RULES.check_options(options))
    for seed, seats in ((31, 2), (32, 3), (33, 5)):
        result = play_game(seed, seats, options, thorough=False)  # fails on a runaway
        assert result["events"] > 0
