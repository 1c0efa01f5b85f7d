"""The kernel's nested decisions, end to end in the rules, with the Bargain test game.

An Ask by seat 0 calls a sub-decision owed by seat 1 (which card to hand over) and then
resumes seat 0's own step (keep or return). The frame stack lives in the state and moves
only by frame events; everything listed is accepted and nothing else is.
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from domain.kernel.commands import Command
from domain.kernel.errors import RuleViolation
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from domain.kernel.steps import FRAME_EVENTS, Frame
from tests.games.bargain import DECK, RULES, Offer, State
from tests.helpers.scenario import Given, given

HANDS = (
    ["card-01", "card-02", "card-03", "card-04"],
    ["card-05", "card-06", "card-07", "card-08"],
    ["card-09", "card-10", "card-11", "card-12"],
)
ASK = Command("Ask")
PASS = Command("Pass")


def ask_seat(seat: int) -> Command:
    return Command("AskSeat", {"seat": seat})


def bid(coins: int) -> Command:
    return Command("Bid", {"coins": coins})


def give(card: str) -> Command:
    return Command("GiveCard", {"card": card})


def settle(choice: str) -> Command:
    return Command("Settle", {"choice": choice})


def opening(*hands: list[str], coins: int = 3, turns: int = 2) -> list[Event]:
    """The events ``setup`` would record, with chosen hands instead of a shuffle."""
    t = RULES.begin(None, Rng(0))  # type: ignore[arg-type]
    t.emit(Event("GameBegan", {"seats": len(hands), "turns": turns, "coins": coins}))
    for seat, hand in enumerate(hands):
        t.emit(Event("HandDealt", {"seat": seat, "count": len(hand)}, secret={"cards": list(hand)},
                     secret_to=frozenset({seat}), barrier=True))
    t.call("table", None, turn=0)
    RULES.run_until_input(t)
    return t.events


def stack(state: State) -> list[tuple[str, int | None]]:
    return [(frame.step, frame.seat) for frame in state.frames]


def refusal(state: State, seat: int, command: Command) -> str:
    with pytest.raises(RuleViolation) as refused:
        RULES.decide(state, seat, command, Rng(0))
    return refused.value.reason


@pytest.fixture
def waiting_for_seat_1() -> Given:
    """Seat 0 asked seat 1 for a card with a bid of 2; seat 1 has not chosen yet."""
    return given(RULES, opening(*HANDS)).when(0, ASK).when(0, ask_seat(1)).when(0, bid(2))


def test_the_card_to_hand_over_is_owed_by_the_asked_seat_not_the_active_one(waiting_for_seat_1):
    state = waiting_for_seat_1.state
    assert RULES.to_move(state) == [1]
    assert RULES.legal_commands(state, 1) == [give(card) for card in HANDS[1]]
    assert RULES.legal_commands(state, 0) == [] and RULES.legal_commands(state, 2) == []
    assert RULES.prompt(state, 0) is None and RULES.prompt(state, 2) is None
    assert RULES.prompt(state, 1).text == ("Seat 0 bids 2 coins for a card: choose the card you hand over "
                                           "(only you and seat 0 will see it).")


def test_the_asking_seat_is_refused_with_the_kernels_reason_while_it_waits(waiting_for_seat_1):
    state = waiting_for_seat_1.state
    assert refusal(state, 0, settle("keep")) == "no card was handed to you to keep or return (waiting for seat 1)"
    assert refusal(state, 0, give("card-01")) == "nobody is waiting for a card from you (waiting for seat 1)"
    assert refusal(state, 0, ASK) == "you can ask for a card only at the start of your turn (waiting for seat 1)"
    assert refusal(state, 2, PASS) == "you can pass only at the start of your turn (waiting for seat 1)"


def test_the_asked_seat_is_refused_a_card_it_does_not_hold_with_the_prompt_text(waiting_for_seat_1):
    state = waiting_for_seat_1.state
    assert refusal(state, 1, give("card-01")) == (
        "card-01 is not in your hand (Seat 0 bids 2 coins for a card: choose the card you hand over "
        "(only you and seat 0 will see it).)")
    assert refusal(state, 1, settle("keep")).startswith("no card was handed to you to keep or return "
                                                        "(you are asked: Seat 0 bids 2 coins")


def test_the_frame_stack_changes_through_one_frame_event_a_command_only():
    script = [(0, ASK), (0, ask_seat(1)), (0, bid(2)), (1, give("card-06")), (0, settle("keep"))]
    state = fold(RULES, opening(*HANDS))
    stacks = [stack(state)]
    frame_events = []
    for seat, command in script:
        events = RULES.decide(state, seat, command, Rng(0))
        frame_events.append([(e.type, e.data["kept"], [row["step"] for row in e.data["frames"]])
                             for e in events if e.type in FRAME_EVENTS])
        assert events[-1].type in FRAME_EVENTS, "the stack is recorded as the command ends"
        for event in events:
            before = list(state.frames)
            state = RULES.evolve(state, event)
            if event.type not in FRAME_EVENTS:
                assert state.frames == before, f"{event.type} changed the frames"
            else:
                assert state.frames != before, f"{event.type} left the frames as they were"
        stacks.append(stack(state))
    assert stacks == [
        [("table", None), ("turn", 0)],
        [("table", None), ("choose_seat", 0)],
        [("table", None), ("bid", 0)],
        [("table", None), ("settle", 0), ("hand_over", 1)],
        [("table", None), ("settle", 0)],
        [("table", None), ("turn", 1)],
    ]
    assert frame_events == [
        [("StepsChanged", 1, ["choose_seat"])],
        [("StepsChanged", 1, ["bid"])],
        [("StepsChanged", 1, ["settle", "hand_over"])],
        [("StepsChanged", 2, [])],
        [("StepsChanged", 0, ["table", "turn"])],
    ]


def test_play_resumes_the_asking_seats_step_once_the_card_is_handed_over(waiting_for_seat_1):
    caller = waiting_for_seat_1.state.frames[-2]
    assert caller == Frame("settle", 0, {"asked": 1, "bid": 2})
    handed = waiting_for_seat_1.when(1, give("card-06"))
    state = handed.state
    assert state.frames[-1] == caller
    assert state.offer == Offer("card-06", giver=1, taker=0)
    assert RULES.to_move(state) == [0]
    assert RULES.prompt(state, 0).text == "Seat 1 handed you card-06: keep it and pay 2 coins, or return it."
    assert RULES.legal_commands(state, 0) == [settle("keep"), settle("return")]


def test_keeping_the_card_pays_the_bid_and_the_next_seat_plays(waiting_for_seat_1):
    kept = waiting_for_seat_1.when(1, give("card-06")).when(0, settle("keep"))
    kept.then("OfferKept")
    state = kept.state
    assert sorted(state.hands[0]) == [*HANDS[0], "card-06"]
    assert "card-06" not in state.hands[1]
    assert state.coins == [1, 5, 3] and state.offer is None
    assert RULES.to_move(state) == [1] and state.frames[0] == Frame("table", None, {"turn": 2})


def test_returning_the_card_gives_it_back_and_costs_nothing(waiting_for_seat_1):
    state = waiting_for_seat_1.when(1, give("card-06")).when(0, settle("return")).state
    assert [sorted(hand) for hand in state.hands] == [sorted(hand) for hand in HANDS]
    assert state.coins == [3, 3, 3] and state.offer is None


def test_the_card_handed_over_is_secret_to_the_two_seats_of_the_bargain(waiting_for_seat_1):
    handed = waiting_for_seat_1.when(1, give("card-06"))
    (event,) = handed.of_type("CardHandedOver")
    assert event.secret == {"card": "card-06"} and event.secret_to == frozenset({0, 1})
    for outsider in (2, None):
        assert "card-06" not in json.dumps([redact(e, outsider) for e in handed.history])
        assert "card-06" not in json.dumps(RULES.view(handed.state, outsider))
    assert RULES.view(handed.state, 2)["offer"] == {"from": 1, "to": 0}
    for involved in (0, 1):
        assert redact(event, involved)["secret"] == {"card": "card-06"}
        assert RULES.view(handed.state, involved)["offer"] == {"from": 1, "to": 0, "card": "card-06"}


def test_a_barrier_falls_exactly_where_the_seat_owing_the_decision_changes(waiting_for_seat_1):
    start = given(RULES, opening(*HANDS))
    asked = start.when(0, ASK)
    chose = asked.when(0, ask_seat(1))
    assert not any(e.barrier for e in asked.events + chose.events)
    assert [e.barrier for e in waiting_for_seat_1.events][-1] is True
    handed = waiting_for_seat_1.when(1, give("card-06"))
    assert handed.events[-1].barrier is True
    assert handed.when(0, settle("return")).events[-1].barrier is True
    assert start.when(0, PASS).events[-1].barrier is True


def test_ask_is_not_offered_when_no_other_seat_holds_a_card():
    state = given(RULES, opening(["card-01", "card-02"], [])).state
    assert [c.type for c in RULES.legal_commands(state, 0)] == ["DiscardCards"] * 3 + ["Pass"]
    assert refusal(state, 0, ASK) == ("you can ask for a card only at the start of your turn (you are asked: "
                                      "Your turn: ask another seat for a card, discard one or two cards, or pass.)")


# -- random play: listed commands are exactly the accepted ones ------------------------------

def every_command_shape() -> list[Command]:
    """Every well-formed command over a bounded domain: listed or not, the rules must say."""
    commands = [ASK, PASS]
    commands += [Command("AskSeat", {"seat": seat}) for seat in range(-1, 4)]
    commands += [Command("Bid", {"coins": coins}) for coins in range(-1, 11)]
    commands += [give(card) for card in DECK]
    commands += [settle(choice) for choice in ("keep", "return", "maybe")]
    commands += [Command("DiscardCards", {"cards": list(cards)}) for size in range(3) for cards in combinations(DECK, size)]
    commands += [Command("DiscardCards", {"cards": list(DECK[i:i + 3])}) for i in range(0, 12, 4)]
    return commands


DOMAIN = every_command_shape()


def accepted(state: State, seat: int, command: Command) -> bool:
    try:
        RULES.decide(state, seat, command, Rng(0))
    except RuleViolation:
        return False
    return True


def play_at_random(seed: int, seats: int, exhaustive: bool = True) -> tuple[State, list[Event]]:
    """Random legal play to the end; with ``exhaustive``, at every state every command of
    ``DOMAIN`` from every seat is decided and must be accepted exactly when it is listed."""
    r = random.Random(seed)
    options = RULES.check_options({"turns": 3, "coins": r.randint(0, 4)})
    stream = RULES.setup(seats, options, Rng(seed))
    state = fold(RULES, stream)
    for _ in range(200):
        if RULES.is_over(state):
            break
        movers = RULES.to_move(state)
        assert len(movers) == 1, f"one seat decides at a time, not {movers}"
        legal = {seat: RULES.legal_commands(state, seat) for seat in range(seats)}
        assert [seat for seat in range(seats) if legal[seat]] == movers, "the seats to move are those with commands"
        if exhaustive:
            listed = {(seat, json.dumps(c.to_json(), sort_keys=True)) for seat in legal for c in legal[seat]}
            before = RULES.copy(state)
            taken = {(seat, json.dumps(c.to_json(), sort_keys=True))
                     for seat in range(seats) for c in DOMAIN if accepted(state, seat, c)}
            assert taken == listed, f"accepted but unlisted: {taken - listed}; listed but refused: {listed - taken}"
            assert state == before, "decide changed the state it was given"
        seat = movers[0]
        asking = [c for c in legal[seat] if c.type in ("Ask", "AskSeat", "Bid", "GiveCard")]
        command = r.choice(asking if asking and r.random() < 0.7 else legal[seat])
        events = RULES.decide(state, seat, command, Rng(seed, len(stream)))
        for event in events:
            state = RULES.evolve(state, event)
        stream += events
    else:
        pytest.fail(f"no end after 200 commands (seed {seed})")
    return state, stream


@pytest.mark.parametrize("seed,seats", [(seed, 2 + seed % 2) for seed in range(8)])
def test_random_play_accepts_exactly_the_listed_commands_and_reaches_the_end(seed, seats):
    state, stream = play_at_random(seed, seats)
    assert [e.type for e in stream if e.type not in FRAME_EVENTS][-1] == "GameEnded" and state.frames == []
    assert RULES.to_move(state) == [] and all(not RULES.legal_commands(state, s) for s in range(seats))
    outcome = RULES.outcome(state)
    (ended,) = [e for e in stream if e.type == "GameEnded"]
    assert outcome is not None and list(outcome.scores.values()) == ended.data["scores"]
    assert any(e.type == "CardHandedOver" for e in stream), "the nested action was played"


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_fold_of_the_stored_events_after_json_equals_the_live_state(seed):
    state, stream = play_at_random(seed, 3, exhaustive=False)
    stored: list[dict[str, Any]] = [json.loads(json.dumps(event.to_json())) for event in stream]
    assert fold(RULES, [Event.from_json(body) for body in stored]) == state
    # and mid-game too, with a card on offer and a frame stack three deep
    at = next(i for i, e in enumerate(stream) if e.type == "CardHandedOver") + 1
    live = fold(RULES, stream[:at])
    assert len(live.frames) == 3 and live.offer is not None
    assert fold(RULES, [Event.from_json(body) for body in stored[:at]]) == live
