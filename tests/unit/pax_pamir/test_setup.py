"""Setup (rules.md section 3, R-SET-1 to R-SET-6), a game created from a given deal
(section 23 item 12, the ``deal`` option) and what a seat sees (section 23 item 10)."""

from __future__ import annotations

import json
import random

import pytest

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir.data.board import pile_size
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    DOMINANCE_CHECKS,
    EVENT_CARDS,
    is_court_card,
    is_dominance_check,
    is_event,
)
from domain.games.pax_pamir.options import PaxOptions
from domain.games.pax_pamir.steps.setup import build_deck, market_fill_order
from domain.kernel import Event, InvalidOptions, Rng, fold, redact
from domain.kernel.rules import OBJECT_OPTION_MAX_CHARS, GameOptions, OptionSpec, option
from domain.kernel.table import read_event
from service.adapters.memory_store import MemoryStore
from service.play.services import GameService
from tests.helpers.scenario import expect, given
from tests.unit.pax_pamir.event_helpers import cmd, prompt_text
from tests.unit.pax_pamir.table import table

SEAT_COUNTS = (2, 3, 4, 5)


def legal_deal(seats: int, loyalty_order: list[int] | None = None) -> dict:
    """A deck the R-SET-1 piles could give (court cards, then events and checks, in order)."""
    court, events, checks = sorted(COURT_CARDS), sorted(EVENT_CARDS), sorted(DOMINANCE_CHECKS)
    size, deck = pile_size(seats), []
    for pile, (n_events, n_checks) in enumerate(((0, 0), (2, 0), (1, 1), (1, 1), (1, 1), (1, 1))):
        deck += court[pile * size:(pile + 1) * size] + events[:n_events] + checks[:n_checks]
        events, checks = events[n_events:], checks[n_checks:]
    return {"deck": deck, "loyalty_order": loyalty_order if loyalty_order is not None else list(range(seats))}


def set_up(seats: int, seed: int = 7, **options) -> list[Event]:
    return RULES.setup(seats, PaxOptions.check(options), Rng(seed, 0))


def secret_deck(events: list[Event]) -> list[int]:
    return next(e for e in events if e.type == "DeckBuilt").secret["deck"]


# -- R-SET-1 the deck ----------------------------------------------------------------------------

@pytest.mark.parametrize("seats", SEAT_COUNTS)
def test_r_set_1_the_deck_is_six_piles_with_no_check_in_the_first_two_piles_and_four_checks(seats):
    size = pile_size(seats)
    for seed in range(40):
        deck, out = build_deck(Rng(seed), seats)
        assert len(deck) == 6 * size + 10
        assert sum(map(is_dominance_check, deck)) == 4 and sum(map(is_event, deck)) == 6
        assert not any(map(is_dominance_check, deck[:2 * size + 2]))
        assert not any(map(is_event, deck[:size]))  # pile 1 holds no event
        assert sum(map(is_event, deck[size:2 * size + 2])) == 2
        for pile in range(4):  # piles 3-6: one event and one check each
            cards = deck[2 * size + 2 + pile * (size + 2):2 * size + 2 + (pile + 1) * (size + 2)]
            assert sum(map(is_event, cards)) == 1 and sum(map(is_dominance_check, cards)) == 1
        assert sorted(deck + out) == list(range(1, 117))
        assert sum(map(is_court_card, out)) == 100 - 6 * size and sum(map(is_event, out)) == 6


def test_r_set_1_the_deck_and_the_cards_left_out_are_nobodys_secret():
    built = next(e for e in set_up(3) if e.type == "DeckBuilt")
    assert built.secret_to == frozenset() and built.data == {"deck_count": 58} and built.barrier
    assert "secret" not in redact(built, 0) and "secret" not in redact(built, None)


# -- R-SET-2 to R-SET-5 ----------------------------------------------------------------------------

def test_r_set_2_the_market_is_filled_column_by_column_top_row_first_from_the_top_of_the_deck():
    events = set_up(2)
    dealt = [e for e in events if e.type == "CardDealt"]
    assert [(e.data["row"], e.data["column"]) for e in dealt] == list(market_fill_order())
    assert market_fill_order()[:4] == ((0, 0), (1, 0), (0, 1), (1, 1))
    assert [e.data["card"] for e in dealt] == secret_deck(events)[:12]
    state = fold(RULES, events)
    assert len(state.deck) == 52 - 12 and state.market_rupees == [[0] * 6, [0] * 6]


