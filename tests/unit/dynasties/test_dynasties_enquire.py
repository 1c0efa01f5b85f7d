"""Phase 1, Enquire Prospects, and getting cards in the middle of a round: R8, R10-R14, R60."""

from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import (
    deal,
    deal_rest_to,
    events_of,
    place,
    play_round_one,
    state_at,
    tributes,
)

ROUND_TWO_DECK = ["coppe-13", "denari-13", "spade-13", "coppe-11", "coppe-12", "denari-11", "denari-12", "spade-12"]


def test_r8_r60_round_2_starts_with_enquire_prospects_clockwise_from_the_seat_that_started_the_draw():
    done = play_round_one(deck=ROUND_TWO_DECK)
    done.then(expect("DrawOrderChosen", starter=1, order=[1, 0]),
              expect("CardDrawn", seat=1, reason="draw", card="coppe-13"),
              expect("CardDrawn", seat=0, reason="draw", card="denari-13"),
              expect("RoundStarted", round=2, anchor=1),
              expect("ProspectsEnquired", seat=1, revealed_card="spade-13", price=13, paid=13),
              expect("ProspectsEnquired", seat=0, revealed_card="denari-11", price=11, paid=11),
              expect("PhaseStarted", phase="tribute"))
    s = done.state
    assert s.round == 2 and s.anchor == 1 and [len(hand) for hand in s.hands] == [4, 4]
    assert s.stakes == 24 and s.treasury == [40 - 11, 60 - 13]
    assert done.to_move() == [0, 1]


def test_r10_every_seat_with_at_most_1_card_must_enquire_and_refills_to_4():
    g = deal(["coppe-05"], ["denari-05"], ["spade-05"], starting_hand=1,
             deck=["coppe-02", "coppe-03", "coppe-04", "denari-02", "denari-03", "denari-04",
                   "spade-02", "spade-03", "spade-04"])
    enquiries = events_of(g.history, "ProspectsEnquired")
    assert [(e.data["seat"], e.data["revealed_card"], e.data["paid"]) for e in enquiries] == [
        (0, "coppe-02", 2), (1, "denari-02", 2), (2, "spade-02", 2)]
    s = g.state
    assert s.hands == [["coppe-05", "coppe-02", "coppe-03", "coppe-04"],
                       ["denari-05", "denari-02", "denari-03", "denari-04"],
                       ["spade-05", "spade-02", "spade-03", "spade-04"]]
    assert s.stakes == 6 and s.treasury == [48, 48, 48]
    assert g.view(2)["enquiries"][0] == {"seat": 0, "card": "coppe-02", "price": 2, "paid": 2}


def test_r11_a_seat_with_1_card_and_spade_13_on_top_pays_13_and_holds_4_cards_including_it():
    g = deal(["coppe-05"], ["denari-05"], starting_hand=1,
             deck=["spade-13", "coppe-02", "coppe-03", "bastoni-02", "bastoni-03", "bastoni-04"])
    first = events_of(g.history, "ProspectsEnquired")[0]
    assert first.data == {"seat": 0, "revealed_card": "spade-13", "price": 13, "paid": 13, "shortfall": 0,
                          "kept_revealed": True}
    assert first.barrier and first.secret is None  # the flipped card is public
    assert g.state.hands[0] == ["coppe-05", "spade-13", "coppe-02", "coppe-03"]
    assert g.state.treasury[0] == 37 and "spade-13" not in g.state.graveyard


def test_r11_r15_a_seat_that_cannot_pay_13_pays_all_its_gold_and_still_takes_the_cards():
    g = deal(["coppe-05"], ["denari-05"], starting_hand=1, starting_gold=5,
             deck=["spade-13", "coppe-02", "coppe-03", "bastoni-02", "bastoni-03", "bastoni-04"])
    first = events_of(g.history, "ProspectsEnquired")[0]
    assert (first.data["paid"], first.data["shortfall"]) == (5, 8)
    assert g.state.treasury[0] == 0 and len(g.state.hands[0]) == 4
    assert not events_of(g.history, "DebtRecorded")


