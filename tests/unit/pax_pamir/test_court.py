"""Cards leaving a court (R-DSC), leverage (R-LEV), overthrow (R-OVR) and loyalty change
(R-LOY): rules.md sections 12 and 13, section 22 and section 23 items 2 and 9."""

from __future__ import annotations

from domain.kernel.steps import FRAME_EVENTS
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.flow import (
    asked,
    assert_prompt_is_the_law,
    assert_reveals_no_hidden_card,
    choices,
    cmd,
    resolve,
    with_steps,
)
from tests.unit.pax_pamir.table import table

PRINCE_AKBAR_KHAN = 3  # Kabul intelligence, Afghan patriot
SHAH_SHUJAH = 5  # Kabul political
AMINULLAH_KHAN = 6  # Kabul political, Afghan patriot
DOST_MOHAMMAD = 7  # Kabul political
KABUL_BAZAAR = 8  # Kabul economic
HENRY_RAWLINSON = 20
ALEXANDER_BURNES = 21
PAOLO_AVITABILE = 26  # Punjab political
MAQPON_DYNASTY = 27  # Punjab political, leveraged
ARMY_OF_THE_INDUS = 32  # Punjab, British patriot: army x3
MACNAGHTEN = 40  # Kandahar intelligence, British patriot, leveraged
BARAKZAI_SADARS = 42  # Kandahar political, Afghan patriot, leveraged
BRITISH_REGULARS = 50


def discarding(g, card, owner=0, dst="discard"):
    """``owner`` starts discarding ``card`` from its court (R-DSC) in the middle of seat 0's turn."""
    return resolve(with_steps(g, ("discard_court_card", owner, {"card": card, "dst": dst})))


def events(g, type_):
    return [e.data for e in g.history if e.type == type_]


# -- R-DSC ----------------------------------------------------------------------------------------------

def test_r_dsc_1_every_spy_on_a_discarded_card_goes_home_and_the_card_to_the_discard_pile():
    g = discarding(table(courts={0: [KABUL_BAZAAR]}, spies={KABUL_BAZAAR: {0: 1, 1: 2}}), KABUL_BAZAAR)
    spies_home = [(d["owner"], d["src"], d["dst"]) for d in events(g, "PieceMoved")[-3:]]
    assert spies_home == [(0, "8", "supply"), (1, "8", "supply"), (1, "8", "supply")]
    assert g.state.discard[-1] == KABUL_BAZAAR and g.state.players[0].court == []
    assert sum(g.state.spies[KABUL_BAZAAR].values()) == 0


def test_r_dsc_2_a_card_may_leave_a_court_for_a_betrayers_prizes():
    g = discarding(table(courts={1: [BRITISH_REGULARS]}), BRITISH_REGULARS, owner=1, dst="prizes:0")
    assert g.state.players[0].prizes == [BRITISH_REGULARS]


def test_r_dsc_a_discard_from_a_hand_is_none_of_this():
    g = with_steps(table(loyalties=["british", "russian"], rupees=[1, 4], courts={0: [MACNAGHTEN]},
                         hands={0: [PRINCE_AKBAR_KHAN]}, spies={MACNAGHTEN: {1: 1}}),
                   ("discard_court_card", 0, {"card": MACNAGHTEN, "dst": "discard"}))
    g = resolve(g).when(0, cmd("Discard", card=PRINCE_AKBAR_KHAN))
    assert g.events and [e.type for e in g.events if e.type not in FRAME_EVENTS] == ["CardMoved"]
    g.then(expect("CardMoved", card=PRINCE_AKBAR_KHAN, src="hand:0", dst="discard"))


# -- R-LEV ----------------------------------------------------------------------------------------------

def test_r_lev_1_a_leveraged_card_leaving_a_court_costs_its_owner_two_rupees_to_the_bank():
    g = discarding(table(loyalties=["british", "russian"], rupees=[5, 4], courts={0: [MACNAGHTEN]}), MACNAGHTEN)
    assert events(g, "RupeesMoved")[-1] == {"amount": 2, "src": "seat:0", "dst": "bank", "reason": "leverage"}
    assert g.state.players[0].rupees == 3
    assert g.state.frames[-1].step == "turn"


def test_r_lev_2_each_unpaid_rupee_is_a_discard_of_the_debtors_choice_from_hand_or_court():
    g = table(loyalties=["british", "russian"], rupees=[1, 4], courts={0: [MACNAGHTEN, KABUL_BAZAAR]},
              hands={0: [HENRY_RAWLINSON], 1: [ALEXANDER_BURNES]})
    g = discarding(g, MACNAGHTEN)
    assert g.state.players[0].rupees == 0  # paid what it had
    assert g.to_move() == [0]
    assert choices(g, 0) == {("Discard", HENRY_RAWLINSON), ("Discard", KABUL_BAZAAR)}
    assert asked(g, 0).text == ("Leverage on William Hay Macnaghten: you cannot repay 1 rupee; discard a card "
                                "from your hand or court.")
    assert_prompt_is_the_law(g, 0)
    assert_reveals_no_hidden_card(g)
    g = g.when(0, cmd("Discard", card=KABUL_BAZAAR))
    g.then(expect("CardMoved", card=KABUL_BAZAAR, src="court:0", dst="discard"))
    assert g.state.frames[-1].step == "turn" and g.state.players[0].hand == [HENRY_RAWLINSON]


