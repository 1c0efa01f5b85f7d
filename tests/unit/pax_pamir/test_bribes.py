"""Bribes and negotiation (R-BRB, rules.md section 11; section 22; section 23 items 9 and 11)."""

from __future__ import annotations

import random

import pytest

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.data.cards import (
    CHARISMATIC_COURTIERS,
    CIVIL_SERVICE_REFORMS,
    COURT_CARDS,
    EventEffect,
)
from domain.games.pax_pamir.steps.bribes import VERBS as BRIBE_VERB_SPECS
from domain.games.pax_pamir.steps.bribes import hostage_bribe
from domain.kernel.errors import RuleViolation
from service.adapters.memory_store import MemoryStore
from service.play.services import GameService
from tests.helpers.play import start_game
from tests.helpers.scenario import expect, given
from tests.unit.pax_pamir.flow import (
    asked,
    assert_prompt_is_the_law,
    assert_reveals_no_hidden_card,
    choices,
    cmd,
    resolve,
    with_steps,
)
from tests.unit.pax_pamir.table import table

SHAH_SHUJAH = 5  # Kabul, political, one tribe icon, no patriot
HIDDEN = 20  # Henry Rawlinson, kept in seat 0's hand and never named to seat 1
MOHAN_LAL = 1  # Kabul intelligence card, a hostage in the hostage scenarios
KABUL_TRIBES = 2


def kabul_ruled_by_seat_1(**overrides):
    """Seat 1 (British) rules Kabul with two tribes; seat 0 (Afghan) holds Shah Shujah."""
    spec = dict(hands={0: [SHAH_SHUJAH, HIDDEN]}, tribes={"kabul": {1: KABUL_TRIBES}}, rupees=[4, 3])
    spec.update(overrides)
    return table(**spec)


def play(g):
    g = g.when(0, cmd("Play", card=SHAH_SHUJAH))
    return g.when(0, cmd("ChooseSide", side="right")) if ("ChooseSide", "right") in choices(g, 0) else g


def offered(g, amount):
    return play(g).when(0, cmd("OfferBribe", amount=amount))


# -- who owes a bribe (R-PLY-2, R-BRB-1) -------------------------------------------------------

def test_r_ply_2_playing_in_a_region_another_seat_rules_owes_one_rupee_per_tribe_of_the_ruler():
    g = play(kabul_ruled_by_seat_1(armies={"kabul": {"british": 3}}))
    prompt = asked(g, 0)
    assert "asks a bribe of 2 rupees" in prompt.text  # tribes only, not its three armies
    assert g.to_move() == [0]
    g.then_not("ActionSpent", expect("CardMoved", card=SHAH_SHUJAH))


@pytest.mark.parametrize("spec", [
    pytest.param(dict(tribes={"kabul": {0: 3, 1: 2}}), id="you rule the region"),
    pytest.param(dict(tribes={"kabul": {0: 2, 1: 2}}), id="nobody rules (a tie)"),
    pytest.param(dict(courts={0: [CHARISMATIC_COURTIERS]}), id="charismatic courtiers"),
    pytest.param(dict(effects={EventEffect.DISREGARD_FOR_CUSTOMS: None}), id="disregard for customs"),
])
def test_r_ply_2_no_bribe_is_owed(spec):
    play(kabul_ruled_by_seat_1(**spec)).then(
        expect("ActionSpent", seat=0, action="play"),
        expect("CardMoved", card=SHAH_SHUJAH, src="hand:0", dst="court:0")).then_not("RupeesMoved")


# -- paying in full (R-BRB-2, R-BRB-5) --------------------------------------------------------

