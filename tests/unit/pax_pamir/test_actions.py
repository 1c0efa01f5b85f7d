"""Card-based actions (rules.md section 10): the menu (R-ACT-1, R-ACT-4, R-TRN-2 to R-TRN-4),
hostage bribes (R-ACT-2, R-HST), Tax, Gift, Build, Move, Betray, Battle, and paying costs to
the market (R-CST), with the special abilities they touch (section 15) and the edge cases of
sections 21 and 23. Seat 0 is Afghan and seat 1 British unless a test says otherwise."""

from domain.games.pax_pamir.data.cards import (
    BODYGUARDS,
    CITADEL_KABUL,
    CIVIL_SERVICE_REFORMS,
    CLAIM_OF_ANCIENT_LINEAGE,
    INDIAN_SUPPLIES,
    INDISPENSABLE_ADVISORS,
    INFRASTRUCTURE,
    IRREGULARS,
    PUBLIC_WITHDRAWAL,
    SAFE_HOUSES,
    SAVVY_OPERATOR,
    STRANGE_BEDFELLOWS,
    WELL_CONNECTED,
)
from domain.kernel.commands import Command
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.table import table

# Court cards by what the tests need of them (rulebook numbers; see cards.yaml).
KABUL_TAXER = 13  # Kabul, economic, rank 2: Tax, Move
HERAT_TAXER = 61  # Herat, economic, rank 2: Tax (2 economic stars: a tax shelter of 2)
KABUL_GIFTER = 12  # Kabul, economic, rank 3: Gift
KABUL_BUILDER = 14  # Kabul, economic, rank 2: Gift, Build
KABUL_BETRAYER = 16  # Kabul, military, rank 1: Tax, Betray
PUNJAB_BATTLER = 38  # Punjab, military, rank 2: Battle
KANDAHAR_BATTLER = 51  # Kandahar, military, rank 1: Battle (Indian Supplies)
HERAT_MOVER = 63  # Herat, economic, rank 3: Move
KABUL_POLITICAL = 7  # Kabul, political, rank 2: no action
KABUL_SPYMASTER = 1  # Kabul, intelligence, rank 3: Move (Indispensable Advisors)
PUNJAB_AFGHAN_PRIZE = 26  # Punjab, political: Betray; an Afghan prize
PUNJAB_BRITISH_PRIZE = 34  # Punjab, military: Battle, Move, Betray; a British prize
HERAT_BRITISH_PRIZE = 57  # Herat, political: Betray, Move; a British prize
KANDAHAR_NO_PRIZE = 45  # Kandahar, political: Betray, Gift; no prize
HERAT_CARD = 62  # Herat, economic: Gift, Build
PUNJAB_CARD = 29  # Punjab, economic: Tax, Move
PUNJAB_OTHER = 31  # Punjab, military: Tax, Betray
KANDAHAR_CARD = 49  # Kandahar, economic: Tax, Build
PERSIA_CARD = 75  # Persia, political: Tax, Battle

#: A full market of cards no test puts anywhere else.
MARKET = {(row, column): card for (row, column), card in zip(
    [(r, c) for c in range(6) for r in range(2)],
    [90, 92, 93, 94, 95, 96, 98, 100, 86, 87, 88, 89], strict=True)}


def cmd(type_: str, **args) -> Command:
    return Command(type_, args)


def offered(g, seat: int, verb: str) -> list:
    """The argument values ``verb`` is offered with (``[None]`` for a verb without one)."""
    return [next(iter(c.args.values()), None) for c in g.legal(seat) if c.type == verb]


def at_menu(g) -> bool:
    return g.state.frames[-1].step == "turn"


def paid(w, reason: str) -> list[str]:
    """Where each rupee of ``reason`` went, in order."""
    return [e.data["dst"] for e in w.of_type("RupeesMoved") if e.data["reason"] == reason
            for _ in range(e.data["amount"])]


# -- the menu: R-ACT-1, R-TRN-2 to R-TRN-4, R-ACT-4 -------------------------------------------------

def test_r_act_1_only_actions_printed_on_a_court_card_are_offered_and_r_trn_4_once_per_card_per_turn():
    g = table(courts={0: [KABUL_TAXER, HERAT_TAXER]}, market={(0, 0): 90}, market_rupees={(0, 0): 3})
    assert offered(g, 0, "Tax") == [KABUL_TAXER, HERAT_TAXER]
    assert offered(g, 0, "Gift") == [] and offered(g, 0, "Betray") == []
    w = g.when(0, cmd("Tax", card=KABUL_TAXER)).when(0, cmd("StopAction"))
    assert at_menu(w) and offered(w, 0, "Tax") == [HERAT_TAXER]
    w.when(0, cmd("Tax", card=KABUL_TAXER)).then_rejects("13 is not a choice here")


def test_r_trn_2_an_unfavored_card_spends_an_action_and_is_not_offered_with_none_left():
    g = table(courts={0: [KABUL_TAXER]}, market={(0, 0): 90}, market_rupees={(0, 0): 3})
    g.when(0, cmd("Tax", card=KABUL_TAXER)).then(expect("CardUsed", seat=0, card=KABUL_TAXER, action="tax"),
                                                 expect("ActionSpent", seat=0, action="tax"))
    none_left = table(courts={0: [KABUL_TAXER]}, market={(0, 0): 90}, market_rupees={(0, 0): 3}, actions=0)
    assert offered(none_left, 0, "Tax") == []


def test_r_trn_3_a_card_of_the_favored_suit_is_a_bonus_action_even_with_no_actions_left():
    g = table(courts={0: [KABUL_TAXER]}, market={(0, 0): 90}, market_rupees={(0, 0): 3}, favored="economic",
              actions=0)
    assert offered(g, 0, "Tax") == [KABUL_TAXER]
    w = g.when(0, cmd("Tax", card=KABUL_TAXER)).then(expect("CardUsed")).then_not("ActionSpent")
    assert w.state.actions_left == 0