def test_r_lev_2_a_leveraged_court_card_given_up_owes_again_and_the_chain_settles_at_once():
    g = table(loyalties=["british", "russian"], rupees=[0, 4], courts={0: [MACNAGHTEN, BARAKZAI_SADARS, KABUL_BAZAAR]})
    g = discarding(g, MACNAGHTEN)
    assert choices(g, 0) == {("Discard", BARAKZAI_SADARS), ("Discard", KABUL_BAZAAR)}
    g = g.when(0, cmd("Discard", card=BARAKZAI_SADARS))
    assert asked(g, 0).text.startswith("Leverage on Barakzai Sadars: you cannot repay 2 rupees")
    g = g.when(0, cmd("Discard", card=KABUL_BAZAAR))
    assert g.state.players[0].court == [] and g.state.players[0].rupees == 0
    assert g.state.frames[-1].step == "turn"  # R-LEV-3: the rest is forgiven


def test_r_lev_3_with_no_cards_left_the_rest_of_the_debt_is_forgiven():
    g = discarding(table(loyalties=["british", "russian"], rupees=[1, 4], courts={0: [MACNAGHTEN]}), MACNAGHTEN)
    assert g.state.players[0].rupees == 0
    assert g.to_move() == [0] and g.state.frames[-1].step == "turn"


def test_r_lev_5_the_debtor_may_be_another_seat_and_makes_the_choices():
    g = table(loyalties=["afghan", "british"], rupees=[4, 0], courts={1: [MACNAGHTEN]},
              hands={0: [SHAH_SHUJAH], 1: [HENRY_RAWLINSON, ALEXANDER_BURNES]})
    g = discarding(g, MACNAGHTEN, owner=1)
    assert g.to_move() == [1]
    assert g.legal(0) == []
    assert choices(g, 1) == {("Discard", HENRY_RAWLINSON), ("Discard", ALEXANDER_BURNES)}
    assert_prompt_is_the_law(g, 1)
    assert_reveals_no_hidden_card(g)
    g = g.when(1, cmd("Discard", card=ALEXANDER_BURNES)).when(1, cmd("Discard", card=HENRY_RAWLINSON))
    assert g.to_move() == [0] and g.state.frames[-1].step == "turn"


def test_section_23_9_a_leverage_discard_owed_by_another_seat_is_an_undo_barrier():
    """Seat 0's answer lets a discard of seat 1's leveraged card run (as a Betray will): the
    next decision is seat 1's, so seat 0 cannot take its answer back."""
    g = table(loyalties=["afghan", "british"], rupees=[4, 0], courts={0: [KABUL_BAZAAR], 1: [MACNAGHTEN]},
              hands={1: [HENRY_RAWLINSON]})
    g = with_steps(g, ("discard_court_card", 1, {"card": MACNAGHTEN, "dst": "discard"}), ("choose_side", 0, {}))
    g = g.when(0, cmd("ChooseSide", side="left"))
    assert g.to_move() == [1]
    assert g.events[-1].barrier


# -- R-OVR ----------------------------------------------------------------------------------------------

def test_r_ovr_1_losing_the_last_tribe_discards_every_political_card_of_the_region():
    g = table(courts={0: [SHAH_SHUJAH, KABUL_BAZAAR, DOST_MOHAMMAD, PAOLO_AVITABILE]})
    g = resolve(with_steps(g, ("overthrow", 0, {"region": "kabul"})))
    assert [d["card"] for d in events(g, "CardMoved")[-2:]] == [SHAH_SHUJAH, DOST_MOHAMMAD]  # left to right
    assert g.state.players[0].court == [KABUL_BAZAAR, PAOLO_AVITABILE]  # R-OVR-3: only political cards


def test_r_ovr_4_a_seat_that_still_has_a_tribe_there_is_not_overthrown():
    g = table(courts={0: [SHAH_SHUJAH]}, tribes={"kabul": {0: 1}})
    g = resolve(with_steps(g, ("overthrow", 0, {"region": "kabul"})))
    assert g.state.players[0].court == [SHAH_SHUJAH]


def test_r_ovr_2_losing_the_last_political_card_of_a_region_sends_its_tribes_there_home():
    g = discarding(table(courts={0: [SHAH_SHUJAH]}, tribes={"kabul": {0: 2, 1: 1}, "punjab": {0: 1}}), SHAH_SHUJAH)
    assert g.state.tribes["kabul"][0] == 0
    assert g.state.tribes["kabul"][1] == 1 and g.state.tribes["punjab"][0] == 1


