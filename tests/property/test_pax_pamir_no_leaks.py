"""Non-interference: what is hidden in Pax Pamir never reaches anyone it is hidden from.

What is hidden (rules.md R-SET-6, section 23 item 10): the order of the deck, the cards
left out of the game, and each hand (to everyone but its owner, unless ``open_hands``).
A purchased card's identity is public (it was face up in the market), so what a hand
holds can be told from the public record; what a seat must never learn from the server is
the deck's order, the unused cards, and anything that depends on how a hand is held.

World B differs from world A only in hidden facts, and the same seats make the same
choices (the commands of A, replayed through ``decide``):

* the cards never revealed in A (left in the deck at the end, or out of the game) are
  exchanged among themselves in B's stored ``DeckBuilt`` event (Dominance Checks keep their
  places: how many are left is public);
* the deck beyond what has been dealt at some moment T is reordered (with the unused
  cards), and the two worlds are compared up to T;
* the same, with both worlds made from a given ``deal`` option (a secret option) that
  differ only in those cards;
* one seat's hand is held in another order before every command of B.

For every seat and a spectator, every view, prompt, list of legal commands and the
redacted event history must be the same in A and B. Separately, no redacted event and no
view names a card hidden from its reader at that moment, and ``open_hands`` shows every
hand to everyone while the deck stays hidden.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir.data.cards import DOMINANCE_CHECKS, is_court_card, is_event
from domain.games.pax_pamir.state import PaxState
from domain.kernel.commands import Command
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from tests.unit.pax_pamir.invariants import EVERY_CARD, named_cards, visible_cards

#: A random game is long enough to say something and short enough to replay often.
MAX_COMMANDS = 3000
GAMES = [(seed, seats) for seed in range(3) for seats in (2, 3, 4, 5)]

Script = list[tuple[int, Command]]


class World:
    """A game played from ``setup`` events: the stream, the commands and a copy of the state
    before each command (and at the end)."""

    def __init__(self, seed: int, setup: list[Event], script: Script | None = None,
                 before_each: Callable[[PaxState, random.Random], PaxState] | None = None):
        choose = random.Random(f"choices:{seed}")
        fiddle = random.Random(f"fiddle:{seed}")
        self.stream = list(setup)
        self.script: Script = []
        self.states: list[PaxState] = []
        #: how many events the stream held when each state was taken
        self.marks: list[int] = []
        state = fold(RULES, setup)
        steps = iter(script) if script is not None else None
        for _ in range(MAX_COMMANDS):
            self.states.append(RULES.copy(state))
            self.marks.append(len(self.stream))
            if RULES.is_over(state):
                break
            if steps is not None:
                step = next(steps, None)
                if step is None:
                    break
                seat, command = step
            else:
                seat = choose.choice(RULES.to_move(state))
                command = choose.choice(RULES.legal_commands(state, seat))
            if before_each is not None:
                state = before_each(RULES.copy(state), fiddle)
            events = RULES.decide(state, seat, command, Rng(seed, len(self.stream)))
            for event in events:
                state = RULES.evolve(state, event)
            self.stream.extend(events)
            self.script.append((seat, command))
        self.final = state


def setup_events(seed: int, seats: int, options: dict[str, Any] | None = None) -> list[Event]:
    return RULES.setup(seats, RULES.check_options(options or {}), Rng(seed, 0))


def with_deck(setup: list[Event], deck: list[int], out: list[int]) -> list[Event]:
    """The same setup with another deck order and other unused cards in ``DeckBuilt``."""
    return [replace(e, secret={**e.secret, "deck": list(deck), "out": list(out)}) if e.type == "DeckBuilt" else e
            for e in setup]


def exchanged(r: random.Random, deck: list[int], keep: int, out: list[int]) -> tuple[list[int], list[int]]:
    """``deck[keep:]`` and ``out`` with their cards exchanged at random, Dominance Checks
    staying where they are; the first ``keep`` cards of the deck are untouched."""
    tail = deck[keep:]
    free = [i for i, n in enumerate(tail) if n not in DOMINANCE_CHECKS]
    pool = [tail[i] for i in free] + list(out)
    while True:
        shuffled = r.sample(pool, len(pool))
        if shuffled != pool or len(set(pool)) < 2:
            break
    new_tail = list(tail)
    for i, number in zip(free, shuffled, strict=False):
        new_tail[i] = number
    return deck[:keep] + new_tail, shuffled[len(free):]


def exchanged_by_kind(r: random.Random, deck: list[int], keep: int, out: list[int]) -> list[int]:
    """``deck`` with its cards after the first ``keep`` exchanged with unused cards of the
    same kind (court cards with court cards, events with events; Dominance Checks stay), so
    the deck is still a legal pile construction for a given ``deal``."""
    new = list(deck)
    for kind in (is_court_card, is_event):
        places = [i for i in range(keep, len(deck)) if kind(deck[i])]
        pool = [deck[i] for i in places] + [n for n in out if kind(n)]
        for i, number in zip(places, r.sample(pool, len(pool)), strict=False):
            new[i] = number
    return new


def seen(state: PaxState, viewer: int | None) -> dict[str, Any]:
    """Everything ``viewer`` is shown of ``state``: its view, and for every seat whether it
    is asked something; for a seat, its own prompt and legal commands too."""
    out: dict[str, Any] = {"view": RULES.view(state, viewer), "to_move": RULES.to_move(state)}
    if viewer is not None:
        asked = RULES.prompt(state, viewer)
        out["prompt"] = asked.to_json() if asked is not None else None
        out["legal"] = [c.to_json() for c in RULES.legal_commands(state, viewer)]
    return out


def assert_same_to(a: World, b: World, viewers: list[int | None], upto: int | None = None) -> None:
    """``viewers`` cannot tell A from B: in the first ``upto`` states (all of them while the
    game runs, if None) and in the events up to there."""
    states_a = [s for s in a.states if not s.over][:upto]
    states_b = [s for s in b.states if not s.over][:upto]
    assert len(states_a) == len(states_b), "the same choices did not give as many decisions"
    for viewer in viewers:
        for index, (state_a, state_b) in enumerate(zip(states_a, states_b, strict=True)):
            assert seen(state_a, viewer) == seen(state_b, viewer), \
                f"seat {viewer} can tell the worlds apart before command {index}"
    events = len(a.stream) if upto is None else a.marks[upto - 1]
    for viewer in viewers:
        assert [redact(e, viewer) for e in a.stream[:events]] == [redact(e, viewer) for e in b.stream[:events]], \
            f"seat {viewer}'s event history differs"




def hand_shuffler(seat: int) -> Callable[[PaxState, random.Random], PaxState]:
    def shuffle_hand(state: PaxState, r: random.Random) -> PaxState:
        r.shuffle(state.players[seat].hand)
        return state
    return shuffle_hand


def viewers_of(seats: int) -> list[int | None]:
    return [None, *range(seats)]


# -- the tests ---------------------------------------------------------------------------------

def test_exchanging_the_cards_nobody_ever_sees_changes_nothing_anyone_is_shown():
    for seed, seats in GAMES:
        setup = setup_events(seed, seats)
        a = World(seed, setup)
        original = next(e for e in setup if e.type == "DeckBuilt").secret
        dealt = len(original["deck"]) - len(a.final.deck)
        deck, out = exchanged(random.Random(seed), original["deck"], dealt, original["out"])
        assert (deck, out) != (original["deck"], original["out"])
        b = World(seed, with_deck(setup, deck, out), script=a.script)
        assert (b.final.deck, b.final.out_of_game) != (a.final.deck, a.final.out_of_game)
        assert_same_to(a, b, viewers_of(seats))
        assert [e.to_json() for e in a.stream if e.type != "DeckBuilt"] == \
            [e.to_json() for e in b.stream if e.type != "DeckBuilt"], "the same choices made another game"


def test_two_given_deals_differing_only_in_cards_nobody_sees_look_the_same_to_everyone():
    changed = 0
    for seed, seats in GAMES:
        shuffled = setup_events(seed, seats)
        built = next(e for e in shuffled if e.type == "DeckBuilt").secret
        order = next(e for e in shuffled if e.type == "LoyaltyOrderChosen").data["order"]
        a = World(seed, setup_events(seed, seats, {"deal": {"deck": built["deck"], "loyalty_order": order}}))
        assert next(e for e in a.stream if e.type == "DeckBuilt").secret["deck"] == built["deck"]
        dealt = len(built["deck"]) - len(a.final.deck)
        deck = exchanged_by_kind(random.Random(seed), built["deck"], dealt, built["out"])
        if deck == built["deck"]:
            continue  # the whole deck was dealt: nothing unseen to exchange
        b = World(seed, setup_events(seed, seats, {"deal": {"deck": deck, "loyalty_order": order}}), script=a.script)
        assert b.final.deck != a.final.deck
        assert_same_to(a, b, viewers_of(seats))
        check_nothing_hidden_is_named(a, seats)
        changed += 1
    assert changed >= 3, f"only {changed} games left cards unseen to exchange"


def test_the_deck_beyond_what_has_been_dealt_is_unknown_to_everyone():
    for seed, seats in GAMES:
        r = random.Random(f"moment:{seed}:{seats}")
        setup = setup_events(seed, seats)
        a = World(seed, setup)
        original = next(e for e in setup if e.type == "DeckBuilt").secret
        moment = r.randrange(1, len(a.script))
        dealt = len(original["deck"]) - len(a.states[moment].deck)
        deck, out = exchanged(r, original["deck"], dealt, original["out"])
        b = World(seed, with_deck(setup, deck, out), script=a.script[:moment])
        assert_same_to(a, b, viewers_of(seats), upto=moment + 1)


def test_the_order_a_hand_is_held_in_changes_nothing_anyone_is_shown():
    for seed, seats in GAMES:
        setup = setup_events(seed, seats)
        a = World(seed, setup)
        b = World(seed, setup, script=a.script, before_each=hand_shuffler(seed % seats))
        assert_same_to(a, b, viewers_of(seats))


def test_no_redacted_event_or_view_names_a_card_hidden_from_its_reader():
    for seed, seats in GAMES:
        world = World(seed, setup_events(seed, seats, {"first_chooser": "seat_0"} if seed % 2 else {}))
        check_nothing_hidden_is_named(world, seats)


def test_open_hands_shows_every_hand_to_everyone_and_still_hides_the_deck():
    for seed, seats in GAMES[:6]:
        world = World(seed, setup_events(seed, seats, {"open_hands": True}))
        check_nothing_hidden_is_named(world, seats)
        for state in world.states:
            if state.over:
                continue
            for viewer in viewers_of(seats):
                view = RULES.view(state, viewer)
                assert [sorted(row["hand"]) for row in view["players"]] == \
                    [sorted(p.hand) for p in state.players], "open hands: every hand is shown"
                assert "revealed" not in view
                assert not named_cards(view) & (set(state.deck) | set(state.out_of_game))


def test_a_hidden_hand_is_shown_to_its_owner_only():
    seed, seats = 7, 3
    world = World(seed, setup_events(seed, seats))
    held = [s for s in world.states if not s.over and any(p.hand for p in s.players)]
    assert held, "some hand holds cards during the game"
    for state in held:
        for viewer in viewers_of(seats):
            rows = RULES.view(state, viewer)["players"]
            for seat, row in enumerate(rows):
                assert row["hand_count"] == len(state.players[seat].hand)
                if seat == viewer:
                    assert row["hand"] == sorted(state.players[seat].hand)
                else:
                    assert "hand" not in row, f"seat {viewer} is shown seat {seat}'s hand"


def test_once_the_game_is_over_everything_is_revealed():
    seed, seats = 3, 2
    world = World(seed, setup_events(seed, seats))
    final = world.final
    assert final.over
    view = RULES.view(final, None)
    assert view["revealed"] == {"deck": list(final.deck), "out_of_game": sorted(final.out_of_game)}
    assert [row["hand"] for row in view["players"]] == [sorted(p.hand) for p in final.players]


def check_nothing_hidden_is_named(world: World, seats: int) -> None:
    """After every event, and in the view before every command: the cards named to each
    viewer are ones it may see then (before or after the event, for an event)."""
    state = None
    for event in world.stream:
        before = state
        state = RULES.evolve(RULES.copy(state) if state is not None else None, event)
        if before is None or state.over:
            continue
        for viewer in viewers_of(seats):
            allowed = visible_cards(before, viewer) | visible_cards(state, viewer)
            leaked = named_cards(redact(event, viewer)) - allowed
            assert not leaked, f"{event.type} {event.data} names {sorted(leaked)} to seat {viewer}"
    for state in world.states:
        if state.over:
            continue
        for viewer in viewers_of(seats):
            shown = seen(state, viewer)
            leaked = named_cards(shown) - visible_cards(state, viewer)
            assert not leaked, f"seat {viewer} is shown {sorted(leaked)} ({json.dumps(shown)[:300]})"
            assert named_cards(shown) <= EVERY_CARD
