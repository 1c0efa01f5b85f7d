"""Card-based actions (R-ACT, rules.md section 10): tax, gift, build, move, betray, battle."""

from __future__ import annotations

from domain.games.pax_pamir.data.cards import CardAction
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps.common import Play


def usable_cards(s: PaxState, seat: int, action: CardAction) -> list[int]:
    """Court cards of ``seat`` that may take ``action`` now (R-ACT-1, R-ACT-4, R-TRN-3/4)."""
    return []


def start(t: Play, seat: int, number: int, action: CardAction) -> None:
    raise AssertionError("no card-based action is offered yet")


VERBS: tuple = ()
STEPS: tuple = ()
