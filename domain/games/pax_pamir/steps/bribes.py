"""Bribes and negotiation (R-BRB, rules.md section 11; section 23 item 11).

A bribe is owed to a ruler for a play (R-PLY-2) or to a hostage holder for a card-based
action (R-ACT-2). The caller starts it with ``ask(t, payer, recipient, amount, reserve,
card, purpose)`` and reads ``abandoned`` in its own locals when the bribe step returns:
set, the play or action does not happen and no action is spent (``BribeAbandoned``);
unset, the bribe was settled (paid, agreed lower, or refused under Courtly Manners) and the
caller goes on.

Giving up costs nothing, and the same play or card action may be started again later in
the turn (section 23 item 16). A give-up counts with the declines toward the three a turn
(``DECLINED_BRIBES_LIMIT``); after three, a bribe can only be paid in full: a play or action
that owes one is offered only when it can be paid (``may_start``), and a bribe started then
cannot be given up (``binding``). Every turn is therefore finite. A play or action that owes
no bribe is never held back.

The decisions belong to the seats the rulebook gives them to (section 22):

* the **payer** (step ``bribe``) pays ``A`` in full (R-BRB-2), offers ``x`` with
  ``0 <= x <= A`` and ``x <= rupees - reserve`` (R-BRB-4, R-ACT-2), refuses to pay at all
  while holding Courtly Manners, or abandons;
* the **recipient** (step ``bribe_offer``, a decision owed by a seat that is not the active
  one) accepts the offer (the bribe becomes ``x``), counters with ``y``, ``x < y <= A``, or
  declines;
* after a counter, the payer accepts it, raises its offer (``x < x' < y``), or abandons;
  after a decline the payer is back at the start.

Declines are counted per turn (``BribeDeclined``), give-ups with them; after
``DECLINED_BRIBES_LIMIT`` the payer may no longer offer less. Bribe rupees go to the
recipient (R-BRB-5). Every hand-over between the two seats is an undo barrier (section 23
item 9; the kernel marks it, ``barrier_on_handover``).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.cards import COURT_CARDS, Ability, EventEffect
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play
from domain.kernel.prompt import AMOUNT, Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

PLAY: Final = "play"
HOSTAGE: Final = "hostage"


def rupees(n: int) -> str:
    return f"{n} rupee{'' if n == 1 else 's'}"


def card_name(number: int) -> str:
    return f"{COURT_CARDS[number].name} (card {number})"


def what_for(purpose: str, number: int) -> str:
    """What the bribe buys, in words. The card is named: it is being played or used, which
    the table sees (its region sets the amount), never a card still hidden in a hand."""
    if purpose == PLAY:
        return f"to play {card_name(number)} in {COURT_CARDS[number].region.title()}"
    return f"to use {card_name(number)}"


def why_owed(frame: Frame) -> str:
    if frame.purpose == PLAY:
        return f"Seat {frame.recipient} rules {COURT_CARDS[frame.card].region.title()}"
    return f"Seat {frame.recipient} holds {card_name(frame.card)} hostage"


def spendable(s: PaxState, frame: Frame) -> int:
    """What the payer may agree to pay: its rupees less the action's minimum cost (R-ACT-2)."""
    reserve: int = frame.reserve
    return s.players[frame.owner_seat].rupees - reserve


def may_refuse(s: PaxState, payer: int) -> bool:
    """Courtly Manners: its holder may decline to pay any bribe and still go ahead (R-PLY-2, R-ACT-2)."""
    return s.effects.get(EventEffect.COURTLY_MANNERS, -1) == payer


def full_payment_only(s: PaxState) -> bool:
    """Section 23 item 16: three declines and give-ups this turn, so a bribe can only be paid in full."""
    return s.declined_bribes >= q.DECLINED_BRIBES_LIMIT


def may_start(s: PaxState, payer: int, owed: tuple[int, int] | None, reserve: int) -> bool:
    """Section 23 item 16: a play or card action owing ``owed`` (recipient, amount) may be
    started: it owes nothing, or the payer may still negotiate or give up, or it can be paid
    in full leaving ``reserve`` (or refused under Courtly Manners)."""
    if owed is None or owed[1] <= 0 or not full_payment_only(s) or may_refuse(s, payer):
        return True
    return s.players[payer].rupees - reserve >= owed[1]