def test_r_set_3_and_4_everyone_has_4_rupees_10_cylinders_and_nothing_else_and_political_is_favored():
    state = fold(RULES, set_up(4))
    view = RULES.view(state, 0)
    for row in view["players"]:
        assert (row["rupees"], row["cylinders_in_supply"], row["hand_count"], row["court"], row["prizes"],
                row["gifts"], row["vp"]) == (4, 10, 0, [], [], [], 0)
    assert state.favored == "political" and state.effects == {}


@pytest.mark.parametrize("seats", SEAT_COUNTS)
def test_r_set_5_loyalty_is_chosen_clockwise_from_a_random_seat(seats):
    firsts = set()
    for seed in range(30):
        order = next(e for e in set_up(seats, seed) if e.type == "LoyaltyOrderChosen").data["order"]
        firsts.add(order[0])
        assert order == [(order[0] + i) % seats for i in range(seats)]
    assert firsts == set(range(seats))


@pytest.mark.parametrize("seats", SEAT_COUNTS)
def test_r_set_5_each_seat_chooses_in_order_and_the_last_chooser_takes_the_first_turn(seats):
    game = given(RULES, set_up(seats, 3))
    order = next(e for e in game.history if e.type == "LoyaltyOrderChosen").data["order"]
    for seat, coalition in zip(order, ["afghan", "russian", "russian", "british", "afghan"], strict=False):
        assert game.to_move() == [seat] and "Choose the coalition" in prompt_text(game, seat)
        game = game.when(seat, cmd("ChooseLoyalty", coalition=coalition))
    game.then(expect("TurnStarted", seat=order[-1], actions=2))
    assert game.state.active == order[-1] and game.to_move() == [order[-1]]
    assert game.state.players[order[0]].loyalty == "afghan"


def test_r_set_5_tournament_play_lets_seat_0_choose_first_so_the_last_seat_starts():
    events = set_up(3, first_chooser="seat_0")
    assert next(e for e in events if e.type == "LoyaltyOrderChosen").data["order"] == [0, 1, 2]


def test_r_set_5_loyalty_choices_are_free_so_everyone_may_choose_the_same_coalition():
    game = given(RULES, set_up(2, first_chooser="seat_0"))
    game = game.when(0, cmd("ChooseLoyalty", coalition="british")).when(1, cmd("ChooseLoyalty", coalition="british"))
    assert [p.loyalty for p in game.state.players] == ["british", "british"]


# -- R-SET-6, section 23 item 10: what a seat sees --------------------------------------------------

def test_section_23_item_10_the_view_shows_public_counts_and_only_the_viewers_own_hand():
    g = table(seats=3, hands={0: [5, 6], 1: [7]}, courts={1: [8]}, prizes={2: [9]}, gifts={2: [4]},
              market={(0, 0): 10, (1, 3): 101}, deck=[11, 12])
    seen = g.view(1)
    state = g.state
    assert seen["deck_count"] == len(state.deck) and "deck" not in seen and "revealed" not in seen
    assert seen["dominance_checks_left"] == 4  # one in the market, three in the deck
    players = seen["players"]
    assert "hand" not in players[0] and players[0]["hand_count"] == 2
    assert players[1]["hand"] == [7] and players[1]["court"] == [8]
    assert players[2]["prizes"] == [9] and players[2]["gifts"] == [4]
    assert seen["market"][0][0] == {"card": 10, "rupees": 0, "cost": 0} and seen["market"][1][3]["card"] == 101
    assert "11" not in json.dumps(seen["decision"]) and "12" not in json.dumps(seen["decision"])
    spectator = g.view(None)
    assert all("hand" not in row for row in spectator["players"])


def test_the_view_gives_each_market_card_the_viewers_price():
    """R-PUR-2: column x 1 rupee (x 2 while military is favored); Herat Influence (card 66) frees Herat cards
    for its owner only; a spectator sees the column's price."""
    g = table(seats=2, courts={0: [66]}, market={(0, 2): 55, (1, 4): 20})
    herat, punjab = (0, 2), (1, 4)
    for viewer, expected in ((0, (0, 4)), (1, (2, 4)), (None, (2, 4))):
        market = g.view(viewer)["market"]
        assert (market[herat[0]][herat[1]]["cost"], market[punjab[0]][punjab[1]]["cost"]) == expected, viewer
    military = table(seats=2, market={(1, 4): 20}, favored="military")
    assert military.view(1)["market"][1][4]["cost"] == 8


