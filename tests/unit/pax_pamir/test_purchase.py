"""Purchase (R-PUR, rules.md section 7; section 21 item 9)."""

from __future__ import annotations

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.data.board import Suit
from domain.games.pax_pamir.data.cards import (
    BACKING_OF_PERSIAN_ARISTOCRACY,
    HERAT_INFLUENCE,
    PERSIAN_INFLUENCE,
    PUBLIC_WITHDRAWAL,
    RUSSIAN_INFLUENCE,
)
from tests.helpers.scenario import expect, given
from tests.unit.pax_pamir.flow import (
    asked,
    assert_prompt_is_the_law,
    assert_reveals_no_hidden_card,
    choices,
    cmd,
)
from tests.unit.pax_pamir.table import table

#: two rows of Kabul and Herat court cards, columns 0..5
TOP = [10, 11, 12, 13, 14, 15]
BOTTOM = [60, 61, 62, 63, 64, 65]
DOMINANCE_CHECK = 101
PERSIA_CARD = 75  # Abbas Mirza
RUSSIAN_PATRIOT = 100  # Count Perovsky (Transcaspia)


def market(*, top=TOP, bottom=BOTTOM, **replace):
    slots = {(0, c): n for c, n in enumerate(top) if n is not None}
    slots.update({(1, c): n for c, n in enumerate(bottom) if n is not None})
    for key, number in replace.items():
        row, column = int(key[1]), int(key[3])
        if number is None:
            slots.pop((row, column), None)
        else:
            slots[(row, column)] = number
    return slots


def buy(g, number, seat=0):
    return g.when(seat, cmd("Purchase", card=number))


def paid_to(g):
    return [(e.data["dst"], e.data["amount"]) for e in g.of_type("RupeesMoved") if e.data["src"] == "seat:0"]


def marked(g):
    return sorted((e.data["row"], e.data["column"]) for e in g.of_type("MarketSlotMarked"))


# -- cost and payment (R-PUR-2, R-PUR-3) ------------------------------------------------------------

def test_r_pur_2_the_cost_is_the_column_paid_one_rupee_on_each_card_to_its_left_in_the_same_row():
    g = buy(table(market=market(), rupees=[10, 4]), 13)
    assert paid_to(g) == [("market:0:0", 1), ("market:0:1", 1), ("market:0:2", 1)]
    assert g.state.players[0].rupees == 7
    g.then(expect("ActionSpent", seat=0, action="purchase"),
           expect("CardMoved", card=13, src="market:0:3", dst="hand:0"))


def test_r_pur_2_when_military_is_favored_each_column_costs_two():
    g = buy(table(market=market(), rupees=[10, 4], favored=Suit.MILITARY), 62)
    assert paid_to(g) == [("market:1:0", 1), ("market:1:0", 1), ("market:1:1", 1), ("market:1:1", 1)]
    assert g.state.market_rupees[1][:2] == [2, 2]


def test_r_pur_3_a_rupee_for_an_empty_slot_goes_to_the_card_in_the_other_row():
    g = buy(table(market=market(r0c1=None), rupees=[10, 4]), 12)
    assert paid_to(g) == [("market:0:0", 1), ("market:1:1", 1)]
    assert marked(g) == [(0, 0), (1, 1)]


def test_r_pur_3_with_both_slots_empty_the_rupee_waits_on_the_other_rows_empty_slot():
    g = buy(table(market=market(r0c1=None, r1c1=None), rupees=[10, 4]), 12)
    assert paid_to(g) == [("market:0:0", 1), ("market:1:1", 1)]
    assert g.state.market_rupees[1][1] == 1
    assert marked(g) == [(0, 0)]  # nothing sits on the empty slot to be marked


def test_r_pur_3_a_rupee_that_would_land_on_public_withdrawal_is_removed_from_the_game():
    g = buy(table(market=market(r0c1=PUBLIC_WITHDRAWAL), rupees=[10, 4]), 12)
    assert paid_to(g) == [("market:0:0", 1), ("removed", 1)]
    assert g.state.market_rupees[0][1] == 0
    assert g.state.players[0].rupees == 8


def test_r_pur_3_public_withdrawal_in_the_other_row_also_destroys_a_rupee_for_an_empty_slot():
    g = buy(table(market=market(r0c1=None, r1c1=PUBLIC_WITHDRAWAL), rupees=[10, 4]), 12)
    assert paid_to(g) == [("market:0:0", 1), ("removed", 1)]


# -- marking (R-PUR-4, section 21 item 9) -------------------------------------------------------------

def test_r_pur_4_every_card_that_received_a_rupee_is_marked_and_cannot_be_bought_this_turn():
    g = buy(table(market=market(), rupees=[10, 4]), 13)
    assert marked(g) == [(0, 0), (0, 1), (0, 2)]
    purchasable = {v for verb, v in choices(g, 0) if verb == "Purchase"}
    assert purchasable == {14, 15, *BOTTOM}
    buy(g, 11).then_rejects("not a choice here")


def test_r_pur_4_marks_are_the_buyers_for_this_turn_only():
    g = buy(table(market=market(), rupees=[10, 4]), 13)
    assert given(RULES, *g.history, ev.turn_started(1, 2)).state.marked == set()


def test_r_pur_3_a_purchase_costing_nothing_places_no_rupee_and_marks_nothing():
    g = buy(table(market=market(), rupees=[0, 4]), 10)
    assert paid_to(g) == [] and marked(g) == []
    assert 10 in g.state.players[0].hand


