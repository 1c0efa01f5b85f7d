"""Phase 4, Conclusion, and the end of the game: R15, R44-R50."""

from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import (
    broke_at_the_conclusion,
    deal,
    deal_rest_to,
    events_of,
    place,
    state_at,
    tributes,
)

# Turn 3 leaves totals 20 / 20 / 15; seat 2 leads the tie-break Turn with a 13.
TIE = (["coppe-12", "coppe-10", "denari-07", "spade-03", "bastoni-02"],
       ["denari-11", "coppe-09", "denari-08", "bastoni-03", "spade-02"],
       ["spade-10", "coppe-05", "denari-06", "spade-04", "spade-13"])
TIE_TURNS = ("coppe-10", "coppe-09", "coppe-05", "denari-07", "denari-08", "denari-06", "bastoni-03", "spade-04",
             "spade-03")


def tied_20_20_15(tie_break_card="spade-13", **options):
    hands = (TIE[0], TIE[1], TIE[2][:4] + [tie_break_card])
    return place(tributes(deal(*hands, **options), "coppe-12", "denari-11", "spade-10"), *TIE_TURNS)


def test_r45_totals_20_20_15_play_one_more_turn_with_all_three_seats_and_the_15_may_win():
    tied = tied_20_20_15()
    tied.then(expect("FamiliesTallied"), expect("ConclusionTied", seats=[0, 1], total=20),
              expect("TurnStarted", turn=4, leader=2, tie_break=True, order=[2, 0, 1]))
    tied.then_not("StakesWon", "StakesCarried")
    assert tied.view(None)["tie_break"] is True and tied.view(None)["tied_seats"] == [0, 1]
    done = place(tied, "spade-13", "bastoni-02", "spade-02")
    done.then(expect("TurnEnded", turn=4), expect("FamiliesTallied"), expect("StakesWon", seat=2, amount=36))
    rows = events_of(done.events, "FamiliesTallied")[0].data["rows"]
    assert [row["total"] for row in rows] == [22, 22, 28]


def test_r45_option_tie_break_participants_tied_lets_only_the_tied_seats_play_led_from_the_r25_leader():
    tied = tied_20_20_15(tie_break_participants="tied")
    tied.then(expect("TurnStarted", turn=4, leader=0, tie_break=True, order=[0, 1]))
    done = place(tied, "bastoni-02", "spade-02")
    done.then(expect("ConclusionTied", seats=[0, 1], total=22), expect("TurnStarted", turn=5, leader=0))


def test_r46_option_max_tie_break_turns_carries_the_stakes_when_the_cap_is_reached():
    capped = place(tied_20_20_15("spade-07", max_tie_break_turns=1), "spade-07", "bastoni-02", "spade-02")
    capped.then(expect("ConclusionTied", seats=[0, 1, 2], total=22), expect("StakesCarried", amount=36, tied=[0, 1, 2]))
    capped.then_not("StakesWon", expect("TurnStarted", turn=5))
    unlimited = place(tied_20_20_15("spade-07"), "spade-07", "bastoni-02", "spade-02")
    unlimited.then(expect("ConclusionTied", seats=[0, 1, 2]), expect("TurnStarted", turn=5, tie_break=True))


# Seats 0 and 1 tie at 18 with empty hands; the rest of the deck is in seat 2's hand.
NO_CARDS = (["coppe-12", "coppe-10", "denari-05", "spade-03"],
            ["denari-11", "coppe-09", "denari-06", "bastoni-03"],
            ["spade-10", "coppe-02", "denari-03", "spade-04"])


def unbreakable_tie(**options):
    g = tributes(deal_rest_to(2, *NO_CARDS, tie_break_participants="tied", hand_limit=60, **options),
                 "coppe-12", "denari-11", "spade-10")
    return place(g, "coppe-10", "coppe-09", "coppe-02", "denari-05", "denari-06", "denari-03", "bastoni-03",
                 "spade-04", "spade-03")


def test_r46_a_tie_with_no_cards_left_for_the_tied_seats_carries_the_stakes_into_the_next_round():
    done = unbreakable_tie()
    done.then(expect("ConclusionTied", seats=[0, 1], total=18), expect("StakesCarried", amount=36, tied=[0, 1]),
              expect("FamiliesBuried"), expect("RoundStarted", round=2))
    done.then_not(expect("TurnStarted", turn=4))
    start = state_at(done, "RoundStarted", round=2)
    assert start.stakes == 36 and start.stakes_carried and start.treasury == [38, 38, 38]
    assert state_at(done, "DrawOrderChosen").draw_starter == 2  # R52: the most cards start