def test_r_brb_2_paying_in_full_gives_the_rupees_to_the_recipient_then_the_card_is_played():
    g = play(kabul_ruled_by_seat_1()).when(0, cmd("PayBribe"))
    g.then(expect("RupeesMoved", amount=2, src="seat:0", dst="seat:1", reason="bribe"),
           expect("ActionSpent", seat=0, action="play"),
           expect("CardMoved", card=SHAH_SHUJAH, src="hand:0", dst="court:0"),
           expect("PieceMoved", kind="tribe", owner=0, dst="kabul"))
    assert [p.rupees for p in g.state.players] == [2, 5]
    assert g.state.actions_left == 1


def test_the_payers_first_prompt_lists_pay_offer_and_abandon_and_is_the_law():
    g = play(kabul_ruled_by_seat_1())
    assert choices(g, 0) == {("PayBribe", None), ("OfferBribe", 0), ("OfferBribe", 1), ("OfferBribe", 2),
                             ("AbandonBribe", None)}
    assert asked(g, 0).text == ("Seat 1 rules Kabul and asks a bribe of 2 rupees to play Shah Shujah Durrani "
                                "(card 5) in Kabul. Pay it, offer less, or give up.")
    assert_prompt_is_the_law(g, 0)
    assert_reveals_no_hidden_card(g, announced=(SHAH_SHUJAH,))


def test_r_brb_4_a_payer_short_of_rupees_may_offer_only_what_it_has():
    g = play(kabul_ruled_by_seat_1(rupees=[1, 3]))
    assert choices(g, 0) == {("OfferBribe", 0), ("OfferBribe", 1), ("AbandonBribe", None)}
    g.when(0, cmd("PayBribe")).then_rejects("no bribe is asked of you now")
    g.when(0, cmd("OfferBribe", amount=2)).then_rejects("outside 0..1")


def test_r_ply_2_abandoning_the_bribe_spends_no_action_and_the_card_stays_in_hand():
    g = play(kabul_ruled_by_seat_1()).when(0, cmd("AbandonBribe"))
    g.then_not("ActionSpent", "RupeesMoved", "CardMoved")
    s = g.state
    assert s.actions_left == 2 and SHAH_SHUJAH in s.players[0].hand
    assert g.to_move() == [0] and s.frames[-1].step == "turn"


# -- negotiation (R-BRB-3, R-BRB-4) -----------------------------------------------------------

def test_r_brb_4_an_offer_is_a_decision_owed_by_the_recipient():
    g = offered(kabul_ruled_by_seat_1(), 1)
    assert g.to_move() == [1]
    assert g.legal(0) == []
    assert choices(g, 1) == {("AcceptBribeOffer", None), ("CounterBribeOffer", 2), ("DeclineBribeOffer", None)}
    assert asked(g, 1).text == ("Seat 0 offers you 1 rupee of the 2 owed to play Shah Shujah Durrani (card 5) "
                                "in Kabul. Accept, ask for more, or decline.")
    assert_prompt_is_the_law(g, 1)
    assert_reveals_no_hidden_card(g, announced=(SHAH_SHUJAH,))


def test_r_brb_4_the_recipient_accepting_makes_the_offer_the_bribe():
    g = offered(kabul_ruled_by_seat_1(), 1).when(1, cmd("AcceptBribeOffer"))
    g.then(expect("RupeesMoved", amount=1, src="seat:0", dst="seat:1", reason="bribe"),
           expect("ActionSpent", seat=0), expect("CardMoved", card=SHAH_SHUJAH, dst="court:0"))
    assert [p.rupees for p in g.state.players] == [3, 4]
    assert g.to_move() == [0]


def test_r_brb_3_accepting_an_offer_of_nothing_waives_the_bribe():
    g = offered(kabul_ruled_by_seat_1(), 0).when(1, cmd("AcceptBribeOffer"))
    g.then(expect("CardMoved", card=SHAH_SHUJAH, dst="court:0")).then_not("RupeesMoved")


