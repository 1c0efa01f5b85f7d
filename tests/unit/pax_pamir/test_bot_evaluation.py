"""The Pax Pamir evaluation bots search with (``domain/games/pax_pamir/bots.py``, issue 36):
it values what wins the game, the points the next Dominance Check is expected to give, the
cylinders and blocks that decide it, loyalty to the coalition ahead, and rupees."""

from __future__ import annotations

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.bots import expected_check_points, scores
from domain.games.pax_pamir.data.board import COALITIONS
from tests.unit.pax_pamir.table import table

DC = 101


def advantage(g, seat=0):
    values = scores(g.state)
    return values[seat] - max(v for other, v in enumerate(values) if other != seat)


def expected(g):
    seats = range(g.state.seats)
    return expected_check_points(g.state, {c: q.blocks_in_play(g.state, c) for c in COALITIONS},
                                 [q.influence(g.state, seat) for seat in seats],
                                 [q.cylinders_in_play(g.state, seat) for seat in seats])


def test_cylinders_in_play_count_and_win_a_failed_check():
    level = table(tribes={"kabul": {0: 1, 1: 1}})
    ahead = table(tribes={"kabul": {0: 1, 1: 1}, "herat": {0: 1}})
    assert advantage(ahead) > advantage(level)
    assert expected(ahead)[0] > expected(ahead)[1]  # no dominance likely: the most cylinders score 3


def test_the_seats_own_coalitions_dominance_counts():
    # seat 0 is Afghan, seat 1 British
    afghan = table(armies={"kabul": {"afghan": 4}})
    british = table(armies={"kabul": {"british": 4}})
    assert advantage(afghan) > 0 > advantage(british)
    assert expected(afghan)[0] > 3 and expected(afghan)[1] < 1


def test_loyalty_to_the_coalition_ahead_counts():
    board = dict(armies={"punjab": {"british": 5}})
    assert advantage(table(loyalties=["british", "afghan"], **board)) > advantage(table(**board))


def test_a_check_in_the_market_makes_its_points_count_more():
    board = dict(armies={"kabul": {"afghan": 5}})
    assert advantage(table(market={(0, 2): DC}, **board)) > advantage(table(**board))


def test_rupees_count():
    assert advantage(table(rupees=[6, 4])) > advantage(table(rupees=[4, 4])) == 0