def ask(t: Play, payer: int, recipient: int, amount: int, reserve: int, card: int, purpose: str) -> None:
    """Call the bribe step for ``payer``: ``amount`` owed to ``recipient`` to play ``card`` or
    use it (``purpose``), with ``reserve`` rupees kept for the action's minimum cost (R-ACT-2).
    Started after the third decline or give-up of the turn, it is ``binding``: it cannot be
    given up (section 23 item 16); the local is left out otherwise, as it always was."""
    if full_payment_only(t.state):
        t.call(names.BRIBE, payer, recipient=recipient, amount=amount, reserve=reserve, card=card, purpose=purpose,
               binding=True)
    else:
        t.call(names.BRIBE, payer, recipient=recipient, amount=amount, reserve=reserve, card=card, purpose=purpose)


def hostage_bribe(s: PaxState, seat: int, number: int) -> tuple[int, int] | None:
    """R-ACT-2, R-HST: (holder, amount) when ``number`` is held hostage: the holder's spies on
    it; none with Civil Service Reforms or while Disregard for Customs is active."""
    holder = q.hostage_holder(s, number)
    if holder is None or holder == seat:
        return None
    if q.has_ability(s, seat, Ability.CIVIL_SERVICE_REFORMS) or EventEffect.DISREGARD_FOR_CUSTOMS in s.effects:
        return None
    return holder, s.spies[number][holder]


def settle(t: Play, frame: Frame, amount: int) -> None:
    """The bribe is agreed at ``amount``: the rupees go to the recipient (R-BRB-5) and the
    caller goes on."""
    if amount:
        t.emit(ev.rupees_moved(amount, places.purse(frame.owner_seat), places.purse(frame.recipient), "bribe"))
    t.end()


#: the verbs of this module, each said once: declared here, handled and offered by name
PAY_BRIBE: Final = Verb("PayBribe", "Pay the bribe in full (R-BRB-2).", refusal="no bribe is asked of you now")
OFFER_BRIBE: Final = Verb("OfferBribe", "Offer this many rupees instead of the full bribe (R-BRB-4).", Arg("amount", AMOUNT),
                          refusal="you cannot offer a bribe now")
ACCEPT_BRIBE_COUNTER: Final = Verb("AcceptBribeCounter", "Pay the amount the recipient asked for in answer to your offer (R-BRB-4).",
                                   refusal="no answer to your offer is waiting")
REFUSE_BRIBE: Final = Verb("RefuseBribe", "Courtly Manners: pay nothing and go ahead (R-PLY-2, R-ACT-2).",
                           refusal="you may not refuse a bribe now")
ABANDON_BRIBE: Final = Verb("AbandonBribe", "Give up the play or action rather than pay; no action is spent (R-BRB-4). "
                            "It may be started again, but counts with the declines toward three a turn (section 23 item 16).",
                            refusal="no bribe is asked of you now")
ACCEPT_BRIBE_OFFER: Final = Verb("AcceptBribeOffer", "Accept the rupees offered as the bribe (R-BRB-3).",
                                 refusal="no bribe offer is waiting for your answer")
COUNTER_BRIBE_OFFER: Final = Verb("CounterBribeOffer", "Ask for this many rupees instead (more than offered, at most the bribe owed).",
                                  Arg("amount", AMOUNT), refusal="no bribe offer is waiting for your answer")
DECLINE_BRIBE_OFFER: Final = Verb("DeclineBribeOffer", "Decline the offer (R-BRB-4; at most three declines a turn).",
                                  refusal="no bribe offer is waiting for your answer")