def test_r11_option_discard_puts_the_flipped_spade_13_in_the_graveyard_instead():
    g = deal(["coppe-05"], ["denari-05"], starting_hand=1, enquire_price_card="discard",
             deck=["spade-13", "coppe-02", "coppe-03", "coppe-04", "bastoni-02", "bastoni-03", "bastoni-04",
                   "bastoni-05"])
    first = events_of(g.history, "ProspectsEnquired")[0]
    assert first.data["kept_revealed"] is False and first.data["paid"] == 13
    assert g.state.graveyard[0] == "spade-13"
    assert g.state.hands[0] == ["coppe-05", "coppe-02", "coppe-03", "coppe-04"]


def test_r12_a_coronation_costs_1_to_enquire():
    g = deal(["coppe-05"], ["denari-05"], starting_hand=1,
             deck=["spade-01", "coppe-02", "coppe-03", "bastoni-02", "bastoni-03", "bastoni-04"])
    assert events_of(g.history, "ProspectsEnquired")[0].data["price"] == 1


def test_options_enquire_threshold_and_refill_to_set_who_enquires_and_how_many_cards_they_get():
    g = deal(["coppe-05", "coppe-06", "coppe-07"], ["denari-05", "denari-06", "denari-07"], starting_hand=3,
             enquire_threshold=3, enquire_refill_to=6,
             deck=["spade-02", "spade-03", "spade-04", "bastoni-02", "bastoni-03", "bastoni-04"])
    assert [e.data["seat"] for e in events_of(g.history, "ProspectsEnquired")] == [0, 1]
    assert [len(hand) for hand in g.state.hands] == [6, 6]


TDA_DECK = ["bastoni-08", "bastoni-09", "bastoni-11", "bastoni-12", "coppe-12", "coppe-13", "denari-12"]
SHORT_HANDS = (["spade-10", "coppe-02", "denari-03"], ["spade-09", "coppe-05", "denari-06"])
SHORT_DECK = ["bastoni-04", "bastoni-08", "bastoni-09", "bastoni-11", "bastoni-12", "coppe-12", "coppe-13",
              "denari-12"]


def test_r13_a_seat_that_started_with_3_cards_enquires_when_its_hand_is_empty_at_turn_3_then_places():
    g = tributes(deal(*SHORT_HANDS, deck=SHORT_DECK, starting_hand=3), "spade-10", "spade-09")
    assert not events_of(g.all_events, "ProspectsEnquired")  # 3 cards: no Enquire in phase 1
    turn_two = place(g, "coppe-02", "coppe-05", "denari-06", "denari-03")
    turn_two.then(expect("TurnStarted", turn=3, leader=1),
                  expect("ProspectsEnquired", seat=1, revealed_card="bastoni-04", price=4, paid=4),
                  expect("CardDrawn", seat=1, card="bastoni-04"), expect("CardDrawn", seat=1, card="bastoni-11"))
    assert turn_two.to_move() == [1] and len(turn_two.state.hands[1]) == 4
    after = place(turn_two, "bastoni-11")
    after.then(expect("NoblePlaced", seat=1, card="bastoni-11"),
               expect("ProspectsEnquired", seat=0, revealed_card="bastoni-12"))
    assert after.to_move() == [0]


def test_r13_option_tda_enquires_before_any_placement_made_with_at_most_1_card():
    g = tributes(deal(["spade-10", "coppe-02", "denari-03", "bastoni-04"],
                      ["spade-09", "coppe-05", "denari-06", "bastoni-07"],
                      deck=TDA_DECK, mid_round_enquire="tda"), "spade-10", "spade-09")
    done = place(g, "coppe-02", "coppe-05", "denari-06", "denari-03")
    done.then(expect("TurnStarted", turn=3, leader=1),
              expect("ProspectsEnquired", seat=1, revealed_card="bastoni-08"))
    assert len(done.state.hands[1]) == 4
    default = place(tributes(deal(["spade-10", "coppe-02", "denari-03", "bastoni-04"],
                                  ["spade-09", "coppe-05", "denari-06", "bastoni-07"], deck=TDA_DECK),
                             "spade-10", "spade-09"), "coppe-02", "coppe-05", "denari-06", "denari-03")
    default.then_not("ProspectsEnquired")


def test_r13_option_never_skips_the_placement_of_a_seat_with_an_empty_hand():
    g = tributes(deal(*SHORT_HANDS, deck=SHORT_DECK, starting_hand=3, mid_round_enquire="never"),
                 "spade-10", "spade-09")
    done = place(g, "coppe-02", "coppe-05", "denari-06", "denari-03")
    done.then(expect("TurnStarted", turn=3), expect("PlacementSkipped", seat=1, reason="no_cards"),
              expect("PlacementSkipped", seat=0), expect("TurnEnded", turn=3), expect("FamiliesTallied"))
    round_one = done.events[:[e.type for e in done.events].index("RoundStarted")]
    assert "ProspectsEnquired" not in [e.type for e in round_one]


