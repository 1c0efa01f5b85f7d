"""Scoreboards: envelopes in, per-type standings and openskill ratings out."""

from __future__ import annotations

import random

import pytest

from projections.base import ranks
from projections.scoreboard import MODEL, SCOREBOARD, table
from tests.unit.projections.envelopes import GameLog, fold, two_player_game


def standings(model, kind="highcard"):
    return {row["player_id"]: row for row in table(model, kind)}


def test_a_finished_game_counts_games_wins_win_rate_and_score():
    model = fold(SCOREBOARD, two_player_game("g1", "ann", "bob", winner=0, scores={0: 30, 1: 12}))
    rows = standings(model)
    assert (rows["ann"]["games_played"], rows["ann"]["wins"], rows["ann"]["win_rate"], rows["ann"]["score"]) == \
        (1, 1, 1.0, 30)
    assert (rows["bob"]["games_played"], rows["bob"]["wins"], rows["bob"]["win_rate"], rows["bob"]["score"]) == \
        (1, 0, 0.0, 12)
    assert rows["ann"]["name"] == "ANN"


def test_the_rating_is_openskill_plackett_luce_with_winners_first():
    model = fold(SCOREBOARD, two_player_game("g1", "ann", "bob", winner=1, scores={0: 3, 1: 9}))
    [[ann], [bob]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[2, 1])
    rows = standings(model)
    assert rows["bob"]["rating"] == {"mu": bob.mu, "sigma": bob.sigma, "ordinal": bob.ordinal()}
    assert rows["ann"]["rating"] == {"mu": ann.mu, "sigma": ann.sigma, "ordinal": ann.ordinal()}
    assert [r["player_id"] for r in table(model, "highcard")] == ["bob", "ann"]
    assert [r["rank"] for r in table(model, "highcard")] == [1, 2]


def test_a_game_still_running_counts_for_nothing():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["ann", "bob"]).move(0, [1])
    assert table(fold(SCOREBOARD, log), "highcard") == []


def test_each_game_type_has_its_own_board():
    model = fold(SCOREBOARD, two_player_game("g1", "ann", "bob", 0, {0: 2, 1: 1}),
                 two_player_game("g2", "ann", "cat", 1, {0: 0, 1: 50}, kind="dynasties", minute=5))
    assert set(standings(model, "highcard")) == {"ann", "bob"}
    assert set(standings(model, "dynasties")) == {"ann", "cat"}
    assert standings(model, "dynasties")["cat"]["score"] == 50
    assert table(model, "chess") == []


def test_ratings_do_not_depend_on_the_order_in_which_partitions_deliver_games():
    rng = random.Random(7)
    people = ["ann", "bob", "cat", "dan"]
    logs = []
    for number in range(8):
        a, b = rng.sample(people, 2)
        logs.append(two_player_game(f"g{number}", a, b, rng.randrange(2), {0: rng.randrange(9), 1: rng.randrange(9)},
                                    minute=number))
    in_time_order = fold(SCOREBOARD, *logs)
    for _ in range(5):  # games interleave differently across partitions; each game's own order stays
        streams = [log.envelopes() for log in logs]
        delivered = []
        while any(streams):
            stream = rng.choice([s for s in streams if s])
            delivered.append(stream.pop(0))
        assert fold(SCOREBOARD, delivered) == in_time_order


def test_a_game_that_finished_earlier_but_arrives_later_is_rated_in_its_place():
    early = two_player_game("g1", "ann", "bob", 0, {0: 5, 1: 1}, minute=0)
    late = two_player_game("g2", "bob", "ann", 0, {0: 5, 1: 1}, minute=30)
    assert fold(SCOREBOARD, late, early) == fold(SCOREBOARD, early, late)


@pytest.mark.parametrize("winners,scores,seats,expected", [
    ([0], {"0": 9, "1": 5, "2": 7}, 3, [1, 3, 2]),
    ([1, 2], {"0": 1, "1": 5, "2": 5}, 3, [2, 1, 1]),
    ([0], {"0": 9, "1": 4, "2": 4, "3": 1}, 4, [1, 2, 2, 3]),
    ([], {"0": 3, "1": 3}, 2, [1, 1]),
])
def test_winners_share_the_first_rank_and_the_others_follow_by_score(winners, scores, seats, expected):
    assert ranks(winners, scores, seats) == expected
