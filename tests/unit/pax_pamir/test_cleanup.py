"""Cleanup (rules.md section 17, R-CLN-1 to R-CLN-7), with section 21 items 2, 7, 8 and
section 23 items 4 and 13."""

from __future__ import annotations

from domain.games.pax_pamir.data.cards import (
    FAVOR_INTELLIGENCE,
    FAVOR_MILITARY,
    NATIONALISM,
    PUBLIC_WITHDRAWAL,
    RIOTS_PUNJAB,
)
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.event_helpers import args_of, checks_out_of_deck, cmd, deck_of, prompt_text
from tests.unit.pax_pamir.table import table

MOHAN_LAL = 1  # kabul intelligence rank 3
DOST_MOHAMMAD = 7  # kabul political rank 2
MAQPON_DYNASTY = 27  # punjab political rank 1, leveraged
ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY, JEZAIL, TAJIK_WARBAND = 33, 38, 52, 53, 59  # military, no patriot
HAND = [60, 61, 62, 63]
DC_1, DC_2, DC_3, DC_4 = 101, 102, 103, 104

#: a full market of court cards 80..91: (row, column) -> card
FULL = {(row, column): 80 + 6 * row + column for row in range(2) for column in range(6)}


def market(**changes):
    """The full market with ``r0c3=card`` (or None to empty the slot) changes."""
    out = dict(FULL)
    for name, card in changes.items():
        slot = (int(name[1]), int(name[3]))
        if card is None:
            out.pop(slot)
        else:
            out[slot] = card
    return out


def end_turn(g, seat=0):
    return g.when(seat, cmd("EndTurn"))


# -- R-CLN-1, R-CLN-2 limits ---------------------------------------------------------------------

def test_r_cln_1_over_the_court_limit_the_active_player_discards_until_within_it():
    g = table(courts={0: [ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY, JEZAIL, TAJIK_WARBAND]},
              market=market())
    asked = end_turn(g)
    assert asked.to_move() == [0]
    assert prompt_text(asked, 0) == "Cleanup: your court holds 5 cards, over its limit of 3; discard one."
    assert args_of(asked, 0, "Discard") == [ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY, JEZAIL, TAJIK_WARBAND]
    once = asked.when(0, cmd("Discard", card=JEZAIL))
    assert once.to_move() == [0] and "holds 4 cards" in prompt_text(once, 0)
    done = once.when(0, cmd("Discard", card=ZORAWAR_SINGH))
    assert done.state.players[0].court == [AKALI_SIKHS, PASHTUN_MERCENARY, TAJIK_WARBAND]
    assert done.state.active == 1  # R-CLN-7


def test_r_cln_1_the_court_limit_is_recomputed_after_a_political_discard():
    g = table(courts={0: [DOST_MOHAMMAD, ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY, JEZAIL, TAJIK_WARBAND]},
              market=market())
    asked = end_turn(g)  # limit 5, court 6
    after = asked.when(0, cmd("Discard", card=DOST_MOHAMMAD))  # limit 3, court 5
    assert after.to_move() == [0] and "limit of 3" in prompt_text(after, 0)


def test_section_23_item_13_the_court_limit_is_rechecked_after_leverage_repayment_discards():
    g = table(courts={0: [MAQPON_DYNASTY, DOST_MOHAMMAD, ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY, JEZAIL,
                          TAJIK_WARBAND]}, rupees=[0, 4], market=market())
    asked = end_turn(g)  # political stars 3: limit 6, court 7
    repay = asked.when(0, cmd("Discard", card=MAQPON_DYNASTY))  # leveraged: owes 2 with no rupee
    assert "Leverage" in prompt_text(repay, 0)
    repay = repay.when(0, cmd("Discard", card=DOST_MOHAMMAD)).when(0, cmd("Discard", card=ZORAWAR_SINGH))
    # court of 4 against a limit of 3 now: cleanup does not move on to the hand limit
    assert repay.to_move() == [0] and prompt_text(repay, 0).startswith("Cleanup: your court holds 4 cards")
    done = repay.when(0, cmd("Discard", card=AKALI_SIKHS))
    assert len(done.state.players[0].court) == 3 and done.state.active == 1


def test_r_cln_2_the_hand_limit_uses_the_court_as_it_stands_after_the_court_limit():
    g = table(courts={0: [MOHAN_LAL, ZORAWAR_SINGH, AKALI_SIKHS, PASHTUN_MERCENARY]}, hands={0: HAND},
              market=market())
    asked = end_turn(g)  # hand limit 5 while Mohan Lal stays
    hand = asked.when(0, cmd("Discard", card=MOHAN_LAL))
    assert prompt_text(hand, 0) == "Cleanup: your hand holds 4 cards, over its limit of 2; discard one."
    assert args_of(hand, 0, "Discard") == HAND
    done = hand.when(0, cmd("Discard", card=60)).when(0, cmd("Discard", card=61))
    done.then(expect("CardMoved", card=61, src="hand:0", dst="discard"))
    assert done.state.players[0].hand == [62, 63] and done.state.active == 1


