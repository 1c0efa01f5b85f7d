"""The Coronation: Kings, the Current Dynasty, enshrining (R29-R36, R58, R22, R44)."""

import random

from domain.games.dynasties.cards import DECK, LINEAGES, lineage_of, value_of
from domain.games.dynasties.options import DynastiesOptions
from domain.games.dynasties.rules import _TALLIED, _TALLIED_KINDS, tallied_cards, tally
from domain.games.dynasties.state import new_state
from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import deal, events_of, place, state_at, take_cmd, tributes

# Round 1: seat 0 crowns Coppe in Turn 1; seat 1 wins 22 to 21. Round 2 is dealt from
# ``deck``: seat 1 draws deck[0], seat 0 deck[1]; seat 1 Enquires (deck[2..4]), then
# seat 0 (deck[5..7]).
CROWNING = (["spade-10", "coppe-01", "denari-03", "bastoni-04"], ["spade-09", "coppe-05", "denari-06", "bastoni-08"])


def crowned_in_round_one(deck, **options):
    g = tributes(deal(*CROWNING, deck=deck, **options), "spade-10", "spade-09")
    return place(g, "coppe-01", "coppe-05", "denari-06", "denari-03", "bastoni-08", "bastoni-04")


CONCLAVE_OF_SEVENS = ["bastoni-11", "spade-12", "coppe-02", "denari-04", "bastoni-03", "coppe-07", "denari-07",
                      "spade-07"]


def test_r34_a_coronation_crowned_in_round_1_is_enshrined_in_the_tribute_zone_for_round_2():
    done = crowned_in_round_one(CONCLAVE_OF_SEVENS)
    done.then(expect("FamiliesTallied", dynasty="coppe"), expect("StakesWon", seat=1, amount=20),
              expect("CoronationEnshrined", card="coppe-01"), expect("FamiliesBuried", count=7),
              expect("RoundStarted", round=2))
    start = state_at(done, "RoundStarted", round=2)
    assert start.tribute_zone == ["coppe-01"] and start.current_dynasty == "coppe"
    assert "coppe-01" not in start.graveyard and done.view(None)["enshrined"] == "coppe-01"


def test_r34_r35_a_conclave_that_takes_the_enshrined_crowned_coronation_ends_the_dynasty():
    g = tributes(crowned_in_round_one(CONCLAVE_OF_SEVENS), "spade-12", "bastoni-11")
    assert g.state.tribute_zone == ["coppe-01", "spade-12", "bastoni-11"]
    conclave = place(g, "coppe-07", "coppe-02", "denari-07", "denari-04", "spade-07")
    conclave.then(expect("ConclaveFormed", seat=0, value=7, gold_taken=7, may_take=2))
    assert conclave.state.pending == ("conclave_choice", 0, 2)
    taken = conclave.when(0, take_cmd("coppe-01"))
    taken.then(expect("DynastyChanged", lineage=None, crowned_card=None, cause="conclave"),
               expect("ConclaveCardsTaken", seat=0, cards=["coppe-01"]))
    s = taken.state
    assert s.current_dynasty is None and "coppe-01" in s.hands[0] and s.tribute_zone == ["spade-12", "bastoni-11"]


NEW_CROWN = ["bastoni-11", "spade-12", "denari-01", "coppe-02", "bastoni-03", "coppe-06", "denari-07", "spade-08"]


def test_r34_r36_a_new_coronation_crowned_in_round_2_buries_the_old_one_and_is_enshrined():
    g = tributes(crowned_in_round_one(NEW_CROWN), "spade-12", "bastoni-11")
    done = place(g, "coppe-06", "denari-01")
    done.then(expect("DynastyChanged", lineage="denari", crowned_card="denari-01", cause="coronation"))
    done = place(done, "denari-07", "coppe-02", "spade-08", "bastoni-03")
    done.then(expect("FamiliesTallied", dynasty="denari"), expect("CoronationBuried", card="coppe-01"),
              expect("CoronationEnshrined", card="denari-01"), expect("RoundStarted", round=3))
    start = state_at(done, "RoundStarted", round=3)
    assert start.tribute_zone == ["denari-01"] and "coppe-01" in start.graveyard


NEW_CROWN_AND_SEVENS = ["bastoni-11", "spade-12", "denari-01", "coppe-02", "bastoni-03", "coppe-07", "denari-07",
                        "spade-07"]