def test_r_trn_3_savvy_operator_and_irregulars_always_count_as_favored():
    g = table(courts={0: [SAVVY_OPERATOR, IRREGULARS], 1: [PUNJAB_BRITISH_PRIZE]}, favored="economic", actions=0,
              spies={PUNJAB_BRITISH_PRIZE: {0: 1, 1: 1}}, armies={"transcaspia": {"afghan": 1, "british": 1}})
    assert offered(g, 0, "Betray") == [SAVVY_OPERATOR]
    assert offered(g, 0, "Battle") == [IRREGULARS]
    g.when(0, cmd("Battle", card=IRREGULARS)).then(expect("CardUsed", card=IRREGULARS)).then_not("ActionSpent")


def test_r_trn_3_new_tactics_makes_only_its_holders_military_cards_favored():
    g = table(courts={0: [PUNJAB_BATTLER], 1: [KANDAHAR_BATTLER]}, actions=0, effects={"new_tactics": 0},
              armies={"punjab": {"afghan": 1, "british": 1}})
    assert offered(g, 0, "Battle") == [PUNJAB_BATTLER]
    g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).then(expect("CardUsed")).then_not("ActionSpent")
    theirs = table(courts={1: [KANDAHAR_BATTLER]}, active=1, actions=0, effects={"new_tactics": 0},
                   armies={"punjab": {"afghan": 1, "british": 1}})
    assert offered(theirs, 1, "Battle") == []


def test_r_act_4_no_action_is_offered_when_it_cannot_have_an_effect():
    g = table(courts={0: [KABUL_TAXER, KABUL_GIFTER, KABUL_BUILDER, KABUL_BETRAYER, PUNJAB_BATTLER]},
              rupees=[1, 4])
    for verb in ("Tax", "Gift", "Build", "Move", "Betray", "Battle"):
        assert offered(g, 0, verb) == [], verb


def test_r_act_3_tax_move_and_battle_scale_with_rank_while_build_does_not():
    rank_1 = table(courts={0: [KABUL_BETRAYER]}, market={(0, 0): 90}, market_rupees={(0, 0): 3})
    w = rank_1.when(0, cmd("Tax", card=KABUL_BETRAYER)).when(0, cmd("TaxMarket", card=90))
    assert at_menu(w) and w.state.players[0].rupees == 5
    punjab_builder = 28  # Punjab, economic, rank 1: Tax, Build
    w = table(courts={0: [punjab_builder]}, tribes={"punjab": {0: 1}}, rupees=[6, 4]) \
        .when(0, cmd("Build", card=punjab_builder))
    for _ in range(3):
        w = w.when(0, cmd("BuildArmy", region="punjab"))
    assert at_menu(w) and w.state.armies["punjab"]["afghan"] == 3


