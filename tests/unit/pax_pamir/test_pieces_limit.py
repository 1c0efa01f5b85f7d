"""Running out of pieces (R-LIM, rules.md section 14; R-IMP-1; R-OVR-6; section 21 item 1;
section 23 item 8: only placements count as placed this turn)."""

from __future__ import annotations

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.steps.common import pieces_on_board, place_piece
from domain.kernel.rng import Rng
from tests.helpers.scenario import expect, given
from tests.unit.pax_pamir.flow import (
    asked,
    assert_prompt_is_the_law,
    assert_reveals_no_hidden_card,
    choices,
    cmd,
    with_steps,
)
from tests.unit.pax_pamir.table import table

MOHAN_LAL = 1  # Kabul: spy, spy, spy
SHAH_SHUJAH = 5  # Kabul: tribe
DOST_MOHAMMAD = 7  # Kabul political: tribe, tribe, army, spy
DURRANI_ROYAL_GUARD = 15  # Kabul: army
HENRY_RAWLINSON = 20
EXILED_DURRANI_NOBILITY = 57  # Herat political
NOMADIC_WARLORD = 60  # Herat: army


def took(g):
    return choices(g, 0)


def test_r_lim_5_the_supply_is_always_used_first():
    g = table(hands={0: [SHAH_SHUJAH]}, tribes={"herat": {0: 9}}).when(0, cmd("Play", card=SHAH_SHUJAH))
    g.then(expect("PieceMoved", kind="tribe", owner=0, src="supply", dst="kabul", placed=True))
    assert g.state.frames[-1].step == "turn"


def all_cylinders_in_play(**spec):
    """Seat 0 has all ten cylinders in play: 3 tribes in Herat, 3 in Punjab, 2 spies, 2 gifts."""
    base = dict(hands={0: [SHAH_SHUJAH], 1: [MOHAN_LAL]}, courts={1: [HENRY_RAWLINSON]},
                tribes={"herat": {0: 3}, "punjab": {0: 3}}, spies={HENRY_RAWLINSON: {0: 2}}, gifts={0: [2, 4]})
    return table(**{**base, **spec})


def test_r_lim_1_with_no_cylinder_left_the_placing_seat_takes_one_of_its_own_from_the_board():
    g = all_cylinders_in_play().when(0, cmd("Play", card=SHAH_SHUJAH))
    assert g.to_move() == [0]
    assert took(g) == {("TakePiece", p) for p in ("tribe:herat", "tribe:punjab", f"spy:{HENRY_RAWLINSON}",
                                                   "gift:2", "gift:4")}
    assert asked(g, 0).text == ("Your supply has no cylinder left: take one of yours from the board to place as "
                                "a tribe in Kabul.")
    assert_prompt_is_the_law(g, 0)
    assert_reveals_no_hidden_card(g, announced=(SHAH_SHUJAH,))


def test_r_lim_2_a_gift_may_be_taken_and_its_influence_is_lost():
    g = all_cylinders_in_play().when(0, cmd("Play", card=SHAH_SHUJAH))
    before = q.influence(g.state, 0)
    g = g.when(0, cmd("TakePiece", piece="gift:4"))
    g.then(expect("PieceMoved", kind="gift", owner=0, src="4", dst="supply"),
           expect("PieceMoved", kind="tribe", owner=0, src="supply", dst="kabul", placed=True))
    assert q.influence(g.state, 0) == before - 1
    assert g.state.tribes["kabul"][0] == 1 and g.state.frames[-1].step == "turn"


def test_r_lim_2_blocks_come_from_the_armies_and_roads_of_the_seats_own_coalition():
    g = table(hands={0: [DURRANI_ROYAL_GUARD]}, armies={"herat": {"afghan": 6, "british": 2}},
              roads={"herat_kabul": {"afghan": 6}, "kabul_punjab": {"british": 1}})
    g = g.when(0, cmd("Play", card=DURRANI_ROYAL_GUARD))
    assert took(g) == {("TakePiece", "army:herat"), ("TakePiece", "road:herat_kabul")}
    assert asked(g, 0).text == ("Your supply has no block left: take one of yours from the board to place as "
                                "an army in Kabul.")
    g = g.when(0, cmd("TakePiece", piece="road:herat_kabul"))
    g.then(expect("PieceMoved", kind="road", owner="afghan", src="herat_kabul", dst="supply"),
           expect("PieceMoved", kind="army", owner="afghan", src="supply", dst="kabul", placed=True))


def test_section_23_8_pieces_placed_this_turn_may_not_be_taken_back():
    """Dost Mohammad's two tribes and spy, then Mohan Lal's spies, with one cylinder in supply."""
    g = table(hands={0: [DOST_MOHAMMAD, MOHAN_LAL]}, tribes={"kabul": {0: 1}, "herat": {0: 8}})
    g = g.when(0, cmd("Play", card=DOST_MOHAMMAD))  # first tribe from supply
    # the second: the old Kabul tribe too (section 23 item 14), not the one just placed there
    assert took(g) == {("TakePiece", "tribe:herat"), ("TakePiece", "tribe:kabul")}
    g = g.when(0, cmd("TakePiece", piece="tribe:herat")).when(0, cmd("PlaceSpy", card=DOST_MOHAMMAD))
    assert took(g) == {("TakePiece", "tribe:kabul"), ("TakePiece", "tribe:herat")}  # Kabul: one old tribe
    g = g.when(0, cmd("TakePiece", piece="tribe:kabul"))
    assert g.state.tribes["kabul"][0] == 2  # both placed this turn
    g = g.when(0, cmd("Play", card=MOHAN_LAL)).when(0, cmd("ChooseSide", side="right"))
    g = g.when(0, cmd("PlaceSpy", card=MOHAN_LAL))
    assert took(g) == {("TakePiece", "tribe:herat")}  # not Kabul's new tribes, not the new spy