def test_r46_option_split_shares_the_stakes_and_the_remainder_goes_clockwise_from_the_first_player():
    done = unbreakable_tie(unresolved_tie="split", starting_gold=11)
    done.then(expect("StakesSplit", shares=[{"seat": 0, "amount": 17}, {"seat": 1, "amount": 16}]),
              expect("PlayerBroke", seat=2), expect("GameEnded", winners=[0]))


def test_r48_r49_a_seat_at_0_after_the_split_ends_the_game_at_once_and_3_winners_share_a_legacy_of_10():
    done = broke_at_the_conclusion(unresolved_tie="split")
    done.then_history(expect("StakesPaid", seat=0, owed=7, paid=6))
    done.then(expect("ConclusionTied", seats=[0, 1, 2], total=20),
              expect("StakesSplit", shares=[{"seat": 0, "amount": 8}, {"seat": 1, "amount": 8},
                                            {"seat": 2, "amount": 8}]),
              expect("PlayerBroke", seat=3),
              expect("GameEnded", winners=[0, 1, 2], treasuries=[8, 8, 8, 0], legacy_shares=[3, 3, 3, 0],
                     legacy_remainder=1, leftover_stakes_split=[]))
    done.then_not("FamiliesBuried", expect("PhaseStarted", phase="into_the_grave"), "DrawOrderChosen")
    assert done.events[-1].type == "GameEnded" and done.events[-1].barrier
    outcome = done.rules.outcome(done.state)
    assert outcome.winners == (0, 1, 2) and outcome.scores == {0: 8, 1: 8, 2: 8, 3: 0}
    assert outcome.details["legacy_shares"] == [3, 3, 3, 0] and outcome.details["legacy_remainder"] == 1
    assert outcome.details["payouts"] == [11, 11, 11, 0]
    assert done.to_move() == [] and all(done.legal(seat) == [] for seat in range(4))


def test_r50_stakes_carried_when_the_game_ends_are_split_among_the_seats_tied_in_that_conclusion():
    done = broke_at_the_conclusion()
    done.then(expect("StakesCarried", amount=24, tied=[0, 1, 2]),
              *(expect("PlayerBroke", seat=seat) for seat in range(4)),
              expect("StakesSplit", shares=[{"seat": 0, "amount": 8}, {"seat": 1, "amount": 8},
                                            {"seat": 2, "amount": 8}]),
              expect("GameEnded", winners=[0, 1, 2], leftover_stakes_split=[
                  {"seat": 0, "amount": 8}, {"seat": 1, "amount": 8}, {"seat": 2, "amount": 8}]))
    assert done.state.stakes == 0


WIN_BROKE = (["coppe-13", "coppe-12", "coppe-11", "denari-10"], ["denari-09", "denari-02", "denari-03", "denari-04"])


def test_r15_option_debt_to_legacy_records_shortfalls_and_pays_them_into_the_legacy_before_the_broke_check():
    g = tributes(deal(*WIN_BROKE, starting_gold=10, shortfall="debt_to_legacy"), "coppe-13", "denari-09")
    g.then(expect("StakesPaid", seat=0, owed=13, paid=10), expect("DebtRecorded", seat=0, amount=3),
           expect("StakesPaid", seat=1, owed=13, paid=10), expect("DebtRecorded", seat=1, amount=3))
    assert g.state.debt == [3, 3] and g.view(1)["players"][0]["debt"] == 3
    done = place(g, "coppe-12", "denari-02", "coppe-11", "denari-03", "denari-10", "denari-04")
    done.then(expect("PurebloodFormed", seat=1, lineage="denari", amount=3),
              expect("PurebloodPaid", **{"from": 0, "to": 1, "owed": 3, "paid": 0}),
              expect("DebtRecorded", seat=0, amount=3),
              expect("StakesWon", seat=0, amount=20),
              expect("DebtSettled", seat=0, debt=6, paid=6), expect("DebtSettled", seat=1, debt=3, paid=0),
              expect("PlayerBroke", seat=1),
              expect("GameEnded", winners=[0], treasuries=[14, 0], legacy_shares=[6, 0]))
    assert done.state.legacy == 6 and done.state.debt == [0, 0]


def test_r44_r26_a_family_emptied_of_kings_totals_0_and_the_highest_total_takes_the_whole_stakes():
    g = tributes(deal(["spade-12", "coppe-13", "denari-13", "spade-13"], ["spade-11", "coppe-02", "denari-03",
                                                                         "coppe-01"]), "spade-12", "spade-11")
    done = place(g, "coppe-13", "coppe-02", "denari-13", "denari-03", "spade-13")
    done = done.when(0, done.legal(0)[0])  # take no card
    done = place(done, "coppe-01")
    rows = events_of(done.events, "FamiliesTallied")[0].data["rows"]
    assert [row["total"] for row in rows] == [0, (2 + 3) + 3 + (1 + 10 + 3)]
    done.then(expect("StakesWon", seat=1, amount=24 - 13))