def test_r_act_1_an_action_the_prompt_does_not_offer_is_refused_before_any_handler_runs():
    w = builder().when(0, cmd("Build", card=KABUL_BUILDER))
    w.when(0, cmd("BuildArmy", region="herat")).then_rejects("'herat' is not a choice here")
    w.when(0, cmd("BuildRoad", border="herat_persia")).then_rejects("is not a choice here")
    w.when(0, cmd("TaxMarket", card=90)).then_rejects("you are not taxing now")
    g = kabul_battle(roads={"kabul_punjab": {"afghan": 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleRegion", region="kabul"))
    w.when(0, cmd("RemoveEnemy", piece="road:kabul_punjab:afghan")).then_rejects("is not a choice here")
    w.when(1, cmd("StopAction")).then_rejects("not in the middle of an action")


# -- R-ACT-2, R-HST: hostage bribes ---------------------------------------------------------------------

def hostage(**kwargs):
    """Seat 1 holds seat 0's Kabul taxer hostage with 2 spies against seat 0's 1."""
    kwargs.setdefault("market", {(0, 0): 90})
    kwargs.setdefault("market_rupees", {(0, 0): 3})
    return table(courts={0: [KABUL_TAXER, *kwargs.pop("court", [])]}, spies={KABUL_TAXER: {0: 1, 1: 2}}, **kwargs)


def test_r_hst_r_act_2_a_hostage_card_asks_its_holder_s_spy_count_as_a_bribe_before_the_action():
    w = hostage().when(0, cmd("Tax", card=KABUL_TAXER))
    w.then_not("CardUsed", "ActionSpent")
    frame = w.state.frames[-1]
    assert (frame.step, frame.recipient, frame.amount, frame.reserve) == ("bribe", 1, 2, 0)
    paid_ = w.when(0, cmd("PayBribe")).then(expect("RupeesMoved", amount=2, src="seat:0", dst="seat:1", reason="bribe"),
                                            expect("CardUsed", card=KABUL_TAXER), expect("ActionSpent"))
    assert paid_.state.frames[-1].step == "tax"


def test_r_act_2_an_abandoned_bribe_spends_no_action_and_leaves_the_card_unused():
    w = hostage().when(0, cmd("Tax", card=KABUL_TAXER)).when(0, cmd("AbandonBribe"))
    w.then_not("CardUsed", "ActionSpent", "RupeesMoved")
    assert at_menu(w) and w.state.actions_left == 2 and KABUL_TAXER not in w.state.used_cards
    # offered again: giving up costs nothing (section 23 item 16)
    assert KABUL_TAXER in offered(w, 0, "Tax")


def test_r_hst_a_card_is_not_hostage_when_its_owner_ties_the_most_spies():
    g = table(courts={0: [KABUL_TAXER]}, spies={KABUL_TAXER: {0: 2, 1: 2}}, market={(0, 0): 90},
              market_rupees={(0, 0): 3})
    assert g.when(0, cmd("Tax", card=KABUL_TAXER)).state.frames[-1].step == "tax"


def test_r_act_2_civil_service_reforms_and_disregard_for_customs_waive_the_hostage_bribe():
    reforms = hostage(court=[CIVIL_SERVICE_REFORMS]).when(0, cmd("Tax", card=KABUL_TAXER))
    reforms.then(expect("CardUsed")).then_not(expect("RupeesMoved", reason="bribe"))
    assert reforms.state.frames[-1].step == "tax"
    customs = hostage(effects={"disregard_for_customs": None}).when(0, cmd("Tax", card=KABUL_TAXER))
    assert customs.state.frames[-1].step == "tax"


def test_r_act_2_courtly_manners_may_decline_the_bribe_so_its_holder_needs_no_rupees_for_it():
    g = table(courts={0: [KABUL_BUILDER]}, spies={KABUL_BUILDER: {1: 2}}, tribes={"kabul": {0: 1}},
              rupees=[2, 0], effects={"courtly_manners": 0})
    assert offered(g, 0, "Build") == [KABUL_BUILDER]
    assert g.when(0, cmd("Build", card=KABUL_BUILDER)).state.frames[-1].step == "bribe"


def test_r_act_2_a_hostage_bribe_may_only_leave_the_actions_minimum_cost_and_is_negotiated_down_if_short():
    def builder(rupees):
        return table(courts={0: [KABUL_BUILDER]}, spies={KABUL_BUILDER: {1: 2}}, tribes={"kabul": {0: 1}},
                     rupees=[rupees, 0])
    assert offered(builder(1), 0, "Build") == []  # not even the minimum cost of a block
    short = builder(3).when(0, cmd("Build", card=KABUL_BUILDER))  # 2 asked, 2 must stay for a block
    assert offered(short, 0, "PayBribe") == [] and offered(short, 0, "OfferBribe") == [0, 1]
    w = builder(4).when(0, cmd("Build", card=KABUL_BUILDER))
    assert w.state.frames[-1].reserve == 2 and offered(w, 0, "PayBribe") == [None]
    gift = table(courts={0: [KABUL_GIFTER]}, spies={KABUL_GIFTER: {1: 1}}, gifts={0: [2]}, rupees=[3, 0])
    assert offered(gift, 0, "Gift") == []  # the cheapest free space is 4
    assert table(courts={0: [KABUL_GIFTER]}, spies={KABUL_GIFTER: {1: 1}}, gifts={0: [2]}, rupees=[5, 0]) \
        .when(0, cmd("Gift", card=KABUL_GIFTER)).state.frames[-1].reserve == 4


# -- R-TAX ------------------------------------------------------------------------------------------------

def test_r_tax_1_tax_takes_up_to_rank_rupees_one_at_a_time_from_market_cards():
    g = table(courts={0: [KABUL_TAXER]}, market={(0, 0): 90, (0, 1): 93}, market_rupees={(0, 0): 1, (0, 1): 3})
    w = g.when(0, cmd("Tax", card=KABUL_TAXER))
    assert offered(w, 0, "TaxMarket") == [90, 93] and offered(w, 0, "StopAction") == [None]
    w = w.when(0, cmd("TaxMarket", card=93)).then(expect("RupeesMoved", amount=1, src="market:0:1", dst="seat:0"))
    w = w.when(0, cmd("TaxMarket", card=93))
    assert at_menu(w) and w.state.players[0].rupees == 6 and w.state.market_rupees[0][1] == 1


def test_r_tax_1_section_23_item_1_rupees_waiting_on_an_empty_slot_are_not_taxable():
    g = table(courts={0: [KABUL_TAXER]}, market={(0, 0): 90}, market_rupees={(1, 0): 2})
    assert offered(g, 0, "Tax") == []


def test_r_tax_1_a_player_with_a_court_card_of_a_region_you_rule_is_taxed_down_to_the_shelter():
    g = table(courts={0: [KABUL_TAXER], 1: [KABUL_POLITICAL, HERAT_TAXER]}, tribes={"kabul": {0: 1}},
              rupees=[0, 3])
    w = g.when(0, cmd("Tax", card=KABUL_TAXER))
    assert offered(w, 0, "TaxPlayer") == [1]
    w = w.when(0, cmd("TaxPlayer", seat=1)).then(expect("RupeesMoved", amount=1, src="seat:1", dst="seat:0"))
    assert at_menu(w) and w.state.players[1].rupees == 2  # the shelter of 2 economic stars stays


def test_r_tax_1_a_player_whose_cards_are_of_regions_you_do_not_rule_cannot_be_taxed():
    g = table(courts={0: [KABUL_TAXER], 1: [HERAT_CARD]}, tribes={"kabul": {0: 1}}, rupees=[0, 4])
    assert offered(g, 0, "Tax") == []


def test_r_tax_1_claim_of_ancient_lineage_taxes_players_with_cards_of_any_region():
    g = table(courts={0: [KABUL_TAXER, CLAIM_OF_ANCIENT_LINEAGE], 1: [HERAT_CARD]}, rupees=[0, 4])
    assert offered(g.when(0, cmd("Tax", card=KABUL_TAXER)), 0, "TaxPlayer") == [1]


def test_r_tax_2_a_player_with_no_court_cards_cannot_be_taxed_even_with_claim_of_ancient_lineage():
    g = table(3, courts={0: [KABUL_TAXER, CLAIM_OF_ANCIENT_LINEAGE], 1: [HERAT_CARD]}, rupees=[0, 4, 9])
    assert offered(g.when(0, cmd("Tax", card=KABUL_TAXER)), 0, "TaxPlayer") == [1]


def test_r_tax_3_tax_may_stop_early_and_may_take_rupees_paid_onto_the_market_this_turn():
    g = table(courts={0: [KABUL_GIFTER, KABUL_TAXER]}, market={(0, 5): 90, (1, 5): 92}, rupees=[2, 4],
              favored="economic")
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=2))
    assert w.state.players[0].rupees == 0 and w.state.market_rupees == [[0] * 5 + [1], [0] * 5 + [1]]
    w = w.when(0, cmd("Tax", card=KABUL_TAXER)).when(0, cmd("TaxMarket", card=90)).when(0, cmd("StopAction"))
    assert at_menu(w) and w.state.players[0].rupees == 1


# -- R-GFT ------------------------------------------------------------------------------------------------

def test_r_gft_1_r_gft_2_any_empty_gift_space_you_can_afford_is_offered_and_a_cylinder_goes_there():
    g = table(courts={0: [KABUL_GIFTER]}, rupees=[4, 4], market=MARKET)
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER))
    assert offered(w, 0, "PlaceGift") == [2, 4]
    w = w.when(0, cmd("PlaceGift", value=4))
    w.then(expect("RupeesMoved", reason="gift"), expect("PieceMoved", kind="gift", owner=0, src="supply", dst="4"))
    s = w.state
    assert at_menu(w) and s.players[0].gifts == {4} and s.players[0].rupees == 0
    assert offered(table(courts={0: [KABUL_GIFTER]}, gifts={0: [2, 4]}, rupees=[4, 4]), 0, "Gift") == []


