"""Play (R-PLY, rules.md section 8) and impact icons (R-IMP, section 9; section 23 item 3)."""

from __future__ import annotations

from domain.games.pax_pamir.data.board import Suit
from domain.games.pax_pamir.data.cards import EventEffect
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.flow import (
    asked,
    assert_prompt_is_the_law,
    assert_reveals_no_hidden_card,
    choices,
    cmd,
)
from tests.unit.pax_pamir.table import table

MOHAN_LAL = 1  # Kabul: spy, spy, spy
PRINCE_AKBAR_KHAN = 3  # Kabul, Afghan patriot: spy, spy, army, favored military
SHAH_SHUJAH = 5  # Kabul: tribe
AMINULLAH_KHAN = 6  # Kabul, Afghan patriot, political: tribe, army, spy
KABUL_BAZAAR = 8  # Kabul economic, no patriot
AFGHAN_HANDICRAFTS = 9  # Kabul: road
BALKH_ARSENIC_MINE = 10  # Kabul: road, favored military
MONEY_LENDERS = 14  # Kabul: road, road, leverage
HENRY_RAWLINSON = 20  # Punjab, British patriot
ALEXANDER_BURNES = 21  # Punjab
ARMY_OF_THE_INDUS = 32  # Punjab, British patriot: army, army, army
MACNAGHTEN = 40  # Kandahar, British patriot: spy, spy, leverage
KABUL_BORDERS = {"herat_kabul", "kabul_kandahar", "kabul_punjab", "kabul_transcaspia"}


def play(g, number, side=None, seat=0):
    g = g.when(seat, cmd("Play", card=number))
    return g.when(seat, cmd("ChooseSide", side=side)) if side else g


# -- R-PLY-1, R-PLY-3 ---------------------------------------------------------------------------------

def test_r_ply_1_play_costs_one_action_and_the_card_goes_to_the_chosen_end_of_the_court():
    g = play(table(hands={0: [SHAH_SHUJAH]}, courts={0: [KABUL_BAZAAR]}), SHAH_SHUJAH)
    assert g.to_move() == [0]
    assert choices(g, 0) == {("ChooseSide", "left"), ("ChooseSide", "right")}
    assert asked(g, 0).text == "Play Shah Shujah Durrani at the left or the right end of your court?"
    assert_prompt_is_the_law(g, 0)
    g = g.when(0, cmd("ChooseSide", side="left"))
    g.then(expect("ActionSpent", seat=0, action="play"),
           expect("CardMoved", card=SHAH_SHUJAH, src="hand:0", dst="court:0", side="left"))
    assert g.state.players[0].court == [SHAH_SHUJAH, KABUL_BAZAAR]
    assert g.state.actions_left == 1


def test_r_ply_1_with_an_empty_court_no_side_is_asked():
    g = play(table(hands={0: [SHAH_SHUJAH]}), SHAH_SHUJAH)
    g.then(expect("CardMoved", card=SHAH_SHUJAH, dst="court:0")).then_not(expect("StepEntered", step="choose_side"))


def test_r_ply_1_only_cards_in_your_hand_may_be_played_and_only_with_an_action_left():
    g = table(hands={0: [SHAH_SHUJAH], 1: [KABUL_BAZAAR]})
    assert {v for verb, v in choices(g, 0) if verb == "Play"} == {SHAH_SHUJAH}
    g.when(0, cmd("Play", card=KABUL_BAZAAR)).then_rejects("not a choice here")
    g.when(1, cmd("Play", card=KABUL_BAZAAR)).then_rejects("waiting for seat 0")
    none_left = table(hands={0: [SHAH_SHUJAH]}, actions=0)
    none_left.when(0, cmd("Play", card=SHAH_SHUJAH)).then_rejects("you cannot play a card now")


def test_r_ply_3_the_card_enters_the_court_only_once_the_bribe_is_paid():
    g = play(table(hands={0: [SHAH_SHUJAH]}, tribes={"kabul": {1: 1}}), SHAH_SHUJAH)
    g.then_not("ActionSpent", "CardMoved")
    g.when(0, cmd("PayBribe")).then(expect("RupeesMoved", reason="bribe"), "ActionSpent",
                                     expect("CardMoved", card=SHAH_SHUJAH, dst="court:0"))


# -- R-PLY-4: another coalition's patriot -----------------------------------------------------------------

def test_r_ply_4_another_coalitions_patriot_changes_loyalty_before_its_icons_resolve():
    g = play(table(hands={0: [ARMY_OF_THE_INDUS]}, loyalties=["afghan", "russian"]), ARMY_OF_THE_INDUS)
    g.then(expect("CardMoved", card=ARMY_OF_THE_INDUS, dst="court:0"),
           expect("LoyaltyChanged", seat=0, coalition="british"),
           expect("PieceMoved", kind="army", owner="british", dst="punjab"))
    assert g.state.armies["punjab"]["british"] == 3
    assert ARMY_OF_THE_INDUS in g.state.players[0].court  # matches the new loyalty: not discarded


def test_r_ply_4_a_patriot_of_your_own_coalition_changes_nothing():
    g = play(table(hands={0: [AMINULLAH_KHAN]}, courts={0: [PRINCE_AKBAR_KHAN]}), AMINULLAH_KHAN, "right")
    g.then_not("LoyaltyChanged")
    assert g.state.players[0].court[:2] == [PRINCE_AKBAR_KHAN, AMINULLAH_KHAN]


