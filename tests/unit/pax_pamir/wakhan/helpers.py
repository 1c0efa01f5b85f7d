"""Mid-game tables with Wakhan (rules.md section 20), built from events like ``table``.

``wakhan_table(...)`` is ``table(...)`` with the option ``wakhan``: seats 0..humans-1 are the
humans, the last seat is hers. Her AI deck is ``ai_deck`` (top first; the other AI cards follow
in order). With ``card`` she has drawn it already (its arrows read the back of the deck's new
top card); ``turn=True`` instead leaves her about to take her turn (she draws first).
"""

from __future__ import annotations

from typing import Any

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS
from domain.kernel.steps import step_entered
from tests.helpers.scenario import Given, given
from tests.unit.pax_pamir.flow import resolve
from tests.unit.pax_pamir.table import table


def wakhan_table(humans: int = 1, *, card: int | None = None, ai_deck: tuple[int, ...] = (),
                 turn: bool = False, loyalties: list[str] | None = None, options: dict[str, Any] | None = None,
                 **spec: Any) -> Given:
    seats = humans + 1
    her = seats - 1
    loyalties = loyalties or (["british", "afghan"][:humans] + ["russian"])
    at_menu = not turn and card is None and spec.pop("at_menu", True)
    g = table(seats, loyalties=loyalties, options={"wakhan": True, **(options or {})},
              at_menu=at_menu, active=spec.pop("active", 0 if at_menu else her), **spec)
    top = ([card] if card is not None else []) + list(ai_deck)
    deck = top + [n for n in sorted(AI_CARDS) if n not in top]
    history = [*g.history, ev.wakhan_deck_shuffled(deck)]
    if card is not None:
        history.append(ev.wakhan_card_drawn(card, AI_CARDS[deck[1]].back()))
    if turn:
        history += [step_entered("turns", None, {"next": 0}), ev.turn_started(her, 2),
                    step_entered("wakhan_turn", her, {})]
    elif card is not None:
        history += [step_entered("turns", None, {"next": 0}), ev.turn_started(her, 2),
                    step_entered("wakhan_turn", her, {"phase": "actions", "tried": 0, "skips": 0})]
    return given(RULES, *history)


def her_turn(g: Given) -> Given:
    """Her turn played out by the engine (until a human is asked something)."""
    return resolve(g)


def decisions(g: Given, since: int = 0) -> list[dict[str, Any]]:
    """Her recorded decisions (``WakhanDecided`` data) after the first ``since`` events."""
    return [e.data for e in g.history[since:] if e.type == "WakhanDecided"]


def events_of(g: Given, kind: str, since: int = 0) -> list[dict[str, Any]]:
    return [e.data for e in g.history[since:] if e.type == kind]