def test_r_gft_1_r_lim_with_no_cylinder_in_supply_the_gift_is_taken_from_the_board():
    g = table(courts={0: [KABUL_GIFTER]}, tribes={"punjab": {0: 10}}, rupees=[2, 4])
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=2))
    assert offered(w, 0, "TakePiece") == ["tribe:punjab"]
    w = w.when(0, cmd("TakePiece", piece="tribe:punjab"))
    assert at_menu(w) and w.state.players[0].gifts == {2} and w.state.tribes["punjab"][0] == 9


# -- R-CST: paying to the market ------------------------------------------------------------------------

def test_r_cst_1_a_cost_is_split_between_the_rows_from_the_rightmost_card_leftwards_skipping_empty_slots():
    market = {(0, 5): 90, (0, 4): 92, (0, 2): 93, (1, 5): 94, (1, 3): 95, (1, 1): 96}
    g = table(courts={0: [KABUL_GIFTER]}, rupees=[6, 4], market=market)
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=6))
    assert sorted(paid(w, "gift")) == sorted(["market:0:5", "market:1:5", "market:0:4", "market:1:3",
                                              "market:0:2", "market:1:1"])


def test_r_cst_2_a_row_that_runs_out_of_cards_removes_its_remaining_rupees_from_the_game():
    g = table(courts={0: [KABUL_GIFTER]}, rupees=[6, 4], market={(0, 5): 90, (1, 0): 94, (1, 2): 95})
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=6))
    assert sorted(paid(w, "gift")) == sorted(["market:0:5", "removed", "removed", "market:1:2", "market:1:0",
                                              "removed"])
    assert w.state.players[0].rupees == 0


def test_r_cst_2_public_withdrawal_destroys_its_rupee_but_counts_as_a_card_that_received_one():
    g = table(courts={0: [KABUL_GIFTER]}, rupees=[4, 4],
              market={(0, 5): PUBLIC_WITHDRAWAL, (0, 3): 90, (1, 5): 94, (1, 4): 95})
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=4))
    assert sorted(paid(w, "gift")) == sorted(["removed", "market:0:3", "market:1:5", "market:1:4"])
    assert w.state.market_rupees[0][5] == 0


def test_r_cst_3_section_21_item_9_cards_paid_onto_by_an_action_cannot_be_purchased_this_turn():
    g = table(courts={0: [KABUL_GIFTER]}, rupees=[9, 4], market=MARKET)
    before = offered(g, 0, "Purchase")
    w = g.when(0, cmd("Gift", card=KABUL_GIFTER)).when(0, cmd("PlaceGift", value=2))
    w.then(expect("MarketSlotMarked", row=0, column=5), expect("MarketSlotMarked", row=1, column=5))
    assert set(before) - set(offered(w, 0, "Purchase")) == {MARKET[(0, 5)], MARKET[(1, 5)]}


# -- R-BLD -------------------------------------------------------------------------------------------------

def builder(**kwargs):
    kwargs.setdefault("rupees", [6, 4])
    kwargs.setdefault("market", MARKET)
    court = [KABUL_BUILDER, *kwargs.pop("court", [])]
    return table(courts={0: court}, tribes={"kabul": {0: 1}}, **kwargs)


def test_r_bld_1_build_offers_armies_in_ruled_regions_and_roads_on_their_borders_and_needs_a_first_block():
    w = builder().when(0, cmd("Build", card=KABUL_BUILDER))
    assert offered(w, 0, "BuildArmy") == ["kabul"]
    assert offered(w, 0, "BuildRoad") == ["herat_kabul", "kabul_kandahar", "kabul_punjab", "kabul_transcaspia"]
    assert offered(w, 0, "StopAction") == []  # R-BLD-3 decision: at least one block
    w = w.when(0, cmd("BuildRoad", border="kabul_punjab"))
    w.then(expect("PieceMoved", kind="road", owner="afghan", src="supply", dst="kabul_punjab", placed=True))
    assert offered(w, 0, "StopAction") == [None]


def test_r_bld_1_build_needs_a_ruled_region_and_two_rupees():
    assert offered(builder(rupees=[1, 4]), 0, "Build") == []
    assert offered(table(courts={0: [KABUL_BUILDER]}, rupees=[6, 4]), 0, "Build") == []


def test_r_bld_1_r_cst_4_each_block_costs_two_rupees_continuing_leftwards_and_three_blocks_end_the_build():
    w = builder().when(0, cmd("Build", card=KABUL_BUILDER))
    w = w.when(0, cmd("BuildArmy", region="kabul"))
    assert paid(w, "build") == ["market:0:5", "market:1:5"]
    w = w.when(0, cmd("BuildArmy", region="kabul"))
    assert paid(w, "build") == ["market:0:4", "market:1:4"]
    w = w.when(0, cmd("BuildRoad", border="herat_kabul"))
    assert paid(w, "build") == ["market:0:3", "market:1:3"]
    assert at_menu(w) and w.state.players[0].rupees == 0 and w.state.armies["kabul"]["afghan"] == 2


