"""Derived quantities (rules.md section 6): rulers (R-RUL), stars and limits (R-STR),
influence (R-INF), hostages (R-HST) and the supplies (R-CMP-1, R-CMP-2)."""

from __future__ import annotations

import pytest

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Coalition, Region, Suit
from domain.games.pax_pamir.data.cards import IRREGULARS, SAVVY_OPERATOR, EventEffect
from tests.unit.pax_pamir.table import table

KABUL = Region.KABUL
MOHAN_LAL = 1  # Kabul intelligence 3
PRINCE_AKBAR_KHAN = 3  # Afghan patriot, intelligence 2
SHAH_SHUJAH = 5  # political 1
AMINULLAH_KHAN = 6  # Afghan patriot, political 1
DOST_MOHAMMAD = 7  # political 2
KABUL_BAZAAR = 8  # economic 2
DURRANI_ROYAL_GUARD = 15  # military 1


# -- R-RUL ----------------------------------------------------------------------------------------------

def ruler(**spec):
    return q.ruler_of(table(**spec).state, KABUL)


def test_r_rul_a_tribe_and_more_ruling_pieces_than_every_seat_and_every_coalition_rules():
    assert ruler(tribes={"kabul": {0: 1}}, armies={"kabul": {"afghan": 1, "british": 1}}) == 0


def test_r_rul_without_a_tribe_nobody_rules_however_many_armies():
    assert ruler(armies={"kabul": {"afghan": 3}}) is None


def test_r_rul_a_tie_between_seats_means_no_ruler():
    assert ruler(tribes={"kabul": {0: 1, 1: 1}}) is None


@pytest.mark.parametrize(("tribes", "expected"), [(2, None), (3, 0)])
def test_r_rul_armies_of_a_coalition_nobody_is_loyal_to_still_block_rule(tribes, expected):
    assert ruler(tribes={"kabul": {0: tribes}}, armies={"kabul": {"russian": 2}}) == expected


def test_r_rul_seats_of_the_same_coalition_both_count_its_armies():
    spec = dict(seats=3, loyalties=["afghan", "afghan", "british"])
    assert ruler(**spec, tribes={"kabul": {0: 1, 1: 2}}, armies={"kabul": {"afghan": 1}}) == 1
    assert ruler(**spec, tribes={"kabul": {0: 2, 1: 2, 2: 1}}, armies={"kabul": {"afghan": 1}}) is None


def test_r_rul_a_plurality_without_a_tribe_means_no_ruler_even_if_others_have_tribes():
    assert ruler(tribes={"kabul": {0: 2}}, armies={"kabul": {"british": 3}}) is None


def test_r_rul_roads_and_spies_never_count():
    assert ruler(tribes={"kabul": {0: 1}}, roads={"kabul_punjab": {"british": 4}}, courts={1: [MOHAN_LAL]},
                 spies={MOHAN_LAL: {1: 3}}) == 0


def test_r_rul_a_seat_rules_with_its_current_coalitions_armies():
    assert ruler(tribes={"kabul": {0: 1, 1: 1}}, armies={"kabul": {"british": 1}}, loyalties=["afghan", "british"]) == 1
    assert ruler(tribes={"kabul": {0: 1, 1: 1}}, armies={"kabul": {"british": 1}}, loyalties=["british", "afghan"]) == 0


# -- R-STR ----------------------------------------------------------------------------------------------

def test_r_str_stars_by_suit_set_the_court_limit_hand_limit_and_tax_shelter():
    s = table(courts={0: [SHAH_SHUJAH, DOST_MOHAMMAD, MOHAN_LAL, KABUL_BAZAAR, DURRANI_ROYAL_GUARD]}).state
    assert [q.stars(s, 0, suit) for suit in Suit] == [2, 1, 3, 3]  # economic, military, political, intelligence
    assert q.court_limit(s, 0) == 3 + 3
    assert q.hand_limit(s, 0) == 2 + 3
    assert q.tax_shelter(s, 0) == 2
    assert q.court_limit(s, 1) == 3 and q.hand_limit(s, 1) == 2 and q.tax_shelter(s, 1) == 0


