"""Event cards (rules.md section 16, R-EVT): every purchase side and every discard side.

Purchase sides resolve as part of the Purchase (R-PUR-5); discard sides when the card is in
column 0 at cleanup (R-CLN-3). Lasting effects hold until the next Dominance Check (R-EVT-1)."""

from __future__ import annotations

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.cards import (
    BACKING_OF_PERSIAN_ARISTOCRACY,
    CONFIDENCE_FAILURE,
    CONFLICT_FATIGUE,
    COURTLY_MANNERS,
    DISREGARD_FOR_CUSTOMS,
    EMBARRASSMENT_OF_RICHES,
    FAILURE_TO_IMPRESS,
    FAVOR_INTELLIGENCE,
    FAVOR_MILITARY,
    FAVOR_POLITICAL,
    KOH_I_NOOR_RECOVERED,
    NATION_BUILDING,
    NATIONALISM,
    NEW_TACTICS,
    OTHER_PERSUASIVE_METHODS,
    PASHTUNWALI_VALUES,
    PUBLIC_WITHDRAWAL,
    REBUKE,
    RIOTS_HERAT,
    RIOTS_KABUL,
    RIOTS_PERSIA,
    RIOTS_PUNJAB,
    RUMOR,
    EventEffect,
)
from domain.games.pax_pamir.steps.turn import bribe_owed
from domain.kernel import redact
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.event_helpers import args_of, cmd, prompt_text, verbs
from tests.unit.pax_pamir.table import table

# court cards used below (numbers from cards.yaml)
BALKH_ARSENIC_MINE = 10  # kabul economic, icons road + favored military
CITADEL_OF_GHAZNI = 17  # kabul military, Citadel (Kabul)
ARMY_OF_THE_INDUS = 32  # punjab military, British patriot
MAQPON_DYNASTY = 27  # punjab political, leveraged
JOSIAH_HARLAN = 25  # punjab political, Afghan patriot
EXILED_DURRANI = 57  # herat political, British prize
HAZARA_CHIEFS = 55  # herat political
FATH_ALI_SHAH = 76  # persia political
SHAH_SHUJAH = 5  # kabul political
DOST_MOHAMMAD = 7  # kabul political
ZORAWAR_SINGH = 33  # punjab military
SIKH_MERCHANTS = 30  # punjab economic


def buy(g, number, seat=0):
    return g.when(seat, cmd("Purchase", card=number))


def end_turn(g, seat=0):
    return g.when(seat, cmd("EndTurn"))


# -- 105 New Tactics / Military -------------------------------------------------------------

def test_r_evt_new_tactics_makes_the_purchasers_military_cards_favored_until_the_next_check():
    g = table(courts={0: [ZORAWAR_SINGH], 1: [ARMY_OF_THE_INDUS]}, market={(0, 0): NEW_TACTICS})
    done = buy(g, NEW_TACTICS).then(expect("EffectStarted", effect="new_tactics", seat=0))
    s = done.state
    assert q.counts_as_favored(s, 0, ZORAWAR_SINGH)
    assert not q.counts_as_favored(s, 1, ARMY_OF_THE_INDUS)
    assert done.to_move() == [0] and "EndTurn" in verbs(done, 0) and s.actions_left == 1  # the turn goes on


def test_r_evt_new_tactics_does_not_double_purchase_costs():
    g = table(market={(0, 0): NEW_TACTICS, (0, 2): ZORAWAR_SINGH}, rupees=[4, 4])
    done = buy(g, NEW_TACTICS).when(0, cmd("Purchase", card=ZORAWAR_SINGH))
    assert done.state.players[0].rupees == 2


def test_r_evt_military_discarded_from_column_0_makes_military_favored():
    end_turn(table(market={(0, 0): FAVOR_MILITARY})).then(
        expect("CardMoved", card=FAVOR_MILITARY, src="market:0:0", dst="discard"),
        expect("FavoredSuitChanged", suit="military"))