def test_r35_taking_an_enshrined_coronation_that_is_no_longer_crowned_leaves_the_dynasty_alone():
    g = tributes(crowned_in_round_one(NEW_CROWN_AND_SEVENS), "spade-12", "bastoni-11")
    conclave = place(g, "coppe-07", "denari-01", "denari-07", "coppe-02", "spade-07")
    taken = conclave.when(0, take_cmd("coppe-01"))
    taken.then_not(expect("DynastyChanged", cause="conclave"))
    assert taken.state.current_dynasty == "denari" and taken.state.crowned_card == "denari-01"
    done = place(taken, "bastoni-03")
    done.then(expect("CoronationEnshrined", card="denari-01")).then_not("CoronationBuried")


def test_r22_r20_the_enshrined_coronation_is_not_a_tribute_so_tributes_7_7_still_stalemate():
    deck = ["denari-07", "spade-07", "bastoni-02", "bastoni-03", "bastoni-05", "coppe-02", "coppe-03", "coppe-04",
            "spade-11", "spade-12"]
    done = tributes(crowned_in_round_one(deck), "spade-07", "denari-07")
    done.then(expect("TributeStalemate", values=[7, 7], cards=["spade-07", "denari-07"]),
              expect("CardDrawn", seat=1, reason="redraw", card="spade-11"),
              expect("CardDrawn", seat=0, reason="redraw", card="spade-12"))
    assert done.state.tribute_zone == ["coppe-01"] and done.state.stakes == 2 + 2  # the two flips; no Tribute gold


def test_r29_r31_coppe_6_and_13_then_the_coppe_coronation_removes_the_king_first_so_no_pureblood():
    g = tributes(deal(["bastoni-12", "coppe-06", "coppe-13", "coppe-01", "bastoni-05"],
                      ["bastoni-11", "denari-02", "denari-03", "spade-04", "denari-13"]), "bastoni-12", "bastoni-11")
    done = place(g, "coppe-06", "denari-02", "coppe-13", "denari-03", "coppe-01")
    done.then(expect("NoblePlaced", card="coppe-01", activated=True),
              expect("KingsDeposed", removed=[{"seat": 0, "card": "coppe-13"}], by="coppe-01"),
              expect("DynastyChanged", lineage="coppe", crowned_card="coppe-01"))
    done.then_not("PurebloodFormed")
    assert done.state.families[0] == ["coppe-06", "coppe-01"] and "coppe-13" in done.state.graveyard
    assert "denari-13" in done.state.hands[1]  # R31: a King in hand is not affected


def test_r32_r44_with_coppe_crowned_coronation_5_and_denari_9_total_31_and_every_family_gets_the_bonus():
    g = tributes(deal(["spade-12", "coppe-01", "coppe-05", "denari-09"],
                      ["spade-11", "bastoni-02", "denari-03", "coppe-04"]), "spade-12", "spade-11")
    done = place(g, "coppe-01", "bastoni-02", "denari-03", "coppe-05", "denari-09", "coppe-04")
    rows = events_of(done.all_events, "FamiliesTallied")[0].data["rows"]
    assert rows[0]["cards"][0] == {"card": "coppe-01", "value": 1, "coronation_bonus": 10, "dynasty_bonus": 3}
    assert [row["total"] for row in rows] == [(1 + 10 + 3) + (5 + 3) + 9, 2 + 3 + (4 + 3)] == [31, 12]


def test_options_coronation_bonus_and_dynasty_bonus_change_the_tally():
    g = tributes(deal(["spade-12", "coppe-01", "coppe-05", "denari-09"],
                      ["spade-11", "bastoni-02", "denari-03", "coppe-04"], coronation_bonus=0, dynasty_bonus=1),
                 "spade-12", "spade-11")
    done = place(g, "coppe-01", "bastoni-02", "denari-03", "coppe-05", "denari-09", "coppe-04")
    assert [row["total"] for row in events_of(done.all_events, "FamiliesTallied")[0].data["rows"]] == [17, 10]


def test_r33_a_coronation_given_as_tribute_has_no_power_and_is_buried_in_phase_5():
    g = tributes(deal(["coppe-01", "coppe-02", "denari-03", "bastoni-04"],
                      ["spade-09", "coppe-05", "denari-06", "bastoni-07"]), "coppe-01", "spade-09")
    g.then(expect("FirstPlayerChosen", seat=1, value=9)).then_not("DynastyChanged", "KingsDeposed")
    done = place(g, "coppe-05", "coppe-02", "denari-06", "denari-03", "bastoni-07", "bastoni-04")
    done.then_not("DynastyChanged", "CoronationEnshrined")
    assert "coppe-01" in state_at(done, "FamiliesBuried").graveyard