def test_r_ovr_2_another_political_card_of_the_region_keeps_the_tribes():
    g = discarding(table(courts={0: [SHAH_SHUJAH, DOST_MOHAMMAD]}, tribes={"kabul": {0: 2}}), SHAH_SHUJAH)
    assert g.state.tribes["kabul"][0] == 2


def test_r_ovr_3_a_card_of_another_suit_never_overthrows():
    g = discarding(table(courts={0: [KABUL_BAZAAR]}, tribes={"kabul": {0: 2}}), KABUL_BAZAAR)
    assert g.state.tribes["kabul"][0] == 2


def test_r_ovr_5_an_overthrow_chains_through_leverage_into_another_region_and_each_card_goes_once():
    """Overthrown in Punjab, the seat repays Maqpon Dynasty's leverage by giving up Shah
    Shujah (its last Kabul political card: its Kabul tribes go home) and then Paolo
    Avitabile, which the overthrow was about to discard anyway."""
    g = table(rupees=[0, 4], courts={0: [MAQPON_DYNASTY, PAOLO_AVITABILE, SHAH_SHUJAH]}, tribes={"kabul": {0: 2}})
    g = resolve(with_steps(g, ("overthrow", 0, {"region": "punjab"})))
    assert choices(g, 0) == {("Discard", PAOLO_AVITABILE), ("Discard", SHAH_SHUJAH)}
    g = g.when(0, cmd("Discard", card=SHAH_SHUJAH))
    assert g.state.tribes["kabul"][0] == 0
    g = g.when(0, cmd("Discard", card=PAOLO_AVITABILE))
    assert g.state.players[0].court == []
    assert g.state.discard.count(PAOLO_AVITABILE) == 1
    assert g.state.frames[-1].step == "turn"


# -- R-LOY ----------------------------------------------------------------------------------------------

def test_r_loy_gifts_prizes_and_old_patriots_go_before_the_new_loyalty_is_set():
    g = table(loyalties=["afghan", "russian"], gifts={0: [2, 4]}, prizes={0: [BRITISH_REGULARS]},
              courts={0: [AMINULLAH_KHAN, KABUL_BAZAAR, PRINCE_AKBAR_KHAN]}, hands={0: [ARMY_OF_THE_INDUS]},
              spies={AMINULLAH_KHAN: {1: 1}}, tribes={"kabul": {0: 1}}, armies={"kabul": {"afghan": 2}})
    g = g.when(0, cmd("Play", card=ARMY_OF_THE_INDUS)).when(0, cmd("ChooseSide", side="right"))
    g.then(expect("PieceMoved", kind="gift", owner=0, src="2", dst="supply"),
           expect("PieceMoved", kind="gift", owner=0, src="4", dst="supply"),
           expect("CardMoved", card=BRITISH_REGULARS, src="prizes:0", dst="discard"),
           expect("PieceMoved", kind="spy", owner=1, src=str(AMINULLAH_KHAN), dst="supply"),
           expect("CardMoved", card=AMINULLAH_KHAN, src="court:0", dst="discard"),
           expect("PieceMoved", kind="tribe", owner=0, src="kabul", dst="supply"),  # R-OVR-2
           expect("CardMoved", card=PRINCE_AKBAR_KHAN, src="court:0", dst="discard"),
           expect("LoyaltyChanged", seat=0, coalition="british"),
           expect("PieceMoved", kind="army", owner="british", dst="punjab"))
    s = g.state
    assert s.players[0].court == [KABUL_BAZAAR, ARMY_OF_THE_INDUS]
    assert s.players[0].gifts == set() and s.players[0].prizes == []
    assert s.armies["kabul"]["afghan"] == 2  # blocks on the map stay where they are


# -- section 23 item 13 -----------------------------------------------------------------------------------

def test_section_23_13_the_court_limit_is_checked_again_after_leverage_discards_lower_it():
    """Court limit 3 + 3 political stars = 6, with 7 cards. Giving up Maqpon Dynasty (leveraged)
    with no rupees costs two more cards; giving up Dost Mohammad (2 political stars) among
    them lowers the limit to 3, so cleanup goes on asking."""
    court = [MAQPON_DYNASTY, DOST_MOHAMMAD, KABUL_BAZAAR, 9, 10, 11, 12]
    g = table(rupees=[0, 4], courts={0: court}).when(0, cmd("EndTurn"))
    assert asked(g, 0).text == "Cleanup: your court holds 7 cards, over its limit of 6; discard one."
    g = g.when(0, cmd("Discard", card=MAQPON_DYNASTY))
    g = g.when(0, cmd("Discard", card=DOST_MOHAMMAD)).when(0, cmd("Discard", card=KABUL_BAZAAR))
    assert g.state.players[0].court == [9, 10, 11, 12]
    assert g.to_move() == [0]
    assert asked(g, 0).text == "Cleanup: your court holds 4 cards, over its limit of 3; discard one."
    g = g.when(0, cmd("Discard", card=12))
    assert g.state.players[0].court == [9, 10, 11]
    assert g.state.active == 1