def test_r_bld_1_the_build_ends_when_the_next_block_cannot_be_paid():
    w = builder(rupees=[4, 4]).when(0, cmd("Build", card=KABUL_BUILDER))
    w = w.when(0, cmd("BuildArmy", region="kabul")).when(0, cmd("BuildArmy", region="kabul"))
    assert at_menu(w) and w.state.players[0].rupees == 0


def test_r_bld_2_nation_building_allows_six_blocks_every_second_one_free():
    w = builder(effects={"nation_building": 0}).when(0, cmd("Build", card=KABUL_BUILDER))
    for _ in range(5):
        w = w.when(0, cmd("BuildArmy", region="kabul"))
    assert not at_menu(w) and w.state.players[0].rupees == 0
    w = w.when(0, cmd("BuildArmy", region="kabul"))
    assert at_menu(w) and w.state.armies["kabul"]["afghan"] == 6
    short = builder(rupees=[2, 4], effects={"nation_building": 0}).when(0, cmd("Build", card=KABUL_BUILDER))
    short = short.when(0, cmd("BuildArmy", region="kabul")).when(0, cmd("BuildArmy", region="kabul"))
    assert at_menu(short) and short.state.armies["kabul"]["afghan"] == 2


def test_r_bld_3_infrastructure_offers_one_more_free_block_after_the_build_and_it_may_be_skipped():
    w = builder(court=[INFRASTRUCTURE]).when(0, cmd("Build", card=KABUL_BUILDER))
    w = w.when(0, cmd("BuildArmy", region="kabul")).when(0, cmd("StopAction"))
    assert w.state.frames[-1].step == "infrastructure" and offered(w, 0, "StopAction") == [None]
    extra = w.when(0, cmd("BuildRoad", border="kabul_punjab"))
    extra.then(expect("PieceMoved", kind="road", dst="kabul_punjab")).then_not("RupeesMoved")
    assert at_menu(extra) and extra.state.players[0].rupees == 4
    skipped = w.when(0, cmd("StopAction"))
    assert at_menu(skipped) and skipped.state.roads["kabul_punjab"]["afghan"] == 0


def lost_rule_on_pickup():
    """Seat 0 rules Herat by one Afghan army against seat 1's tribe; every other Afghan block is
    on the Persia-Transcaspia border, so the Afghan supply is empty."""
    return table(courts={0: [KABUL_BUILDER, INFRASTRUCTURE]}, rupees=[6, 4],
                 tribes={"herat": {0: 1, 1: 1}}, armies={"herat": {"afghan": 1}},
                 roads={"persia_transcaspia": {"afghan": 11}})


def test_section_23_item_7_ruled_regions_are_read_again_before_each_block_of_a_build():
    w = lost_rule_on_pickup().when(0, cmd("Build", card=KABUL_BUILDER))
    w = w.when(0, cmd("BuildRoad", border="herat_kabul"))
    assert offered(w, 0, "TakePiece") == ["army:herat", "road:persia_transcaspia"]
    kept = w.when(0, cmd("TakePiece", piece="road:persia_transcaspia"))
    assert offered(kept, 0, "BuildArmy") == ["herat"]
    lost = w.when(0, cmd("TakePiece", piece="army:herat"))
    assert lost.state.frames[-1].step != "build"  # Herat is no longer ruled: no block can follow


def test_section_23_item_5_infrastructure_with_no_legal_place_is_skipped():
    w = lost_rule_on_pickup().when(0, cmd("Build", card=KABUL_BUILDER))
    lost = w.when(0, cmd("BuildRoad", border="herat_kabul")).when(0, cmd("TakePiece", piece="army:herat"))
    assert at_menu(lost) and lost.state.roads["herat_kabul"]["afghan"] == 1
    assert [f.step for f in lost.state.frames] == ["turns", "turn"]


# -- R-MOV --------------------------------------------------------------------------------------------------

def test_r_mov_2_r_mov_5_a_loyal_army_crosses_a_border_with_a_road_of_its_coalition_moves_again_and_may_stop():
    g = table(courts={0: [HERAT_MOVER]}, armies={"herat": {"afghan": 1}}, roads={"herat_kabul": {"afghan": 1}})
    w = g.when(0, cmd("Move", card=HERAT_MOVER))
    assert offered(w, 0, "MovePiece") == ["army:herat"]
    w = w.when(0, cmd("MovePiece", piece="army:herat"))
    assert offered(w, 0, "MoveTo") == ["kabul"]
    w = w.when(0, cmd("MoveTo", region="kabul"))
    w.then(expect("PieceMoved", kind="army", owner="afghan", src="herat", dst="kabul"))
    assert offered(w, 0, "MovePiece") == ["army:kabul"]  # R-MOV-1: the same piece again
    w = w.when(0, cmd("MovePiece", piece="army:kabul")).when(0, cmd("MoveTo", region="herat"))
    w = w.when(0, cmd("StopAction"))  # R-MOV-5
    assert at_menu(w) and w.state.armies["herat"]["afghan"] == 1


def test_r_mov_2_section_23_item_6_no_road_of_your_coalition_no_move_and_other_blocks_never_move():
    g = table(courts={0: [HERAT_MOVER]}, armies={"herat": {"afghan": 1, "british": 1}},
              roads={"herat_kabul": {"british": 1}})
    assert offered(g, 0, "Move") == []  # section 23 item 6: no piece without a destination


def test_r_mov_2_indian_supplies_needs_no_road():
    g = table(courts={0: [HERAT_MOVER, INDIAN_SUPPLIES]}, armies={"herat": {"afghan": 1}})
    w = g.when(0, cmd("Move", card=HERAT_MOVER)).when(0, cmd("MovePiece", piece="army:herat"))
    assert offered(w, 0, "MoveTo") == ["kabul", "kandahar", "persia", "transcaspia"]


def test_r_mov_1_move_takes_as_many_steps_as_the_card_rank():
    g = table(courts={0: [KABUL_TAXER]}, armies={"herat": {"afghan": 1}}, roads={"herat_kabul": {"afghan": 1}})
    w = g.when(0, cmd("Move", card=KABUL_TAXER))
    for here, there in (("herat", "kabul"), ("kabul", "herat")):
        w = w.when(0, cmd("MovePiece", piece=f"army:{here}")).when(0, cmd("MoveTo", region=there))
    assert at_menu(w)