# -- 106 Koh-i-noor Recovered / Embarrassment of Riches ------------------------------------

def test_r_inf_koh_i_noor_doubles_the_purchasers_gifts_only():
    g = table(gifts={0: [2, 4], 1: [2]}, market={(1, 0): KOH_I_NOOR_RECOVERED})
    done = buy(g, KOH_I_NOOR_RECOVERED).then(expect("EffectStarted", effect="koh_i_noor_recovered", seat=0))
    assert q.influence(done.state, 0) == 1 + 2 * 2
    assert q.influence(done.state, 1) == 1 + 1


def test_r_inf_embarrassment_of_riches_makes_every_gift_worth_nothing_even_with_koh_i_noor():
    g = table(gifts={0: [2, 4], 1: [2]}, market={(0, 0): EMBARRASSMENT_OF_RICHES},
              effects={"koh_i_noor_recovered": 0})
    done = end_turn(g).then(expect("EffectStarted", effect="embarrassment_of_riches", seat=None))
    assert q.influence(done.state, 0) == 1 and q.influence(done.state, 1) == 1


# -- 107 Courtly Manners / Disregard for Customs -------------------------------------------

def test_r_evt_courtly_manners_is_held_by_the_purchaser():
    done = buy(table(market={(0, 0): COURTLY_MANNERS}), COURTLY_MANNERS)
    done.then(expect("EffectStarted", effect="courtly_manners", seat=0))
    assert q.effect_active(done.state, EventEffect.COURTLY_MANNERS, 0)
    assert not q.effect_active(done.state, EventEffect.COURTLY_MANNERS, 1)


def test_r_ply_2_disregard_for_customs_means_no_bribe_is_owed_to_a_ruler():
    g = table(tribes={"kabul": {1: 2}}, hands={0: [SHAH_SHUJAH]}, market={(0, 0): DISREGARD_FOR_CUSTOMS},
              active=1, next_seat=0)
    assert bribe_owed(g.state, 0, SHAH_SHUJAH) == (1, 2)
    done = end_turn(g, seat=1).then(expect("EffectStarted", effect="disregard_for_customs", seat=None))
    assert bribe_owed(done.state, 0, SHAH_SHUJAH) is None
    played = done.when(0, cmd("Play", card=SHAH_SHUJAH))
    played.then(expect("CardMoved", card=SHAH_SHUJAH, dst="court:0")).then_not("RupeesMoved")


# -- 108 Rumor / Failure to Impress ----------------------------------------------------------

def test_r_evt_rumor_names_another_player_only_and_their_patriots_give_no_influence():
    g = table(seats=3, courts={1: [JOSIAH_HARLAN]}, loyalties=["british", "afghan", "russian"],
              market={(0, 0): RUMOR})
    asked = buy(g, RUMOR)
    assert asked.to_move() == [0]
    assert args_of(asked, 0, "ChoosePlayer") == [1, 2]
    assert q.influence(asked.state, 1) == 2
    asked.when(0, cmd("ChoosePlayer", seat=0)).then_rejects("not a choice")
    done = asked.when(0, cmd("ChoosePlayer", seat=1)).then(expect("EffectStarted", effect="rumor", seat=1))
    assert q.influence(done.state, 1) == 1
    assert done.to_move() == [0] and "EndTurn" in verbs(done, 0)


def test_r_evt_failure_to_impress_discards_every_prize_and_keeps_loyalties():
    g = table(prizes={0: [EXILED_DURRANI], 1: [ARMY_OF_THE_INDUS, SHAH_SHUJAH]},
              loyalties=["british", "afghan"], market={(0, 0): FAILURE_TO_IMPRESS})
    done = end_turn(g).then(expect("CardMoved", card=EXILED_DURRANI, src="prizes:0", dst="discard"),
                            expect("CardMoved", card=ARMY_OF_THE_INDUS, src="prizes:1", dst="discard"),
                            expect("CardMoved", card=SHAH_SHUJAH, src="prizes:1", dst="discard"))
    done.then_not("LoyaltyChanged")
    assert [p.prizes for p in done.state.players] == [[], []]
    assert [p.loyalty for p in done.state.players] == ["british", "afghan"]