# -- R-CLN-3 events in column 0 --------------------------------------------------------------------

def test_r_cln_3_the_top_event_in_column_0_resolves_before_the_bottom_one_and_court_cards_stay():
    g = table(market=market(r0c0=FAVOR_INTELLIGENCE, r1c0=FAVOR_MILITARY))
    end_turn(g).then(expect("CardMoved", card=FAVOR_INTELLIGENCE, src="market:0:0", dst="discard"),
                     expect("FavoredSuitChanged", suit="intelligence"),
                     expect("CardMoved", card=FAVOR_MILITARY, src="market:1:0", dst="discard"),
                     expect("FavoredSuitChanged", suit="military"))
    stays = end_turn(table(market=market(r1c0=FAVOR_MILITARY)))
    assert stays.state.market[0][0] == FULL[(0, 0)]
    stays.then_not(expect("CardMoved", card=FULL[(0, 0)]))


def test_r_cln_3_events_in_other_columns_stay():
    done = end_turn(table(market=market(r0c1=FAVOR_MILITARY)))
    done.then_not("FavoredSuitChanged")
    assert done.state.market[0][1] == FAVOR_MILITARY


def test_r_cln_3_a_dominance_check_in_column_0_is_discarded_and_resolved_then_cleanup_goes_on():
    g = table(market=market(r1c0=DC_1), deck=[70])
    done = end_turn(g).then(expect("CardMoved", card=DC_1, src="market:1:0", dst="discard"),
                            expect("DominanceCheckResolved", final=False),
                            expect("CardDealt", card=70, row=1, column=5),
                            expect("TurnStarted", seat=1))
    assert done.state.market[1][0] == FULL[(1, 1)] and done.state.checks_resolved == 1


def test_section_21_item_8_rupees_on_a_discarded_event_wait_and_the_card_shifted_there_takes_them():
    g = table(market=market(r0c0=NATIONALISM), market_rupees={(0, 0): 2, (0, 1): 1}, deck=[70])
    done = end_turn(g).then(expect("CardMoved", card=NATIONALISM, dst="discard"),
                            expect("CardMoved", card=FULL[(0, 1)], src="market:0:1", dst="market:0:0"),
                            expect("RupeesMoved", amount=1, src="market:0:1", dst="market:0:0"))
    assert done.state.market[0][0] == FULL[(0, 1)] and done.state.market_rupees[0][0] == 3


# -- R-CLN-4 shift, R-CLN-5 refill -------------------------------------------------------------------

def test_r_cln_4_each_row_closes_its_gaps_keeping_order_and_row_and_each_card_keeps_its_rupees():
    g = table(market=market(r0c1=None, r0c3=None, r1c0=None), market_rupees={(0, 4): 2, (1, 5): 1},
              deck=[70, 71, 72, 73])
    s = end_turn(g).state
    assert s.market[0][:4] == [FULL[(0, 0)], FULL[(0, 2)], FULL[(0, 4)], FULL[(0, 5)]]
    assert s.market[1][:5] == [FULL[(1, c)] for c in range(1, 6)]
    assert s.market_rupees[0][2] == 2 and s.market_rupees[1][4] == 1
    # R-CLN-5: the empty slots are filled column by column, top row first
    assert (s.market[0][4], s.market[0][5], s.market[1][5]) == (70, 71, 72)


def test_section_21_item_2_when_the_deck_runs_out_the_empty_slots_stay_empty_and_play_goes_on():
    g = deck_of(table(market=market(r0c2=None, r1c2=None, r1c3=None), deck=[70]), [70])
    done = end_turn(g)
    s = done.state
    assert s.deck == [] and s.market[1][4] == 70  # column 4 comes before column 5
    assert s.market[0][5] is None and s.market[1][5] is None
    assert done.state.active == 1 and done.to_move() == [1]
    assert done.view(1)["deck_count"] == 0


def test_r_cln_5_a_drawn_card_takes_the_rupees_waiting_on_its_slot():
    g = table(market=market(r0c0=NATIONALISM, r0c1=None, r0c2=None, r0c3=None, r0c4=None, r0c5=None),
              market_rupees={(0, 0): 3}, deck=[70])
    s = end_turn(g).state
    assert s.market[0][0] == 70 and s.market_rupees[0][0] == 3


# -- R-CLN-6 Instability, section 21 item 7 -----------------------------------------------------------

