"""Dominance Checks and the end of the game (rules.md sections 18 and 19, R-DOM-1 to
R-DOM-10, R-END-1 to R-END-2), with section 21 items 6 and 12."""

from __future__ import annotations

import pytest

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.steps.dominance import dominant_coalition, split_points
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.event_helpers import checks_out_of_deck, cmd, more, verbs
from tests.unit.pax_pamir.table import table

DC = 101
ZORAWAR_SINGH = 33  # punjab military rank 2
COMPANY_WEAPONS = 31  # punjab military rank 1
ARMY_OF_THE_INDUS = 32  # punjab military rank 3, British patriot
EXILED_DURRANI = 57  # prize: British
SHAH_SHUJAH = 5  # kabul political, prize Afghan


def check(g, seat=0):
    """``seat`` buys the Dominance Check lying in column 0 (free) during its turn."""
    return g.when(seat, cmd("Purchase", card=DC))


def points(done):
    return {s["seat"]: s["points"] for s in done.of_type("DominanceCheckResolved")[0].data["scores"]}


def with_vp(g, *vps):
    return more(g, *(ev.victory_points_scored(seat, vp) for seat, vp in enumerate(vps) if vp))


# -- R-DOM-1, R-DOM-2 ------------------------------------------------------------------------------

@pytest.mark.parametrize(("armies", "roads", "dominant"), [
    ({"kabul": {"british": 5}}, {"kabul_punjab": {"british": 3}, "herat_kabul": {"afghan": 4, "russian": 4}},
     "british"),  # 8/4/4
    ({"persia": {"russian": 4}}, {}, "russian"),  # 4/0/0
    ({"kabul": {"afghan": 7, "british": 4, "russian": 2}}, {}, None),  # 7/4/2
    ({}, {}, None),  # 0/0/0
    ({"kabul": {"afghan": 3}}, {}, None),
])
def test_r_dom_1_and_2_armies_and_roads_of_a_coalition_must_lead_each_other_by_4(armies, roads, dominant):
    assert dominant_coalition(table(armies=armies, roads=roads).state)[0] == dominant


def test_r_dom_2_conflict_fatigue_lowers_the_lead_to_2():
    g = table(armies={"kabul": {"afghan": 4, "british": 2}}, effects={"conflict_fatigue": None})
    assert dominant_coalition(g.state)[0] == "afghan"


# -- R-DOM-3 success -------------------------------------------------------------------------------

def test_r_dom_3_a_successful_check_scores_5_3_1_among_the_loyal_players_by_influence():
    g = table(seats=4, loyalties=["british", "british", "afghan", "british"], armies={"punjab": {"british": 4}},
              prizes={0: [EXILED_DURRANI]}, gifts={3: [2, 4]}, courts={3: [ARMY_OF_THE_INDUS]},
              market={(0, 0): DC})
    done = check(g).then(expect("DominanceCheckResolved", dominant="british", final=False),
                         expect("VictoryPointsScored", seat=0, points=3),
                         expect("VictoryPointsScored", seat=1, points=1),
                         expect("VictoryPointsScored", seat=3, points=5))
    assert points(done) == {0: 3, 1: 1, 3: 5}
    assert [p.vp for p in done.state.players] == [3, 1, 0, 5]


def test_r_dom_3_when_nobody_is_loyal_to_the_dominant_coalition_nobody_scores():
    g = table(armies={"persia": {"russian": 4}}, market={(0, 0): DC})
    done = check(g).then(expect("DominanceCheckResolved", dominant="russian", scores=[]))
    done.then_not("VictoryPointsScored")


def test_r_dom_3_rumor_and_koh_i_noor_count_in_the_influence_ranking():
    g = table(loyalties=["british", "british"], armies={"punjab": {"british": 4}},
              courts={0: [ARMY_OF_THE_INDUS]}, gifts={1: [2]}, market={(0, 0): DC},
              effects={"rumor": 0, "koh_i_noor_recovered": 1})
    assert points(check(g)) == {0: 3, 1: 5}


# -- R-DOM-4 failure --------------------------------------------------------------------------------