# -- 109 Conflict Fatigue / Riots in Punjab --------------------------------------------------

def test_r_dom_2_conflict_fatigue_is_global_and_a_lead_of_2_is_enough():
    from domain.games.pax_pamir.steps.dominance import dominant_coalition

    g = table(armies={"kabul": {"afghan": 3}, "punjab": {"british": 1}}, market={(0, 0): CONFLICT_FATIGUE})
    assert dominant_coalition(g.state)[0] is None
    done = buy(g, CONFLICT_FATIGUE).then(expect("EffectStarted", effect="conflict_fatigue", seat=None))
    assert dominant_coalition(done.state)[0] == "afghan"


def test_r_evt_riots_in_punjab_clear_tribes_and_armies_keep_roads_and_overthrow():
    g = table(courts={1: [JOSIAH_HARLAN, ZORAWAR_SINGH]}, tribes={"punjab": {0: 1, 1: 2}, "kabul": {1: 1}},
              armies={"punjab": {"british": 2, "russian": 1}}, roads={"kabul_punjab": {"british": 1}},
              market={(0, 0): RIOTS_PUNJAB})
    done = end_turn(g).then(expect("PieceMoved", kind="tribe", owner=0, src="punjab", dst="supply"),
                            expect("PieceMoved", kind="tribe", owner=1, src="punjab", dst="supply"),
                            expect("PieceMoved", kind="army", owner="british", src="punjab"),
                            expect("CardMoved", card=JOSIAH_HARLAN, src="court:1", dst="discard"))
    s = done.state
    assert sum(s.tribes["punjab"].values()) == 0 and sum(s.armies["punjab"].values()) == 0
    assert s.roads["kabul_punjab"]["british"] == 1 and s.tribes["kabul"][1] == 1
    assert s.players[1].court == [ZORAWAR_SINGH]  # only political cards of the region are overthrown


def test_r_lev_riots_overthrow_a_leveraged_card_and_its_owner_not_the_active_player_owes_the_discard():
    g = table(courts={1: [MAQPON_DYNASTY, SIKH_MERCHANTS]}, hands={1: [ZORAWAR_SINGH]},
              tribes={"punjab": {1: 1}}, rupees=[4, 0], market={(0, 0): RIOTS_PUNJAB})
    done = end_turn(g).then(expect("CardMoved", card=MAQPON_DYNASTY, dst="discard"))
    assert done.to_move() == [1]
    assert "Leverage" in prompt_text(done, 1)
    assert sorted(args_of(done, 1, "Discard")) == [SIKH_MERCHANTS, ZORAWAR_SINGH]
    assert done.events[-1].barrier  # section 23 item 9: another seat owes the next decision
    paid = done.when(1, cmd("Discard", card=ZORAWAR_SINGH)).when(1, cmd("Discard", card=SIKH_MERCHANTS))
    assert paid.state.active == 1 and paid.to_move() == [1]  # cleanup went on: seat 1's turn


# -- 110 Nationalism / Riots in Herat --------------------------------------------------------

def test_r_evt_nationalism_is_held_by_the_purchaser():
    done = buy(table(market={(0, 0): NATIONALISM}), NATIONALISM)
    done.then(expect("EffectStarted", effect="nationalism", seat=0))


def test_r_evt_riots_in_herat_clear_herat_only():
    g = table(courts={0: [HAZARA_CHIEFS]}, tribes={"herat": {0: 1}, "kabul": {0: 1}},
              armies={"herat": {"afghan": 1}, "kabul": {"afghan": 1}}, market={(1, 0): RIOTS_HERAT})
    done = end_turn(g).then(expect("CardMoved", card=HAZARA_CHIEFS, src="court:0", dst="discard"))
    s = done.state
    assert s.tribes["herat"][0] == 0 and s.armies["herat"]["afghan"] == 0
    assert s.tribes["kabul"][0] == 1 and s.armies["kabul"]["afghan"] == 1


