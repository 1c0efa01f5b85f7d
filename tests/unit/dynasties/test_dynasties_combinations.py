"""Family combinations: Conclave (three of a value) and Pureblood (three of a lineage):
R28, R37-R43, R59."""

import random

from domain.games.dynasties.cards import DECK, LINEAGES, VALUES, lineage_of, value_of
from domain.games.dynasties.options import DynastiesOptions
from domain.games.dynasties.rules import conclave_values, pureblood_lineages
from domain.games.dynasties.state import new_state
from domain.kernel.commands import Command
from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import deal, events_of, place, state_at, take_cmd, tributes

# Three seats with 1 gold each: the Stakes hold 3 when seat 0 completes three 4s in Turn 3.
FOURS = (["coppe-09", "coppe-04", "denari-04", "spade-04", "bastoni-04"],
         ["coppe-08", "coppe-10", "denari-05", "spade-05", "bastoni-02"],
         ["coppe-07", "coppe-11", "denari-06", "spade-03", "bastoni-03"])


def three_fours(**options):
    g = tributes(deal(*FOURS, starting_gold=1, **options), "coppe-09", "coppe-08", "coppe-07")
    return place(g, "coppe-04", "coppe-10", "coppe-11", "denari-06", "denari-04", "denari-05", "spade-03",
                 "spade-04")


def test_r37_r38_three_4s_with_stakes_3_take_3_gold_empty_the_stakes_and_offer_up_to_2_tz_cards():
    done = three_fours()
    done.then(expect("ConclaveFormed", seat=0, value=4, gold_taken=3, may_take=2)).then_not("StakesEmptied")
    s = done.state
    assert s.stakes == 0 and s.treasury == [3, 0, 0] and "conclave:4" in s.rewarded[0]
    assert done.to_move() == [0] and done.view(1)["pending"] == {"kind": "conclave_choice", "seat": 0, "count": 2}
    zone = sorted(["coppe-09", "coppe-08", "coppe-07"])
    assert done.legal(0) == [take_cmd(*cards) for cards in
                             ([], [zone[0]], [zone[1]], [zone[2]], zone[:2], [zone[0], zone[2]], zone[1:])]
    assert done.legal(1) == [] and done.legal(2) == []


def test_r37_r40_the_round_goes_on_after_the_stakes_are_emptied_and_a_fourth_4_pays_nothing():
    chosen = three_fours().when(0, take_cmd("coppe-08"))
    chosen.then(expect("ConclaveCardsTaken", seat=0, cards=["coppe-08"]))
    assert chosen.to_move() == [1]  # R40: an empty Stakes ends nothing by default
    tied = place(chosen, "spade-05")
    tied.then(expect("FamiliesTallied"), expect("ConclusionTied", seats=[1, 2], total=20),
              expect("TurnStarted", turn=4, leader=1, tie_break=True, order=[1, 2, 0]))
    done = place(tied, "bastoni-02", "bastoni-03", "bastoni-04")
    done.then(expect("NoblePlaced", card="bastoni-04")).then_not("ConclaveFormed")
    done.then(expect("StakesWon", seat=2, amount=0), expect("GameEnded"))


def test_r39_a_conclave_may_take_no_card_but_never_more_than_allowed_nor_one_outside_the_tz():
    done = three_fours()
    done.when(0, take_cmd("coppe-09", "coppe-08", "coppe-07")) \
        .then_rejects("you may take at most 2 cards from the Tribute Zone")
    done.when(0, take_cmd("spade-05")).then_rejects("spade-05 is not in the Tribute Zone")
    done.when(1, take_cmd()).then_rejects("you have no Conclave cards to choose")
    done.when(0, Command("PlaceNoble", {"card": "bastoni-04"})).then_rejects("it is not your turn to place a Noble")
    nothing = done.when(0, take_cmd())
    nothing.then(expect("ConclaveCardsTaken", seat=0, cards=[]))
    assert nothing.state.tribute_zone == ["coppe-09", "coppe-08", "coppe-07"]


def test_option_conclave_max_cards_1_allows_one_card_and_0_offers_no_choice():
    one = three_fours(conclave_max_cards=1)
    one.then(expect("ConclaveFormed", may_take=1))
    one.when(0, take_cmd("coppe-09", "coppe-08")).then_rejects("you may take at most 1 card from the Tribute Zone")
    none = three_fours(conclave_max_cards=0)
    none.then(expect("ConclaveFormed", may_take=0))
    assert none.state.pending is None and none.to_move() == [1]


def test_r40_option_empty_stakes_ends_round_stops_play_at_once_and_goes_to_the_conclusion():
    done = three_fours(empty_stakes_ends_round=True)
    done.then(expect("ConclaveFormed", gold_taken=3), expect("StakesEmptied", seat=0))
    ended = done.when(0, take_cmd())
    ended.then(expect("ConclaveCardsTaken"), expect("PhaseStarted", phase="conclusion"), expect("FamiliesTallied"))
    ended.then_not("NoblePlaced", "TurnEnded")
    totals = [row["total"] for row in events_of(ended.events, "FamiliesTallied")[0].data["rows"]]
    assert totals == [12, 15, 20]  # seat 1 never placed its Turn 3 Noble


