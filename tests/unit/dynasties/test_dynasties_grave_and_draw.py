"""Phases 5 and 6: Into the Grave, Draw & Retirement (R51-R53, R57)."""

from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import (
    deal,
    events_of,
    place,
    play_round_one,
    retire_cmd,
    state_at,
    take_cmd,
    tributes,
)


def test_r51_families_in_seat_order_then_the_tribute_zone_go_to_the_graveyard():
    done = play_round_one()
    buried = state_at(done, "FamiliesBuried")
    assert buried.graveyard == ["coppe-02", "denari-03", "bastoni-04", "coppe-05", "denari-06", "bastoni-07",
                                "spade-10", "spade-09"]
    assert buried.families == [[], []] and buried.tribute_zone == []
    assert done.view(0)["graveyard_count"] == 8 and "graveyard" not in done.view(0)  # R57: only a count


# Seats 0 and 1 each form a Conclave and take one Tribute; seat 2 wins the Stakes. Hands end 2 / 2 / 1.
DRAW = (["bastoni-10", "coppe-04", "denari-04", "spade-04", "bastoni-05"],
        ["bastoni-09", "coppe-07", "denari-07", "spade-07", "bastoni-06"],
        ["bastoni-08", "bastoni-13", "coppe-12", "denari-11", "bastoni-02"])


def test_r52_hands_2_2_1_and_stakes_won_by_the_third_seat_the_draw_starts_at_the_first_2_card_seat_after_it():
    g = tributes(deal(*DRAW), "bastoni-10", "bastoni-09", "bastoni-08")
    g = place(g, "coppe-04", "coppe-07", "bastoni-13", "coppe-12", "denari-04", "denari-07", "denari-11", "spade-04")
    g = place(g.when(0, take_cmd("bastoni-10")), "spade-07")
    done = g.when(1, take_cmd("bastoni-09"))
    done.then(expect("StakesWon", seat=2), expect("DrawOrderChosen", starter=0, order=[0, 1, 2]),
              expect("CardDrawn", seat=0, reason="draw"), expect("CardDrawn", seat=1), expect("CardDrawn", seat=2),
              expect("RoundStarted", round=2, anchor=0))
    assert [len(hand) for hand in state_at(done, "DrawOrderChosen").hands] == [2, 2, 1]


# Seat 0 takes both Tributes with a Conclave of 4s and ends the round with 4 cards.
RETIRE = (["spade-13", "coppe-04", "denari-04", "spade-04", "bastoni-10", "bastoni-11"],
          ["spade-12", "coppe-05", "denari-06", "bastoni-07", "bastoni-02", "coppe-03"])
RETIRE_DECK = ["coppe-10", "coppe-11", "coppe-12", "denari-10", "denari-11", "denari-12"]


def four_cards_after_the_round(**options):
    g = tributes(deal(*RETIRE, deck=RETIRE_DECK, **options), "spade-13", "spade-12")
    g = place(g, "coppe-04", "coppe-05", "denari-06", "denari-04", "bastoni-07", "spade-04")
    return g.when(0, take_cmd("spade-12", "spade-13"))


def test_r53_a_hand_of_7_after_the_draw_must_retire_1_chosen_by_its_owner_before_the_next_seat_draws():
    done = four_cards_after_the_round(draw_per_round=3)
    done.then(expect("DrawOrderChosen", starter=0, order=[0, 1]),
              expect("CardDrawn", seat=0, card="coppe-10"), expect("CardDrawn", seat=0, card="coppe-11"),
              expect("CardDrawn", seat=0, card="coppe-12"),
              expect("HandLimitChecked", seat=0, size=7, limit=6, must_retire=1))
    done.then_not(expect("CardDrawn", seat=1), "RoundStarted")
    assert done.state.pending == ("retirement", 0, 1) and done.to_move() == [0]
    assert done.view(1)["pending"] == {"kind": "retirement", "seat": 0, "count": 1}
    assert len(done.legal(0)) == 7 and done.legal(1) == []
    done.when(0, retire_cmd("coppe-10", "coppe-11")).then_rejects("you must retire exactly 1 Noble")
    done.when(0, retire_cmd("denari-10")).then_rejects("you can only retire Nobles from your hand")
    done.when(1, retire_cmd("bastoni-02")).then_rejects("you have no Nobles to retire")
    retired = done.when(0, retire_cmd("bastoni-10"))
    retired.then(expect("NoblesRetired", seat=0, count=1, cards=["bastoni-10"]),
                 expect("CardDrawn", seat=1, card="denari-10"), expect("HandLimitChecked", seat=1, size=5),
                 expect("RoundStarted", round=2, anchor=0))
    secret = events_of(retired.events, "NoblesRetired")[0]
    assert secret.data == {"seat": 0, "count": 1} and secret.secret_to == frozenset({0})
    assert "bastoni-10" in state_at(retired, "NoblesRetired").graveyard


def test_options_draw_per_round_and_hand_limit_change_the_draw_and_the_retirement():
    one = four_cards_after_the_round()
    one.then(expect("HandLimitChecked", seat=0, size=5, must_retire=0), expect("RoundStarted"))
    roomy = four_cards_after_the_round(draw_per_round=3, hand_limit=7)
    roomy.then(expect("HandLimitChecked", seat=0, size=7, limit=7, must_retire=0), expect("RoundStarted"))
    none = four_cards_after_the_round(draw_per_round=0)
    none.then(expect("DrawOrderChosen"), expect("HandLimitChecked", seat=0, size=4)).then_not(
        expect("CardDrawn", reason="draw"))
