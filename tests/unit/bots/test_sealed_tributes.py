"""Bots under commit-reveal Tributes (R17a): they compute their seal from a secret of their own
seat, and reveal it with no memory between the two decisions."""

from __future__ import annotations

import random

from domain.games.dynasties import RULES
from domain.games.dynasties.bots import bot_salt
from domain.games.dynasties.rules import tribute_digest
from domain.kernel.arena import play_match, seen
from domain.kernel.bots import BOT_KINDS
from domain.kernel.rng import Rng
from domain.kernel.rules import fold

OPTIONS = {"commit_reveal_tributes": True, "starting_gold": 15}


def test_r17a_a_bot_is_offered_a_seal_of_each_card_in_hand_salted_by_its_own_key():
    events = RULES.setup(3, RULES.check_options(OPTIONS), Rng("sealed", 0))
    state = fold(RULES, events)
    assert RULES.legal_commands(state, 0) == []  # nothing is listed for a seal...
    mine = seen(RULES, state, events, 0, key="secret-of-seat-0")
    other_key = seen(RULES, state, events, 0, key="another-key")
    hand = state.hands[0]
    assert [c.type for c in mine.commands] == ["CommitTribute"] * len(hand)  # ...but a bot is offered one per card
    hashes = {c.args["hash"] for c in mine.commands}
    assert hashes.isdisjoint(c.args["hash"] for c in other_key.commands), "the salt comes from the key"
    # and it is a seal the bot can open: one of its cards, with the salt it will reveal
    salt = bot_salt("secret-of-seat-0", mine.events)
    assert hashes == {tribute_digest(salt, card) for card in hand}


def test_r17a_a_bots_reveal_opens_its_own_seal():
    events = RULES.setup(2, RULES.check_options(OPTIONS), Rng("sealed", 1))
    state = fold(RULES, events)
    for seat in (0, 1):
        command = seen(RULES, state, events, seat, key=f"k{seat}").commands[0]
        for event in RULES.decide(state, seat, command, Rng("sealed", len(events))):
            events.append(event)
            state = RULES.evolve(state, event)
    for seat in (0, 1):
        (reveal,) = seen(RULES, state, events, seat, key=f"k{seat}").commands
        assert reveal.type == "RevealTribute"
        for event in RULES.decide(state, seat, reveal, Rng("sealed", len(events))):
            events.append(event)
            state = RULES.evolve(state, event)
    assert any(event.type == "TributesRevealed" for event in events)


def test_r17a_every_bot_kind_plays_sealed_tributes_to_game_over():
    bots = [BOT_KINDS["random"].bot(), BOT_KINDS["greedy"].bot(), BOT_KINDS["mcts"].bot("easy")]
    match = play_match(RULES, 3, bots, seed=9, options=OPTIONS)
    assert match.outcome is not None and match.outcome.winners


def test_r17a_a_sealed_tribute_is_searched_as_the_open_tribute_it_stands_for():
    """Issue 36: the seal prompt lists nothing, so a bot once chose its seal uniformly. Now
    greedy and mcts search the open Tribute each seal stands for: on the same deal, the card
    they seal is the card they give openly, decision for decision."""
    kinds = {"greedy": BOT_KINDS["greedy"].bot(), "mcts": BOT_KINDS["mcts"].bot("easy")}
    compared = 0
    for seed in range(4):
        sealed = RULES.setup(3, RULES.check_options(OPTIONS), Rng("twins", seed))
        open_ = RULES.setup(3, RULES.check_options({**OPTIONS, "commit_reveal_tributes": False}), Rng("twins", seed))
        sealed_state, open_state = fold(RULES, sealed), fold(RULES, open_)
        assert sealed_state.hands == open_state.hands
        for name, bot in kinds.items():
            shown = seen(RULES, sealed_state, sealed, 0, key="k")
            chosen = bot(RULES, shown, random.Random(seed), None)
            given = bot(RULES, seen(RULES, open_state, open_, 0), random.Random(seed), None)
            assert chosen.type == "CommitTribute" and shown.meanings[chosen] == given, (name, seed)
            compared += 1
    assert compared == 8