def test_r_dom_4_a_failed_check_scores_3_1_by_cylinders_in_play_for_everyone():
    g = table(seats=3, tribes={"kabul": {1: 2}}, spies={SHAH_SHUJAH: {2: 1}}, gifts={2: [2, 4]},
              courts={0: [SHAH_SHUJAH]}, armies={"kabul": {"afghan": 3}}, market={(0, 0): DC})
    done = check(g).then(expect("DominanceCheckResolved", dominant=None))
    assert points(done) == {0: 0, 1: 1, 2: 3}


def test_r_dom_4_a_player_with_no_cylinder_in_play_is_still_ranked():
    g = table(seats=2, tribes={"kabul": {1: 1}}, market={(0, 0): DC})
    assert points(check(g)) == {0: 1, 1: 3}


def test_r_dom_7_a_failed_check_leaves_the_blocks_on_the_map():
    g = table(armies={"kabul": {"afghan": 3}}, roads={"herat_kabul": {"british": 1}}, market={(0, 0): DC})
    done = check(g)
    assert done.state.armies["kabul"]["afghan"] == 3 and done.state.roads["herat_kabul"]["british"] == 1


# -- R-DOM-5 ties -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "table_", "expected"), [
    ([5, 5, 2], (5, 3, 1), {0: 4, 1: 4, 2: 1}),  # two tied first: (5+3)/2
    ([1, 1, 1, 1], (5, 3, 1), {0: 2, 1: 2, 2: 2, 3: 2}),  # four tied: (5+3+1+0)/4 rounded down
    ([3, 1, 1], (6, 2), {0: 6, 1: 1, 2: 1}),  # final failure, two tied second: (2+0)/2
    ([2, 2, 2], (3, 1), {0: 1, 1: 1, 2: 1}),  # (3+1+0)/3 rounded down
    ([4, 3, 3, 3, 0], (5, 3, 1), {0: 5, 1: 1, 2: 1, 3: 1, 4: 0}),  # (3+1+0)/3
    ([0, 7], (3, 1), {1: 3, 0: 1}),
])
def test_r_dom_5_tied_players_share_the_places_they_cover_rounded_down(values, table_, expected):
    assert split_points(list(enumerate(values)), table_) == expected


def test_r_dom_5_four_players_tied_in_a_success_share_5_3_1_0_rounded_down():
    g = table(seats=4, loyalties=["british"] * 4, armies={"punjab": {"british": 4}}, market={(0, 0): DC})
    assert points(check(g)) == {0: 2, 1: 2, 2: 2, 3: 2}


def test_r_dom_5_and_6_the_final_check_doubles_the_points_before_the_tie_is_split():
    g = checks_out_of_deck(table(seats=4, loyalties=["british"] * 4, armies={"punjab": {"british": 4}},
                                 prizes={0: [EXILED_DURRANI]}, gifts={0: [2], 1: [2]}, market={(0, 0): DC}))
    done = check(g).then(expect("DominanceCheckResolved", final=True), expect("GameEnded"))
    assert points(done) == {0: 10, 1: 6, 2: 1, 3: 1}  # (2+0)/2 = 1, where (1+0)/2 doubled would be 0


def test_r_dom_5_the_final_failure_with_two_tied_second_gives_them_1_each():
    g = checks_out_of_deck(table(seats=3, tribes={"kabul": {0: 2}, "punjab": {1: 1, 2: 1}}, market={(0, 0): DC}))
    assert points(check(g)) == {0: 6, 1: 1, 2: 1}


# -- R-DOM-6 final check, R-DOM-7 clearing, R-DOM-8 end ------------------------------------------------

def test_r_dom_6_a_check_is_final_only_when_no_check_is_left_in_the_deck_or_the_market():
    in_market = checks_out_of_deck(table(market={(0, 0): DC, (1, 3): 102}), keep=())
    check(in_market).then(expect("DominanceCheckResolved", final=False)).then_not("GameEnded")
    in_deck = checks_out_of_deck(table(market={(0, 0): DC}), keep=[104])
    check(in_deck).then(expect("DominanceCheckResolved", final=False)).then_not("GameEnded")