def test_r_set_6_open_hands_show_every_hand():
    g = table(hands={0: [5], 1: [7]}, options={"open_hands": True})
    assert g.view(None)["players"][1]["hand"] == [7] and g.view(0)["players"][1]["hand"] == [7]


# -- section 23 item 12: a given deal --------------------------------------------------------------

@pytest.mark.parametrize("seats", SEAT_COUNTS)
def test_section_23_item_12_a_given_deal_fixes_the_deck_the_market_and_the_loyalty_order(seats):
    order = [(seats - 1 + i) % seats for i in range(seats)]
    deal = legal_deal(seats, order)
    events = set_up(seats, deal=deal)
    assert secret_deck(events) == deal["deck"]
    built = next(e for e in events if e.type == "DeckBuilt")
    assert sorted(built.secret["out"] + deal["deck"]) == list(range(1, 117))
    dealt = [e for e in events if e.type == "CardDealt"]
    assert [(e.data["card"], e.data["row"], e.data["column"]) for e in dealt] == [
        (card, row, column) for card, (row, column) in zip(deal["deck"][:12], market_fill_order(), strict=True)]
    assert next(e for e in events if e.type == "LoyaltyOrderChosen").data["order"] == order
    state = fold(RULES, events)
    assert state.deck == deal["deck"][12:]
    assert RULES.to_move(state) == [order[0]]


def test_section_23_item_12_the_same_deal_gives_the_same_game_whatever_the_seed():
    deal = legal_deal(3, [1, 2, 0])
    assert set_up(3, seed=1, deal=deal) == set_up(3, seed=2, deal=deal)


def test_section_23_item_12_the_deal_is_kept_out_of_the_games_view():
    state = fold(RULES, set_up(2, deal=legal_deal(2)))
    assert state.options.deal is None and RULES.view(state, 0)["options"]["deal"] is None


def test_section_23_item_12_a_deal_for_another_seat_count_is_refused_by_the_one_check_of_a_new_game():
    """``check_setup`` is made once, when the game is created; ``setup`` trusts it."""
    with pytest.raises(InvalidOptions) as error:
        RULES.check_setup(3, {"deal": legal_deal(2)})
    assert error.value.option == "deal" and "for 2 seats, not 3" in error.value.reason


def _swap(deck: list[int], i: int, j: int) -> list[int]:
    deck = list(deck)
    deck[i], deck[j] = deck[j], deck[i]
    return deck


BASE = legal_deal(2)["deck"]  # piles of 7, 9, 9, 9, 9, 9 cards


@pytest.mark.parametrize(("deal", "reason"), [
    ([1, 2], "must be an object"),
    ({"deck": BASE}, "missing loyalty_order"),
    ({"deck": BASE, "loyalty_order": [0, 1], "seed": 3}, "unknown seed"),
    ({"deck": "1,2,3", "loyalty_order": [0, 1]}, "deck must be a list of whole numbers"),
    ({"deck": BASE, "loyalty_order": [0, True]}, "loyalty_order must be a list of whole numbers"),
    ({"deck": BASE[:-1], "loyalty_order": [0, 1]}, "the deck has 51 cards"),
    ({"deck": BASE[:-1] + [117], "loyalty_order": [0, 1]}, "unknown cards [117]"),
    ({"deck": BASE[:-1] + [BASE[0]], "loyalty_order": [0, 1]}, "more than once: [1]"),
    ({"deck": BASE[:-1] + [100], "loyalty_order": [0, 1]}, "exactly 4 Dominance Checks"),  # a check replaced
    ({"deck": [n for n in BASE if n != 110] + [99], "loyalty_order": [0, 1]}, "exactly 6 events"),
    ({"deck": _swap(BASE, 0, BASE.index(101)), "loyalty_order": [0, 1]}, "pile 1"),  # a check on top
    ({"deck": _swap(BASE, 15, BASE.index(101)), "loyalty_order": [0, 1]}, "pile 2"),  # a check in 2(5+n)+2
    ({"deck": _swap(BASE, 0, BASE.index(105)), "loyalty_order": [0, 1]}, "pile 1"),  # an event in pile 1
    ({"deck": _swap(BASE, BASE.index(102), BASE.index(101) - 1), "loyalty_order": [0, 1]}, "pile 3"),
    ({"deck": BASE, "loyalty_order": [0, 0]}, "loyalty_order must be the 2 seats"),
    ({"deck": BASE, "loyalty_order": [0, 1, 2]}, "loyalty_order must be the 2 seats"),
    ({"deck": legal_deal(4)["deck"], "loyalty_order": [0, 2, 1, 3]}, "clockwise"),
])
def test_section_23_item_12_a_deal_the_pile_construction_cannot_give_is_refused_by_name(deal, reason):
    with pytest.raises(InvalidOptions) as error:
        PaxOptions.check({"deal": deal})
    assert error.value.option == "deal"
    assert reason in error.value.reason


