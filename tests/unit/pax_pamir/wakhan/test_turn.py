"""Wakhan's turn (rules.md section 20): the AI card drawn, the actions tried top to bottom
and cycling, three skips in a row, Radicalize as one action, bonus actions, a bribe she
cannot pay, her cleanup discards, and a bribe she is owed."""

from __future__ import annotations

import pytest

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS
from domain.kernel.errors import InvalidOptions
from domain.kernel.steps import FRAME_EVENTS, step_entered
from tests.helpers.scenario import given
from tests.unit.pax_pamir.flow import choices, cmd, resolve
from tests.unit.pax_pamir.table import table
from tests.unit.pax_pamir.wakhan.helpers import decisions, events_of, wakhan_table

HUMAN, WAKHAN = 0, 1


def test_her_turn_draws_the_top_ai_card_and_shows_the_back_of_the_next():
    g = wakhan_table(turn=True, ai_deck=(1, 9), rupees=[4, 0])
    after = resolve(g)
    drawn = events_of(after, "WakhanCardDrawn", len(g.history))
    assert drawn == [{"ai_card": 1, "next_back": AI_CARDS[9].back()}]
    assert after.state.wakhan.discard == [1] and after.state.wakhan.deck[0] == 9
    assert after.view(HUMAN)["wakhan"]["ai_card"] == 1 and after.view(HUMAN)["wakhan"]["ai_discard"] == [1]
    assert after.to_move() == [HUMAN], "her whole turn ran; the human is asked next"


def test_with_one_ai_card_left_her_discards_are_shuffled_in_under_it_before_she_draws():
    base = table(2, loyalties=["british", "russian"], options={"wakhan": True}, at_menu=False, rupees=[4, 0])
    order = list(range(1, 25))
    history = [*base.history, ev.wakhan_deck_shuffled(order)]
    history += [ev.wakhan_card_drawn(n, AI_CARDS[n + 1].back()) for n in range(1, 24)]
    history += [step_entered("turns", None, {"next": 0}), ev.turn_started(WAKHAN, 2),
                step_entered("wakhan_turn", WAKHAN, {})]
    g = given(RULES, *history)
    after = resolve(g)
    shuffled = [e for e in after.history[len(g.history):] if e.type == "WakhanDeckShuffled"]
    assert len(shuffled) == 1 and sorted(shuffled[0].hidden()["ai_deck"]) == list(range(1, 24))
    assert "ai_deck" not in shuffled[0].data and shuffled[0].secret_to == frozenset(), "the new order is nobody's"
    assert events_of(after, "WakhanCardDrawn", len(g.history))[0]["ai_card"] == 24
    assert after.state.wakhan.discard == [24] and len(after.state.wakhan.deck) == 23


def test_she_tries_the_ai_cards_actions_top_to_bottom_cycling_until_two_actions_are_done():
    # AI card 1: tax (no card to tax with), military-if-favored (political is), radicalize
    # the arrows point at row 1 column 2; buying there marks row 1's columns 0 and 1, so the
    # second Radicalize goes on to the top row from column 2
    g = wakhan_table(turn=True, ai_deck=(1, 9), market={(1, 2): 12, (1, 1): 9, (1, 0): 29, (0, 2): 63})
    after = resolve(g)
    tried = [d["command"] for d in decisions(after, len(g.history)) if d["step"] == "wakhan_turn"]
    assert tried == [{"type": "Radicalize", "args": {"card": 12}}, {"type": "Radicalize", "args": {"card": 63}}]
    assert len(events_of(after, "ActionSpent", len(g.history))) == 2, "Radicalize is one action"
    assert after.state.players[WAKHAN].court == [12, 63]
    assert events_of(after, "TurnStarted", len(g.history))[-1]["seat"] == HUMAN


def test_three_skipped_actions_in_a_row_end_her_actions():
    g = wakhan_table(turn=True, ai_deck=(1, 9), market={(1, 2): 61, (0, 1): 12}, rupees=[4, 0])
    after = resolve(g)
    assert not [d for d in decisions(after, len(g.history)) if d["step"] == "wakhan_turn"]
    assert not events_of(after, "ActionSpent", len(g.history))
    assert events_of(after, "TurnStarted", len(g.history))[-1]["seat"] == HUMAN