# -- 112 Nation Building / Riots in Kabul -----------------------------------------------------

def test_r_evt_nation_building_is_held_by_the_purchaser():
    buy(table(market={(0, 0): NATION_BUILDING}), NATION_BUILDING).then(
        expect("EffectStarted", effect="nation_building", seat=0))


def test_r_evt_riots_in_kabul_ignore_citadel_and_never_touch_spies():
    g = table(courts={1: [CITADEL_OF_GHAZNI, SHAH_SHUJAH]}, tribes={"kabul": {1: 2}}, spies={SHAH_SHUJAH: {0: 1}},
              market={(0, 0): RIOTS_KABUL})
    done = end_turn(g)
    s = done.state
    assert s.tribes["kabul"][1] == 0
    assert SHAH_SHUJAH not in s.players[1].court  # overthrown (spies go home with the card)
    assert CITADEL_OF_GHAZNI in s.players[1].court


# -- 113 Backing of Persian Aristocracy / Riots in Persia -------------------------------------

def test_r_evt_backing_of_persian_aristocracy_gives_3_rupees_and_the_cards_rupees():
    g = table(market={(0, 1): BACKING_OF_PERSIAN_ARISTOCRACY, (0, 0): SHAH_SHUJAH},
              market_rupees={(0, 1): 2}, rupees=[4, 4])
    done = buy(g, BACKING_OF_PERSIAN_ARISTOCRACY).then(
        expect("RupeesMoved", amount=1, src="seat:0", dst="market:0:0"),
        expect("RupeesMoved", amount=2, src="market:0:1", dst="seat:0"),
        expect("RupeesMoved", amount=3, src="bank", dst="seat:0"))
    assert done.state.players[0].rupees == 4 - 1 + 2 + 3
    assert done.state.actions_left == 1


def test_r_evt_riots_in_persia_clear_persia():
    g = table(courts={0: [FATH_ALI_SHAH]}, tribes={"persia": {0: 2, 1: 1}}, armies={"persia": {"russian": 3}},
              market={(0, 0): RIOTS_PERSIA})
    s = end_turn(g).state
    assert sum(s.tribes["persia"].values()) == 0 and sum(s.armies["persia"].values()) == 0
    assert s.players[0].court == []


# -- 114 Other Persuasive Methods / Confidence Failure ------------------------------------------

def test_r_evt_other_persuasive_methods_swaps_whole_hands_secretly_and_is_an_undo_barrier():
    g = table(seats=3, hands={0: [SHAH_SHUJAH], 2: [ZORAWAR_SINGH, SIKH_MERCHANTS]},
              market={(0, 0): OTHER_PERSUASIVE_METHODS})
    asked = buy(g, OTHER_PERSUASIVE_METHODS)
    assert args_of(asked, 0, "ChoosePlayer") == [1, 2]
    assert "swap" in prompt_text(asked, 0)
    done = asked.when(0, cmd("ChoosePlayer", seat=2))
    swapped = done.of_type("HandsSwapped")[0]
    assert swapped.barrier and swapped.secret_to == frozenset({0, 2})
    assert swapped.data == {"seats": [0, 2], "counts": [1, 2]}
    assert "secret" not in redact(swapped, 1) and "secret" in redact(swapped, 2)
    s = done.state
    assert sorted(s.players[0].hand) == sorted([ZORAWAR_SINGH, SIKH_MERCHANTS]) and s.players[2].hand == [SHAH_SHUJAH]
    seen_by_1 = done.view(1)["players"]
    assert "hand" not in seen_by_1[0] and seen_by_1[0]["hand_count"] == 2 and seen_by_1[2]["hand_count"] == 1