def test_r_mov_3_section_21_item_14_a_spy_steps_along_the_court_track_which_wraps_around():
    g = table(courts={0: [HERAT_MOVER, HERAT_CARD], 1: [PUNJAB_CARD, KANDAHAR_CARD]},
              spies={KANDAHAR_CARD: {0: 1}})
    w = g.when(0, cmd("Move", card=HERAT_MOVER)).when(0, cmd("MovePiece", piece=f"spy:{KANDAHAR_CARD}"))
    assert sorted(offered(w, 0, "MoveSpyTo")) == sorted([HERAT_MOVER, PUNJAB_CARD])
    w.when(0, cmd("MoveSpyTo", card=HERAT_MOVER)).then(
        expect("PieceMoved", kind="spy", owner=0, src=str(KANDAHAR_CARD), dst=str(HERAT_MOVER)))


def test_section_21_item_14_with_a_single_card_on_the_table_a_spy_cannot_move():
    g = table(courts={0: [HERAT_MOVER]}, spies={HERAT_MOVER: {0: 1}})
    assert offered(g, 0, "Move") == []


def test_r_mov_3_well_connected_steps_one_or_two_cards_either_way():
    g = table(courts={0: [HERAT_MOVER, WELL_CONNECTED, HERAT_CARD], 1: [PUNJAB_CARD, KANDAHAR_CARD, PERSIA_CARD]},
              spies={PUNJAB_CARD: {0: 1}})
    w = g.when(0, cmd("Move", card=HERAT_MOVER)).when(0, cmd("MovePiece", piece=f"spy:{PUNJAB_CARD}"))
    assert sorted(offered(w, 0, "MoveSpyTo")) == sorted([WELL_CONNECTED, HERAT_CARD, KANDAHAR_CARD, PERSIA_CARD])


def test_r_mov_3_strange_bedfellows_jumps_to_any_card_of_the_region_left_and_is_not_combined():
    court_0 = [HERAT_MOVER, STRANGE_BEDFELLOWS, WELL_CONNECTED, KANDAHAR_CARD, PERSIA_CARD]
    g = table(courts={0: court_0, 1: [KABUL_TAXER, HERAT_CARD, PUNJAB_OTHER, KABUL_POLITICAL]},
              spies={KABUL_TAXER: {0: 1}})
    w = g.when(0, cmd("Move", card=HERAT_MOVER)).when(0, cmd("MovePiece", piece=f"spy:{KABUL_TAXER}"))
    # Track: 63 21 56 49 75 | 13 62 31 7. From 13: one or two either way (49, 75, 62, 31)
    # and any Kabul card (7). Strange Bedfellows (Punjab) is never a jump from a neighbour:
    # 21 stays out of reach (BGA's combined reading would let 31 (Punjab) jump to it).
    assert sorted(offered(w, 0, "MoveSpyTo")) == sorted([KANDAHAR_CARD, PERSIA_CARD, HERAT_CARD, PUNJAB_OTHER,
                                                        KABUL_POLITICAL])


def test_r_mov_4_under_nationalism_a_tribe_moves_like_an_army_and_leaving_checks_for_overthrow():
    g = table(courts={0: [HERAT_MOVER, KABUL_POLITICAL]}, tribes={"kabul": {0: 1}},
              roads={"herat_kabul": {"afghan": 1}}, effects={"nationalism": 0})
    w = g.when(0, cmd("Move", card=HERAT_MOVER))
    assert offered(w, 0, "MovePiece") == ["tribe:kabul"]
    w = w.when(0, cmd("MovePiece", piece="tribe:kabul")).when(0, cmd("MoveTo", region="herat"))
    w.then(expect("PieceMoved", kind="tribe", owner=0, src="kabul", dst="herat"),
           expect("CardMoved", card=KABUL_POLITICAL, src="court:0", dst="discard"))
    assert w.state.tribes["herat"][0] == 1
    assert offered(table(courts={0: [HERAT_MOVER]}, tribes={"kabul": {0: 1}},
                         roads={"herat_kabul": {"afghan": 1}}), 0, "Move") == []


# -- R-BTR ---------------------------------------------------------------------------------------------------

def betrayal(target=PUNJAB_BRITISH_PRIZE, **kwargs):
    kwargs.setdefault("courts", {0: [KABUL_BETRAYER], 1: [target]})
    return table(spies={target: {0: 1, 1: 1}}, market=MARKET, **kwargs)


def test_r_btr_1_r_btr_3_betray_pays_two_first_then_discards_the_card_and_its_spies_go_home():
    w = betrayal(KANDAHAR_NO_PRIZE).when(0, cmd("Betray", card=KABUL_BETRAYER))
    assert paid(w, "betray") == ["market:0:5", "market:1:5"]
    assert offered(w, 0, "BetrayCard") == [KANDAHAR_NO_PRIZE]
    w = w.when(0, cmd("BetrayCard", card=KANDAHAR_NO_PRIZE))
    w.then(expect("PieceMoved", kind="spy", owner=0, src=str(KANDAHAR_NO_PRIZE), dst="supply"),
           expect("PieceMoved", kind="spy", owner=1, src=str(KANDAHAR_NO_PRIZE), dst="supply"),
           expect("CardMoved", card=KANDAHAR_NO_PRIZE, src="court:1", dst="discard"))
    assert at_menu(w) and KANDAHAR_NO_PRIZE in w.state.discard  # no prize, no question


def test_r_btr_1_betray_needs_two_rupees_and_a_card_with_your_spy():
    assert offered(betrayal(rupees=[1, 4]), 0, "Betray") == []
    assert offered(table(courts={0: [KABUL_BETRAYER], 1: [PUNJAB_CARD]}, spies={PUNJAB_CARD: {1: 1}}),
                   0, "Betray") == []