def test_r_brb_4_a_counter_lies_above_the_offer_and_at_most_the_amount():
    g = offered(kabul_ruled_by_seat_1(tribes={"kabul": {1: 4}}, rupees=[5, 0]), 1)
    assert {v for verb, v in choices(g, 1) if verb == "CounterBribeOffer"} == {2, 3, 4}
    g.when(1, cmd("CounterBribeOffer", amount=1)).then_rejects("outside 2..4")
    g.when(1, cmd("CounterBribeOffer", amount=5)).then_rejects("outside 2..4")


def test_r_brb_4_after_a_counter_the_payer_accepts_raises_or_abandons():
    g = offered(kabul_ruled_by_seat_1(tribes={"kabul": {1: 4}}, rupees=[5, 0]), 1)
    g = g.when(1, cmd("CounterBribeOffer", amount=3))
    assert g.to_move() == [0]
    assert choices(g, 0) == {("AcceptBribeCounter", None), ("OfferBribe", 2), ("AbandonBribe", None)}
    assert asked(g, 0).text == ("Seat 1 answers your offer of 1 rupee with 3 rupees (of the 4 owed to play "
                                "Shah Shujah Durrani (card 5) in Kabul). Accept, raise your offer, or give up.")
    assert_prompt_is_the_law(g, 0)
    accepted = g.when(0, cmd("AcceptBribeCounter"))
    accepted.then(expect("RupeesMoved", amount=3, src="seat:0", dst="seat:1"), expect("ActionSpent"))
    assert [p.rupees for p in accepted.state.players] == [2, 3]


def test_r_brb_4_a_raised_offer_goes_back_to_the_recipient():
    g = offered(kabul_ruled_by_seat_1(tribes={"kabul": {1: 4}}, rupees=[5, 0]), 1)
    g = g.when(1, cmd("CounterBribeOffer", amount=4)).when(0, cmd("OfferBribe", amount=3))
    assert g.to_move() == [1]
    assert choices(g, 1) == {("AcceptBribeOffer", None), ("CounterBribeOffer", 4), ("DeclineBribeOffer", None)}
    g.when(1, cmd("AcceptBribeOffer")).then(expect("RupeesMoved", amount=3, src="seat:0", dst="seat:1"))


def test_r_brb_4_a_counter_the_payer_cannot_afford_can_only_be_raised_to_or_abandoned():
    g = offered(kabul_ruled_by_seat_1(tribes={"kabul": {1: 3}}, rupees=[2, 0]), 0)
    g = g.when(1, cmd("CounterBribeOffer", amount=3))
    assert choices(g, 0) == {("OfferBribe", 1), ("OfferBribe", 2), ("AbandonBribe", None)}


def test_r_brb_4_the_payer_may_abandon_after_a_counter_and_no_action_is_spent():
    g = offered(kabul_ruled_by_seat_1(), 0).when(1, cmd("CounterBribeOffer", amount=2))
    g = g.when(0, cmd("AbandonBribe"))
    g.then_not("RupeesMoved", "ActionSpent")
    assert g.state.actions_left == 2 and SHAH_SHUJAH in g.state.players[0].hand


def test_r_brb_4_after_a_decline_the_payer_may_pay_in_full_offer_again_or_abandon():
    g = offered(kabul_ruled_by_seat_1(), 1).when(1, cmd("DeclineBribeOffer"))
    g.then(expect("BribeDeclined", payer=0, recipient=1, offer=1))
    assert g.state.declined_bribes == 1
    assert g.to_move() == [0]
    assert choices(g, 0) == {("PayBribe", None), ("OfferBribe", 0), ("OfferBribe", 1), ("OfferBribe", 2),
                             ("AbandonBribe", None)}


def test_r_brb_4_declines_are_capped_at_three_a_turn_then_only_full_payment_or_abandoning():
    g = play(kabul_ruled_by_seat_1())
    for declined in range(1, 4):
        g = g.when(0, cmd("OfferBribe", amount=0)).when(1, cmd("DeclineBribeOffer"))
        assert g.state.declined_bribes == declined
    assert choices(g, 0) == {("PayBribe", None), ("AbandonBribe", None)}
    g.when(0, cmd("OfferBribe", amount=1)).then_rejects("you cannot offer a bribe now")
    assert_prompt_is_the_law(g, 0)