def test_r_evt_other_persuasive_methods_with_an_empty_hand():
    g = table(hands={1: [SHAH_SHUJAH]}, market={(0, 0): OTHER_PERSUASIVE_METHODS})
    done = buy(g, OTHER_PERSUASIVE_METHODS).when(0, cmd("ChoosePlayer", seat=1))
    assert done.state.players[0].hand == [SHAH_SHUJAH] and done.state.players[1].hand == []


def test_section_21_item_11_confidence_failure_starts_with_the_active_player_and_skips_empty_hands():
    g = table(seats=3, hands={0: [SHAH_SHUJAH, DOST_MOHAMMAD], 2: [ZORAWAR_SINGH]},
              market={(0, 0): CONFIDENCE_FAILURE}, active=1, next_seat=2)
    first = end_turn(g, seat=1)
    assert first.to_move() == [2]  # seat 1 (active) has no hand card
    assert args_of(first, 2, "Discard") == [ZORAWAR_SINGH]
    assert prompt_text(first, 2) == "Confidence Failure: discard one card from your hand."
    assert first.events[-1].barrier
    second = first.when(2, cmd("Discard", card=ZORAWAR_SINGH))
    second.then(expect("CardMoved", card=ZORAWAR_SINGH, src="hand:2", dst="discard"))
    assert second.to_move() == [0]
    assert sorted(args_of(second, 0, "Discard")) == [SHAH_SHUJAH, DOST_MOHAMMAD]
    second.when(1, cmd("Discard", card=SHAH_SHUJAH)).then_rejects("not asked to discard")
    done = second.when(0, cmd("Discard", card=DOST_MOHAMMAD))
    assert done.state.players[0].hand == [SHAH_SHUJAH]
    assert done.state.active == 2  # cleanup finished: the next turn


def test_r_evt_confidence_failure_asks_the_active_player_first_when_they_hold_cards():
    g = table(seats=3, hands={0: [SHAH_SHUJAH], 1: [DOST_MOHAMMAD], 2: [ZORAWAR_SINGH]},
              market={(1, 0): CONFIDENCE_FAILURE}, active=2, next_seat=0)
    first = end_turn(g, seat=2)
    assert first.to_move() == [2]
    assert first.when(2, cmd("Discard", card=ZORAWAR_SINGH)).to_move() == [0]


def test_r_evt_confidence_failure_with_no_hand_card_anywhere_asks_nobody():
    done = end_turn(table(seats=3, market={(0, 0): CONFIDENCE_FAILURE}))
    done.then(expect("CardMoved", card=CONFIDENCE_FAILURE, dst="discard"), expect("TurnStarted", seat=1))


# -- 115 Pashtunwali Values / Intelligence -----------------------------------------------------

def test_r_evt_pashtunwali_values_sets_any_suit_then_locks_it_against_icons():
    g = table(hands={0: [BALKH_ARSENIC_MINE]}, market={(0, 0): PASHTUNWALI_VALUES})
    asked = buy(g, PASHTUNWALI_VALUES)
    assert sorted(args_of(asked, 0, "ChooseSuit")) == ["economic", "intelligence", "military", "political"]
    done = asked.when(0, cmd("ChooseSuit", suit="economic")).then(
        expect("FavoredSuitChanged", suit="economic"), expect("EffectStarted", effect="pashtunwali_values"))
    played = done.when(0, cmd("Play", card=BALKH_ARSENIC_MINE)).when(0, cmd("PlaceRoad", border="herat_kabul"))
    played.then_not("FavoredSuitChanged")
    assert played.state.favored == "economic"


def test_r_evt_pashtunwali_values_may_choose_the_current_suit():
    done = buy(table(market={(0, 0): PASHTUNWALI_VALUES}), PASHTUNWALI_VALUES).when(
        0, cmd("ChooseSuit", suit="political"))
    done.then(expect("EffectStarted", effect="pashtunwali_values", seat=None)).then_not("FavoredSuitChanged")


