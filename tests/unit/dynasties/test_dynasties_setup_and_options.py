"""Components, setup and options: R1-R7, rulings §3."""

import json
import random

import pytest

from domain.games.dynasties import RULES
from domain.games.dynasties.cards import CORONATION, DECK, KING, LINEAGES, is_coronation, is_king, value_of
from domain.kernel.errors import InvalidOptions
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, fold
from domain.kernel.table import read_event
from tests.unit.dynasties.dynasties_table import deal, events_of, setup_events

DEFAULTS = {
    "starting_gold": 50, "legacy": 0, "starting_hand": 4, "enquire_threshold": 1,
    "enquire_refill_to": 4, "enquire_price_card": "keep", "mid_round_enquire": "empty", "shortfall": "forgive",
    "all_tied_tribute": "redraw", "removed_cards_count_for_lead": False, "combinations_require_activation": False,
    "coronation_bonus": 10, "dynasty_bonus": 3, "conclave_max_cards": 2, "empty_stakes_ends_round": False,
    "tie_break_participants": "all", "max_tie_break_turns": None, "unresolved_tie": "carry", "hand_limit": 6,
    "draw_per_round": 1, "commit_reveal_tributes": False,
}


def test_r1_the_deck_is_52_unique_cards_from_coppe_01_to_bastoni_13_in_display_order():
    assert len(DECK) == len(set(DECK)) == 52
    assert LINEAGES == ("coppe", "denari", "spade", "bastoni")
    assert DECK[0] == "coppe-01" and DECK[12] == "coppe-13" and DECK[13] == "denari-01" and DECK[-1] == "bastoni-13"


def test_r2_the_1_of_each_lineage_is_its_coronation_and_the_13_its_king():
    assert [card for card in DECK if is_coronation(card)] == ["coppe-01", "denari-01", "spade-01", "bastoni-01"]
    assert [card for card in DECK if is_king(card)] == ["coppe-13", "denari-13", "spade-13", "bastoni-13"]
    assert value_of("spade-01") == CORONATION == 1 and value_of("spade-13") == KING == 13


@pytest.mark.parametrize("seats", [0, 1, 7, "3", True])
def test_r3_a_game_needs_2_to_6_seats(seats):
    with pytest.raises(InvalidOptions) as error:
        RULES.check_setup(seats, {})
    assert error.value.option == "seats" and "Dynasties is for 2 to 6 seats" in error.value.reason


def test_r3_rules_declare_2_to_6_seats_and_satisfy_the_game_rules_protocol():
    rules: GameRules = RULES
    assert (rules.kind, rules.title, rules.min_seats, rules.max_seats) == ("dynasties", "Dynasties", 2, 6)
    assert [(c.type, c.args) for c in RULES.commands] == [
        ("SubmitTribute", {"card": "card"}), ("CommitTribute", {"hash": "hash"}), ("RevealTribute", {"salt": "salt"}),
        ("PlaceNoble", {"card": "card"}),
        ("ChooseConclaveCards", {"cards": "cards"}), ("RetireNobles", {"cards": "cards"})]
    assert all(c.description for c in RULES.commands)


def test_r5_r6_r7_setup_records_gold_and_legacy_then_deals_four_cards_one_at_a_time_clockwise_from_seat_0():
    events = RULES.setup(3, RULES.check_options({"legacy": 12}), Rng("seed"))
    started, shuffled = events[0], events[1]
    assert started.type == "SetupStarted" and started.data["seats"] == 3 and started.data["legacy"] == 12
    assert shuffled.type == "DeckShuffled" and shuffled.secret_to == frozenset() and shuffled.barrier
    order = shuffled.secret["order"]
    deals = events_of(events, "CardDrawn")
    assert [e.data["seat"] for e in deals] == [0, 1, 2] * 4
    assert [e.secret["card"] for e in deals] == order[:12]
    assert all(e.secret_to == frozenset({e.data["seat"]}) and e.data["reason"] == "deal" for e in deals)
    state = fold(RULES, events)
    assert state.treasury == [50, 50, 50] and state.legacy == 12 and state.stakes == 0
    assert [len(hand) for hand in state.hands] == [4, 4, 4] and len(state.deck) == 40
    assert [e.type for e in events[14:]] == ["RoundStarted", "PhaseStarted"]  # R8: nobody Enquires in round 1
    assert events[14].data == {"round": 1, "anchor": 0}
    assert RULES.to_move(state) == [0, 1, 2]


