"""Wakhan's default card-based actions (rules.md section 20): Tax, Build, Move, Betray and
Battle as her AI cards call for them, each answered by her rules step by step."""

from __future__ import annotations

from domain.games.pax_pamir.data.board import Coalition
from domain.games.pax_pamir.data.cards import CardAction
from domain.games.pax_pamir.wakhan.actions import card_for
from tests.unit.pax_pamir.flow import resolve
from tests.unit.pax_pamir.wakhan.helpers import decisions, wakhan_table

WAKHAN_OF_TWO = 2


def commands(g, after, step=None):
    return [d["command"] for d in decisions(after, len(g.history)) if step is None or d["step"] == step]


def test_tax_takes_from_players_before_the_market_the_richest_first():
    # AI card 3: tax first; she rules Herat, where both humans have a court card
    g = wakhan_table(2, turn=True, ai_deck=(3, 9), courts={0: [55], 1: [57], WAKHAN_OF_TWO: [61]},
                     tribes={"herat": {WAKHAN_OF_TWO: 1}}, rupees=[3, 5, 0], market={(0, 0): 9},
                     market_rupees={(0, 0): 2})
    after = resolve(g)
    assert commands(g, after, "tax") == [{"type": "TaxPlayer", "args": {"seat": 1}},
                                         {"type": "TaxPlayer", "args": {"seat": 1}}]
    assert after.state.players[1].rupees == 3 and after.state.players[0].rupees == 3


def test_the_row_arrow_picks_between_tied_players_top_the_one_before_her_bottom_the_one_after():
    spec = dict(courts={0: [55], 1: [57], WAKHAN_OF_TWO: [61]}, tribes={"herat": {WAKHAN_OF_TWO: 1}},
                rupees=[4, 4, 0])
    # AI card 3's row arrow reads the next card's second row: card 9's is bottom, card 2's top
    for next_card, first in ((9, 0), (2, 1)):
        g = wakhan_table(2, turn=True, ai_deck=(3, next_card), **spec)
        after = resolve(g)
        assert commands(g, after, "tax")[0] == {"type": "TaxPlayer", "args": {"seat": first}}, next_card


def test_tax_goes_to_the_leftmost_market_cards_when_no_player_can_be_taxed():
    g = wakhan_table(turn=True, ai_deck=(3, 9), courts={1: [61]}, rupees=[4, 0],
                     market={(0, 1): 9, (1, 0): 29, (0, 3): 12}, market_rupees={(0, 1): 1, (1, 0): 1, (0, 3): 1})
    after = resolve(g)
    assert commands(g, after, "tax") == [{"type": "TaxMarket", "args": {"card": 29}},
                                         {"type": "TaxMarket", "args": {"card": 9}}]


def test_build_places_armies_in_the_first_ruled_region_of_her_region_order_as_many_as_she_can_pay():
    # AI card 7: build first; region order punjab, transcaspia, kabul, persia, kandahar, herat;
    # pragmatic order afghan first (the human is British)
    g = wakhan_table(turn=True, ai_deck=(7, 9), courts={1: [44]}, rupees=[4, 6],
                     tribes={"kandahar": {1: 1}, "kabul": {1: 1}})
    after = resolve(g)
    assert commands(g, after, "build") == [{"type": "BuildArmy", "args": {"region": "kabul"}}] * 3
    assert after.state.armies["kabul"][Coalition.AFGHAN] == 3


def test_move_takes_an_army_towards_other_players_tribes_without_roads():
    # AI card 6: region order herat, persia, transcaspia, kabul, punjab, kandahar; no road anywhere
    g = wakhan_table(turn=True, ai_deck=(6, 9), courts={1: [9]}, rupees=[4, 0],
                     armies={"herat": {"russian": 2}}, tribes={"persia": {0: 1}})
    after = resolve(g)
    assert commands(g, after, "move") == [{"type": "MovePiece", "args": {"piece": "army:herat"}},
                                          {"type": "MoveTo", "args": {"region": "persia"}}]


def test_move_never_costs_her_a_region_she_rules():
    # moving an army out of Herat would tie her there (1 tribe + 1 army against 2 tribes)
    g = wakhan_table(turn=True, ai_deck=(6, 9), courts={1: [9]}, rupees=[4, 0],
                     armies={"herat": {"russian": 2}, "kabul": {"russian": 1}},
                     tribes={"herat": {0: 2, 1: 1}, "persia": {0: 1}, "kandahar": {0: 1}})
    after = resolve(g)
    assert commands(g, after, "move")[0] == {"type": "MovePiece", "args": {"piece": "army:kabul"}}


def test_betray_takes_the_top_priority_card_bearing_a_prize_and_keeps_the_prize_without_changing_loyalty():
    # AI card 8: tax, betray; her spies on the human's 84 (Afghan prize) and 57 (British prize, political)
    g = wakhan_table(turn=True, ai_deck=(8, 9), courts={0: [84, 57, 61], 1: [15]},
                     spies={84: {1: 1}, 57: {1: 1}, 61: {1: 1}}, rupees=[4, 2])
    after = resolve(g)
    assert commands(g, after, "betray") == [{"type": "BetrayCard", "args": {"card": 57}}]
    assert commands(g, after, "prize") == [{"type": "KeepPrize", "args": {}}]
    assert after.state.players[1].prizes == [57] and after.state.players[1].loyalty == Coalition.RUSSIAN


def test_battle_is_in_the_first_region_of_her_order_with_her_army_and_another_players_pieces_tribes_first():
    # AI card 5: region order persia, kandahar, herat...; the human is British, so she is Afghan
    g = wakhan_table(turn=True, ai_deck=(5, 9), courts={1: [59]}, rupees=[4, 0],
                     armies={"kandahar": {"afghan": 2, "british": 1}, "herat": {"afghan": 2}},
                     tribes={"kandahar": {0: 1}, "herat": {0: 1}})
    after = resolve(g)
    assert commands(g, after, "battle") == [{"type": "BattleRegion", "args": {"region": "kandahar"}},
                                            {"type": "RemoveEnemy", "args": {"piece": "tribe:kandahar:0"}},
                                            {"type": "RemoveEnemy", "args": {"piece": "army:kandahar:british"}}]


# -- W8: the card she acts with, by her whole card priority ------------------------------------

def test_w8_the_card_she_taxes_with_is_the_first_by_her_card_priority():
    # 61 (economic 2) outranks 25 (political 1), but 25 is a patriot: her priority puts a
    # patriot before rank; military is favored, so neither is of the favored suit
    spec = dict(courts={1: [61, 25]}, market={(0, 0): 9}, market_rupees={(0, 0): 2}, favored="military")
    assert card_for(wakhan_table(card=3, ai_deck=(9,), **spec).state, 1, CardAction.TAX) == 25
    # the favored suit comes first of all
    economic = {**spec, "favored": "economic"}
    assert card_for(wakhan_table(card=3, ai_deck=(9,), **economic).state, 1, CardAction.TAX) == 61
    # a patriot of the dominant coalition before another patriot: 80 is British, 25 Afghan
    british = {**spec, "courts": {1: [25, 80]}, "armies": {"kabul": {"british": 4}}}
    assert card_for(wakhan_table(card=3, ai_deck=(9,), **british).state, 1, CardAction.TAX) == 80