def test_r_evt_intelligence_discarded_makes_intelligence_favored():
    end_turn(table(market={(0, 0): FAVOR_INTELLIGENCE})).then(expect("FavoredSuitChanged", suit="intelligence"))


def test_r_evt_favored_suit_discard_events_are_ignored_under_pashtunwali_values():
    g = table(market={(0, 0): FAVOR_MILITARY, (1, 0): FAVOR_INTELLIGENCE}, effects={"pashtunwali_values": None})
    done = end_turn(g).then(expect("CardMoved", card=FAVOR_MILITARY, dst="discard"),
                            expect("CardMoved", card=FAVOR_INTELLIGENCE, dst="discard"))
    done.then_not("FavoredSuitChanged")
    assert done.state.favored == "political"


# -- 116 Rebuke / Political --------------------------------------------------------------------

def test_r_evt_rebuke_clears_the_chosen_region_with_overthrow_and_citadel_does_not_protect():
    g = table(courts={1: [CITADEL_OF_GHAZNI, SHAH_SHUJAH]}, tribes={"kabul": {0: 1, 1: 1}},
              armies={"kabul": {"afghan": 2}}, roads={"herat_kabul": {"afghan": 1}}, market={(0, 0): REBUKE})
    asked = buy(g, REBUKE)
    assert sorted(args_of(asked, 0, "ChooseRegion")) == sorted(
        ["persia", "transcaspia", "herat", "kabul", "kandahar", "punjab"])
    done = asked.when(0, cmd("ChooseRegion", region="kabul")).then(
        expect("PieceMoved", kind="tribe", owner=0, src="kabul"),
        expect("PieceMoved", kind="tribe", owner=1, src="kabul"),
        expect("CardMoved", card=SHAH_SHUJAH, src="court:1", dst="discard"))
    s = done.state
    assert sum(s.tribes["kabul"].values()) == 0 and s.armies["kabul"]["afghan"] == 0
    assert s.roads["herat_kabul"]["afghan"] == 1
    assert done.to_move() == [0] and s.actions_left == 1


def test_r_evt_rebuke_may_name_an_empty_region():
    done = buy(table(market={(0, 0): REBUKE}), REBUKE).when(0, cmd("ChooseRegion", region="persia"))
    done.then_not("PieceMoved")
    assert done.to_move() == [0]


def test_r_evt_political_discarded_makes_political_favored():
    end_turn(table(market={(0, 0): FAVOR_POLITICAL}, favored="military")).then(
        expect("FavoredSuitChanged", suit="political"))


# -- 111 Public Withdrawal -----------------------------------------------------------------------

def test_r_evt_2_public_withdrawal_can_never_be_purchased():
    g = table(market={(0, 0): PUBLIC_WITHDRAWAL, (1, 0): SHAH_SHUJAH})
    assert PUBLIC_WITHDRAWAL not in args_of(g, 0, "Purchase")
    buy(g, PUBLIC_WITHDRAWAL).then_rejects("not a choice")


def test_r_evt_public_withdrawal_discarded_from_column_0_has_no_effect():
    done = end_turn(table(market={(0, 0): PUBLIC_WITHDRAWAL}))
    done.then(expect("CardMoved", card=PUBLIC_WITHDRAWAL, src="market:0:0", dst="discard"))
    done.then_not("EffectStarted", "FavoredSuitChanged", "PieceMoved")


# -- every event at once: purchase sides never reach a hand -------------------------------------

def test_r_pur_5_a_purchased_event_goes_to_the_discard_pile_never_to_a_hand():
    done = buy(table(market={(0, 0): NATIONALISM}), NATIONALISM)
    done.then(expect("CardMoved", card=NATIONALISM, src="market:0:0", dst="discard"))
    assert done.state.players[0].hand == []
