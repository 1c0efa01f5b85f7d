"""Wakhan's loyalty (rules.md section 20, 6.1, R-DOM-3, R-LEV): her pragmatic loyalty from the
AI card, Steadfast Pragmatic Loyalty, rulership with the most numerous coalition's armies,
never a loyalty change, scoring at every successful check, no discards for leverage."""

from __future__ import annotations

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Coalition, Region
from domain.games.pax_pamir.wakhan.loyalty import pragmatic_loyalty
from tests.unit.pax_pamir.flow import resolve, with_steps
from tests.unit.pax_pamir.wakhan.helpers import decisions, events_of, wakhan_table

HUMAN, WAKHAN = 0, 1
AI_CARD_1 = 1  # pragmatic order russian, afghan, british


def test_pragmatic_loyalty_is_the_first_coalition_of_the_ai_card_no_human_holds():
    assert pragmatic_loyalty(wakhan_table(card=AI_CARD_1, loyalties=["british", "russian"]).state)[0] \
        == Coalition.RUSSIAN
    assert pragmatic_loyalty(wakhan_table(card=AI_CARD_1, loyalties=["russian", "russian"]).state)[0] \
        == Coalition.AFGHAN
    two = wakhan_table(2, card=AI_CARD_1, loyalties=["russian", "afghan", "british"]).state
    assert pragmatic_loyalty(two)[0] == Coalition.BRITISH


def test_steadfast_pragmatic_loyalty_takes_the_free_coalition_with_the_most_blocks():
    spec = dict(card=AI_CARD_1, loyalties=["british", "russian"], armies={"kabul": {"afghan": 2, "russian": 1}})
    assert pragmatic_loyalty(wakhan_table(**spec).state)[0] == Coalition.RUSSIAN
    steadfast = wakhan_table(**spec, options={"wakhan_steadfast_loyalty": True}).state
    assert pragmatic_loyalty(steadfast)[0] == Coalition.AFGHAN


def test_her_turn_sets_her_pragmatic_loyalty_from_the_card_she_draws():
    g = resolve(wakhan_table(turn=True, ai_deck=(AI_CARD_1,), loyalties=["russian", "british"]))
    assert events_of(g, "WakhanCardDrawn")[0]["ai_card"] == AI_CARD_1
    assert events_of(g, "WakhanLoyaltySet")[0]["coalition"] == "afghan"
    assert "AI card 1" in events_of(g, "WakhanLoyaltySet")[0]["reason"]


def test_a_humans_loyalty_change_makes_her_read_her_pragmatic_loyalty_again():
    g = wakhan_table(card=AI_CARD_1, loyalties=["british", "russian"])
    after = resolve(with_steps(g, ("loyalty_change", HUMAN, {"coalition": "russian"})))
    assert after.state.players[HUMAN].loyalty == Coalition.RUSSIAN
    assert after.state.players[WAKHAN].loyalty == Coalition.AFGHAN
    assert events_of(after, "WakhanLoyaltySet", len(g.history))[0]["coalition"] == "afghan"


def test_her_ruling_pieces_are_her_tribes_plus_the_most_numerous_coalitions_armies():
    spec = dict(card=AI_CARD_1, loyalties=["british", "russian"], tribes={"kabul": {HUMAN: 2, WAKHAN: 1}})
    # her russian loyalty does not matter: the two Afghan armies are the most numerous
    assert q.ruler_of(wakhan_table(**spec, armies={"kabul": {"afghan": 2}}).state, Region.KABUL) == WAKHAN
    assert q.ruler_of(wakhan_table(**spec, armies={"kabul": {"afghan": 1}}).state, Region.KABUL) is None
    # a human counts only the armies of their own coalition: 2 + 1 against her 1 + 2, a tie
    assert q.ruler_of(wakhan_table(**spec, armies={"kabul": {"british": 1, "afghan": 2}}).state,
                      Region.KABUL) is None
    assert q.ruler_of(wakhan_table(**spec, armies={"kabul": {"british": 1}}).state, Region.KABUL) == HUMAN


def test_she_plays_a_patriot_of_any_coalition_without_changing_loyalty():
    g = wakhan_table(card=AI_CARD_1, loyalties=["british", "russian"], courts={WAKHAN: [69]}, hands={WAKHAN: [36]})
    after = resolve(with_steps(g, ("play", WAKHAN, {"card": 36, "radicalize": True})))
    assert 36 in after.state.players[WAKHAN].court and 69 in after.state.players[WAKHAN].court
    assert after.state.players[WAKHAN].loyalty == Coalition.RUSSIAN
    assert not events_of(after, "LoyaltyChanged", len(g.history))
    assert not events_of(after, "ActionSpent", len(g.history)), "a radicalized card's play spends no action"


def test_at_a_successful_check_she_scores_with_her_influence_with_the_dominant_coalition():
    g = wakhan_table(card=AI_CARD_1, loyalties=["british", "russian"], armies={"kabul": {"british": 4}},
                     courts={HUMAN: [9], WAKHAN: [32, 36, 84]}, prizes={WAKHAN: [34]})
    after = resolve(with_steps(g, ("dominance_check", None, {"reason": "purchase"})))
    check = events_of(after, "DominanceCheckResolved", len(g.history))[0]
    assert check["dominant"] == "british"
    # her British patriots 32 and 36 and British prize 34: 1 + 2 + 1 = 4 against the human's 1
    assert {s["seat"]: s["points"] for s in check["scores"]} == {WAKHAN: 5, HUMAN: 3}
    assert q.influence_with(g.state, WAKHAN, Coalition.BRITISH) == 4


def test_she_discards_nothing_for_leverage_she_cannot_repay():
    g = wakhan_table(card=AI_CARD_1, courts={WAKHAN: [14, 29, 61]}, rupees=[4, 0])
    after = resolve(with_steps(g, ("discard_court_card", WAKHAN, {"card": 14, "dst": "discard"})))
    assert after.state.players[WAKHAN].court == [29, 61]
    assert not decisions(after, len(g.history)) and after.to_move() == [HUMAN]