def test_section_23_item_12_a_deal_that_contradicts_seat_0_choosing_first_is_refused():
    with pytest.raises(InvalidOptions, match="seat_0"):
        PaxOptions.check({"first_chooser": "seat_0", "deal": legal_deal(3, [1, 2, 0])})
    assert PaxOptions.check({"first_chooser": "seat_0", "deal": legal_deal(3)}).deal == legal_deal(3)


def test_the_deal_option_is_listed_as_an_object_defaulting_to_null_with_its_shape_described():
    spec = next(s for s in RULES.options if s.name == "deal")
    assert (spec.kind, spec.default, spec.nullable) == ("object", None, True)
    assert "deck" in spec.description and "loyalty_order" in spec.description
    assert spec.to_json()["type"] == "object"
    assert PaxOptions.check({}).deal is None and PaxOptions.check({"deal": None}).deal is None


def test_section_23_item_12_the_platform_passes_a_deal_through_and_the_game_is_dealt_as_given():
    service = GameService(MemoryStore(), {RULES.kind: RULES})
    players = [service.players.create(f"p{i}") for i in range(3)]
    deal = legal_deal(3, [2, 0, 1])
    game = service.create_game(players[0], RULES.kind, {"deal": deal}, 3)
    assert service.load(game.id).table.options["deal"] == deal
    for player in players:
        service.join_game(game.id, player)
    state = service.load(game.id).state
    assert state.deck == deal["deck"][12:]
    assert [state.market[row][column] for row, column in market_fill_order()] == deal["deck"][:12]
    assert RULES.to_move(state) == [2]
    listed = next(t for t in service.game_types() if t["type"] == RULES.kind)
    assert next(o for o in listed["options"] if o["name"] == "deal")["type"] == "object"


def test_section_23_item_12_a_given_deal_is_a_secret_option_no_seat_or_spectator_can_read():
    service = GameService(MemoryStore(), {RULES.kind: RULES})
    players = [service.players.create(f"p{i}") for i in range(2)]
    deal = legal_deal(2, [1, 0])
    game = service.create_game(players[0], RULES.kind, {"deal": deal}, 2)
    for player in players:
        service.join_game(game.id, player)
    summary = service.load(game.id).summary()
    assert summary["options"]["deal"] == "(secret)"
    for reader in (None, players[0], players[1]):
        text = str(service.events(game.id, reader)) + str(service.state(game.id, reader)) + str(summary)
        assert str(deal["deck"][12:20])[1:-1] not in text  # the deck order is nowhere to be read
    assert next(o for o in next(t for t in service.game_types() if t["type"] == RULES.kind)["options"]
                if o["name"] == "deal")["secret"] is True


def test_section_23_item_12_a_deal_for_another_seat_count_is_refused_when_the_game_is_created():
    service = GameService(MemoryStore(), {RULES.kind: RULES})
    player = service.players.create("p0")
    with pytest.raises(InvalidOptions, match="is for 3 seats, not 2"):
        service.create_game(player, RULES.kind, {"deal": legal_deal(3, [2, 0, 1])}, 2)


def test_section_23_item_12_the_platform_refuses_a_bad_deal_when_the_game_is_created():
    service = GameService(MemoryStore(), {RULES.kind: RULES})
    player = service.players.create("p0")
    with pytest.raises(InvalidOptions, match="deal"):
        service.create_game(player, RULES.kind, {"deal": {"deck": [1], "loyalty_order": [0, 1]}}, 2)


