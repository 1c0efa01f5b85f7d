"""A player's turn (R-TRN): the action menu, Purchase (R-PUR), Play (R-PLY) and its
impact icons (R-IMP)."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import BORDERS_OF, MARKET_ROWS, Suit
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    FAVORED_SUIT_OF_ICON,
    PUBLIC_WITHDRAWAL,
    Ability,
    CardAction,
    EventEffect,
    ImpactIcon,
    cards_with_ability,
    is_court_card,
    is_dominance_check,
)
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.steps import actions, bribes, names
from domain.games.pax_pamir.steps.common import CARD, Play, Procedure, pay_rupee_to_market, place_piece
from domain.kernel.prompt import BORDER, CHOICE, Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

#: R-PUR-2: the cost of a market card per column, and per column when military is favored.
COST_PER_COLUMN: Final = 1
MILITARY_COST_PER_COLUMN: Final = 2
#: R-IMP leverage: rupees taken from the bank.
LEVERAGE_RUPEES: Final = 2

ACTION_VERBS: Final = {action: action.value.capitalize() for action in CardAction}


# -- Purchase (R-PUR) --------------------------------------------------------------------------

def cost_unit(s: PaxState) -> int:
    return MILITARY_COST_PER_COLUMN if s.favored == Suit.MILITARY else COST_PER_COLUMN


def purchase_cost(s: PaxState, seat: int, number: int, column: int) -> int:
    """R-PUR-2: column x unit; nothing for column 0 or a court card an influence ability frees."""
    if is_court_card(number):
        court_card = COURT_CARDS[number]
        free = ((court_card.region == "herat" and q.has_ability(s, seat, Ability.HERAT_INFLUENCE))
                or (court_card.region == "persia" and q.has_ability(s, seat, Ability.PERSIAN_INFLUENCE))
                or (court_card.patriot == "russian" and q.has_ability(s, seat, Ability.RUSSIAN_INFLUENCE)))
        if free:
            return 0
    return column * cost_unit(s)


def purchasable(s: PaxState, seat: int) -> list[int]:
    """R-PUR-1: any market card but Public Withdrawal, one this seat paid onto this turn, or
    one it cannot afford."""
    rupees = s.players[seat].rupees
    unit = cost_unit(s)  # a card costs column x unit, or nothing: the full price is tried first,
    influence = has_influence(s, seat)  # and the whole cost only where an ability may free it
    marked = s.marked
    found: list[int] = []
    for row, cards in enumerate(s.market):
        for column, number in enumerate(cards):
            if column * unit > rupees and not influence:
                break  # the cards further right cost more still
            if number is None or number == PUBLIC_WITHDRAWAL or (marked and (row, column) in marked):
                continue
            if column * unit <= rupees or (influence and purchase_cost(s, seat, number, column) <= rupees):
                found.append(number)
    return found


#: the court cards whose ability frees some court cards' purchase (R-PUR-2)
_INFLUENCE: Final = frozenset([*cards_with_ability(Ability.HERAT_INFLUENCE),
                               *cards_with_ability(Ability.PERSIAN_INFLUENCE),
                               *cards_with_ability(Ability.RUSSIAN_INFLUENCE)])


def has_influence(s: PaxState, seat: int) -> bool:
    """Does the seat hold an ability that frees some court cards' purchase (R-PUR-2)?"""
    return q.holds_any(s, seat, _INFLUENCE)


def slot_of(s: PaxState, number: int) -> tuple[int, int]:
    for row, cards in enumerate(s.market):
        if number in cards:
            return row, cards.index(number)
    raise AssertionError(f"card {number} is not in the market")


