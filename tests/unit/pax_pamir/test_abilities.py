"""Special abilities with set timing (rules.md section 15, R-SA): Blackmail at the start of
the owner's turn (R-TRN-1), Insurrection after a Dominance Check (section 21 item 12,
section 23 item 8), and the influence abilities' free purchases (R-PUR-2)."""

from __future__ import annotations

from domain.games.pax_pamir.data.cards import (
    BLACKMAIL_HERAT,
    BLACKMAIL_KANDAHAR,
    HERAT_INFLUENCE,
    INSURRECTION,
    NATIONALISM,
    PERSIAN_INFLUENCE,
    RUSSIAN_INFLUENCE,
)
from domain.games.pax_pamir.steps.turn import purchase_cost
from tests.helpers.scenario import expect
from tests.unit.pax_pamir.event_helpers import args_of, checks_out_of_deck, cmd, prompt_text, verbs
from tests.unit.pax_pamir.table import table

DC = 101
CHARLES_MASSON = 41  # kandahar intelligence
BALUCHI_CHIEFS = 44  # kandahar political
HAJI_KHAN_KAKAR = 45  # kandahar political
HAZARA_CHIEFS = 55  # herat political
KARAKUL_SHEEP = 61  # herat economic
ABBAS_MIRZA = 75  # persia political
WITKIEWICZ = 86  # transcaspia intelligence, Russian patriot
NASRULLAH_KHAN = 90  # transcaspia political, no patriot
ZORAWAR_SINGH = 33  # punjab military, icons army, army
SHAH_SHUJAH = 5  # kabul political


def seat_0_turn_starts(**kwargs):
    """Seat 1 ends its turn; seat 0's turn then starts (R-CLN-7, R-TRN-1)."""
    return table(active=1, next_seat=0, **kwargs).when(1, cmd("EndTurn"))


# -- Blackmail (43 Kandahar, 54 Herat) ----------------------------------------------------------

def test_r_trn_1_blackmail_offers_cards_of_its_region_with_no_spies_at_all_in_any_court():
    g = seat_0_turn_starts(courts={0: [BLACKMAIL_KANDAHAR], 1: [CHARLES_MASSON, BALUCHI_CHIEFS, HAZARA_CHIEFS]},
                           spies={BALUCHI_CHIEFS: {1: 1}})
    assert g.state.active == 0 and g.to_move() == [0]
    assert "Blackmail" in prompt_text(g, 0) and "Kandahar" in prompt_text(g, 0)
    assert sorted(args_of(g, 0, "Blackmail")) == [CHARLES_MASSON, BLACKMAIL_KANDAHAR]
    assert verbs(g, 0) == {"Blackmail", "DeclineBlackmail"}
    done = g.when(0, cmd("Blackmail", card=CHARLES_MASSON)).then(
        expect("PieceMoved", kind="spy", owner=0, src="supply", dst=str(CHARLES_MASSON), placed=True))
    assert "EndTurn" in verbs(done, 0)  # one spy per ability, then the actions


def test_r_trn_1_blackmail_is_optional():
    g = seat_0_turn_starts(courts={0: [BLACKMAIL_KANDAHAR]})
    done = g.when(0, cmd("DeclineBlackmail")).then_not("PieceMoved")
    assert "EndTurn" in verbs(done, 0) and done.state.actions_left == 2


def test_r_trn_1_both_blackmail_abilities_give_one_spy_each():
    g = seat_0_turn_starts(courts={0: [BLACKMAIL_KANDAHAR, BLACKMAIL_HERAT], 1: [HAZARA_CHIEFS]})
    assert args_of(g, 0, "Blackmail") == [BLACKMAIL_KANDAHAR]
    herat = g.when(0, cmd("Blackmail", card=BLACKMAIL_KANDAHAR))
    assert "Herat" in prompt_text(herat, 0)
    assert sorted(args_of(herat, 0, "Blackmail")) == [BLACKMAIL_HERAT, HAZARA_CHIEFS]
    done = herat.when(0, cmd("Blackmail", card=HAZARA_CHIEFS))
    assert done.state.spies[HAZARA_CHIEFS][0] == 1 and done.state.spies[BLACKMAIL_KANDAHAR][0] == 1
    assert "Blackmail" not in verbs(done, 0)


def test_r_trn_1_blackmail_is_not_offered_when_every_card_of_its_region_has_a_spy():
    g = seat_0_turn_starts(courts={0: [BLACKMAIL_HERAT]}, spies={BLACKMAIL_HERAT: {1: 1}})
    assert "Blackmail" not in verbs(g, 0) and "EndTurn" in verbs(g, 0)


def test_r_sa_blackmail_acts_only_at_the_start_of_its_owners_turn():
    g = table(courts={1: [BLACKMAIL_KANDAHAR]}, active=1, next_seat=0).when(1, cmd("EndTurn"))
    assert g.state.active == 0 and "Blackmail" not in verbs(g, 0) and g.to_move() == [0]


def test_r_lim_blackmail_with_an_empty_supply_takes_a_cylinder_from_the_board():
    g = seat_0_turn_starts(courts={0: [BLACKMAIL_KANDAHAR, SHAH_SHUJAH]},
                           tribes={"punjab": {0: 9}}, gifts={0: [2]})
    asked = g.when(0, cmd("Blackmail", card=BLACKMAIL_KANDAHAR))
    assert asked.to_move() == [0] and sorted(args_of(asked, 0, "TakePiece")) == ["gift:2", "tribe:punjab"]
    done = asked.when(0, cmd("TakePiece", piece="gift:2"))
    assert done.state.spies[BLACKMAIL_KANDAHAR][0] == 1 and done.state.players[0].gifts == set()