def test_r36_two_coronations_in_one_round_both_score_10_only_the_last_crowned_gives_3_and_the_older_is_buried():
    g = tributes(deal(["spade-10", "coppe-01", "coppe-05", "bastoni-04"],
                      ["spade-09", "denari-01", "denari-06", "bastoni-08"]), "spade-10", "spade-09")
    done = place(g, "coppe-01", "denari-01")
    assert [e.data["crowned_card"] for e in events_of(done.all_events, "DynastyChanged")] == ["coppe-01", "denari-01"]
    done.then(expect("TurnEnded", turn=1, next_leader=0))  # 1 and 1 tie: the leader stays (R25)
    done = place(done, "coppe-05", "denari-06", "bastoni-08", "bastoni-04")
    rows = events_of(done.all_events, "FamiliesTallied")[0].data["rows"]
    assert [row["total"] for row in rows] == [11 + 5 + 4, 14 + 9 + 8]
    done.then(expect("CoronationEnshrined", card="denari-01")).then_not("CoronationBuried")
    assert "coppe-01" in state_at(done, "FamiliesBuried").graveyard


def test_r58_three_coronations_in_one_family_are_a_conclave_of_1s_worth_1_gold_after_three_crownings():
    g = tributes(deal(["spade-10", "coppe-01", "denari-01", "spade-01"],
                      ["spade-09", "coppe-05", "denari-06", "bastoni-08"]), "spade-10", "spade-09")
    done = place(g, "coppe-01", "coppe-05", "denari-06", "denari-01", "bastoni-08", "spade-01")
    assert len(events_of(done.all_events, "DynastyChanged")) == 3
    done.then(expect("DynastyChanged", crowned_card="spade-01"),
              expect("ConclaveFormed", seat=0, value=1, gold_taken=1, may_take=2))
    assert done.state.treasury[0] == 40 + 1 and done.state.pending.kind == "conclave_choice"


def _r44_read_literally(families, coronation_bonus, dynasty_bonus, dynasty):
    """R44 as the rulings say it: value, + the Coronation bonus, + the Dynasty bonus."""
    rows = []
    for seat, family in enumerate(families):
        cards = [{"card": card, "value": value_of(card),
                  "coronation_bonus": coronation_bonus if value_of(card) == 1 else 0,
                  "dynasty_bonus": dynasty_bonus if lineage_of(card) == dynasty else 0} for card in family]
        rows.append({"seat": seat, "cards": cards,
                     "total": sum(c["value"] + c["coronation_bonus"] + c["dynasty_bonus"] for c in cards)})
    return rows


def test_r44_the_tally_matches_the_ruling_read_literally_for_any_families_bonuses_and_dynasty():
    chooser = random.Random(44)
    for _ in range(2_000):
        seats = chooser.randint(2, 6)
        cards = chooser.sample(DECK, chooser.randint(0, 30))
        families = [cards[seat::seats] for seat in range(seats)]
        coronation_bonus, dynasty_bonus = chooser.randint(0, 100), chooser.randint(0, 100)
        dynasty = chooser.choice([None, *LINEAGES])
        s = new_state(DynastiesOptions.check({"coronation_bonus": coronation_bonus, "dynasty_bonus": dynasty_bonus}),
                      seats, 50, 0)
        s.families = families
        s.current_dynasty = dynasty
        assert tally(s) == _r44_read_literally(families, coronation_bonus, dynasty_bonus, dynasty)


def test_r44_each_tally_has_rows_of_its_own():
    s = new_state(DynastiesOptions.check({}), 2, 50, 0)
    s.families = [["coppe-01", "denari-05"], ["spade-13"]]
    s.current_dynasty = "coppe"
    first = tally(s)
    first[0]["cards"][0]["value"] = 99  # a reader that changed an event's rows changes no other tally
    assert tally(s)[0]["cards"][0] == {"card": "coppe-01", "value": 1, "coronation_bonus": 10, "dynasty_bonus": 3}


def test_r44_the_table_of_tallied_cards_is_bounded():
    for bonus in range(200):
        assert tallied_cards(bonus, 3, None)["coppe-01"] == ({"card": "coppe-01", "value": 1,
                                                             "coronation_bonus": bonus, "dynasty_bonus": 0},
                                                            1 + bonus)
    assert len(_TALLIED) <= _TALLIED_KINDS