def test_r_dom_7_a_successful_check_returns_every_block_of_every_coalition_to_supply():
    g = table(seats=3, loyalties=["british", "afghan", "russian"],
              armies={"punjab": {"british": 6}, "kabul": {"afghan": 1}},
              roads={"kabul_punjab": {"british": 1, "russian": 1}}, tribes={"kabul": {1: 1}}, market={(0, 0): DC})
    s = check(g).state
    assert all(not sum(c.values()) for c in s.armies.values()) and all(not sum(c.values()) for c in s.roads.values())
    assert s.tribes["kabul"][1] == 1  # cylinders stay


def test_r_dom_8_a_lead_of_4_vp_ends_the_game_at_once_in_the_middle_of_a_turn():
    g = table(loyalties=["british", "afghan"], armies={"punjab": {"british": 4}}, market={(0, 0): DC})
    done = check(g).then(expect("VictoryPointsScored", seat=0, points=5),
                         expect("GameEnded", winners=[0], vp=[5, 0], reason="victory_point_lead"))
    assert done.state.over and done.to_move() == [] and done.state.actions_left == 1
    done.then_not("EffectsCleared", "StepLeft")


def test_r_dom_8_a_lead_of_3_does_not_end_the_game():
    g = with_vp(table(loyalties=["british", "afghan"], armies={"punjab": {"british": 4}}, market={(0, 0): DC}),
                0, 2)
    done = check(g).then_not("GameEnded")
    assert [p.vp for p in done.state.players] == [5, 2]


def test_r_dom_8_players_sharing_the_lead_have_a_lead_of_0():
    g = with_vp(table(seats=3, loyalties=["british", "afghan", "afghan"], armies={"punjab": {"british": 4}},
                      market={(0, 0): DC}), 0, 5)
    check(g).then_not("GameEnded")


def test_section_21_item_6_a_check_bought_mid_turn_lets_the_turn_go_on():
    g = table(market={(0, 0): DC, (1, 0): SHAH_SHUJAH})
    done = check(g)
    assert done.to_move() == [0] and done.state.actions_left == 1 and "Purchase" in verbs(done, 0)


# -- R-DOM-9 --------------------------------------------------------------------------------------------

def test_r_dom_9_persistent_effects_are_cleared_and_the_pashtunwali_suit_stays_favored():
    g = table(market={(0, 0): DC}, favored="economic",
              effects={"pashtunwali_values": None, "new_tactics": 0, "rumor": 1, "embarrassment_of_riches": None})
    done = check(g).then(expect("DominanceCheckResolved"), expect("EffectsCleared"))
    assert done.state.effects == {} and done.state.favored == "economic"
    assert done.view(1)["effects"] == {}


def test_r_evt_1_effects_started_after_a_check_last_until_the_next_one():
    g = table(market={(0, 0): DC, (1, 0): 110})
    done = check(g).when(0, cmd("Purchase", card=110))
    assert done.state.effects == {"nationalism": 0}


# -- R-END-2 -------------------------------------------------------------------------------------------

def test_r_end_2_a_vp_tie_is_broken_by_military_stars():
    g = checks_out_of_deck(table(seats=3, loyalties=["british", "british", "afghan"],
                                 armies={"punjab": {"afghan": 4}}, courts={1: [ZORAWAR_SINGH], 0: [COMPANY_WEAPONS]},
                                 rupees=[9, 0, 9], market={(0, 0): DC}))
    check(with_vp(g, 10, 10)).then(expect("GameEnded", winners=[1], vp=[10, 10, 10], reason="final_dominance_check"))


def test_r_end_2_then_by_rupees_then_the_victory_is_shared():
    g = checks_out_of_deck(table(seats=3, loyalties=["afghan", "afghan", "afghan"], rupees=[3, 5, 5],
                                 armies={"punjab": {"afghan": 4}}, market={(0, 0): DC}))
    check(g).then(expect("GameEnded", winners=[1, 2], vp=[6, 6, 6]))
    richer = checks_out_of_deck(table(seats=3, loyalties=["afghan", "afghan", "afghan"], rupees=[3, 6, 5],
                                      armies={"punjab": {"afghan": 4}}, market={(0, 0): DC}))
    check(richer).then(expect("GameEnded", winners=[1]))
