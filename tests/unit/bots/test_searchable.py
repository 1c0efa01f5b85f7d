"""Every game the searching bots (greedy, mcts) are offered is one they can play: it gives
what ``domain.kernel.bots.Searchable`` asks beyond the rules (``bots.searchable`` takes it
on trust, so this is where it is checked)."""

from __future__ import annotations

import pytest

from domain.games import default_registry

GAMES = default_registry()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_gives_what_a_searching_bot_needs(name):
    rules = GAMES[name]
    assert callable(getattr(rules, "sampler", None)), f"{name} has no sampler"
    assert callable(getattr(rules, "scores", None)), f"{name} has no scores"
    assert isinstance(rules.score_scale, int | float) and rules.score_scale > 0
    assert isinstance(rules.face_down_verbs, frozenset)
    assert all(isinstance(verb, str) for verb in rules.face_down_verbs)
    assert callable(getattr(rules, "turn_begins", None)), f"{name} does not say whose turn an event begins"