def test_r_str_savvy_operator_and_irregulars_keep_their_printed_suit_for_stars():
    s = table(courts={0: [SAVVY_OPERATOR, IRREGULARS]}).state
    assert q.stars(s, 0, Suit.POLITICAL) == 1 and q.stars(s, 0, Suit.MILITARY) == 1


# -- R-INF ----------------------------------------------------------------------------------------------

def influence(**spec):
    base = dict(courts={0: [AMINULLAH_KHAN, KABUL_BAZAAR, PRINCE_AKBAR_KHAN]}, prizes={0: [50, 51]},
                gifts={0: [2, 4]})
    return q.influence(table(**{**base, **spec}).state, 0)


def test_r_inf_one_plus_patriots_prizes_and_gifts():
    assert influence() == 1 + 2 + 2 + 2


def test_r_inf_rumor_makes_the_targets_patriots_worth_nothing():
    assert influence(effects={EventEffect.RUMOR: 0}) == 1 + 0 + 2 + 2
    assert influence(effects={EventEffect.RUMOR: 1}) == 7


def test_r_inf_koh_i_noor_doubles_its_holders_gifts():
    assert influence(effects={EventEffect.KOH_I_NOOR_RECOVERED: 0}) == 1 + 2 + 2 + 4
    assert influence(effects={EventEffect.KOH_I_NOOR_RECOVERED: 1}) == 7


def test_r_inf_embarrassment_of_riches_makes_every_gift_worth_nothing_even_with_koh_i_noor():
    assert influence(effects={EventEffect.EMBARRASSMENT_OF_RICHES: None}) == 1 + 2 + 2
    assert influence(effects={EventEffect.EMBARRASSMENT_OF_RICHES: None, EventEffect.KOH_I_NOOR_RECOVERED: 0}) == 5


# -- R-HST ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seats", "spies", "holder"), [
    pytest.param(2, {1: 1}, 1, id="one spy of another seat"),
    pytest.param(2, {1: 2, 0: 1}, 1, id="more than the owner"),
    pytest.param(2, {1: 1, 0: 1}, None, id="tied with the owner"),
    pytest.param(2, {0: 2, 1: 1}, None, id="the owner has the most"),
    pytest.param(3, {1: 2, 2: 2}, None, id="two seats tied"),
    pytest.param(3, {1: 2, 2: 1, 0: 1}, 1, id="strictly more than every other seat"),
    pytest.param(2, {}, None, id="no spies"),
])
def test_r_hst_a_card_is_held_hostage_by_the_non_owner_with_strictly_the_most_spies(seats, spies, holder):
    s = table(seats=seats, courts={0: [MOHAN_LAL]}, spies={MOHAN_LAL: spies} if spies else None).state
    assert q.hostage_holder(s, MOHAN_LAL) == holder


# -- supplies (R-CMP-1, R-CMP-2) ----------------------------------------------------------------------------

def test_r_cmp_cylinders_in_play_are_tribes_spies_and_gifts_and_blocks_are_armies_and_roads():
    s = table(courts={0: [MOHAN_LAL]}, tribes={"kabul": {0: 2}}, spies={MOHAN_LAL: {0: 1}}, gifts={0: [6]},
              armies={"kabul": {"afghan": 2}}, roads={"herat_kabul": {"afghan": 1}}).state
    assert q.cylinders_in_play(s, 0) == 4 and q.cylinders_in_supply(s, 0) == 6
    assert q.blocks_in_play(s, Coalition.AFGHAN) == 3 and q.blocks_in_supply(s, Coalition.AFGHAN) == 9
    assert q.cylinders_in_supply(s, 1) == 10 and q.blocks_in_supply(s, Coalition.BRITISH) == 12