def test_after_her_actions_she_takes_bonus_actions_with_her_leftmost_unused_favored_card():
    # AI card 2 lists no card-based action; card 90 (political, favored) can tax the market
    g = wakhan_table(turn=True, ai_deck=(2, 9), courts={WAKHAN: [9, 90]}, market={(0, 3): 61},
                     market_rupees={(0, 3): 2}, rupees=[4, 0])
    after = resolve(g)
    bonus = [d for d in decisions(after, len(g.history)) if d["step"] == "wakhan_turn"]
    assert [d["command"]["type"] for d in bonus] == ["Tax"] and "bonus action" in bonus[0]["rule"]
    assert bonus[0]["command"]["args"]["card"] == 90
    assert after.state.players[WAKHAN].rupees == 1


def test_when_she_cannot_pay_the_rulers_bribe_she_discards_the_card_instead():
    g = wakhan_table(turn=True, ai_deck=(1, 9), market={(1, 2): 44}, rupees=[4, 3], tribes={"kandahar": {HUMAN: 2}})
    after = resolve(g)
    said = decisions(after, len(g.history))
    assert [d["command"]["type"] for d in said if d["step"] in ("wakhan_turn", "bribe")] == [
        "Radicalize", "AbandonBribe", "Discard"]
    assert 44 in after.state.discard and 44 not in after.state.players[WAKHAN].court
    assert after.state.players[WAKHAN].rupees == 1 and after.state.players[HUMAN].rupees == 4, "nothing paid"


def test_her_cleanup_discards_follow_her_discard_order():
    g = wakhan_table(turn=True, ai_deck=(2, 9), courts={WAKHAN: [9, 12, 29, 61, 13]}, rupees=[4, 0])
    after = resolve(g)
    discards = [d["command"]["args"]["card"] for d in decisions(after, len(g.history)) if d["step"] == "limit_discard"]
    assert discards == [9, 13]  # the lowest rank, then the lowest number
    assert after.state.players[WAKHAN].court == [12, 29, 61]


def test_she_asks_the_full_bribe_she_is_owed_and_never_less():
    g = wakhan_table(hands={HUMAN: [44]}, tribes={"kandahar": {WAKHAN: 2}})
    offered = g.when(HUMAN, cmd("Play", card=44))
    after = given(RULES, *g.history, *offered.events)
    low = given(RULES, *after.history, *after.when(HUMAN, cmd("OfferBribe", amount=0)).events)
    said = decisions(low, len(after.history))
    assert all(e.barrier for e in low.history[len(after.history):] if e.type == "WakhanDecided"), \
        "she acted: the human's offer can no longer be undone"
    assert [(d["step"], d["command"]) for d in said] == [
        ("bribe_offer", {"type": "CounterBribeOffer", "args": {"amount": 2}})]
    assert low.to_move() == [HUMAN] and ("AcceptBribeCounter", None) in {
        (c.type, next(iter(c.args.values()), None)) for c in low.legal(HUMAN)}


# -- pacing her turn (the option wakhan_paced) -------------------------------------------------

def game_events(g, since):
    return [e.to_json() for e in g.history[since:] if e.type not in FRAME_EVENTS]


def test_a_paced_turn_waits_for_the_next_human_after_each_of_her_actions_and_is_otherwise_the_same():
    market = {(1, 2): 12, (1, 1): 9, (1, 0): 29, (0, 2): 63}
    whole = wakhan_table(turn=True, ai_deck=(1, 9), market=market)
    paced = wakhan_table(turn=True, ai_deck=(1, 9), market=market, options={"wakhan_paced": True})
    g, pauses, shown = resolve(paced), 0, []
    while g.state.active == WAKHAN:
        assert g.to_move() == [HUMAN] and choices(g, HUMAN) == {("NextWakhanAction", None)}
        shown.append([d["command"]["args"]["card"] for d in decisions(g, len(paced.history)) if d["step"] == "wakhan_turn"])
        g = g.when(HUMAN, cmd("NextWakhanAction"))
        pauses += 1
    assert pauses == 2 and shown == [[12], [12, 63]], "one action shown at a time"
    assert game_events(g, len(paced.history)) == game_events(resolve(whole), len(whole.history))
    assert g.state.players[WAKHAN].court == [12, 63] and g.to_move() == [HUMAN]


def test_a_paced_turn_with_nothing_to_do_never_pauses():
    g = resolve(wakhan_table(turn=True, ai_deck=(1, 9), market={(1, 2): 61, (0, 1): 12}, rupees=[4, 0],
                             options={"wakhan_paced": True}))
    assert g.state.active == HUMAN and ("NextWakhanAction", None) not in choices(g, HUMAN)


def test_the_pace_option_needs_wakhan():
    with pytest.raises(InvalidOptions, match="wakhan_paced is a variant of Wakhan|needs the option wakhan"):
        RULES.check_options({"wakhan_paced": True})