def test_r_brb_4_the_cap_holds_for_the_whole_turn_across_bribes():
    g = play(kabul_ruled_by_seat_1(hands={0: [SHAH_SHUJAH, MOHAN_LAL]}))
    for _ in range(3):
        g = g.when(0, cmd("OfferBribe", amount=0)).when(1, cmd("DeclineBribeOffer"))
    g = g.when(0, cmd("AbandonBribe")).when(0, cmd("Play", card=MOHAN_LAL))  # another Kabul card
    if ("ChooseSide", "right") in choices(g, 0):
        g = g.when(0, cmd("ChooseSide", side="right"))
    assert choices(g, 0) == {("PayBribe", None)}  # a bribe started after the cap binds (section 23 item 16)


# -- giving up at a bribe, and starting again (section 23 item 16) ------------------------------

def give_up_three_times(g):
    """Seat 0 starts the play of Shah Shujah and gives up at its bribe, three times."""
    for _ in range(3):
        g = play(g).when(0, cmd("AbandonBribe"))
    return g


def test_section_23_item_16_a_play_given_up_at_its_bribe_may_be_started_again_and_costs_nothing():
    g = play(kabul_ruled_by_seat_1(hands={0: [SHAH_SHUJAH, MOHAN_LAL]})).when(0, cmd("AbandonBribe"))
    g.then(expect("BribeAbandoned", payer=0, recipient=1, card=SHAH_SHUJAH, purpose="play")).then_not(
        "RupeesMoved", "ActionSpent")
    assert g.state.actions_left == 2 and SHAH_SHUJAH in g.state.players[0].hand
    assert ("Play", SHAH_SHUJAH) in choices(g, 0)
    again = play(g)
    assert choices(again, 0) >= {("PayBribe", None), ("OfferBribe", 0), ("AbandonBribe", None)}
    again.when(0, cmd("PayBribe")).then(expect("CardMoved", card=SHAH_SHUJAH, dst="court:0"))


def test_section_23_item_16_a_hostage_card_given_up_at_its_bribe_may_be_used_again():
    g = hostage_table(courts={0: [MOHAN_LAL, SHAH_SHUJAH]}).when(0, cmd("Move", card=MOHAN_LAL))
    g = g.when(0, cmd("AbandonBribe"))
    g.then(expect("BribeAbandoned", payer=0, recipient=1, card=MOHAN_LAL, purpose="hostage")).then_not(
        "CardUsed", "ActionSpent")
    assert ("Move", MOHAN_LAL) in choices(g, 0)
    g.when(0, cmd("Move", card=MOHAN_LAL)).when(0, cmd("PayBribe")).then(
        expect("RupeesMoved", amount=2, src="seat:0", dst="seat:1"), expect("CardUsed", card=MOHAN_LAL))


def test_section_23_item_16_a_give_up_counts_with_the_declines_toward_three_a_turn():
    g = play(kabul_ruled_by_seat_1()).when(0, cmd("OfferBribe", amount=0)).when(1, cmd("DeclineBribeOffer"))
    g = g.when(0, cmd("AbandonBribe"))
    assert g.state.declined_bribes == 2
    g = play(g).when(0, cmd("AbandonBribe"))
    assert g.state.declined_bribes == 3
    assert given(RULES, *g.history, ev.turn_started(1, 2)).state.declined_bribes == 0  # R-TRN-7


def test_section_23_item_16_after_three_a_bribe_can_only_be_paid_in_full():
    g = play(give_up_three_times(kabul_ruled_by_seat_1()))
    assert choices(g, 0) == {("PayBribe", None)}
    assert asked(g, 0).text.endswith("Three bribes have been declined or given up this turn: pay it in full.")
    g.when(0, cmd("AbandonBribe")).then_rejects("no bribe is asked of you now")
    g.when(0, cmd("OfferBribe", amount=0)).then_rejects("you cannot offer a bribe now")
    assert_prompt_is_the_law(g, 0)


