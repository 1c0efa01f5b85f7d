"""Radicalize (rules.md section 20): which market card Wakhan buys and plays. Her AI card 1
(column arrow 2, row arrow 1) is face up and AI card 9 (columns 0-5, rows top/bottom) is on
top of her AI deck, so her arrows point at the bottom row, column 2."""

from __future__ import annotations

from domain.games.pax_pamir.wakhan import radicalize
from tests.unit.pax_pamir.flow import resolve
from tests.unit.pax_pamir.wakhan.helpers import decisions, wakhan_table

HUMAN, WAKHAN = 0, 1
DC = 101


def pick(key: str = "radicalize", **spec):
    g = wakhan_table(card=1, ai_deck=(9,), **spec)
    chosen = radicalize.pick(g.state, WAKHAN, key)
    return chosen.card if chosen else None


def test_radicalize_follows_the_arrows_to_the_card_they_point_at():
    assert pick(market={(1, 2): 61, (0, 2): 29, (1, 1): 12}) == 61


def test_an_invalid_card_at_the_arrows_sends_her_left_along_the_row():
    market = {(0, 2): 29, (1, 1): 12, (1, 0): 9}
    assert pick(market=market) == 12, "an empty slot"
    assert pick(market={**market, (1, 2): 111}) == 12, "Public Withdrawal"
    assert pick(market={**market, (1, 2): 61}, rupees=[4, 1]) == 12, "a card she cannot afford"


def test_with_nothing_left_in_the_row_she_starts_again_in_the_other_row_from_the_same_column():
    assert pick(market={(0, 2): 29, (0, 1): 12, (0, 3): 61}) == 29
    assert pick(market={(0, 3): 61}) is None, "never to the right of the arrows"


def test_an_instruction_takes_the_best_card_it_names_then_the_cheapest_then_the_highest_number():
    assert pick("radicalize_top_political", market={(0, 1): 5, (0, 4): 7, (1, 3): 56, (1, 2): 61}) == 56
    assert pick("radicalize_top_political", market={(0, 1): 5, (0, 3): 7, (1, 3): 56}) == 56
    assert pick("radicalize_top_political", market={(0, 1): 5, (1, 1): 57}) == 57


def test_an_instruction_whose_condition_fails_is_skipped():
    market = {(0, 1): 38, (1, 1): 5}
    assert pick("radicalize_top_military_if_military_favored", market=market) is None  # political favored
    assert pick("radicalize_top_military_if_military_favored", market=market, favored="military") == 38


def test_card_gaining_rule_takes_a_card_whose_play_makes_her_ruler():
    assert pick("radicalize_card_gaining_rule", market={(0, 1): 44, (0, 2): 9}) == 44
    taken = {"kandahar": {HUMAN: 2}}
    assert pick("radicalize_card_gaining_rule", market={(0, 1): 44, (0, 2): 9}, tribes=taken) is None


def test_with_a_check_in_the_market_and_no_dominant_coalition_she_takes_the_most_spy_and_tribe_icons():
    spec = dict(market={(0, 3): DC, (0, 1): 92, (1, 1): 7, (1, 2): 61}, tribes={"kabul": {HUMAN: 2}})
    assert pick(**spec) == 7  # not the arrows' 61


def test_with_a_check_in_the_market_and_a_dominant_coalition_she_takes_its_cheapest_patriot():
    spec = dict(market={(0, 3): DC, (0, 4): 32, (1, 2): 36, (1, 1): 61}, armies={"kabul": {"british": 4}})
    assert pick(**spec) == 36


def test_ambition_buys_a_check_that_gives_her_the_most_points():
    spec = dict(market={(0, 3): DC, (1, 2): 61}, tribes={"kabul": {WAKHAN: 3}})
    g = wakhan_table(card=1, ai_deck=(9,), **spec)
    assert radicalize.ambition(g.state, WAKHAN).card == DC
    assert pick(**spec) == DC
    shared = wakhan_table(card=1, ai_deck=(9,), **{**spec, "tribes": {"kabul": {WAKHAN: 3, HUMAN: 3}}})
    assert radicalize.ambition(shared.state, WAKHAN) is None, "a share of the most is not the most"


def test_her_turn_buys_the_check_first_when_ambition_says_so():
    g = wakhan_table(turn=True, ai_deck=(1, 9), market={(0, 3): DC, (1, 2): 61}, tribes={"kabul": {WAKHAN: 3}})
    after = resolve(g)
    first = decisions(after, len(g.history))[0]
    assert first["command"] == {"type": "Radicalize", "args": {"card": DC}} and "ambition" in first["rule"]


