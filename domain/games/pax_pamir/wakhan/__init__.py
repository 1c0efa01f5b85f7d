"""Wakhan, the automated opponent for 1 or 2 humans (rules.md section 20; the rulings where
the section is silent are in docs/rules/pax_pamir.md).

She is part of the rules, an option of the game (``wakhan``): she sits in the last seat, takes
no loyalty, and no client is ever asked for her. Her turn is a step that runs by itself
(``turn``); every other question the rules put to her seat (a bribe she is owed, a Safe House,
a road to place) is answered by ``answers`` as soon as it is asked, inside the same command, by
``take_her_decision``. Each decision is an event that says why (the AI card and the rule).

Modules, one per part of her: ``ai_cards`` (the 24 cards), ``card`` (reading them),
``loyalty`` (pragmatic loyalty), ``priority`` (card priority and discard order),
``radicalize`` (which card to buy and play), ``actions`` (default card-based actions),
``answers`` (every other question), ``turn`` (her turn).
"""

from __future__ import annotations

from typing import Any

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.wakhan import loyalty, turn
from domain.games.pax_pamir.wakhan.answers import answer
from domain.games.pax_pamir.wakhan.card import why
from domain.kernel.engine import StepRules
from domain.kernel.steps import Flow

STEPS = (*turn.STEPS, loyalty.WakhanLoyalty())
VERBS = turn.VERBS


def take_her_decision(rules: StepRules[PaxState], flow: Flow[PaxState]) -> bool:
    """If the rules wait for Wakhan, answer for her (recording why) and say so."""
    s = flow.state
    if s.wakhan is None or rules.is_over(s):
        return False
    seat = s.wakhan.seat
    asked = rules.prompt(s, seat)
    if asked is None:
        return False
    found = rules.current(s)
    assert found is not None, "she is asked, so some step is current"
    frame, step = found
    verb, value, rule = answer(s, frame, asked)
    asked.check(verb, value)  # her rules choose among what the prompt offers, like any seat
    handler = step.handler(verb)
    assert handler is not None, f"step {step.name!r} offers {verb} but has no handler for it"
    arg = next(v.arg for v in rules.verbs if v.type == verb)
    args: dict[str, Any] = {} if arg is None else {arg.name: value}
    flow.emit(ev.wakhan_decided(seat, frame.step, {"type": verb, "args": args}, s.wakhan.card, why(s, rule)))
    handler(flow, frame, seat, value)
    return True