def test_section_23_item_16_after_three_a_bribe_started_before_may_still_be_given_up():
    g = play(kabul_ruled_by_seat_1())
    for _ in range(3):
        g = g.when(0, cmd("OfferBribe", amount=0)).when(1, cmd("DeclineBribeOffer"))
    assert choices(g, 0) == {("PayBribe", None), ("AbandonBribe", None)}


def test_section_23_item_16_after_three_a_play_whose_bribe_cannot_be_paid_in_full_is_not_offered():
    g = give_up_three_times(kabul_ruled_by_seat_1(rupees=[1, 3], hands={0: [SHAH_SHUJAH, HIDDEN]}))
    assert ("Play", SHAH_SHUJAH) not in choices(g, 0)
    assert ("Play", HIDDEN) in choices(g, 0)  # Henry Rawlinson's region, Punjab, nobody rules
    g.when(0, cmd("Play", card=SHAH_SHUJAH)).then_rejects(f"{SHAH_SHUJAH} is not a choice here")
    assert_prompt_is_the_law(g, 0)


def test_section_23_item_16_courtly_manners_may_still_refuse_after_three():
    g = play(give_up_three_times(kabul_ruled_by_seat_1(rupees=[1, 3], effects={EventEffect.COURTLY_MANNERS: 0})))
    assert choices(g, 0) == {("RefuseBribe", None)}


def test_section_23_item_16_a_play_that_owes_no_bribe_at_that_moment_is_always_offered():
    g = give_up_three_times(kabul_ruled_by_seat_1(rupees=[1, 3]))
    assert ("Play", SHAH_SHUJAH) not in choices(g, 0)
    lost = given(RULES, *g.history, *[ev.piece_moved("tribe", 1, "kabul", "supply") for _ in range(KABUL_TRIBES)])
    assert ("Play", SHAH_SHUJAH) in choices(lost, 0)  # the ruler lost Kabul: nothing is owed now
    play(lost).then(expect("CardMoved", card=SHAH_SHUJAH, dst="court:0")).then_not("RupeesMoved")


def test_section_23_item_16_after_three_a_hostage_card_is_offered_only_if_its_bribe_can_be_paid():
    g = hostage_table(courts={0: [MOHAN_LAL, SHAH_SHUJAH]}, rupees=[2, 0])
    for _ in range(3):
        g = g.when(0, cmd("Move", card=MOHAN_LAL)).when(0, cmd("AbandonBribe"))
    assert ("Move", MOHAN_LAL) in choices(g, 0)  # the bribe of 2 can be paid in full
    assert choices(g.when(0, cmd("Move", card=MOHAN_LAL)), 0) == {("PayBribe", None)}
    poorer = given(RULES, *g.history, ev.rupees_moved(1, "seat:0", "bank", "test"))
    assert not {c for c in choices(poorer, 0) if c[1] == MOHAN_LAL}


def test_r_trn_7_declined_bribes_are_counted_afresh_each_turn():
    g = play(kabul_ruled_by_seat_1()).when(0, cmd("OfferBribe", amount=0)).when(1, cmd("DeclineBribeOffer"))
    assert g.state.declined_bribes == 1
    assert given(RULES, *g.history, ev.turn_started(1, 2)).state.declined_bribes == 0


# -- Courtly Manners (R-PLY-2, R-ACT-2) ---------------------------------------------------------

def test_courtly_manners_lets_its_holder_refuse_to_pay_and_still_play():
    g = play(kabul_ruled_by_seat_1(effects={EventEffect.COURTLY_MANNERS: 0}))
    assert ("RefuseBribe", None) in choices(g, 0)
    g = g.when(0, cmd("RefuseBribe"))
    g.then(expect("ActionSpent", seat=0), expect("CardMoved", card=SHAH_SHUJAH, dst="court:0"))
    g.then_not("RupeesMoved")


