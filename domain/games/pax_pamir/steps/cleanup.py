"""Cleanup (R-CLN): court and hand limits, events in column 0, shift, refill and
Instability; then the next seat's turn (R-CLN-7)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import MARKET_COLUMNS, MARKET_ROWS
from domain.games.pax_pamir.data.cards import PUBLIC_WITHDRAWAL, is_dominance_check, is_event
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play, Procedure
from domain.games.pax_pamir.steps.court import DISCARD, discard_card
from domain.games.pax_pamir.steps.setup import market_fill_order
from domain.kernel.prompt import Prompt
from domain.kernel.steps import Frame, Step, handles


def over_limit(s: PaxState, seat: int, where: str) -> bool:
    """R-CLN-1 / R-CLN-2: does the seat's court (``where="court"``) or hand hold more cards
    than its limit?"""
    player = s.players[seat]
    if where == "court":
        return len(player.court) > q.court_limit(s, seat)
    return len(player.hand) > q.hand_limit(s, seat)


@mypyc_attr(allow_interpreted_subclasses=True)
class Cleanup(Procedure):
    """R-CLN-1 to R-CLN-6, in this order."""

    name = names.CLEANUP
    stages = ("court_limit", "hand_limit", "top_event", "bottom_event", "refill")

    def court_limit(self, t: Play, frame: Frame) -> None:
        if over_limit(t.state, frame.owner_seat, "court"):  # within it, there is nothing to discard
            t.call(names.LIMIT_DISCARD, frame.seat, where="court")

    def hand_limit(self, t: Play, frame: Frame) -> None:
        if over_limit(t.state, frame.owner_seat, "hand"):
            t.call(names.LIMIT_DISCARD, frame.seat, where="hand")

    def top_event(self, t: Play, frame: Frame) -> None:
        discard_column_zero_event(t, 0)

    def bottom_event(self, t: Play, frame: Frame) -> None:
        discard_column_zero_event(t, 1)

    def refill(self, t: Play, frame: Frame) -> None:
        if refill_market(t):  # Instability: refilling goes on (step Refill) once the check is resolved
            t.call(names.REFILL, None)
            t.call(names.DOMINANCE_CHECK, None, reason="instability")


def discard_column_zero_event(t: Play, row: int) -> None:
    """R-CLN-3: an event (or Dominance Check) in column 0 is discarded and resolves its
    discard effect; its rupees wait on the slot (R-CLN-4)."""
    number = t.state.market[row][0]
    if number is None or not (is_event(number) or is_dominance_check(number)):
        return
    t.emit(ev.card_moved(number, places.market(row, 0), "discard"))
    if is_dominance_check(number):
        t.call(names.DOMINANCE_CHECK, None, reason="discard")
    else:
        t.call(names.EVENT_DISCARDED, t.state.active, card=number)


@mypyc_attr(allow_interpreted_subclasses=True)
class LimitDiscard(Step[PaxState]):
    """R-CLN-1 / R-CLN-2: while over the limit (recomputed after every discard, and after
    the leverage discards it causes: section 23 item 13), discard a card of your choice."""

    name = names.LIMIT_DISCARD

    def asks(self, s: PaxState, frame: Frame) -> bool:
        """Over the limit, the owner is asked (a card to discard is always there)."""
        return over_limit(s, frame.owner_seat, frame.where)

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if not self.asks(s, frame):
            return None
        player = s.players[frame.owner_seat]
        if frame.where == "court":
            limit, cards = q.court_limit(s, frame.owner_seat), player.court
        else:
            limit, cards = q.hand_limit(s, frame.owner_seat), sorted(player.hand)
        return Prompt(frame.owner_seat, f"Cleanup: your {frame.where} holds {len(cards)} cards, over its limit of "
                      f"{limit}; discard one.").one_of(DISCARD, cards)

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()

    @handles(DISCARD)
    def discard(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        discard_card(t, seat, number)


def shift_market(t: Play) -> None:
    """R-CLN-4: in each row, cards slide left to close the gaps, each with its rupees; a card
    landing on waiting rupees adds them, except Public Withdrawal, which destroys them."""
    s = t.state
    for row in range(MARKET_ROWS):
        target = 0
        for column in range(MARKET_COLUMNS):
            number = s.market[row][column]
            if number is None:
                continue
            if column != target:
                carried = s.market_rupees[row][column]
                t.emit(ev.card_moved(number, places.market(row, column), places.market(row, target)))
                if carried:
                    t.emit(ev.rupees_moved(carried, places.market(row, column), places.market(row, target), "shift"))
                destroy_on_withdrawal(t, row, target)
            target += 1


def destroy_on_withdrawal(t: Play, row: int, column: int) -> None:
    """Section 16.2 and 23 item 4: rupees never stay on Public Withdrawal."""
    s = t.state
    if s.market[row][column] == PUBLIC_WITHDRAWAL and s.market_rupees[row][column]:
        t.emit(ev.rupees_moved(s.market_rupees[row][column], places.market(row, column), "removed", "withdrawal"))


@mypyc_attr(allow_interpreted_subclasses=True)
class Refill(Step[PaxState]):
    """R-CLN-5, R-CLN-6: shift, then fill every empty slot from the deck column by column; a
    Dominance Check drawn while another is in the market is Instability: both are
    discarded, one check is resolved, then shifting and refilling go on."""

    name = names.REFILL

    def advance(self, t: Play, frame: Frame) -> None:
        if refill_market(t):
            t.call(names.DOMINANCE_CHECK, None, reason="instability")  # then here again: shift and refill
        else:
            t.end()


def refill_market(t: Play) -> bool:
    """Shift, then fill every empty slot from the deck column by column; True when a
    Dominance Check drawn while another is in the market stopped it (Instability: both are
    discarded, and the caller has one check resolved before shifting and refilling go on).
    Cleanup runs it itself, entering the step ``Refill`` only to go on after Instability."""
    shift_market(t)
    s = t.state
    for row, column in market_fill_order():
        if s.market[row][column] is not None:
            continue
        if not s.deck:
            break
        number = s.deck[0]
        t.emit(ev.card_dealt(number, row, column))
        destroy_on_withdrawal(t, row, column)
        if is_dominance_check(number):
            others = [(r, c, n) for r, c, n in q.market_slots(s) if is_dominance_check(n) and (r, c) != (row, column)]
            if others:
                other_row, other_column, other = others[0]
                t.emit(ev.card_moved(other, places.market(other_row, other_column), "discard"))
                t.emit(ev.card_moved(number, places.market(row, column), "discard"))
                return True
    return False


STEPS = (Cleanup(), LimitDiscard(), Refill())