def test_r_cln_6_a_check_drawn_while_another_is_in_the_market_discards_both_and_resolves_one():
    g = table(market=market(r0c1=None, r0c3=DC_1), market_rupees={(0, 3): 1}, deck=[DC_2, 70, 71])
    done = end_turn(g).then(
        expect("CardDealt", card=DC_2, row=0, column=5),
        expect("CardMoved", card=DC_1, src="market:0:2", dst="discard"),
        expect("CardMoved", card=DC_2, src="market:0:5", dst="discard"),
        expect("DominanceCheckResolved", final=False),
        expect("CardMoved", card=FULL[(0, 4)], src="market:0:3", dst="market:0:2"),
        expect("CardDealt", card=70, row=0, column=4),
        expect("CardDealt", card=71, row=0, column=5),
        expect("TurnStarted", seat=1))
    assert len(done.of_type("DominanceCheckResolved")) == 1
    assert done.state.market_rupees[0][2] == 1  # the check's rupee waited; the card shifted there took it
    assert done.state.checks_resolved == 1 and done.view(0)["dominance_checks_left"] == 2


def test_section_21_item_7_an_instability_with_the_last_two_checks_is_the_final_check():
    g = checks_out_of_deck(table(market=market(r0c1=None, r1c2=DC_1), deck=[DC_2]), keep=[DC_2])
    done = end_turn(g).then(expect("DominanceCheckResolved", final=True),
                            expect("GameEnded", reason="final_dominance_check"))
    assert done.state.over and done.to_move() == []
    assert done.state.checks_resolved == 1


def test_r_cln_6_after_an_instability_the_refill_resumes_and_a_second_instability_may_follow():
    g = table(market=market(r0c1=None, r0c2=None, r1c4=DC_1), deck=[DC_2, DC_3, DC_4, 70])
    done = end_turn(g).then(
        expect("CardDealt", card=DC_2, row=0, column=4),
        expect("DominanceCheckResolved", final=False),
        expect("CardMoved", card=FULL[(1, 5)], src="market:1:5", dst="market:1:4"),
        expect("CardDealt", card=DC_3, row=0, column=4),
        expect("CardDealt", card=DC_4, row=0, column=5),
        expect("CardMoved", card=DC_3, dst="discard"),
        expect("CardMoved", card=DC_4, dst="discard"),
        expect("DominanceCheckResolved", final=True),  # two checks for four cards (R-DOM-6)
        expect("GameEnded", reason="final_dominance_check"))
    assert done.state.checks_resolved == 2


# -- Public Withdrawal (section 16.2, section 23 item 4) -------------------------------------------------

def test_section_23_item_4_public_withdrawal_shifted_onto_waiting_rupees_destroys_them():
    g = table(market=market(r0c0=RIOTS_PUNJAB, r0c1=PUBLIC_WITHDRAWAL), market_rupees={(0, 0): 2}, deck=[70])
    done = end_turn(g).then(expect("CardMoved", card=PUBLIC_WITHDRAWAL, src="market:0:1", dst="market:0:0"),
                            expect("RupeesMoved", amount=2, src="market:0:0", dst="removed"))
    assert done.state.market[0][0] == PUBLIC_WITHDRAWAL and done.state.market_rupees[0][0] == 0


def test_section_23_item_4_public_withdrawal_drawn_onto_waiting_rupees_destroys_them():
    g = table(market=market(r1c0=RIOTS_PUNJAB, r1c1=None, r1c2=None, r1c3=None, r1c4=None, r1c5=None),
              market_rupees={(1, 0): 2}, deck=[PUBLIC_WITHDRAWAL, 70])
    done = end_turn(g).then(expect("CardDealt", card=PUBLIC_WITHDRAWAL, row=1, column=0),
                            expect("RupeesMoved", amount=2, src="market:1:0", dst="removed"))
    assert done.state.market_rupees[1][0] == 0


def test_section_21_item_8_a_purchase_payment_onto_public_withdrawal_is_removed_from_the_game():
    g = table(market=market(r0c1=PUBLIC_WITHDRAWAL))
    done = g.when(0, cmd("Purchase", card=FULL[(0, 2)])).then(
        expect("RupeesMoved", amount=1, src="seat:0", dst="market:0:0"),
        expect("RupeesMoved", amount=1, src="seat:0", dst="removed"))
    assert done.state.market_rupees[0][1] == 0 and (0, 1) not in done.state.marked


def test_r_cln_7_the_next_player_clockwise_takes_the_next_turn():
    done = table(seats=3, active=2, next_seat=0, market=market()).when(2, cmd("EndTurn"))
    done.then(expect("TurnStarted", seat=0, actions=2))
    assert done.to_move() == [0]