def test_r_btr_2_bodyguards_protect_only_the_political_cards_of_their_owner():
    g = table(courts={0: [KABUL_BETRAYER], 1: [BODYGUARDS[0], HERAT_BRITISH_PRIZE, PUNJAB_BRITISH_PRIZE]},
              spies={HERAT_BRITISH_PRIZE: {0: 1}, PUNJAB_BRITISH_PRIZE: {0: 1}})
    assert offered(g.when(0, cmd("Betray", card=KABUL_BETRAYER)), 0, "BetrayCard") == [PUNJAB_BRITISH_PRIZE]


def test_r_btr_4_a_prize_of_your_coalition_may_be_kept():
    w = betrayal(PUNJAB_AFGHAN_PRIZE).when(0, cmd("Betray", card=KABUL_BETRAYER)) \
        .when(0, cmd("BetrayCard", card=PUNJAB_AFGHAN_PRIZE))
    assert offered(w, 0, "KeepPrize") == [None] and offered(w, 0, "RefusePrize") == [None]
    kept = w.when(0, cmd("KeepPrize"))
    kept.then(expect("CardMoved", card=PUNJAB_AFGHAN_PRIZE, src="discard", dst="prizes:0")).then_not("LoyaltyChanged")
    assert at_menu(kept) and kept.state.players[0].prizes == [PUNJAB_AFGHAN_PRIZE]


def test_r_btr_4_r_gft_3_a_prize_of_another_coalition_changes_loyalty_first_gifts_return_and_refusing_discards():
    g = betrayal(courts={0: [KABUL_BETRAYER, PUNJAB_AFGHAN_PRIZE], 1: [PUNJAB_BRITISH_PRIZE]},
                 gifts={0: [2]}, prizes={0: [HERAT_CARD]})
    w = g.when(0, cmd("Betray", card=KABUL_BETRAYER)).when(0, cmd("BetrayCard", card=PUNJAB_BRITISH_PRIZE))
    kept = w.when(0, cmd("KeepPrize"))
    kept.then(expect("PieceMoved", kind="gift", owner=0, src="2", dst="supply"),
              expect("CardMoved", card=HERAT_CARD, src="prizes:0", dst="discard"),
              expect("LoyaltyChanged", seat=0, coalition="british"),
              expect("CardMoved", card=PUNJAB_BRITISH_PRIZE, src="discard", dst="prizes:0"))
    assert kept.state.players[0].prizes == [PUNJAB_BRITISH_PRIZE] and kept.state.players[0].gifts == set()
    refused = w.when(0, cmd("RefusePrize"))
    refused.then_not("LoyaltyChanged", "CardMoved")
    assert at_menu(refused) and refused.state.discard[-1] == PUNJAB_BRITISH_PRIZE


def test_section_21_item_13_betray_may_target_your_own_card_and_keeping_its_prize_may_change_loyalty():
    g = table(courts={0: [KABUL_BETRAYER, PUNJAB_BRITISH_PRIZE]}, spies={PUNJAB_BRITISH_PRIZE: {0: 1}})
    w = g.when(0, cmd("Betray", card=KABUL_BETRAYER))
    assert offered(w, 0, "BetrayCard") == [PUNJAB_BRITISH_PRIZE]
    w = w.when(0, cmd("BetrayCard", card=PUNJAB_BRITISH_PRIZE))
    w.then(expect("CardMoved", card=PUNJAB_BRITISH_PRIZE, src="court:0", dst="discard"))
    w = w.when(0, cmd("KeepPrize")).then(expect("LoyaltyChanged", seat=0, coalition="british"))
    assert w.state.players[0].loyalty == "british" and w.state.players[0].prizes == [PUNJAB_BRITISH_PRIZE]


# -- R-BAT ----------------------------------------------------------------------------------------------------

def kabul_battle(**kwargs):
    kwargs.setdefault("courts", {0: [PUNJAB_BATTLER]})
    kwargs.setdefault("armies", {"kabul": {"afghan": 2, "british": 1}})
    return table(**kwargs)