@mypyc_attr(allow_interpreted_subclasses=True)
class Bribe(Step[PaxState]):
    """R-BRB: the payer's side of a bribe. Locals: ``recipient``, ``amount`` (A), ``reserve``,
    ``card``, ``purpose``, ``binding`` (started after the turn's third decline or give-up:
    pay in full, section 23 item 16); while negotiating, ``offer`` (the payer's last offer) and
    ``counter`` (the recipient's answer to it)."""

    name = names.BRIBE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if frame.amount <= 0:
            return None
        payer = frame.owner_seat
        budget = spendable(s, frame)
        counter = frame.locals.get("counter")
        binding = frame.locals.get("binding") and (budget >= frame.amount or may_refuse(s, payer))
        if counter is None:
            then = ("Three bribes have been declined or given up this turn: pay it in full." if binding
                    else "Pay it, offer less, or give up.")
            prompt = Prompt(payer, f"{why_owed(frame)} and asks a bribe of {rupees(frame.amount)} "
                            f"{what_for(frame.purpose, frame.card)}. {then}")
            if budget >= frame.amount:
                prompt.nothing(PAY_BRIBE)
            if not full_payment_only(s):
                prompt.between(OFFER_BRIBE, 0, min(frame.amount, budget))
        else:
            offer = frame.offer
            prompt = Prompt(payer, f"Seat {frame.recipient} answers your offer of {rupees(offer)} with "
                            f"{rupees(counter)} (of the {frame.amount} owed {what_for(frame.purpose, frame.card)}). "
                            "Accept, raise your offer, or give up.")
            if budget >= counter:
                prompt.nothing(ACCEPT_BRIBE_COUNTER)
            prompt.between(OFFER_BRIBE, offer + 1, min(counter - 1, budget))
        if may_refuse(s, payer):
            prompt.nothing(REFUSE_BRIBE)
        if not binding:  # a binding bribe that cannot be paid at all (Wakhan's Radicalize) may still be given up
            prompt.nothing(ABANDON_BRIBE)
        return prompt

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()  # nothing is owed

    @handles(PAY_BRIBE)
    def pay(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        settle(t, frame, frame.amount)

    @handles(OFFER_BRIBE)
    def offer(self, t: Play, frame: Frame, seat: int, amount: int) -> None:
        t.update(offer=amount, counter=None)
        t.call(names.BRIBE_OFFER, frame.recipient, payer=seat, offer=amount, amount=frame.amount,
               card=frame.card, purpose=frame.purpose)

    @handles(ACCEPT_BRIBE_COUNTER)
    def accept_counter(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        settle(t, frame, frame.counter)

    @handles(REFUSE_BRIBE)
    def refuse(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()  # Courtly Manners: nothing is paid and the play or action goes ahead

    @handles(ABANDON_BRIBE)
    def abandon(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.emit(ev.bribe_abandoned(seat, frame.recipient, frame.card, frame.purpose))
        t.end()
        t.update(abandoned=True)


@mypyc_attr(allow_interpreted_subclasses=True)
class BribeOffer(Step[PaxState]):
    """R-BRB-4: the recipient answers the payer's offer: accept it, ask for more, or decline.
    Locals: ``payer``, ``offer``, ``amount`` (A), ``card``, ``purpose``."""

    name = names.BRIBE_OFFER

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        return (Prompt(frame.owner_seat, f"Seat {frame.payer} offers you {rupees(frame.offer)} of the "
                       f"{frame.amount} owed {what_for(frame.purpose, frame.card)}. "
                       "Accept, ask for more, or decline.")
                .nothing(ACCEPT_BRIBE_OFFER)
                .between(COUNTER_BRIBE_OFFER, frame.offer + 1, frame.amount)
                .nothing(DECLINE_BRIBE_OFFER))

    @handles(ACCEPT_BRIBE_OFFER)
    def accept(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()
        settle(t, t.frame, frame.offer)

    @handles(COUNTER_BRIBE_OFFER)
    def counter(self, t: Play, frame: Frame, seat: int, amount: int) -> None:
        t.end()
        t.update(counter=amount)

    @handles(DECLINE_BRIBE_OFFER)
    def decline(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.emit(ev.bribe_declined(frame.payer, seat, frame.offer))
        t.end()
        t.update(offer=None, counter=None)


VERBS = (
    PAY_BRIBE,
    OFFER_BRIBE,
    ACCEPT_BRIBE_COUNTER,
    REFUSE_BRIBE,
    ABANDON_BRIBE,
    ACCEPT_BRIBE_OFFER,
    COUNTER_BRIBE_OFFER,
    DECLINE_BRIBE_OFFER,
)

STEPS = (Bribe(), BribeOffer())
