"""Card-based actions (R-ACT, rules.md section 10): which court cards the turn menu offers,
and the procedure every one of them runs. Each action has its own module: ``tax``,
``gift``, ``build``, ``move``, ``betray``, ``battle``.

``usable_cards`` says which court cards the turn menu offers for an action (R-ACT-1,
R-ACT-4, R-TRN-2 to R-TRN-4, R-ACT-2); ``start`` runs the ``action`` procedure: the
hostage bribe, the card marked used and the action spent, then the action's own steps.
Costs are paid to the market by ``pay_action_cost`` (R-CST, in ``common``).

Pieces are named as in ``state``: ``army:kabul``, ``tribe:kabul``, ``spy:54``."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.cards import (
    CARD_ACTION_BY_ID,
    CARD_ACTION_ORDER,
    COURT_CARDS,
    CardAction,
)
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.battle import can_battle
from domain.games.pax_pamir.steps.betray import BETRAY_COST, betrayable_cards
from domain.games.pax_pamir.steps.bribes import HOSTAGE, full_payment_only, hostage_bribe, may_start
from domain.games.pax_pamir.steps.bribes import ask as ask_bribe
from domain.games.pax_pamir.steps.build import BLOCK_COST, build_limit, can_build
from domain.games.pax_pamir.steps.common import (
    STOP_ACTION,
    Play,
    Procedure,
    pay_action_cost,
    seat_of,
)
from domain.games.pax_pamir.steps.gift import free_gift_spaces
from domain.games.pax_pamir.steps.move import can_move
from domain.games.pax_pamir.steps.tax import taxable_market_cards, taxable_seats
from domain.kernel.steps import Frame


def is_favored(s: PaxState, seat: int, number: int) -> bool:
    return q.counts_as_favored(s, seat, number)


def minimum_cost(s: PaxState, seat: int, action: CardAction) -> int:
    """R-ACT-2: 2 for Build and Betray, the cheapest free gift space for Gift, 0 otherwise."""
    if action == CardAction.BUILD:
        return BLOCK_COST
    if action == CardAction.BETRAY:
        return BETRAY_COST
    if action == CardAction.GIFT:
        spaces = free_gift_spaces(s, seat)  # (in the order of GIFT_VALUES, increasing: the first is the cheapest)
        return spaces[0] if spaces else 0
    return 0


# -- the menu ------------------------------------------------------------------------------------

def can_take(s: PaxState, seat: int, action: CardAction, rupees: int) -> bool:
    """R-ACT-4 (RTT's preconditions): the action can have an effect with ``rupees``; so ``rupees``
    are at least its ``minimum_cost`` (R-ACT-2: a Build or a Betray asks its cost, a Gift the
    cheapest free space)."""
    if action == CardAction.TAX:
        return bool(taxable_market_cards(s) or taxable_seats(s, seat))
    if action == CardAction.GIFT:
        return bool(free_gift_spaces(s, seat, rupees))
    if action == CardAction.BUILD:
        return rupees >= BLOCK_COST and can_build(s, seat)
    if action == CardAction.MOVE:
        return can_move(s, seat)
    if action == CardAction.BETRAY:
        return rupees >= BETRAY_COST and bool(betrayable_cards(s, seat))
    return can_battle(s, seat)


def usable_cards(s: PaxState, seat: int, action: CardAction) -> list[int]:
    """Court cards of ``seat`` that may take ``action`` now: printed on the card (R-ACT-1),
    not used this turn (R-TRN-4), favored or with an action left (R-TRN-2, R-TRN-3), able to
    have an effect (R-ACT-4). A hostage bribe does not narrow this while it may be negotiated
    down to nothing (R-BRB-3; R-ACT-2's limit, no bribe may leave less than the action's
    minimum cost, is held by the bribe step itself, its ``reserve``); after the turn's third
    decline or give-up it can only be paid in full, and a card whose bribe cannot be is not
    offered (section 23 item 16)."""
    return usable_of(s, seat, action, candidates(s, seat).get(action, []))


def candidates(s: PaxState, seat: int) -> dict[CardAction, list[int]]:
    """Per action (in ``CardAction`` order), the court cards that print it, are not used this
    turn and are favored or have an action left, and whose hostage bribe (if any) may be
    started (``may_start``): the tests of ``usable_cards`` that depend on the card, made for
    every action in one pass over the court."""
    player = s.players[seat]
    if player.loyalty is None:
        return {}
    found: dict[CardAction, list[int]] = {}
    used, left, capped = s.used_cards, s.actions_left, full_payment_only(s)
    for n in player.court:
        if n in used or not (left > 0 or is_favored(s, seat, n)):
            continue
        owed = hostage_bribe(s, seat, n) if capped else None
        for action in _ACTIONS[n]:
            if owed is None or may_start(s, seat, owed, minimum_cost(s, seat, action)):
                cards = found.get(action)
                if cards is None:
                    found[action] = [n]
                else:
                    cards.append(n)
    ordered: dict[CardAction, list[int]] = {}  # (a loop: where the sources run as Python, a
    for action in CARD_ACTION_ORDER:  # comprehension is a function made and called)
        cards = found.get(action)
        if cards is not None:
            ordered[action] = cards
    return ordered


def usable_of(s: PaxState, seat: int, action: CardAction, cards: list[int]) -> list[int]:
    """``cards`` (the ``candidates`` for ``action``), if the action can be taken now (R-ACT-2,
    R-ACT-4: ``can_take``; whether it can does not depend on the card); else none."""
    if not cards:
        return []
    if can_take(s, seat, action, s.players[seat].rupees):
        return cards
    return []


#: the actions printed on each court card
_ACTIONS: Final[dict[int, tuple[CardAction, ...]]] = {n: card.actions for n, card in COURT_CARDS.items()}


def start(t: Play, seat: int, number: int, action: CardAction) -> None:
    """Begin ``action`` with court card ``number`` (the menu offered it: ``usable_cards``)."""
    t.call(names.ACTION, seat, card=number, action=str(action))


# -- the action procedure ----------------------------------------------------------------------------

@mypyc_attr(allow_interpreted_subclasses=True)
class CardBasedAction(Procedure):
    """R-ACT-1, R-ACT-2: settle a hostage bribe (abandoned: no action spent, the card not
    used), mark the card used (R-TRN-4) and spend an action unless it counts as favored
    (R-TRN-3), then the action itself."""

    name = names.ACTION
    stages = ("hostage", "use_card", "act")

    def hostage(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        owed = hostage_bribe(t.state, seat, frame.card)
        if owed is not None:
            holder, amount = owed
            ask_bribe(t, seat, holder, amount, minimum_cost(t.state, seat, CARD_ACTION_BY_ID[frame.action]),
                      frame.card, HOSTAGE)

    def use_card(self, t: Play, frame: Frame) -> None:
        if frame.locals.get("abandoned"):
            t.end()
            return
        seat = seat_of(frame)
        t.emit(ev.card_used(seat, frame.card, frame.action))
        if not is_favored(t.state, seat, frame.card):
            t.emit(ev.action_spent(seat, frame.action))

    def act(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        action = CARD_ACTION_BY_ID[frame.action]
        rank = COURT_CARDS[frame.card].rank
        if action == CardAction.TAX:
            t.call(names.TAX, seat, left=rank)
        elif action == CardAction.GIFT:
            t.call(names.GIFT, seat)
        elif action == CardAction.BUILD:
            t.call(names.BUILD, seat, built=0, paid=0, limit=build_limit(t.state, seat))
        elif action == CardAction.MOVE:
            t.call(names.MOVE, seat, left=rank, piece=None)
        elif action == CardAction.BETRAY:
            pay_action_cost(t, seat, BETRAY_COST, "betray")  # R-BTR-1: before the target is chosen
            t.call(names.BETRAY, seat)
        else:
            t.call(names.BATTLE, seat, rank=rank, site=None, left=0, safe_house=[])


VERBS = (
    STOP_ACTION,
)

STEPS = (CardBasedAction(),)