# Coppe 2, 6, 13 for seat 0 in a 3-seat game where seat 2 has 4 gold left (starting_gold 20,
# everyone Enquires in round 1 with 1 card, then pays a Tribute of 10).
PUREBLOOD_DECK = ["coppe-02", "coppe-06", "coppe-13", "denari-03", "spade-05", "bastoni-07", "spade-06", "denari-04",
                  "bastoni-05"]


def test_r41_r42_coppe_2_6_13_make_each_other_seat_pay_6_and_a_seat_with_4_gold_pays_4():
    g = tributes(deal(["spade-10"], ["denari-09"], ["bastoni-08"], starting_hand=1, starting_gold=20,
                      deck=PUREBLOOD_DECK), "spade-10", "denari-09", "bastoni-08")
    assert g.state.treasury == [8, 7, 4] and g.state.stakes == 2 + 3 + 6 + 30
    done = place(g, "coppe-02", "denari-03", "denari-04", "bastoni-05", "coppe-06", "spade-05", "coppe-13")
    done.then(expect("PurebloodFormed", seat=0, lineage="coppe", amount=6),
              expect("PurebloodPaid", **{"from": 1, "to": 0, "owed": 6, "paid": 6}),
              expect("PurebloodPaid", **{"from": 2, "to": 0, "owed": 6, "paid": 4, "shortfall": 2}))
    done.then_not("DebtRecorded")
    assert done.state.treasury == [18, 1, 0] and "pureblood:coppe" in done.state.rewarded[0]


def test_r47_the_stakes_won_hold_the_tributes_and_every_enquire_payment():
    g = tributes(deal(["spade-10"], ["denari-09"], ["bastoni-08"], starting_hand=1, starting_gold=20,
                      deck=PUREBLOOD_DECK), "spade-10", "denari-09", "bastoni-08")
    done = place(g, "coppe-02", "denari-03", "denari-04", "bastoni-05", "coppe-06", "spade-05", "coppe-13",
                 "bastoni-07", "spade-06")
    done.then(expect("StakesWon", seat=0, amount=41))


def test_r43_a_conclave_and_a_pureblood_from_one_placement_both_pay_conclave_and_its_choice_first():
    g = tributes(deal(["bastoni-11", "spade-04", "denari-04", "coppe-02", "coppe-09", "coppe-04"],
                      ["denari-12", "bastoni-05", "spade-03", "denari-02", "spade-09", "denari-06"]),
                 "bastoni-11", "denari-12")
    tied = place(g, "bastoni-05", "spade-04", "spade-03", "denari-04", "coppe-02", "denari-02")
    tied.then(expect("ConclusionTied", seats=[0, 1], total=10), expect("TurnStarted", turn=4, tie_break=True))
    again = place(tied, "coppe-09", "spade-09")
    again.then(expect("ConclusionTied", seats=[0, 1], total=19), expect("TurnStarted", turn=5))
    both = place(again, "coppe-04")
    both.then(expect("ConclaveFormed", seat=0, value=4, may_take=2)).then_not("PurebloodFormed")
    chosen = both.when(0, take_cmd())
    chosen.then(expect("PurebloodFormed", seat=0, lineage="coppe", amount=4),
                expect("PurebloodPaid", **{"from": 1, "to": 0, "owed": 4}))


# Seat 0 completes three 4s in Turn 3 with a placement that does not activate (4 after 2).
LATE_FOURS = (["spade-13", "coppe-04", "denari-04", "spade-04", "coppe-09"],
              ["spade-12", "coppe-05", "denari-05", "bastoni-02", "bastoni-03"])


def late_fours(**options):
    g = tributes(deal(*LATE_FOURS, **options), "spade-13", "spade-12")
    return place(g, "coppe-04", "coppe-05", "denari-05", "denari-04", "bastoni-02", "spade-04")


def test_r28_a_conclave_forms_even_when_the_completing_placement_does_not_activate():
    late_fours().then(expect("NoblePlaced", card="spade-04", activated=False),
                      expect("ConclaveFormed", seat=0, value=4))


def test_r28_option_combinations_require_activation_waits_for_the_seats_next_activating_placement():
    done = late_fours(combinations_require_activation=True)
    done.then(expect("NoblePlaced", card="spade-04", activated=False),
              expect("ConclusionTied", seats=[0, 1], total=12),
              expect("TurnStarted", turn=4, leader=0, tie_break=True))
    done.then_not("ConclaveFormed")
    later = place(done, "coppe-09")
    later.then(expect("NoblePlaced", card="coppe-09", activated=True), expect("ConclaveFormed", seat=0, value=4))