def purchase(t: Play, seat: int, number: int) -> None:
    """R-PUR-3 to R-PUR-6: pay ``unit`` rupees on each card to the left (same row, else the
    other row, else waiting on the other row's empty slot), take the card's rupees, then the
    card: a court card to the hand, an event resolves, a Dominance Check is resolved."""
    s = t.state
    row, column = slot_of(s, number)
    cost = purchase_cost(s, seat, number, column)
    t.emit(ev.action_spent(seat, "purchase"))
    if cost:
        unit = cost_unit(s)
        other = (row + 1) % MARKET_ROWS
        for left in range(column):
            target = row if s.market[row][left] is not None else other
            for _ in range(unit):
                pay_rupee_to_market(t, seat, target, left, "purchase")
    waiting = s.market_rupees[row][column]
    if waiting:
        t.emit(ev.rupees_moved(waiting, places.market(row, column), places.purse(seat), "purchase"))
    if is_court_card(number):
        t.emit(ev.card_moved(number, places.market(row, column), places.hand(seat)))
    elif is_dominance_check(number):
        t.emit(ev.card_moved(number, places.market(row, column), "discard"))
        t.call(names.DOMINANCE_CHECK, None, reason="purchase")
    else:
        t.emit(ev.card_moved(number, places.market(row, column), "discard"))
        t.call(names.EVENT_PURCHASED, seat, card=number)


# -- the turn menu (R-TRN) ---------------------------------------------------------------------

#: the verbs of this module, each said once: declared here, handled and offered by name
PURCHASE: Final = Verb("Purchase", "Buy this market card (one action, R-PUR).", Arg("card", CARD),
                       refusal="you cannot purchase now")
PLAY: Final = Verb("Play", "Play this card from your hand into your court (one action, R-PLY).", Arg("card", CARD),
                   refusal="you cannot play a card now")
END_TURN: Final = Verb("EndTurn", "End your turn; cleanup follows (R-TRN-6).", refusal="it is not your turn")
CHOOSE_SIDE: Final = Verb("ChooseSide", "The end of your court the card goes to.", Arg("side", CHOICE),
                          refusal="you are not choosing a side now")
PLACE_ROAD: Final = Verb("PlaceRoad", "The border for the road of this impact icon.", Arg("border", BORDER),
                         refusal="you are not placing a road now")
PLACE_SPY: Final = Verb("PlaceSpy", "The court card for the spy of this impact icon.", Arg("card", CARD),
                        refusal="you are not placing a spy now")