def test_courtly_manners_also_answers_a_counter():
    g = offered(kabul_ruled_by_seat_1(effects={EventEffect.COURTLY_MANNERS: 0}), 0)
    g = g.when(1, cmd("CounterBribeOffer", amount=2))
    assert ("RefuseBribe", None) in choices(g, 0)


def test_courtly_manners_held_by_another_seat_does_not_let_the_payer_refuse():
    g = play(kabul_ruled_by_seat_1(effects={EventEffect.COURTLY_MANNERS: 1}))
    assert ("RefuseBribe", None) not in choices(g, 0)
    g.when(0, cmd("RefuseBribe")).then_rejects("you may not refuse a bribe now")


# -- undo barriers (section 23 item 9) -----------------------------------------------------------

def test_section_23_9_undo_stops_at_every_hand_over_between_payer_and_recipient():
    """The service refuses to undo a move whose events hold a barrier; the kernel marks the
    last event of a command when the seat owing the next decision changes."""
    g = play(kabul_ruled_by_seat_1(tribes={"kabul": {1: 4}}, rupees=[5, 0]))
    assert not any(e.barrier for e in g.events)  # still the payer's own decision
    g = g.when(0, cmd("OfferBribe", amount=1))
    assert g.events[-1].barrier  # to the recipient
    g = g.when(1, cmd("CounterBribeOffer", amount=3))
    assert g.events[-1].barrier  # back to the payer
    g = g.when(0, cmd("OfferBribe", amount=2))
    assert g.events[-1].barrier
    g = g.when(1, cmd("AcceptBribeOffer"))
    assert g.events[-1].barrier  # the active seat goes on
    g = g.when(0, cmd("EndTurn"))
    assert g.events[-1].barrier


def test_section_23_9_within_the_payers_own_decisions_undo_is_not_stopped():
    g = play(kabul_ruled_by_seat_1()).when(0, cmd("PayBribe"))
    assert not any(e.barrier for e in g.events)


# -- hostage bribes (R-ACT-2, R-HST) -------------------------------------------------------------

def hostage_table(**overrides):
    spec = dict(courts={0: [MOHAN_LAL]}, spies={MOHAN_LAL: {1: 2, 0: 1}}, rupees=[3, 0])
    spec.update(overrides)
    return table(**spec)


def test_r_act_2_a_hostage_card_owes_its_holder_one_rupee_per_spy():
    assert hostage_bribe(hostage_table().state, 0, MOHAN_LAL) == (1, 2)


@pytest.mark.parametrize("spec", [
    pytest.param(dict(spies={MOHAN_LAL: {1: 1, 0: 1}}), id="a tie with the owner"),
    pytest.param(dict(courts={0: [MOHAN_LAL, CIVIL_SERVICE_REFORMS]}), id="civil service reforms"),
    pytest.param(dict(effects={EventEffect.DISREGARD_FOR_CUSTOMS: None}), id="disregard for customs"),
])
def test_r_act_2_no_hostage_bribe_is_owed(spec):
    assert hostage_bribe(hostage_table(**spec).state, 0, MOHAN_LAL) is None


def hostage_bribe_asked(reserve, **overrides):
    return with_steps(hostage_table(**overrides), ("bribe", 0, {
        "recipient": 1, "amount": 2, "reserve": reserve, "card": MOHAN_LAL, "purpose": "hostage"}))


def test_r_act_2_the_bribe_must_leave_the_actions_minimum_cost():
    g = hostage_bribe_asked(reserve=2)
    assert choices(g, 0) == {("OfferBribe", 0), ("OfferBribe", 1), ("AbandonBribe", None)}
    assert asked(g, 0).text.startswith("Seat 1 holds Mohan Lal (card 1) hostage and asks a bribe of 2 rupees "
                                       "to use Mohan Lal (card 1).")
    assert_prompt_is_the_law(g, 0)


