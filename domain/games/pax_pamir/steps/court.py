"""Cards leaving a court (R-DSC), leverage repayment (R-LEV), the overthrow rule (R-OVR)
and loyalty change (R-LOY). Each may chain into the others; every link is a step on the
stack, so a choice owed by any seat in the chain is asked where it arises."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir.data.board import REGION_BY_ID, Region, Suit
from domain.games.pax_pamir.data.cards import COURT_CARDS, ImpactIcon
from domain.games.pax_pamir.state import SUPPLY, PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import CARD, Play, Procedure
from domain.kernel.prompt import Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

#: R-LEV-1: rupees owed when a leveraged card leaves a court.
LEVERAGE_DEBT: Final = 2


def is_leveraged(number: int) -> bool:
    return ImpactIcon.LEVERAGE in COURT_CARDS[number].impact_icons


def political_cards_of(s: PaxState, seat: int, region: Region) -> list[int]:
    return [n for n in s.players[seat].court
            if COURT_CARDS[n].suit == Suit.POLITICAL and COURT_CARDS[n].region == region]


def discard_from_court(t: Play, owner: int, number: int, dst: str = "discard") -> None:
    """R-DSC: start discarding ``number`` from ``owner``'s court (to ``dst``: the discard
    pile, or a betrayer's prizes)."""
    t.call(names.DISCARD_COURT_CARD, owner, card=number, dst=dst)


#: the verbs of this module, each said once: declared here, handled and offered by name
DISCARD: Final = Verb("Discard", "Discard this card (leverage, limits, events).", Arg("card", CARD),
                      refusal="you are not asked to discard a card now")


@mypyc_attr(allow_interpreted_subclasses=True)
class DiscardCourtCard(Procedure):
    """R-DSC 1-4: spies go home, the card goes, leverage is repaid (R-LEV-4: at once), and a
    political card may overthrow its owner's tribes in its region (R-OVR-2)."""

    name = names.DISCARD_COURT_CARD
    stages = ("remove", "repay_leverage", "check_overthrow")

    def remove(self, t: Play, frame: Frame) -> None:
        owner, number = frame.owner_seat, frame.card
        if number not in t.state.players[owner].court:
            t.end()  # already gone: a discard earlier in the same chain took it (R-OVR-5)
            return
        for spy_owner, count in sorted(t.state.spies.get(number, {}).items()):
            for _ in range(count):
                t.emit(ev.piece_moved("spy", spy_owner, str(number), SUPPLY))
        t.emit(ev.card_moved(number, places.court(owner), frame.dst))

    def repay_leverage(self, t: Play, frame: Frame) -> None:
        if not is_leveraged(frame.card):
            return
        owner = frame.owner_seat
        paid = min(LEVERAGE_DEBT, t.state.players[owner].rupees)
        if paid:
            t.emit(ev.rupees_moved(paid, places.purse(owner), "bank", "leverage"))
        if paid < LEVERAGE_DEBT and not is_wakhan(t.state, owner):  # section 20: she discards nothing
            t.call(names.LEVERAGE_DISCARD, owner, missing=LEVERAGE_DEBT - paid, card=frame.card)

    def check_overthrow(self, t: Play, frame: Frame) -> None:
        court_card = COURT_CARDS[frame.card]
        owner = frame.owner_seat
        if court_card.suit != Suit.POLITICAL or political_cards_of(t.state, owner, court_card.region):
            return
        for _ in range(t.state.tribes[court_card.region][owner]):  # R-OVR-2
            t.emit(ev.piece_moved("tribe", owner, str(court_card.region), SUPPLY))


@mypyc_attr(allow_interpreted_subclasses=True)
class LeverageDiscard(Step[PaxState]):
    """R-LEV-2, R-LEV-3: one card of the debtor's choice, from hand or court, for each rupee
    it could not repay; with no cards left the rest is forgiven."""

    name = names.LEVERAGE_DISCARD

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        player = s.players[frame.owner_seat]
        cards = sorted(player.hand) + player.court
        if not cards:
            return None
        missing = frame.missing
        leveraged = f" on {COURT_CARDS[frame.card].name}" if "card" in frame.locals else ""
        return Prompt(frame.owner_seat, f"Leverage{leveraged}: you cannot repay {missing} rupee{'s' if missing > 1 else ''}; "
                      f"discard {'a card' if missing == 1 else f'{missing} cards, one at a time,'} from your hand "
                      "or court.").one_of(DISCARD, cards)

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()  # R-LEV-3: no cards left, the debt is forgiven

    @handles(DISCARD)
    def discard(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        if frame.missing > 1:
            t.update(missing=frame.missing - 1)
        else:
            t.end()
        discard_card(t, seat, number)


def discard_card(t: Play, seat: int, number: int) -> None:
    """A card the seat chose to give up: from the hand straight to the discard pile (no
    R-DSC steps), from the court as a full R-DSC."""
    if number in t.state.players[seat].hand:
        t.emit(ev.card_moved(number, places.hand(seat), "discard"))
    else:
        discard_from_court(t, seat, number)


@mypyc_attr(allow_interpreted_subclasses=True)
class Overthrow(Procedure):
    """R-OVR-1: a seat that lost its last tribe in a region discards every political card of
    that region from its court, each a full R-DSC (the loss is re-checked when this runs)."""

    name = names.OVERTHROW
    stages = ("discard_political",)

    def discard_political(self, t: Play, frame: Frame) -> None:
        region = REGION_BY_ID[frame.region]
        owner = frame.owner_seat
        if t.state.tribes[region][owner]:
            return
        for number in reversed(political_cards_of(t.state, owner, region)):  # resolved left to right
            discard_from_court(t, owner, number)


@mypyc_attr(allow_interpreted_subclasses=True)
class LoyaltyChange(Procedure):
    """R-LOY 1-4: gifts return, prizes are discarded, every patriot of the old loyalty is
    discarded (each a full R-DSC; the card that caused the change stays), then the new
    loyalty."""

    name = names.LOYALTY_CHANGE
    stages = ("return_gifts_and_prizes", "discard_patriots", "change")

    def return_gifts_and_prizes(self, t: Play, frame: Frame) -> None:
        seat = frame.owner_seat
        player = t.state.players[seat]
        for value in sorted(player.gifts):
            t.emit(ev.piece_moved("gift", seat, str(value), SUPPLY))
        for number in list(player.prizes):
            t.emit(ev.card_moved(number, places.prizes(seat), "discard"))

    def discard_patriots(self, t: Play, frame: Frame) -> None:
        seat = frame.owner_seat
        old = t.state.players[seat].loyalty
        patriots = [n for n in t.state.players[seat].court
                    if n != frame.locals.get("keep") and COURT_CARDS[n].patriot == old]
        for number in reversed(patriots):  # resolved left to right
            discard_from_court(t, seat, number)

    def change(self, t: Play, frame: Frame) -> None:
        t.emit(ev.loyalty_changed(frame.owner_seat, frame.coalition))
        if t.state.wakhan is not None:  # section 20: her pragmatic loyalty follows the humans'
            t.call(names.WAKHAN_LOYALTY, t.state.wakhan.seat)


VERBS = (
    DISCARD,
)

STEPS = (DiscardCourtCard(), LeverageDiscard(), Overthrow(), LoyaltyChange())
