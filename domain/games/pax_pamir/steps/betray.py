"""Betray (R-BTR, rules.md section 10): discard a court card holding the betrayer's spy,
and perhaps keep it as a prize."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    Coalition,
    Suit,
)
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    Ability,
)
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    CARD,
    ActionStep,
    Play,
    my_spies,
    seat_of,
)
from domain.games.pax_pamir.steps.court import discard_from_court
from domain.kernel.prompt import Arg, Prompt, Verb
from domain.kernel.steps import Frame, handles

#: R-BTR-1: the price of a Betray.
BETRAY_COST: Final = 2


def betrayable_cards(s: PaxState, seat: int) -> list[int]:
    """R-BTR-2: court cards, any court, with a spy of the seat; not a political card in the
    court of a Bodyguards owner."""
    found = []
    for owner, number in q.court_cards(s):
        if my_spies(s, seat, number) <= 0:
            continue
        if COURT_CARDS[number].suit == Suit.POLITICAL and q.has_ability(s, owner, Ability.BODYGUARDS):
            continue
        found.append(number)
    return found


#: the verbs of this module, each said once: declared here, handled and offered by name
BETRAY_CARD: Final = Verb("BetrayCard", "Betray: discard this court card holding your spy (R-BTR-2).", Arg("card", CARD),
                          refusal="you are not betraying now")
KEEP_PRIZE: Final = Verb("KeepPrize", "Keep the betrayed card as a prize (R-BTR-4).", refusal="no prize is offered to you now")
REFUSE_PRIZE: Final = Verb("RefusePrize", "Leave the betrayed card in the discard pile (R-BTR-4).",
                           refusal="no prize is offered to you now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Betray(ActionStep):
    """R-BTR-2, R-BTR-3: discard a court card holding your spy (any court, yours too, section
    21 item 13; not a political card of a Bodyguards owner); then its prize (R-BTR-4)."""

    name = names.BETRAY

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        cards = betrayable_cards(s, seat_of(frame))
        if not cards:
            return None
        return Prompt(seat_of(frame), "Betray: discard a court card holding your spy.").one_of(BETRAY_CARD, cards)

    @handles(BETRAY_CARD)
    def betray(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        owner = q.owner_of(t.state, number)
        assert owner is not None
        if COURT_CARDS[number].prize is not None:
            t.goto(names.PRIZE, seat, card=number, kept=False)
        else:
            t.end()
        discard_from_court(t, owner, number)


def prize_of(number: int) -> Coalition:
    prize = COURT_CARDS[number].prize
    assert prize is not None, f"card {number} is no prize"
    return prize


@mypyc_attr(allow_interpreted_subclasses=True)
class Prize(ActionStep):
    """R-BTR-4: the betrayer may keep the card as a prize; one of another coalition first
    changes their loyalty (R-LOY). Refused, it stays in the discard pile."""

    name = names.PRIZE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if frame.kept:
            return None
        seat = seat_of(frame)
        prize = prize_of(frame.card)
        change = "" if prize == s.players[seat].loyalty else f" (your loyalty changes to {prize})"
        return (Prompt(seat, f"Betray: keep card {frame.card} as a {prize} prize{change}, or refuse it?")
                .nothing(KEEP_PRIZE).nothing(REFUSE_PRIZE))

    def advance(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        t.end()
        t.emit(ev.card_moved(frame.card, "discard", places.prizes(seat)))

    @handles(KEEP_PRIZE)
    def keep(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.update(kept=True)
        prize = prize_of(frame.card)
        if prize != t.state.players[seat].loyalty and not is_wakhan(t.state, seat):  # she never changes loyalty
            t.call(names.LOYALTY_CHANGE, seat, coalition=str(prize))

    @handles(REFUSE_PRIZE)
    def refuse(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()


VERBS = (
    BETRAY_CARD,
    KEEP_PRIZE,
    REFUSE_PRIZE,
)

STEPS = (Betray(), Prize())