def test_r_pur_2_herat_influence_makes_herat_court_cards_free_even_when_military_is_favored():
    g = table(market=market(), rupees=[0, 4], courts={0: [HERAT_INFLUENCE]}, favored=Suit.MILITARY)
    assert {v for verb, v in choices(g, 0) if verb == "Purchase"} == {10, *BOTTOM}
    g = buy(g, 65)
    assert paid_to(g) == [] and marked(g) == []
    assert 65 in g.state.players[0].hand


def test_r_pur_2_persian_influence_makes_persia_court_cards_free():
    g = buy(table(market=market(r0c5=PERSIA_CARD), rupees=[0, 4], courts={0: [PERSIAN_INFLUENCE]}), PERSIA_CARD)
    assert paid_to(g) == [] and marked(g) == []


def test_r_pur_2_russian_influence_makes_russian_patriots_free():
    g = buy(table(market=market(r1c4=RUSSIAN_PATRIOT), rupees=[0, 4], courts={0: [RUSSIAN_INFLUENCE]}),
            RUSSIAN_PATRIOT)
    assert paid_to(g) == [] and marked(g) == []


def test_r_pur_2_influence_discounts_never_apply_to_events():
    g = table(market=market(r0c1=BACKING_OF_PERSIAN_ARISTOCRACY), rupees=[0, 4],
              courts={0: [HERAT_INFLUENCE, PERSIAN_INFLUENCE, RUSSIAN_INFLUENCE]})
    assert ("Purchase", BACKING_OF_PERSIAN_ARISTOCRACY) not in choices(g, 0)


def test_r_pur_2_discounts_need_the_ability_card_in_your_own_court():
    g = table(market=market(), rupees=[0, 4], courts={1: [HERAT_INFLUENCE]})
    assert ("Purchase", 65) not in choices(g, 0)


# -- what may be bought (R-PUR-1, R-TRN-5) --------------------------------------------------------------

def test_r_pur_1_only_affordable_cards_are_offered():
    g = table(market=market(), rupees=[1, 4])
    assert {v for verb, v in choices(g, 0) if verb == "Purchase"} == {10, 11, 60, 61}
    buy(g, 12).then_rejects("not a choice here")


def test_r_pur_1_public_withdrawal_can_never_be_purchased():
    g = table(market=market(r0c0=PUBLIC_WITHDRAWAL), rupees=[10, 4])
    assert ("Purchase", PUBLIC_WITHDRAWAL) not in choices(g, 0)
    buy(g, PUBLIC_WITHDRAWAL).then_rejects("not a choice here")


def test_r_trn_5_purchase_costs_an_action_and_is_not_offered_without_one():
    g = table(market=market(), rupees=[10, 4], actions=0)
    assert not any(verb == "Purchase" for verb, _ in choices(g, 0))
    buy(g, 10).then_rejects("you cannot purchase now")
    g = buy(buy(table(market=market(), rupees=[10, 4]), 10), 60)  # the same core action twice
    assert g.state.actions_left == 0


def test_the_menu_is_the_law_and_names_no_hidden_card():
    g = table(market=market(), rupees=[3, 4], hands={0: [5], 1: [20]})
    assert asked(g, 0).text == "Your turn: 2 actions left."
    assert ("Play", 5) in choices(g, 0) and ("Play", 20) not in choices(g, 0)
    assert_prompt_is_the_law(g, 0)
    assert_reveals_no_hidden_card(g)


# -- what the buyer gets (R-PUR-5, R-PUR-6) -------------------------------------------------------------

def test_r_pur_5_the_buyer_takes_every_rupee_on_the_card():
    g = buy(table(market=market(), market_rupees={(0, 2): 3}, rupees=[10, 4]), 12)
    g.then(expect("RupeesMoved", amount=3, src="market:0:2", dst="seat:0", reason="purchase"))
    assert g.state.players[0].rupees == 10 - 2 + 3


def test_r_pur_5_an_event_card_never_goes_to_a_hand_and_resolves_at_once():
    g = buy(table(market=market(r0c0=BACKING_OF_PERSIAN_ARISTOCRACY), rupees=[10, 4]),
            BACKING_OF_PERSIAN_ARISTOCRACY)
    g.then(expect("ActionSpent", action="purchase"),
           expect("CardMoved", card=BACKING_OF_PERSIAN_ARISTOCRACY, src="market:0:0", dst="discard"),
           expect("RupeesMoved", src="bank", dst="seat:0", reason="backing_of_persian_aristocracy"))
    assert BACKING_OF_PERSIAN_ARISTOCRACY not in g.state.players[0].hand


def test_r_pur_5_a_dominance_check_is_resolved_at_once_and_the_turn_goes_on():
    g = buy(table(market=market(r0c0=DOMINANCE_CHECK), rupees=[10, 4]), DOMINANCE_CHECK)
    g.then(expect("ActionSpent", action="purchase"),
           expect("CardMoved", card=DOMINANCE_CHECK, dst="discard"),
           "DominanceCheckResolved")
    assert not g.state.over
    assert g.to_move() == [0] and g.state.frames[-1].step == "turn" and g.state.actions_left == 1


def test_r_pur_6_the_vacated_slot_stays_empty_until_cleanup():
    g = buy(table(market=market(), rupees=[10, 4]), 13)
    assert g.state.market[0][3] is None
    g.then_not("CardDealt")