def test_r_act_2_a_counter_beyond_what_the_reserve_leaves_cannot_be_accepted():
    g = hostage_bribe_asked(reserve=2).when(0, cmd("OfferBribe", amount=0))
    g = g.when(1, cmd("CounterBribeOffer", amount=2))
    assert choices(g, 0) == {("OfferBribe", 1), ("AbandonBribe", None)}


def test_r_act_2_a_settled_hostage_bribe_returns_to_the_action_which_goes_on():
    g = hostage_bribe_asked(reserve=0).when(0, cmd("PayBribe"))
    g.then(expect("RupeesMoved", amount=2, src="seat:0", dst="seat:1", reason="bribe"))
    assert g.state.frames[-1].step == "turn" and "bribe" not in [f.step for f in g.state.frames]
    assert "abandoned" not in g.state.frames[-1].locals


def test_r_act_2_an_abandoned_hostage_bribe_tells_the_caller():
    g = hostage_bribe_asked(reserve=0).when(0, cmd("AbandonBribe"))
    assert g.state.frames[-1].locals.get("abandoned") is True


def test_a_bribe_of_nothing_asks_nobody_anything():
    g = resolve(with_steps(hostage_table(), ("bribe", 0, {
        "recipient": 1, "amount": 0, "reserve": 0, "card": MOHAN_LAL, "purpose": "hostage"})))
    assert g.state.frames[-1].step == "turn"


def test_the_hidden_card_in_the_payers_hand_is_never_named_to_the_recipient():
    g = offered(kabul_ruled_by_seat_1(), 1)
    text = asked(g, 1).text
    assert COURT_CARDS[HIDDEN].name not in text and str(HIDDEN) not in text


# -- through the service: undo (section 23 item 9) ---------------------------------------------------------

BRIBE_VERBS = {verb.type for verb in BRIBE_VERB_SPECS}


def game_at_a_bribe(service, players, game_id, rng):
    """Random legal play (never a bribe verb) until some seat is asked a bribe; None if the
    game ends first."""
    for _ in range(3000):
        game = service.load(game_id)
        if game.over:
            return None
        seat = game.rules.to_move(game.state)[0]
        legal = game.rules.legal_commands(game.state, seat)
        if any(c.type == "OfferBribe" for c in legal):
            return seat
        service.submit_command(game_id, players[seat], rng.choice([c for c in legal if c.type not in BRIBE_VERBS]))
    return None


def test_section_23_9_through_the_service_undo_stops_at_each_hand_over_and_works_within_one_seats_moves():
    service = GameService(MemoryStore(), {RULES.kind: RULES})
    for seed in range(20):
        game_id, players = start_game(service, RULES.kind, 2)
        payer = game_at_a_bribe(service, players, game_id, random.Random(seed))
        if payer is not None:
            break
    else:
        pytest.fail("no bribe arose in 20 random games")
    service.submit_command(game_id, players[payer], cmd("OfferBribe", amount=0))
    with pytest.raises(RuleViolation):
        service.undo(game_id, players[payer])  # the offer handed the decision to the recipient
    recipient = RULES.to_move(service.load(game_id).state)[0]
    assert recipient != payer
    service.submit_command(game_id, players[recipient], cmd("DeclineBribeOffer"))
    with pytest.raises(RuleViolation):
        service.undo(game_id, players[recipient])
    with pytest.raises(RuleViolation, match="another seat has acted"):
        service.undo(game_id, players[payer])
    service.submit_command(game_id, players[payer], cmd("AbandonBribe"))
    service.undo(game_id, players[payer])  # the payer's own move, with nobody else asked since
    game = service.load(game_id)
    assert RULES.prompt(game.state, payer).allows("AbandonBribe")