# -- the kernel's object option kind ---------------------------------------------------------------

def test_an_object_option_accepts_an_object_or_null_and_copies_it():
    spec = OptionSpec("deal", "object", None, "a deal", nullable=True)
    given = {"deck": [1, 2], "nested": {"a": [None, True, "x"]}}
    checked = spec.check(given)
    assert checked == given and checked is not given
    assert spec.check(None) is None


@pytest.mark.parametrize("value", [[1, 2], "deal", 3, True])
def test_an_object_option_refuses_anything_but_an_object(value):
    with pytest.raises(InvalidOptions, match="must be an object or null"):
        OptionSpec("deal", "object", None, "a deal", nullable=True).check(value)


def test_an_object_option_refuses_null_unless_nullable_and_bounds_its_size():
    with pytest.raises(InvalidOptions, match="must be an object$"):
        OptionSpec("setup", "object", {}, "a setup").check(None)
    with pytest.raises(InvalidOptions, match="too large"):
        OptionSpec("setup", "object", {}, "a setup").check({"x": "y" * OBJECT_OPTION_MAX_CHARS})
    with pytest.raises(InvalidOptions, match="plain JSON"):
        OptionSpec("setup", "object", {}, "a setup").check({"x": {1, 2}})
    with pytest.raises(InvalidOptions, match="plain JSON"):
        OptionSpec("setup", "object", {}, "a setup").check({"x": float("nan")})


def test_game_options_infer_the_object_kind_from_option_kind():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Opts(GameOptions):
        layout: dict | None = option(None, "a layout", kind="object")
        size: int = option(3, "a size")

    specs = {spec.name: spec for spec in Opts.specs()}
    assert (specs["layout"].kind, specs["layout"].nullable) == ("object", True)
    assert (specs["size"].kind, specs["size"].nullable) == ("int", False)
    assert Opts.check({"layout": {"a": 1}}).to_json() == {"layout": {"a": 1}, "size": 3}
    with pytest.raises(InvalidOptions):
        Opts.check({"layout": [1]})


def test_the_opening_events_of_a_dealt_game_survive_a_json_round_trip():
    events = set_up(2, deal=legal_deal(2, [1, 0]))
    stored = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in events]
    assert fold(RULES, stored).deck == fold(RULES, events).deck


@pytest.mark.api
def test_section_23_item_12_post_games_takes_a_deal_as_json_and_refuses_a_bad_one_by_name():
    from service.api.app import create_app
    from service.base.config import Config

    client = create_app(Config(store_url="memory://"), registry={RULES.kind: RULES}).test_client()
    token = client.post("/players", json={"name": "a"}).json["token"]
    auth = {"Authorization": f"Bearer {token}"}
    deal = legal_deal(2, [1, 0])
    created = client.post("/games", json={"type": RULES.kind, "seats": 2, "options": {"deal": deal}}, headers=auth)
    assert created.status_code == 201 and created.json["options"]["deal"] == "(secret)"  # kept hidden
    bad = client.post("/games", json={"type": RULES.kind, "seats": 2,
                                      "options": {"deal": {"deck": deal["deck"], "loyalty_order": [0]}}}, headers=auth)
    assert bad.status_code == 422 and bad.json["option"] == "deal" and "loyalty_order" in bad.json["detail"]


def test_a_stream_stored_when_setup_started_was_named_game_started_folds_to_the_same_state():
    """Streams stored before the rename hold ``GameStarted`` (the platform's name too) as a
    game event; it is upcast on read, never rewritten."""
    history = set_up(3, seed=11)
    state, choose = fold(RULES, history), random.Random(5)
    for version in range(30):
        seat = choose.choice(RULES.to_move(state))
        events = RULES.decide(state, seat, choose.choice(RULES.legal_commands(state, seat)), Rng(11, version))
        history += events
        state = fold(RULES, events, state)
    stored = [{**event.to_json(), "source": "game"} for event in history]
    assert stored[0]["type"] == "SetupStarted"
    stored[0] = {**stored[0], "type": "GameStarted"}  # as written before the rename (no "v": version 1)
    old = fold(RULES, [read_event(body, RULES.upcasters) for body in stored])
    assert old == fold(RULES, history)
    assert RULES.view(old, 0) == RULES.view(state, 0)
