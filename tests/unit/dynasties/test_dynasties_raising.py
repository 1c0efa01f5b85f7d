"""Phase 3, Raising the Family: order, activation, leaders, no passing (R9, R23-R27)."""

from domain.games.dynasties.rules import highest_untied
from domain.kernel.commands import Command
from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import deal, events_of, place, place_cmd, tributes

THREE = (["spade-13", "coppe-08", "coppe-12", "coppe-03"],
         ["spade-12", "denari-05", "denari-02", "denari-03"],
         ["spade-11", "bastoni-09", "coppe-01", "bastoni-03"])


def test_r23_r9_the_first_player_leads_turn_1_and_the_others_follow_clockwise():
    done = tributes(deal(THREE[1], THREE[0], THREE[2]), "spade-12", "spade-13", "spade-11")  # seat 1: the 13
    done.then(expect("FirstPlayerChosen", seat=1), expect("TurnStarted", turn=1, leader=1, order=[1, 2, 0]))
    done.when(0, place_cmd("denari-05")).then_rejects("it is not your turn to place a Noble")
    assert done.to_move() == [1]


def test_r24_placements_8_5_9_activate_true_true_false_and_a_coronation_after_a_2_activates():
    g = tributes(deal(*THREE), "spade-13", "spade-12", "spade-11")
    turn_one = place(g, "coppe-08", "denari-05", "bastoni-09")
    placed = events_of(turn_one.all_events, "NoblePlaced")
    assert [(e.data["card"], e.data["activated"], e.data["compared_with"]) for e in placed] == [
        ("coppe-08", True, None), ("denari-05", True, "coppe-08"), ("bastoni-09", False, "denari-05")]
    turn_one.then(expect("TurnEnded", turn=1, next_leader=2), expect("TurnStarted", turn=2, leader=2))
    turn_two = place(turn_one, "bastoni-03")
    assert events_of(turn_two.events, "NoblePlaced")[0].data["activated"] is True  # a 3, but first of its Turn


def test_r24_a_coronation_placed_after_a_2_activates_and_the_first_placement_of_every_turn_activates():
    g = tributes(deal(["spade-13", "coppe-08", "coppe-12", "coppe-03"],
                      ["spade-12", "denari-02", "denari-09", "denari-03"],
                      ["spade-11", "bastoni-09", "coppe-01", "bastoni-03"]), "spade-13", "spade-12", "spade-11")
    done = place(g, "coppe-03", "denari-02", "coppe-01")
    placed = events_of(done.all_events, "NoblePlaced")
    assert [(e.data["card"], e.data["activated"]) for e in placed] == [
        ("coppe-03", True), ("denari-02", True), ("coppe-01", True)]
    done.then(expect("DynastyChanged", lineage="coppe", crowned_card="coppe-01", cause="coronation"),
              expect("TurnEnded", turn=1, next_leader=0), expect("TurnStarted", turn=2, leader=0))
    later = place(done, "coppe-12")
    assert events_of(later.events, "NoblePlaced")[0].data["activated"] is True  # 12, first of Turn 2


LEAD = (["spade-12", "coppe-13", "coppe-06", "coppe-04"],
        ["spade-11", "denari-01", "denari-06", "denari-04"],
        ["spade-10", "bastoni-07", "bastoni-06", "bastoni-04"])


def test_r25_placements_13_coronation_7_the_king_is_removed_and_the_7_leads():
    done = place(tributes(deal(*LEAD), "spade-12", "spade-11", "spade-10"), "coppe-13", "denari-01", "bastoni-07")
    done.then_history(expect("KingsDeposed", removed=[{"seat": 0, "card": "coppe-13"}], by="denari-01"),
              expect("NoblePlaced", card="bastoni-07", activated=False),
              expect("TurnEnded", turn=1, next_leader=2), expect("TurnStarted", turn=2, leader=2, order=[2, 0, 1]))


def test_r25_option_removed_cards_count_for_lead_lets_the_removed_king_lead():
    g = deal(*LEAD, removed_cards_count_for_lead=True)
    done = place(tributes(g, "spade-12", "spade-11", "spade-10"), "coppe-13", "denari-01", "bastoni-07")
    done.then(expect("TurnEnded", turn=1, next_leader=0))


def test_r25_placements_6_6_6_keep_the_same_leader():
    g = tributes(deal(*LEAD), "spade-12", "spade-11", "spade-10")
    done = place(g, "coppe-06", "denari-06", "bastoni-06")
    done.then(expect("TurnEnded", turn=1, next_leader=0), expect("TurnStarted", turn=2, leader=0))


def test_r27_there_is_no_pass_only_a_noble_from_the_hand():
    g = tributes(deal(*LEAD), "spade-12", "spade-11", "spade-10")
    assert g.legal(0) == [place_cmd(card) for card in ("coppe-04", "coppe-06", "coppe-13")]
    assert g.legal(1) == [] and g.legal(2) == []
    g.when(0, Command("Pass", {})).then_rejects("unknown command")
    g.when(0, place_cmd("denari-06")).then_rejects("you can only place a Noble from your hand")
    g.when(1, place_cmd("denari-06")).then_rejects("it is not your turn to place a Noble")


def test_r19_r25_the_leader_holds_the_highest_value_no_other_seat_holds():
    assert highest_untied([0, 1, 2], [5, 5, 3]) == 2
    assert highest_untied([2, 0, 1], [1, 13, 13]) == 2
    assert highest_untied([1, 2, 0], [7, 9, 8]) == 2
    assert highest_untied([0, 1], [4, 4]) is None and highest_untied([], []) is None
