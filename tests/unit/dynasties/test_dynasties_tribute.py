"""Phase 2, Tribute: R17-R22."""

from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import deal, events_of, place, tribute_cmd, tributes

THREE = (["coppe-09", "coppe-02", "coppe-03", "coppe-04"],
         ["denari-09", "denari-02", "denari-03", "denari-04"],
         ["spade-05", "spade-02", "spade-03", "spade-04"])


def test_r17_every_seat_with_cards_is_asked_for_a_tribute_at_once():
    g = deal(*THREE)
    assert g.to_move() == [0, 1, 2]
    assert g.state.phase == "tribute"


def test_r17_a_tribute_is_secret_until_the_last_seat_commits():
    g = deal(*THREE).when(0, tribute_cmd("coppe-09"))
    g.then(expect("TributeCommitted", seat=0, card="coppe-09")).then_not("TributesRevealed")
    committed = g.events[0]
    assert committed.secret == {"card": "coppe-09"} and committed.secret_to == frozenset({0})
    assert "card" not in committed.data and not committed.barrier
    assert g.view(1)["players"][0]["tribute_committed"] is True
    assert g.view(1)["my_tribute"] is None and g.view(0)["my_tribute"] == "coppe-09"
    assert g.to_move() == [1, 2]


def test_r17_a_seat_cannot_give_a_second_tribute():
    deal(*THREE).when(0, tribute_cmd("coppe-09")).when(0, tribute_cmd("coppe-02")) \
        .then_rejects("you have already given your Tribute")


def test_r17_a_tribute_must_come_from_the_hand():
    deal(*THREE).when(0, tribute_cmd("denari-09")).then_rejects("Tribute must be a card in your hand")


def test_r19_tributes_9_9_5_the_5_leads_and_everyone_pays_9():
    done = tributes(deal(*THREE), "coppe-09", "denari-09", "spade-05")
    done.then(expect("TributesRevealed", highest=9),
              expect("FirstPlayerChosen", seat=2, value=5),
              expect("StakesPaid", seat=2, owed=9, paid=9),
              expect("StakesPaid", seat=0, owed=9, paid=9),
              expect("StakesPaid", seat=1, owed=9, paid=9),
              expect("TurnStarted", turn=1, leader=2, order=[2, 0, 1]))
    assert done.state.stakes == 27 and done.state.treasury == [41, 41, 41]
    assert done.to_move() == [2]


def test_r19_tributes_9_9_5_5_3_the_3_leads_and_everyone_pays_9():
    hands = [[f"{lineage}-{value:02d}"] + [f"{lineage}-{v:02d}" for v in extra]
             for lineage, value, extra in (("coppe", 9, (10, 11, 12)), ("denari", 9, (10, 11, 12)),
                                           ("spade", 5, (10, 11, 12)), ("bastoni", 5, (10, 11, 12)),
                                           ("coppe", 3, (6, 7, 8)))]
    done = tributes(deal(*hands), "coppe-09", "denari-09", "spade-05", "bastoni-05", "coppe-03")
    done.then(expect("FirstPlayerChosen", seat=4, value=3))
    assert [e.data["owed"] for e in done.of_type("StakesPaid")] == [9] * 5
    assert done.state.stakes == 45


def test_r18_a_coronation_tribute_is_worth_1_so_a_2_outranks_it():
    g = deal(["coppe-01", "coppe-05", "coppe-06", "coppe-07"], ["denari-02", "denari-05", "denari-06", "denari-07"])
    done = tributes(g, "coppe-01", "denari-02")
    done.then(expect("FirstPlayerChosen", seat=1, value=2), expect("StakesPaid", owed=2))
    done.then_not("KingsDeposed", "DynastyChanged")


def test_r20_tributes_7_7_with_2_players_are_buried_each_seat_draws_and_no_gold_moves():
    g = deal(["coppe-07", "coppe-02", "coppe-03", "coppe-04"], ["denari-07", "denari-02", "denari-03", "denari-04"],
             deck=["spade-10", "spade-11"])
    done = tributes(g, "coppe-07", "denari-07")
    done.then(expect("TributesRevealed", highest=7), expect("TributeStalemate", values=[7, 7]),
              expect("CardDrawn", seat=0, reason="redraw", card="spade-10"),
              expect("CardDrawn", seat=1, reason="redraw", card="spade-11"))
    done.then_not("StakesPaid", "FirstPlayerChosen")
    s = done.state
    assert sorted(s.graveyard) == ["coppe-07", "denari-07"] and s.tribute_zone == []
    assert s.stakes == 0 and s.treasury == [50, 50]
    assert [len(hand) for hand in s.hands] == [4, 4]
    assert done.to_move() == [0, 1]  # new Tributes
    again = tributes(done, "spade-10", "denari-02")
    again.then(expect("FirstPlayerChosen", seat=0, value=10), expect("StakesPaid", owed=10))


def test_r20_option_anchor_leads_keeps_the_tied_tributes_and_the_anchor_leads():
    g = deal(["coppe-07", "coppe-02", "coppe-03", "coppe-04"], ["denari-07", "denari-02", "denari-03", "denari-04"],
             all_tied_tribute="anchor_leads")
    done = tributes(g, "coppe-07", "denari-07")
    done.then(expect("FirstPlayerChosen", seat=0, value=7, by="anchor"), expect("StakesPaid", owed=7))
    done.then_not("TributeStalemate")
    assert done.state.tribute_zone == ["coppe-07", "denari-07"]


def test_r21_every_seat_pays_the_highest_tribute_or_all_it_has():
    g = deal(["coppe-13", "coppe-02", "coppe-03", "coppe-04"], ["denari-09", "denari-02", "denari-03", "denari-04"],
             starting_gold=10)
    done = tributes(g, "coppe-13", "denari-09")
    done.then(expect("StakesPaid", seat=0, owed=13, paid=10, shortfall=3),
              expect("StakesPaid", seat=1, owed=13, paid=10, shortfall=3))
    done.then_not("DebtRecorded")
    assert done.state.stakes == 20 and done.state.treasury == [0, 0]


def test_r22_tributes_stay_face_up_in_the_tribute_zone():
    done = tributes(deal(*THREE), "coppe-09", "denari-09", "spade-05")
    assert done.state.tribute_zone == ["coppe-09", "denari-09", "spade-05"]
    assert done.view(None)["tribute_zone"] == ["coppe-09", "denari-09", "spade-05"]


def test_r16_a_seat_at_0_gold_keeps_playing_and_can_still_win_the_stakes():
    g = deal(["coppe-13", "coppe-12", "coppe-11", "denari-10"], ["denari-09", "denari-02", "denari-03", "denari-04"],
             starting_gold=10)
    done = place(tributes(g, "coppe-13", "denari-09"),
                 "coppe-12", "denari-02", "coppe-11", "denari-03", "denari-10", "denari-04")
    assert events_of(done.all_events, "StakesWon")[0].data == {"seat": 0, "amount": 20}
    done.then(expect("PlayerBroke", seat=1), expect("GameEnded", winners=[0]))