def test_section_23_14_r_lim_1_the_piece_already_at_the_destination_may_be_taken():
    """Every army of the seat's coalition is in play, one of them in Kabul: Durrani Royal
    Guard's army for Kabul may be that very one. The board stays as it was, that army now
    counts as placed this turn (it cannot be taken again), and the others keep their places."""
    g = table(hands={0: [DURRANI_ROYAL_GUARD]}, armies={"kabul": {"afghan": 1}, "herat": {"afghan": 11}})
    g = g.when(0, cmd("Play", card=DURRANI_ROYAL_GUARD))
    assert took(g) == {("TakePiece", "army:kabul"), ("TakePiece", "army:herat")}
    assert asked(g, 0).text == ("Your supply has no block left: take one of yours from the board to place as "
                                "an army in Kabul (taking the one already there leaves the board as it is).")
    assert_prompt_is_the_law(g, 0)
    g = g.when(0, cmd("TakePiece", piece="army:kabul"))
    g.then(expect("PieceMoved", kind="army", owner="afghan", src="kabul", dst="supply"),
           expect("PieceMoved", kind="army", owner="afghan", src="supply", dst="kabul", placed=True))
    assert g.state.armies["kabul"]["afghan"] == 1 and g.state.armies["herat"]["afghan"] == 11
    assert pieces_on_board(g.state, "army", 0) == ["army:herat"]  # the Kabul army is placed this turn
    assert g.state.frames[-1].step == "turn"


def test_section_23_14_a_tribe_taken_where_it_stands_overthrows_nobody():
    """The seat's last Herat tribe, taken to be placed in Herat again: it never leaves, so
    the Herat court card (R-OVR-1) stays."""
    g = with_steps(table(courts={0: [EXILED_DURRANI_NOBILITY]}, tribes={"herat": {0: 1}, "punjab": {0: 9}}),
                   ("take_piece", 0, {"kind": "tribe", "dst": "herat", "placed": True}))
    g = g.when(0, cmd("TakePiece", piece="tribe:herat"))
    g.then(expect("PieceMoved", kind="tribe", owner=0, src="herat", dst="supply"),
           expect("PieceMoved", kind="tribe", owner=0, src="supply", dst="herat", placed=True))
    g.then_not(expect("CardMoved", card=EXILED_DURRANI_NOBILITY))
    assert g.state.players[0].court == [EXILED_DURRANI_NOBILITY] and g.state.tribes["herat"][0] == 1


def test_section_23_8_a_piece_moved_this_turn_may_be_taken():
    base = table(hands={0: [NOMADIC_WARLORD]}, armies={"persia": {"afghan": 11}})
    placed = given(RULES, *base.history, ev.piece_moved("army", "afghan", "supply", "kabul", placed=True))
    assert took(placed.when(0, cmd("Play", card=NOMADIC_WARLORD))) == {("TakePiece", "army:persia")}
    moved = given(RULES, *placed.history, ev.piece_moved("army", "afghan", "kabul", "punjab"))
    assert took(moved.when(0, cmd("Play", card=NOMADIC_WARLORD))) == {("TakePiece", "army:persia"),
                                                                      ("TakePiece", "army:punjab")}


def test_r_lim_4_with_every_piece_placed_this_turn_the_placement_is_skipped():
    base = table(hands={0: [NOMADIC_WARLORD]})
    g = given(RULES, *base.history, *[ev.piece_moved("army", "afghan", "supply", "kabul", placed=True)] * 12)
    g = g.when(0, cmd("Play", card=NOMADIC_WARLORD))
    g.then(expect("CardMoved", card=NOMADIC_WARLORD, dst="court:0")).then_not(expect("PieceMoved", kind="army"))
    assert g.to_move() == [0] and g.state.frames[-1].step == "turn"


def test_r_lim_3_and_r_ovr_6_taking_the_last_tribe_of_a_region_overthrows_its_owner_there():
    g = table(hands={0: [SHAH_SHUJAH]}, courts={0: [EXILED_DURRANI_NOBILITY]},
              tribes={"herat": {0: 1}, "punjab": {0: 9}})
    g = g.when(0, cmd("Play", card=SHAH_SHUJAH)).when(0, cmd("ChooseSide", side="right"))
    g = g.when(0, cmd("TakePiece", piece="tribe:herat"))
    g.then(expect("PieceMoved", kind="tribe", owner=0, src="herat", dst="supply"),
           expect("PieceMoved", kind="tribe", owner=0, dst="kabul", placed=True),
           expect("CardMoved", card=EXILED_DURRANI_NOBILITY, src="court:0", dst="discard"))
    assert g.state.players[0].court == [SHAH_SHUJAH]


def test_section_23_8_a_placement_that_does_not_count_may_be_taken_back():
    """Insurrection armies and Safe House returns are not placements (place_piece(placed=False))."""
    s = RULES.copy(table().state)
    for placed, expected in ((True, []), (False, ["army:kabul"])):
        turn = RULES.begin(RULES.copy(s), Rng(0))
        place_piece(turn, 0, "army", "kabul", placed=placed)
        assert pieces_on_board(turn.state, "army", 0) == expected


def test_section_23_8_an_r_lim_placement_that_does_not_count_is_not_marked_either():
    g = with_steps(table(armies={"herat": {"afghan": 12}}),
                   ("take_piece", 0, {"kind": "army", "dst": "kabul", "placed": False}))
    g = g.when(0, cmd("TakePiece", piece="army:herat"))
    g.then(expect("PieceMoved", kind="army", src="supply", dst="kabul"))
    assert "army:kabul" in pieces_on_board(g.state, "army", 0)