@mypyc_attr(allow_interpreted_subclasses=True)
class TurnMenu(Step[PaxState]):
    """R-TRN-2 to R-TRN-6: Purchase or Play while actions remain, card-based actions (bonus
    actions with favored cards even with none left), or end the turn."""

    name = names.TURN
    always_asks = True  # EndTurn is always offered

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        seat = frame.owner_seat
        left = s.actions_left
        prompt = Prompt(seat, f"Your turn: {left} action{'s' if left != 1 else ''} left.")
        if left > 0:  # each choice is worked out only when read (a command is checked against its own)
            prompt.one_of_later(PURCHASE, purchasable, s, seat)
            prompt.one_of_later(PLAY, playable, s, seat)
        usable = actions.usable_of  # (read from its module once, not once an action)
        for action, cards in actions.candidates(s, seat).items():
            prompt.one_of_later(ACTION_VERBS[action], usable, s, seat, action, cards)
        return prompt.nothing(END_TURN)

    @handles(PURCHASE)
    def purchase(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        purchase(t, seat, number)

    @handles(PLAY)
    def play(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.call(names.PLAY, seat, card=number)

    @handles(ACTION_VERBS[CardAction.TAX])
    def tax(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.TAX)

    @handles(ACTION_VERBS[CardAction.GIFT])
    def gift(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.GIFT)

    @handles(ACTION_VERBS[CardAction.BUILD])
    def build(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.BUILD)

    @handles(ACTION_VERBS[CardAction.MOVE])
    def move(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.MOVE)

    @handles(ACTION_VERBS[CardAction.BETRAY])
    def betray(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.BETRAY)

    @handles(ACTION_VERBS[CardAction.BATTLE])
    def battle(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        actions.start(t, seat, number, CardAction.BATTLE)

    @handles(END_TURN)
    def end_turn(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.goto(names.CLEANUP, seat)


# -- Play (R-PLY) ------------------------------------------------------------------------------

def playable(s: PaxState, seat: int) -> list[int]:
    """R-PLY-1: the cards in hand, but for one whose ruler's bribe can only be paid in full
    now and cannot be (section 23 item 16)."""
    hand = sorted(s.players[seat].hand)
    if not bribes.full_payment_only(s):
        return hand
    return [n for n in hand if bribes.may_start(s, seat, bribe_owed(s, seat, n), 0)]


def bribe_owed(s: PaxState, seat: int, number: int) -> tuple[int, int] | None:
    """R-PLY-2: (ruler, amount) when another seat rules the card's region: one rupee per
    tribe of the ruler there; none with Charismatic Courtiers or Disregard for Customs."""
    region = COURT_CARDS[number].region
    ruler = q.ruler_of(s, region)
    if ruler is None or ruler == seat:
        return None
    if q.has_ability(s, seat, Ability.CHARISMATIC_COURTIERS) or EventEffect.DISREGARD_FOR_CUSTOMS in s.effects:
        return None
    return ruler, q.tribes(s, ruler, region)


@mypyc_attr(allow_interpreted_subclasses=True)
class PlayCard(Procedure):
    """R-PLY-1 to R-PLY-6: choose a side, settle a bribe, put the card in the court (one
    action), change loyalty for another coalition's patriot, then resolve its icons."""

    name = names.PLAY
    stages = ("choose_side", "settle_bribe", "enter_court", "resolve_icons")

    def choose_side(self, t: Play, frame: Frame) -> None:
        if t.state.players[frame.owner_seat].court:
            t.call(names.CHOOSE_SIDE, frame.seat, card=frame.card)

    def settle_bribe(self, t: Play, frame: Frame) -> None:
        owed = bribe_owed(t.state, frame.owner_seat, frame.card)
        if owed is not None:
            ruler, amount = owed
            bribes.ask(t, frame.owner_seat, ruler, amount, 0, frame.card, bribes.PLAY)

    def enter_court(self, t: Play, frame: Frame) -> None:
        if frame.locals.get("abandoned"):  # R-PLY-2: no bribe, no play, no action spent
            t.end()
            return
        seat = frame.owner_seat
        if not frame.locals.get("radicalize"):  # Wakhan's Radicalize is one action, paid by its purchase
            t.emit(ev.action_spent(seat, "play"))
        t.emit(ev.card_moved(frame.card, places.hand(seat), places.court(seat), side=frame.locals.get("side", "right")))
        patriot = COURT_CARDS[frame.card].patriot
        if patriot is not None and patriot != t.state.players[seat].loyalty and not is_wakhan(t.state, seat):
            t.call(names.LOYALTY_CHANGE, seat, coalition=str(patriot), keep=frame.card)

    def resolve_icons(self, t: Play, frame: Frame) -> None:
        if frame.card in t.state.players[frame.owner_seat].court:  # R-PLY-6
            t.call(names.IMPACTS, frame.seat, card=frame.card, index=0)


@mypyc_attr(allow_interpreted_subclasses=True)
class ChooseSide(Step[PaxState]):
    """R-PLY-1: the left or the right end of the court."""

    name = names.CHOOSE_SIDE
    always_asks = True  # left or right

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        what = COURT_CARDS[frame.card].name if "card" in frame.locals else "the card"
        return Prompt(frame.owner_seat, f"Play {what} at the left or the right end of your court?").one_of(
            "ChooseSide", ["left", "right"])

    @handles(CHOOSE_SIDE)
    def choose(self, t: Play, frame: Frame, seat: int, side: str) -> None:
        t.end()
        t.update(side=side)


@mypyc_attr(allow_interpreted_subclasses=True)
class Impacts(Step[PaxState]):
    """R-IMP, R-PLY-5: the played card's icons in printed order. Roads and spies ask where."""

    name = names.IMPACTS

    def _icon(self, s: PaxState, frame: Frame, index: int) -> ImpactIcon | None:
        """The icon at ``index``; none past the last, or once the card has left the court
        (R-PLY-6: a leverage discard earlier in the same play may give it up, and what is left
        of it is skipped)."""
        card = frame.card
        icons = COURT_CARDS[card].impact_icons
        if index >= len(icons) or card not in s.players[frame.owner_seat].court:
            return None
        return icons[index]

    def _asks_at(self, s: PaxState, frame: Frame, index: int) -> bool:
        """A road (a region always has borders), or a spy with a court card of the region to
        go to."""
        icon = self._icon(s, frame, index)
        if icon == ImpactIcon.ROAD:
            return True
        if icon == ImpactIcon.SPY:
            region = COURT_CARDS[frame.card].region
            for _, number in q.court_cards(s):  # (a loop, not ``any`` of a generator)
                if COURT_CARDS[number].region == region:
                    return True
        return False

    def asks(self, s: PaxState, frame: Frame) -> bool:
        return self._asks_at(s, frame, frame.index)

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if not self.asks(s, frame):
            return None
        court_card = COURT_CARDS[frame.card]
        region = court_card.region
        if self._icon(s, frame, frame.index) == ImpactIcon.ROAD:
            return Prompt(frame.owner_seat, f"{court_card.name}: place a road on a border of {region.title()}.").one_of(
                "PlaceRoad", [str(b) for b in BORDERS_OF[region]])
        cards = [n for _, n in q.court_cards(s) if COURT_CARDS[n].region == region]
        return Prompt(frame.owner_seat, f"{court_card.name}: place a spy on a court card of {region.title()}, "
                      "in any court.").one_of(PLACE_SPY, cards)

    def advance(self, t: Play, frame: Frame) -> None:
        """The icons that ask nothing, in printed order, until one asks where or none is left.
        The index reached is recorded only when something reads it: the question of the next
        icon (recorded before this one is resolved, so the question's index comes first), or
        R-LIM's choice of a piece (``TakePiece``, called on top) after which the icons go on
        (``Flow.resume_at``)."""
        index: int = frame.index
        frames = t.stack  # (changed in place: read after each icon, no call)
        depth = len(frames)
        while not self._asks_at(t.state, frame, index):
            icon = self._icon(t.state, frame, index)
            if icon is None:
                t.end()
                return
            index += 1
            if self._asks_at(t.state, frame, index):
                t.update(index=index)
                self._resolve(t, frame, icon)
                return  # the next icon's question
            self._resolve(t, frame, icon)
            if len(frames) != depth or frames[-1] is not frame:
                t.resume_at(frame, depth, index=index)  # a piece to take from the board first (R-LIM)
                return
        if index != frame.index:
            t.update(index=index)  # an icon resolved made the next one ask

    def _resolve(self, t: Play, frame: Frame, icon: ImpactIcon) -> None:
        """An icon that asks nothing: an army, a tribe, leverage or a favored suit (a spy with
        no court card of its region to go to is skipped)."""
        seat = frame.owner_seat
        region = COURT_CARDS[frame.card].region
        if icon == ImpactIcon.ARMY:
            place_piece(t, seat, "army", str(region))
        elif icon == ImpactIcon.TRIBE:
            place_piece(t, seat, "tribe", str(region))
        elif icon == ImpactIcon.LEVERAGE:
            t.emit(ev.rupees_moved(LEVERAGE_RUPEES, "bank", places.purse(seat), "leverage"))
        elif icon in FAVORED_SUIT_OF_ICON:
            change_favored_suit(t, FAVORED_SUIT_OF_ICON[icon], "impact")

    @handles(PLACE_ROAD)
    def road(self, t: Play, frame: Frame, seat: int, border: str) -> None:
        t.update(index=frame.index + 1)
        place_piece(t, seat, "road", border)

    @handles(PLACE_SPY)
    def spy(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.update(index=frame.index + 1)
        place_piece(t, seat, "spy", str(number))


def change_favored_suit(t: Play, suit: str, reason: str) -> None:
    """The favored suit changes, unless Pashtunwali Values holds it (section 16.2)."""
    if EventEffect.PASHTUNWALI_VALUES in t.state.effects or t.state.favored == suit:
        return
    t.emit(ev.favored_suit_changed(suit, reason))


VERBS = (
    PURCHASE,
    PLAY,
    *(Verb(verb, f"{action.value.capitalize()} with this court card (R-ACT).", Arg("card", CARD),
           refusal=f"you cannot {action.value} with that card now") for action, verb in ACTION_VERBS.items()),
    END_TURN,
    CHOOSE_SIDE,
    PLACE_ROAD,
    PLACE_SPY,
)

STEPS = (TurnMenu(), PlayCard(), ChooseSide(), Impacts())

__all__ = ["STEPS", "VERBS"]
