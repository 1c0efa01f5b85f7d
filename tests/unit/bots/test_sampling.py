"""The samplers: a drawn state looks to its seat exactly like the real game, and is made
only of what that seat has been shown.

For many random positions of both games, every seat's sampler (built from the seat's view
and its redacted events, nothing else) draws states whose view for that seat, prompt and
legal commands equal the real ones. The hidden part is really drawn: over a few draws the
other hands and the deck change. And the sampler is never given anything the real hidden
cards decide: two games that differ only in hidden facts give every other seat the same
input, so the same draws.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.games.pax_pamir import RULES as PAX
from domain.games.pax_pamir.data.board import PILE_EXTRAS, pile_size
from domain.games.pax_pamir.data.cards import DOMINANCE_CHECKS, EVENT_CARDS
from domain.kernel.events import redact
from domain.kernel.rules import fold
from tests.unit.bots.games import random_positions, worlds_differing_in_one_hand

POSITIONS = [("dynasties", seats, seed) for seats in (2, 3, 6) for seed in range(3)] + \
    [("pax_pamir", seats, seed) for seats in (2, 4, 5) for seed in range(2)]


def _prompt(rules, state, seat):
    asked = rules.prompt(state, seat)
    return asked.to_json() if asked is not None else None


def _drawn(positions, seats):
    """For every position still running, each seat's sampler and two of its draws, each checked to
    show that seat exactly what the real game shows: ``(game, seat, sample)``."""
    for game in positions:
        if game.over:
            continue
        rules = game.rules
        for seat in range(seats):
            view = rules.view(game.state, seat)
            sampler = rules.sampler(view, game.seen_by(seat), seat)
            for draw in range(2):
                sample = sampler.draw(random.Random(draw))
                assert rules.view(sample, seat) == view
                assert _prompt(rules, sample, seat) == _prompt(rules, game.state, seat)
                assert rules.legal_commands(sample, seat) == rules.legal_commands(game.state, seat)
                assert rules.to_move(sample) == rules.to_move(game.state)
                yield game, seat, sample


@pytest.mark.parametrize(("kind", "seats", "seed"), POSITIONS)
def test_a_drawn_state_shows_its_seat_exactly_what_the_real_game_shows(kind, seats, seed):
    positions = random_positions(kind, seats, seed, every=11 if kind == "dynasties" else 29)
    checked = sum(1 for _ in _drawn(positions, seats))
    assert checked >= 2 * seats * 3


@pytest.mark.parametrize("humans", [1, 2])
def test_a_human_seat_against_wakhan_is_sampled_with_her_ai_deck_hidden_and_redrawn(humans):
    """Section 20: her AI deck's order is nobody's, so a sampler fills her redacted shuffles
    with the AI cards not in her deck and draws their order; the human's view is unchanged."""
    checked, orders = 0, set()
    positions = random_positions("pax_pamir", humans, 3, every=17, options={"wakhan": True})
    for game, _, sample in _drawn(positions, humans):
        assert sorted(sample.wakhan.deck) == sorted(game.state.wakhan.deck)
        orders.add(tuple(sample.wakhan.deck))
        checked += 1
    assert checked >= 4 and len(orders) > 1


def test_dynasties_draws_deal_the_unseen_cards_afresh_and_guess_face_down_tributes():
    for game in random_positions("dynasties", 4, 7, every=1):
        committed = [seat for seat, card in enumerate(game.state.tribute_commit) if card is not None]
        if len(committed) >= 2 and game.state.deck:
            break
    else:
        raise AssertionError("no position with two face-down Tributes")
    me = next(seat for seat in range(4) if seat != committed[0])
    other = committed[0]
    sampler = DYNASTIES.sampler(DYNASTIES.view(game.state, me), game.seen_by(me), me)
    draws = [sampler.draw(random.Random(k)) for k in range(40)]
    assert len({tuple(s.deck) for s in draws}) > 30, "the deck order is drawn, not copied"
    assert len({s.tribute_commit[other] for s in draws}) > 1, "another seat's Tribute is a guess"
    for s in draws:  # a guess is a card that seat could have given: one it held
        held = sorted([*s.hands[other], s.tribute_commit[other]])
        assert len(held) == len(game.state.hands[other]) + 1
        assert s.hands[me] == game.state.hands[me] and s.tribute_commit[me] == game.state.tribute_commit[me]
    truth = game.state.tribute_commit[other]
    assert Counter(s.tribute_commit[other] == truth for s in draws)[True] < 40


def test_pax_pamir_draws_keep_the_deck_built_in_its_six_piles():
    game = next(g for g in random_positions("pax_pamir", 3, 1, every=40) if len(g.events) > 200)
    seat = 0
    sampler = PAX.sampler(PAX.view(game.state, seat), game.seen_by(seat), seat)
    built = next(e for e in game.events if e.type == "DeckBuilt").data["deck_count"]
    dealt = built - len(game.state.deck)
    size = pile_size(3)
    for k in range(20):
        s = sampler.draw(random.Random(k))
        assert sorted(s.deck + s.out_of_game) == sorted(game.state.deck + game.state.out_of_game)
        whole = [None] * dealt + s.deck  # positions of the built deck, the dealt ones unknown here
        start = 0
        for index, (events, checks) in enumerate(PILE_EXTRAS):
            end = start + size + events + checks
            pile = [card for card in whole[start:end] if card is not None]
            if start >= dealt:  # a whole pile still in the deck has its R-SET-1 make-up
                assert sum(card in EVENT_CARDS for card in pile) == events, f"pile {index + 1}"
                assert sum(card in DOMINANCE_CHECKS for card in pile) == checks, f"pile {index + 1}"
            start = end
    assert len({tuple(sampler.draw(random.Random(k)).deck) for k in range(10)}) == 10


def test_the_samplers_input_is_the_same_when_only_hidden_cards_differ():
    """World B is world A with two cards exchanged that seat p drew face down, the same
    moves replayed: every other seat's input to its sampler (its view and its events) is the
    same halfway through, so with the same generator the same states are drawn."""
    compared = 0
    for a, b, p in worlds_differing_in_one_hand(range(12)):
        seats = 3
        cut = len(a[0]) // 2
        state_a, state_b = fold(DYNASTIES, a[0][:cut]), fold(DYNASTIES, b[0][:cut])
        assert state_a.deck != state_b.deck or state_a.hands[p] != state_b.hands[p] or \
            a[0][:cut] != b[0][:cut], "the worlds differ in hidden facts"
        for q in (q for q in range(seats) if q != p):
            inputs_a = (DYNASTIES.view(state_a, q), [redact(e, q) for e in a[0][:cut]])
            inputs_b = (DYNASTIES.view(state_b, q), [redact(e, q) for e in b[0][:cut]])
            assert inputs_a == inputs_b
            assert DYNASTIES.sampler(*inputs_a, q).draw(random.Random(5)) == \
                DYNASTIES.sampler(*inputs_b, q).draw(random.Random(5))
            compared += 1
    assert compared >= 10