def test_r_bat_1_section_21_item_15_a_region_battle_removes_enemy_armies_roads_on_its_borders_and_tribes():
    g = kabul_battle(roads={"kabul_punjab": {"british": 1, "afghan": 1}, "herat_kabul": {"russian": 1}},
                     tribes={"kabul": {1: 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER))
    assert offered(w, 0, "BattleRegion") == ["kabul"] and offered(w, 0, "BattleCard") == []
    w = w.when(0, cmd("BattleRegion", region="kabul"))
    assert sorted(offered(w, 0, "RemoveEnemy")) == sorted(
        ["army:kabul:british", "road:kabul_punjab:british", "road:herat_kabul:russian", "tribe:kabul:1"])
    w = w.when(0, cmd("RemoveEnemy", piece="road:herat_kabul:russian"))
    w.then(expect("PieceMoved", kind="road", owner="russian", src="herat_kabul", dst="supply"))
    w = w.when(0, cmd("RemoveEnemy", piece="tribe:kabul:1"))
    assert at_menu(w)  # min(rank 2, strength 2) removals made


def test_r_bat_1_removals_are_limited_by_strength_and_never_touch_your_coalition_or_loyalty():
    g = table(3, courts={0: [PUNJAB_BATTLER]}, loyalties=["afghan", "british", "afghan"],
              armies={"kabul": {"afghan": 1, "british": 2}}, tribes={"kabul": {1: 1, 2: 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleRegion", region="kabul"))
    assert sorted(offered(w, 0, "RemoveEnemy")) == ["army:kabul:british", "tribe:kabul:1"]
    w = w.when(0, cmd("RemoveEnemy", piece="army:kabul:british"))
    assert at_menu(w) and w.state.armies["kabul"]["british"] == 1


def test_r_bat_1_a_region_needs_your_strength_and_an_enemy_to_be_a_battle_site():
    assert offered(table(courts={0: [PUNJAB_BATTLER]}, armies={"kabul": {"british": 1}}), 0, "Battle") == []
    assert offered(table(courts={0: [PUNJAB_BATTLER]}, armies={"kabul": {"afghan": 1}}), 0, "Battle") == []


def test_r_bat_1_citadel_protects_its_owner_s_tribes_in_its_region_only():
    g = kabul_battle(courts={0: [PUNJAB_BATTLER], 1: [CITADEL_KABUL]}, tribes={"kabul": {1: 1}, "herat": {1: 1}},
                     armies={"kabul": {"afghan": 1}, "herat": {"afghan": 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER))
    assert offered(w, 0, "BattleRegion") == ["herat"]
    assert offered(w.when(0, cmd("BattleRegion", region="herat")), 0, "RemoveEnemy") == ["tribe:herat:1"]


def test_r_bat_1_nationalism_counts_your_tribes_as_strength():
    g = table(courts={0: [PUNJAB_BATTLER]}, tribes={"kabul": {0: 2}}, armies={"kabul": {"british": 3}},
              effects={"nationalism": 0})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleRegion", region="kabul"))
    assert w.state.frames[-1].left == 2


def test_r_bat_3_a_tribe_removed_in_battle_runs_the_overthrow_check_for_its_owner():
    g = kabul_battle(courts={0: [PUNJAB_BATTLER], 1: [KABUL_POLITICAL]}, tribes={"kabul": {1: 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleRegion", region="kabul"))
    w = w.when(0, cmd("RemoveEnemy", piece="tribe:kabul:1"))
    w.then(expect("PieceMoved", kind="tribe", owner=1, src="kabul", dst="supply"),
           expect("CardMoved", card=KABUL_POLITICAL, src="court:1", dst="discard"))


def test_r_bat_4_a_battle_may_stop_after_removing_nothing():
    w = kabul_battle().when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleRegion", region="kabul"))
    w = w.when(0, cmd("StopAction")).then_not("PieceMoved")
    assert at_menu(w) and w.state.actions_left == 1


def test_r_bat_2_a_card_battle_removes_other_seats_spies_up_to_your_spies_on_it():
    g = table(3, courts={0: [PUNJAB_BATTLER], 1: [PUNJAB_CARD]}, spies={PUNJAB_CARD: {0: 1, 1: 2, 2: 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER))
    assert offered(w, 0, "BattleCard") == [PUNJAB_CARD]
    w = w.when(0, cmd("BattleCard", card=PUNJAB_CARD))
    assert offered(w, 0, "RemoveEnemy") == [f"spy:{PUNJAB_CARD}:1", f"spy:{PUNJAB_CARD}:2"]
    w = w.when(0, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:2"))
    w.then(expect("PieceMoved", kind="spy", owner=2, src=str(PUNJAB_CARD), dst="supply"))
    assert at_menu(w)  # min(rank 2, 1 spy of seat 0)


def test_r_bat_2_indispensable_advisors_keep_their_owner_s_spies_from_battle():
    g = table(courts={0: [PUNJAB_BATTLER], 1: [INDISPENSABLE_ADVISORS, PUNJAB_CARD]},
              spies={PUNJAB_CARD: {0: 1, 1: 1}})
    assert offered(g, 0, "Battle") == []


def safe_house_battle():
    return table(courts={0: [PUNJAB_BATTLER], 1: [SAFE_HOUSES[0], PUNJAB_CARD]},
                 spies={PUNJAB_CARD: {0: 2, 1: 2}})


def test_r_bat_3_section_21_item_10_the_spy_owner_decides_on_safe_house_after_the_battle():
    w = safe_house_battle().when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleCard", card=PUNJAB_CARD))
    w = w.when(0, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:1"))
    assert w.to_move() == [0]  # the battle goes on; Safe House waits for its end
    w = w.when(0, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:1"))
    assert w.to_move() == [1] and offered(w, 1, "UseSafeHouse") == [SAFE_HOUSES[0]]
    assert w.legal(0) == []
    w = w.when(1, cmd("UseSafeHouse", card=SAFE_HOUSES[0]))
    w.then(expect("PieceMoved", kind="spy", owner=1, src="supply", dst=str(SAFE_HOUSES[0])))
    w = w.when(1, cmd("DeclineSafeHouse"))
    assert at_menu(w) and w.to_move() == [0]
    assert w.state.spies[SAFE_HOUSES[0]][1] == 1 and w.state.spies[PUNJAB_CARD][1] == 0


def test_r_bat_3_safe_house_is_not_offered_to_a_seat_without_one():
    g = table(courts={0: [PUNJAB_BATTLER], 1: [PUNJAB_CARD]}, spies={PUNJAB_CARD: {0: 1, 1: 1}})
    w = g.when(0, cmd("Battle", card=PUNJAB_BATTLER)).when(0, cmd("BattleCard", card=PUNJAB_CARD))
    w = w.when(0, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:1"))
    assert at_menu(w) and w.to_move() == [0]


def test_r_bat_3_safe_house_choices_go_in_seat_order_from_the_active_player():
    g = table(4, active=2, courts={2: [PUNJAB_BATTLER], 1: [SAFE_HOUSES[0]], 3: [SAFE_HOUSES[1], PUNJAB_CARD]},
              loyalties=["afghan", "british", "russian", "afghan"], spies={PUNJAB_CARD: {2: 2, 1: 1, 3: 1}})
    w = g.when(2, cmd("Battle", card=PUNJAB_BATTLER)).when(2, cmd("BattleCard", card=PUNJAB_CARD))
    w = w.when(2, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:1")).when(2, cmd("RemoveEnemy", piece=f"spy:{PUNJAB_CARD}:3"))
    assert w.to_move() == [3] and offered(w, 3, "UseSafeHouse") == [SAFE_HOUSES[1]]
    w = w.when(3, cmd("UseSafeHouse", card=SAFE_HOUSES[1]))
    assert w.to_move() == [1] and offered(w, 1, "UseSafeHouse") == [SAFE_HOUSES[0]]
    w = w.when(1, cmd("DeclineSafeHouse"))
    assert at_menu(w) and w.to_move() == [2]