def test_r14_r13_an_enquire_with_no_card_anywhere_flips_nothing_pays_nothing_and_the_placement_is_skipped():
    g = tributes(deal_rest_to(1, ["spade-10", "coppe-02"], ["spade-09", "coppe-05"], starting_hand=2),
                 "spade-10", "spade-09")
    assert g.state.deck == [] and g.state.graveyard == []
    done = place(g, "coppe-02", "coppe-05")
    done.then(expect("TurnStarted", turn=2, leader=1))
    placed = place(done, done.state.hands[1][0])
    placed.then(expect("DrawFailed", seat=0, reason="deck_and_graveyard_empty", purpose="enquire"),
                expect("PlacementSkipped", seat=0, reason="no_cards"))
    placed.then_not("ProspectsEnquired")
    assert placed.state.treasury[0] == 40


def test_r55_r54_the_graveyard_is_reshuffled_only_when_a_card_is_needed_and_a_failed_draw_is_recorded():
    hands = (["coppe-09"], ["denari-05"])
    g = tributes(deal_rest_to(1, *hands, starting_hand=1, enquire_threshold=0, mid_round_enquire="never",
                              draw_per_round=3, hand_limit=60), "coppe-09", "denari-05")
    done = place(g, "spade-05", "bastoni-07", "denari-09")
    buried = state_at(done, "FamiliesBuried")
    assert buried.deck == [] and len(buried.graveyard) == 5  # R55: nothing is reshuffled early
    done.then(expect("DrawOrderChosen", starter=1),
              expect("GraveyardReshuffled", count=5),
              expect("CardDrawn", seat=1, reason="draw"), expect("CardDrawn", seat=1), expect("CardDrawn", seat=1),
              expect("CardDrawn", seat=0), expect("CardDrawn", seat=0),
              expect("DrawFailed", seat=0, reason="deck_and_graveyard_empty", purpose="draw"),
              expect("RoundStarted", round=2))
    reshuffle = events_of(done.events, "GraveyardReshuffled")[0]
    assert reshuffle.secret_to == frozenset() and reshuffle.barrier and sorted(reshuffle.secret["order"]) == \
        sorted(buried.graveyard)
    assert len(events_of(done.events, "GraveyardReshuffled")) == 1


def test_r13_option_tda_uses_its_own_threshold_of_1_not_the_phase_1_enquire_threshold():
    # enquire_threshold 3 is R10's phase-1 threshold only: under tda a seat holding 3 or 2
    # cards places without Enquiring (R13 says "at most 1 card").
    hands = (["spade-10", "coppe-02", "denari-03", "bastoni-04", "coppe-06"],
             ["spade-09", "coppe-05", "denari-06", "bastoni-07", "coppe-08"])
    g = tributes(deal(*hands, deck=TDA_DECK, starting_hand=5, enquire_threshold=3, mid_round_enquire="tda"),
                 "spade-10", "spade-09")
    done = place(g, "coppe-02", "coppe-05", "denari-06", "denari-03", "bastoni-07", "bastoni-04")
    done.then_history(expect("TurnStarted", turn=3), expect("NoblePlaced", card="bastoni-07"),
                      expect("NoblePlaced", card="bastoni-04"), expect("FamiliesTallied"))
    round_one = done.all_events[:[e.type for e in done.all_events].index("FamiliesTallied")]
    assert "ProspectsEnquired" not in [e.type for e in round_one]


def test_r13_option_tda_enquires_with_1_card_even_when_enquire_threshold_is_0():
    g = tributes(deal(["spade-10", "coppe-02", "denari-03", "bastoni-04"],
                      ["spade-09", "coppe-05", "denari-06", "bastoni-07"],
                      deck=TDA_DECK, enquire_threshold=0, mid_round_enquire="tda"), "spade-10", "spade-09")
    done = place(g, "coppe-02", "coppe-05", "denari-06", "denari-03")
    done.then(expect("TurnStarted", turn=3, leader=1),
              expect("ProspectsEnquired", seat=1, revealed_card="bastoni-08"))