def test_options_list_every_option_of_section_3_except_players_with_its_default():
    assert {spec.name: spec.default for spec in RULES.options} == DEFAULTS
    assert RULES.check_options({}).to_json() == DEFAULTS
    assert RULES.check_options({}).hand_limit == 6  # the rules read a typed object
    assert all(spec.description for spec in RULES.options)
    assert json.dumps([spec.to_json() for spec in RULES.options])


@pytest.mark.parametrize(("given", "option"), [
    ({"hand_limit": 3}, "hand_limit"),                                   # below enquire_refill_to (4)
    ({"enquire_refill_to": 6, "hand_limit": 5}, "hand_limit"),
    ({"starting_hand": 6, "hand_limit": 5, "enquire_refill_to": 5}, "starting_hand"),
    ({"players": 3}, "players"),                                         # the platform's, not an option
    ({"starting_gold": 0}, "starting_gold"),
    ({"starting_hand": 7}, "starting_hand"),
    ({"enquire_threshold": 4}, "enquire_threshold"),
    ({"conclave_max_cards": 5}, "conclave_max_cards"),
    ({"draw_per_round": 4}, "draw_per_round"),
    ({"max_tie_break_turns": 0}, "max_tie_break_turns"),
    ({"mid_round_enquire": "always"}, "mid_round_enquire"),
    ({"coronation_bonus": True}, "coronation_bonus"),
    ({"empty_stakes_ends_round": "yes"}, "empty_stakes_ends_round"),
    ({"seating": "random"}, "seating"),                                  # the platform's option (R4), not the game's
    # one Noble drawn a round, given as Tribute, never replaced: every split hands the gold back forever
    ({"enquire_threshold": 0, "mid_round_enquire": "never", "unresolved_tie": "split"}, "unresolved_tie"),
    ({"enquire_threshold": 0, "mid_round_enquire": "never", "unresolved_tie": "split", "draw_per_round": 1},
     "unresolved_tie"),
])
def test_check_options_refuses_bad_values_and_cross_option_conflicts_by_name(given, option):
    with pytest.raises(InvalidOptions) as error:
        RULES.check_options(given)
    assert error.value.option == option


def test_check_options_accepts_a_hand_limit_equal_to_the_refill_and_a_null_tie_break_cap():
    options = RULES.check_options({"hand_limit": 4, "max_tie_break_turns": None, "starting_hand": 4})
    assert options.hand_limit == 4 and options.max_tie_break_turns is None


def test_r4_option_seating_is_the_platforms_so_the_rules_neither_list_nor_accept_it():
    from domain.kernel.table import PLATFORM_OPTIONS, split_options

    assert "seating" not in {spec.name for spec in RULES.options}
    assert "seating" in {spec.name for spec in PLATFORM_OPTIONS}
    platform, own = split_options({"seating": "random", "legacy": 3})
    assert platform["seating"] == "random" and platform["open_information"] is False and own == {"legacy": 3}


def test_options_starting_gold_legacy_and_starting_hand_shape_the_table():
    state = deal(["coppe-01", "coppe-02", "coppe-03", "coppe-04", "coppe-05", "coppe-06"],
                 ["denari-01", "denari-02", "denari-03", "denari-04", "denari-05", "denari-06"],
                 starting_gold=20, legacy=5).state
    assert state.treasury == [20, 20] and state.legacy == 5
    assert [len(hand) for hand in state.hands] == [6, 6]


def test_the_opening_events_survive_a_json_round_trip_and_fold_to_the_same_state():
    events = setup_events(["coppe-01", "coppe-02"], ["denari-01", "denari-02"], starting_hand=2)
    stored = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in events]
    assert fold(RULES, stored) == fold(RULES, events)


def test_a_stream_stored_when_setup_started_was_named_game_started_folds_to_the_same_state():
    """Streams stored before the rename hold ``GameStarted`` (the platform's name too) as a
    game event; it is upcast on read, never rewritten."""
    history = RULES.setup(3, RULES.check_options({"legacy": 12}), Rng("old stream"))
    state, choose = fold(RULES, history), random.Random(5)
    for version in range(30):
        seat = choose.choice(RULES.to_move(state))
        events = RULES.decide(state, seat, choose.choice(RULES.legal_commands(state, seat)), Rng("old stream", version))
        history += events
        state = fold(RULES, events, state)
    stored = [{**event.to_json(), "source": "game"} for event in history]
    assert stored[0]["type"] == "SetupStarted"
    stored[0] = {**stored[0], "type": "GameStarted"}  # as written before the rename (no "v": version 1)
    old = fold(RULES, [read_event(body, RULES.upcasters) for body in stored])
    assert old == fold(RULES, history)
    assert RULES.view(old, 0) == RULES.view(state, 0)
    assert stored[0]["type"] == "GameStarted"