# -- Insurrection (card 3) --------------------------------------------------------------------------

def test_section_21_item_12_insurrection_follows_a_successful_check_that_cleared_the_board():
    g = table(seats=3, courts={0: [INSURRECTION]}, armies={"punjab": {"british": 4}}, market={(0, 0): DC},
              loyalties=["afghan", "british", "british"])
    done = g.when(0, cmd("Purchase", card=DC)).then(
        expect("DominanceCheckResolved", dominant="british"),
        expect("VictoryPointsScored", seat=1, points=4),  # tied 5+3 split: no lead of 4 over seat 2
        expect("PieceMoved", kind="army", owner="british", src="punjab", dst="supply"),
        expect("PieceMoved", kind="army", owner="afghan", src="supply", dst="kabul"),
        expect("PieceMoved", kind="army", owner="afghan", src="supply", dst="kabul"))
    assert done.state.armies["kabul"]["afghan"] == 2 and done.to_move() == [0]


def test_r_dom_9_persistent_effects_are_cleared_before_insurrection():
    g = table(courts={1: [INSURRECTION]}, market={(0, 0): DC}, effects={"nationalism": 0},
              loyalties=["british", "afghan"])
    done = g.when(0, cmd("Purchase", card=DC))
    types = [e.type for e in done.events]
    cleared = types.index("EffectsCleared")
    army = next(i for i, e in enumerate(done.events) if e.type == "PieceMoved" and e.data["dst"] == "kabul")
    assert types.index("DominanceCheckResolved") < cleared < army
    assert done.state.effects == {}


def test_section_21_item_12_no_insurrection_after_a_check_that_ends_the_game():
    g = checks_out_of_deck(table(courts={0: [INSURRECTION]}, market={(0, 0): DC}))
    done = g.when(0, cmd("Purchase", card=DC)).then(expect("GameEnded"))
    done.then_not(expect("PieceMoved", kind="army", dst="kabul"))


def test_section_23_item_8_insurrection_armies_are_not_placed_this_turn_so_r_lim_may_take_them():
    g = table(courts={0: [INSURRECTION]}, hands={0: [ZORAWAR_SINGH]},
              armies={"persia": {"afghan": 10, "british": 8}}, market={(0, 1): DC, (0, 0): SHAH_SHUJAH})
    after_check = g.when(0, cmd("Purchase", card=DC))
    assert after_check.state.armies["kabul"]["afghan"] == 2 and after_check.state.placed["army:afghan:kabul"] == 0
    asked = after_check.when(0, cmd("Play", card=ZORAWAR_SINGH)).when(0, cmd("ChooseSide", side="left"))
    assert sorted(args_of(asked, 0, "TakePiece")) == ["army:kabul", "army:persia"]


def test_r_lim_insurrection_with_no_afghan_block_in_supply_is_a_choice_of_the_card_owner():
    g = table(courts={1: [INSURRECTION]}, loyalties=["british", "afghan"],
              armies={"persia": {"afghan": 12, "british": 9}}, market={(0, 0): DC})
    asked = g.when(0, cmd("Purchase", card=DC))
    assert asked.to_move() == [1] and args_of(asked, 1, "TakePiece") == ["army:persia"]
    assert asked.events[-1].barrier
    done = asked.when(1, cmd("TakePiece", piece="army:persia")).when(1, cmd("TakePiece", piece="army:persia"))
    assert done.state.armies["kabul"]["afghan"] == 2 and done.to_move() == [0]


# -- influence abilities (R-PUR-2, R-SA) ----------------------------------------------------------

def test_r_pur_2_herat_influence_makes_herat_court_cards_free_but_not_events():
    g = table(courts={0: [HERAT_INFLUENCE]}, market={(0, 3): KARAKUL_SHEEP, (1, 3): NATIONALISM})
    s = g.state
    assert purchase_cost(s, 0, KARAKUL_SHEEP, 3) == 0 and purchase_cost(s, 1, KARAKUL_SHEEP, 3) == 3
    assert purchase_cost(s, 0, NATIONALISM, 3) == 3
    done = g.when(0, cmd("Purchase", card=KARAKUL_SHEEP)).then_not("RupeesMoved", "MarketSlotMarked")
    assert done.state.players[0].rupees == 4 and done.state.players[0].hand == [KARAKUL_SHEEP]


def test_r_pur_2_persian_influence_makes_persia_court_cards_free_even_when_military_is_favored():
    g = table(courts={0: [PERSIAN_INFLUENCE]}, market={(0, 5): ABBAS_MIRZA}, favored="military", rupees=[0, 4])
    assert purchase_cost(g.state, 0, ABBAS_MIRZA, 5) == 0 and purchase_cost(g.state, 1, ABBAS_MIRZA, 5) == 10
    assert ABBAS_MIRZA in args_of(g, 0, "Purchase")


def test_r_pur_2_russian_influence_makes_russian_patriots_free_only():
    g = table(courts={0: [RUSSIAN_INFLUENCE]}, market={(0, 2): WITKIEWICZ, (1, 2): NASRULLAH_KHAN})
    assert purchase_cost(g.state, 0, WITKIEWICZ, 2) == 0
    assert purchase_cost(g.state, 0, NASRULLAH_KHAN, 2) == 2


def test_r_sa_an_influence_ability_counts_only_while_its_card_is_in_the_court():
    g = table(hands={0: [HERAT_INFLUENCE]}, market={(0, 3): KARAKUL_SHEEP})
    assert purchase_cost(g.state, 0, KARAKUL_SHEEP, 3) == 3