# Seat 0 takes Conclave gold for three Kings; seat 1's Coronation then removes all three.
KINGS = (["bastoni-12", "coppe-13", "denari-13", "spade-13"], ["bastoni-11", "coppe-02", "denari-03", "bastoni-01"])


def test_r59_r26_removed_kings_refund_nothing_and_an_empty_family_totals_0_after_turn_3():
    g = tributes(deal(*KINGS), "bastoni-12", "bastoni-11")
    conclave = place(g, "coppe-13", "coppe-02", "denari-13", "denari-03", "spade-13")
    conclave.then(expect("ConclaveFormed", seat=0, value=13, gold_taken=13))
    done = place(conclave.when(0, take_cmd()), "bastoni-01")
    done.then(expect("KingsDeposed", removed=[{"seat": 0, "card": "coppe-13"}, {"seat": 0, "card": "denari-13"},
                                              {"seat": 0, "card": "spade-13"}], by="bastoni-01"),
              expect("TurnEnded", turn=3), expect("FamiliesTallied"), expect("StakesWon", seat=1, amount=11))
    rows = events_of(done.events, "FamiliesTallied")[0].data["rows"]
    assert rows[0] == {"seat": 0, "cards": [], "total": 0}
    assert state_at(done, "StakesWon").treasury == [50 - 12 + 13, 50 - 12 + 11]
    assert "conclave:13" in state_at(done, "StakesWon").rewarded[0]


def test_r41_a_pureblood_pays_once_per_round_so_a_fourth_coppe_in_a_tie_break_pays_nothing():
    hands = (["coppe-09", "coppe-03", "coppe-05", "coppe-06", "coppe-02"], FOURS[1], FOURS[2])
    g = tributes(deal(*hands), "coppe-09", "coppe-08", "coppe-07")
    done = place(g, "coppe-03", "coppe-10", "coppe-11", "denari-06", "coppe-05", "denari-05", "spade-03", "coppe-06")
    done.then(expect("PurebloodFormed", seat=0, lineage="coppe", amount=5),
              expect("PurebloodPaid", **{"from": 1, "to": 0, "paid": 5}),
              expect("PurebloodPaid", **{"from": 2, "to": 0, "paid": 5}))
    tie_break = place(done, "spade-05")
    tie_break.then(expect("ConclusionTied", seats=[1, 2]), expect("TurnStarted", turn=4, leader=0))
    fourth = place(tie_break, "coppe-02")
    fourth.then(expect("NoblePlaced", card="coppe-02")).then_not("PurebloodFormed", "PurebloodPaid")


def test_r41_r29_a_pureblood_rebuilt_after_its_king_is_deposed_pays_nothing_again():
    hands = (["coppe-09", "coppe-03", "coppe-02", "coppe-13", "coppe-01"], FOURS[1], FOURS[2])
    g = tributes(deal(*hands), "coppe-09", "coppe-08", "coppe-07")
    done = place(g, "coppe-03", "coppe-10", "coppe-11", "denari-06", "coppe-02", "denari-05", "spade-03", "coppe-13")
    done.then(expect("PurebloodFormed", seat=0, lineage="coppe", amount=3))
    tie_break = place(done, "spade-05")
    tie_break.then(expect("ConclusionTied", seats=[1, 2]), expect("TurnStarted", turn=4, leader=0))
    # seat 0's own Coronation deposes its King first (R29), leaving coppe 3, 2 and the
    # Coronation: three Coppe again, but pureblood:coppe was already paid this round
    rebuilt = place(tie_break, "coppe-01")
    rebuilt.then(expect("KingsDeposed", removed=[{"seat": 0, "card": "coppe-13"}], by="coppe-01"))
    rebuilt.then_not("PurebloodFormed", "PurebloodPaid")


def test_r37_r41_the_combinations_found_are_those_the_rulings_count_in_any_family():
    # conclave_values and pureblood_lineages count the Family in one pass; here each is set against
    # the rulings read literally (every value and lineage counted, rewarded ones left out) on
    # families of every size drawn from the deck, with rewards drawn too
    draw = random.Random(35)
    state = new_state(DynastiesOptions.check({}), 3, 50, 0)
    found_some = 0
    for _ in range(3000):
        family = draw.sample(DECK, draw.randint(0, 16))
        rewarded = {f"conclave:{value}" for value in VALUES if draw.random() < 0.2}
        rewarded |= {f"pureblood:{lineage}" for lineage in LINEAGES if draw.random() < 0.2}
        state.families[1], state.rewarded[1] = family, rewarded
        values = [value for value in VALUES if [value_of(card) for card in family].count(value) >= 3
                  and f"conclave:{value}" not in rewarded]
        lineages = [lineage for lineage in LINEAGES if [lineage_of(card) for card in family].count(lineage) >= 3
                    and f"pureblood:{lineage}" not in rewarded]
        assert conclave_values(state, 1) == values, family
        assert pureblood_lineages(state, 1) == lineages, family
        found_some += bool(values) + bool(lineages)
    assert found_some > 500

