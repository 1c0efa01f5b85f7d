"""Wakhan's card priority and cleanup discard order (rules.md section 20), criterion by
criterion: each pair differs in the criterion named and loses on every later one."""

from __future__ import annotations

import pytest

from domain.games.pax_pamir.wakhan.priority import first_to_discard, top_priority
from tests.unit.pax_pamir.wakhan.helpers import wakhan_table

HUMAN, WAKHAN = 0, 1
#: seat 0's court (an opponent's, to her); British is dominant (4 armies), political favored
OPPONENT_COURT = [9, 5, 32, 36, 34, 84, 14, 12, 29, 61]


def priority_table():
    return wakhan_table(card=1, courts={HUMAN: OPPONENT_COURT, WAKHAN: [7]},
                        armies={"kabul": {"british": 4}}).state


@pytest.mark.parametrize(("first", "second", "criterion"), [
    (9, 7, "an opponent's card before her own (even of the favored suit)"),
    (5, 32, "the favored suit before a patriot of the dominant coalition"),
    (36, 34, "a patriot of the dominant coalition before a prize of it"),
    (34, 84, "a prize of the dominant coalition before another patriot"),
    (84, 14, "another patriot before a leveraged card"),
    (14, 12, "leveraged before a higher rank"),
    (12, 29, "the highest rank"),
    (61, 29, "the highest card number"),
])
def test_card_priority_takes_its_criteria_in_order(first, second, criterion):
    s = priority_table()
    assert top_priority(s, WAKHAN, [second, first]) == first, criterion
    assert top_priority(s, WAKHAN, [first, second]) == first, criterion


@pytest.mark.parametrize(("court", "spies", "favored", "discarded", "criterion"), [
    ([7, 9], {}, None, 9, "non-political cards first"),
    ([11, 13], {}, None, 13, "then non-patriots"),
    ([14, 29], {}, None, 29, "then non-leveraged cards"),
    ([61, 29], {29: {HUMAN: 2}}, None, 29, "then where the others' spies outnumber hers the most"),
    ([29, 61], {29: {HUMAN: 1, WAKHAN: 1}}, None, 61, "then the fewest spies"),
    ([12, 9], {}, None, 9, "then the lowest rank"),
    ([31, 9], {}, "military", 9, "then not the favored suit"),
    ([61, 29], {}, None, 29, "then the lowest number"),
])
def test_cleanup_discard_order_takes_its_criteria_in_order(court, spies, favored, discarded, criterion):
    s = wakhan_table(card=1, courts={WAKHAN: court}, spies=spies, favored=favored).state
    assert first_to_discard(s, WAKHAN, court) == discarded, criterion
    assert first_to_discard(s, WAKHAN, list(reversed(court))) == discarded, criterion