def test_savvy_purchasing_takes_a_cheaper_card_of_the_same_suit_and_at_least_the_rank():
    # the arrows point at 61 (economic 2, cost 2); 29 (economic 2) costs 0, 9 (economic 1) 1, 38 is military
    spec = dict(market={(1, 2): 61, (0, 0): 29, (0, 1): 9, (1, 0): 38})
    assert pick(**spec) == 61
    assert pick(**spec, options={"wakhan_savvy_purchasing": True}) == 29
    no_match = dict(market={(1, 2): 61, (0, 1): 9, (1, 0): 38})
    assert pick(**no_match, options={"wakhan_savvy_purchasing": True}) == 61


def reason(key: str = "radicalize", **spec) -> str:
    g = wakhan_table(card=1, ai_deck=(9,), **spec)
    return radicalize.pick(g.state, WAKHAN, key).rule


def test_her_reasons_count_market_positions_from_1():
    assert reason(market={(1, 2): 61}) == "radicalize: the arrows point at row 2 column 3: row 2 column 3"
    assert reason(market={(1, 1): 12}).endswith("row 2 column 2 (row 2 column 3 was invalid)")


# -- W4: a check in the market, and no card with the icons she wants --------------------------

def test_w4_with_a_check_in_the_market_and_no_card_with_army_or_road_icons_she_takes_the_cheapest_highest_numbered():
    # British dominant; no British patriot and no army or road icon in the market: the arrows
    # (bottom row, column 3) would take 21; the rule takes the cheapest, then the highest number
    spec = dict(market={(0, 3): DC, (1, 2): 21, (0, 1): 1, (1, 1): 76}, armies={"kabul": {"british": 4}})
    assert pick(**spec) == 76
    assert "most army and road icons (0)" in reason(**spec)


def test_w4_with_a_check_in_the_market_and_no_dominance_and_no_spy_or_tribe_icon_she_takes_the_cheapest_highest_numbered():
    spec = dict(market={(0, 3): DC, (0, 1): 12, (1, 1): 61, (1, 2): 9})
    assert pick(**spec) == 61  # not the arrows' 9


def test_w4_with_a_check_in_the_market_she_never_falls_back_to_the_arrows():
    # no court card to buy: the arrows would take the event 105 at row 2 column 3; she skips instead
    assert pick(market={(0, 3): DC, (1, 2): 105}) is None
    assert pick(market={(1, 2): 105}) == 105  # without a check, the arrows


# -- W5: the card that nets her the most rupees, if it nets her any ---------------------------

NET = "radicalize_best_net_rupees_if_under_2_rupees"


def test_w5_she_skips_the_instruction_when_no_card_nets_her_a_rupee():
    assert pick(NET, market={(0, 0): 9, (0, 2): 29}, rupees=[4, 1]) is None  # 9 nets 0


def test_w5_a_leverage_icon_counts_2_rupees():
    # 27 (leverage) costs 1 and nets 1; 9 costs nothing and nets 0
    assert pick(NET, market={(0, 0): 9, (0, 1): 27}, rupees=[4, 1]) == 27
    # rupees on a card count too: 29 at column 3 holding 3 nets 1, ties broken by the cheaper
    assert pick(NET, market={(0, 0): 9, (0, 1): 27, (1, 2): 29}, market_rupees={(1, 2): 3}, rupees=[4, 1]) == 27


# -- W13: Savvy Purchasing changes the arrows' pick only -------------------------------------

SAVVY = {"wakhan_savvy_purchasing": True}


def test_w13_savvy_purchasing_leaves_an_instruction_s_pick_alone():
    # the most blocks: 12 (economic 3, four icons, cost 3); 63 (economic 3) is cheaper
    spec = dict(market={(0, 3): 12, (0, 1): 63})
    assert pick("radicalize_most_blocks", **spec, options=SAVVY) == 12


def test_w13_savvy_purchasing_leaves_the_check_in_the_market_pick_alone():
    # British dominant: the cheapest British patriot, 36 (military 1, cost 2), not the cheaper 15
    spec = dict(market={(0, 3): DC, (1, 2): 36, (0, 1): 15}, armies={"kabul": {"british": 4}})
    assert pick(**spec, options=SAVVY) == 36


def test_w13_savvy_purchasing_with_a_check_no_dominance_and_no_spy_or_tribe_icon_takes_the_most_net_rupees():
    spec = dict(market={(0, 3): DC, (0, 1): 12, (1, 1): 61, (1, 2): 9}, market_rupees={(1, 2): 3})
    assert pick(**spec) == 61
    assert pick(**spec, options=SAVVY) == 9  # 3 rupees on it for a cost of 2