def test_r_ply_6_icons_are_skipped_once_a_leverage_discard_gives_up_the_card_just_played():
    """A British seat with no rupees plays an Afghan patriot: the loyalty change discards its
    leveraged British patriot, and the only card left to repay with is the new one."""
    g = table(loyalties=["british", "russian"], rupees=[0, 4], courts={0: [MACNAGHTEN]}, hands={0: [AMINULLAH_KHAN]})
    g = play(g, AMINULLAH_KHAN, "right")
    assert g.to_move() == [0]
    assert choices(g, 0) == {("Discard", AMINULLAH_KHAN)}
    assert asked(g, 0).text == ("Leverage on William Hay Macnaghten: you cannot repay 2 rupees; discard 2 cards, "
                                "one at a time, from your hand or court.")
    g = g.when(0, cmd("Discard", card=AMINULLAH_KHAN))
    g.then(expect("CardMoved", card=AMINULLAH_KHAN, src="court:0", dst="discard"),
           expect("LoyaltyChanged", seat=0, coalition="afghan"))
    g.then_not("PieceMoved")
    assert g.state.players[0].court == [] and g.state.players[0].rupees == 0
    assert g.to_move() == [0] and g.state.frames[-1].step == "turn"


# -- R-IMP and R-PLY-5 ----------------------------------------------------------------------------------------

def test_r_ply_5_icons_resolve_in_printed_order():
    g = play(table(hands={0: [AMINULLAH_KHAN]}, courts={1: [MOHAN_LAL, HENRY_RAWLINSON]}), AMINULLAH_KHAN)
    g.then(expect("PieceMoved", kind="tribe", owner=0, dst="kabul"),
           expect("PieceMoved", kind="army", owner="afghan", dst="kabul"))
    assert choices(g, 0) == {("PlaceSpy", AMINULLAH_KHAN), ("PlaceSpy", MOHAN_LAL)}


def test_r_ply_5_spies_printed_before_an_army_are_placed_first():
    g = play(table(hands={0: [PRINCE_AKBAR_KHAN]}), PRINCE_AKBAR_KHAN)
    g.then_not("PieceMoved")
    g = g.when(0, cmd("PlaceSpy", card=PRINCE_AKBAR_KHAN))
    g.then(expect("PieceMoved", kind="spy", owner=0, dst=str(PRINCE_AKBAR_KHAN))).then_not(
        expect("PieceMoved", kind="army"))
    g = g.when(0, cmd("PlaceSpy", card=PRINCE_AKBAR_KHAN))
    g.then(expect("PieceMoved", kind="spy"), expect("PieceMoved", kind="army", dst="kabul"),
           expect("FavoredSuitChanged", suit="military"))


def test_r_imp_a_spy_goes_on_any_court_card_of_the_cards_region_in_any_court():
    g = play(table(hands={0: [MOHAN_LAL]}, courts={0: [HENRY_RAWLINSON], 1: [SHAH_SHUJAH, KABUL_BAZAAR, ALEXANDER_BURNES]}),
             MOHAN_LAL, "right")
    assert choices(g, 0) == {("PlaceSpy", n) for n in (MOHAN_LAL, SHAH_SHUJAH, KABUL_BAZAAR)}
    assert asked(g, 0).text == "Mohan Lal: place a spy on a court card of Kabul, in any court."
    assert_prompt_is_the_law(g, 0)
    g = g.when(0, cmd("PlaceSpy", card=SHAH_SHUJAH))
    assert g.state.spies[SHAH_SHUJAH][0] == 1


def test_r_imp_a_road_goes_on_a_border_of_the_cards_region_chosen_by_its_player():
    g = play(table(hands={0: [AFGHAN_HANDICRAFTS], 1: [SHAH_SHUJAH]}), AFGHAN_HANDICRAFTS)
    assert choices(g, 0) == {("PlaceRoad", b) for b in KABUL_BORDERS}
    assert asked(g, 0).text == "Afghan Handicrafts: place a road on a border of Kabul."
    assert_prompt_is_the_law(g, 0)
    assert_reveals_no_hidden_card(g)
    g = g.when(0, cmd("PlaceRoad", border="kabul_punjab"))
    g.then(expect("PieceMoved", kind="road", owner="afghan", src="supply", dst="kabul_punjab", placed=True))


def test_r_imp_leverage_takes_two_rupees_from_the_bank():
    g = play(table(hands={0: [MONEY_LENDERS]}, rupees=[1, 4]), MONEY_LENDERS)
    g = g.when(0, cmd("PlaceRoad", border="herat_kabul")).when(0, cmd("PlaceRoad", border="herat_kabul"))
    g.then(expect("RupeesMoved", amount=2, src="bank", dst="seat:0", reason="leverage"))
    assert g.state.players[0].rupees == 3


def test_r_imp_a_favored_suit_icon_changes_the_favored_suit():
    g = play(table(hands={0: [BALKH_ARSENIC_MINE]}), BALKH_ARSENIC_MINE)
    g = g.when(0, cmd("PlaceRoad", border="herat_kabul"))
    g.then(expect("FavoredSuitChanged", suit="military", reason="impact"))
    assert g.state.favored == Suit.MILITARY


def test_pashtunwali_values_blocks_favored_suit_icons_whoever_holds_it():
    g = play(table(hands={0: [BALKH_ARSENIC_MINE]}, effects={EventEffect.PASHTUNWALI_VALUES: 1}),
             BALKH_ARSENIC_MINE)
    g = g.when(0, cmd("PlaceRoad", border="herat_kabul"))
    g.then_not("FavoredSuitChanged")
    assert g.state.favored == Suit.POLITICAL


def test_r_imp_blocks_are_of_the_players_current_coalition():
    g = play(table(hands={0: [SHAH_SHUJAH, 15]}, loyalties=["russian", "british"]), 15)
    g.then(expect("PieceMoved", kind="army", owner="russian", dst="kabul"))
