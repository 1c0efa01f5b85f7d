"""The event vocabulary of Pax Pamir: small, closed and generic.

Rules code in ``steps/`` moves cards, rupees and pieces between places (see ``state``
for the place names) and records decisions; it never needs an event of its own per card
ability. Hidden facts go in ``secret`` with the seats allowed to see them: the deck order
and the unused cards to nobody, a card entering a hidden hand to its owner.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from domain.kernel.events import Event
from domain.kernel.upcasting import Upcasters

NOBODY: frozenset[int] = frozenset()


SETUP_STARTED: Final = "SetupStarted"
#: The schema history of Pax Pamir's own events, its namespace: no other game's event is read with
#: it. Stored before its name was ``SetupStarted``: ``GameStarted``, the platform's event too.
UPCASTERS = Upcasters("pax_pamir", renames={"GameStarted": SETUP_STARTED})


def setup_started(options: dict[str, Any], seats: int) -> Event:
    """R-SET: setup begins with these options and seats (the deck and market follow)."""
    return Event(SETUP_STARTED, {"options": options, "seats": seats})


def deck_built(deck: list[int], out: list[int]) -> Event:
    """R-SET-1: the pile-built deck (top first) and the court cards left out, both unseen."""
    return Event("DeckBuilt", {"deck_count": len(deck)}, secret={"deck": list(deck), "out": list(out)},
                 secret_to=NOBODY, barrier=True)


def card_dealt(card: int, row: int, column: int) -> Event:
    """The top card of the deck, face up into an empty market slot (R-SET-2, R-CLN-5)."""
    return Event("CardDealt", {"card": card, "row": row, "column": column}, barrier=True)


def loyalty_order_chosen(order: list[int]) -> Event:
    return Event("LoyaltyOrderChosen", {"order": list(order)}, barrier=True)


def loyalty_chosen(seat: int, coalition: str) -> Event:
    return Event("LoyaltyChosen", {"seat": seat, "coalition": coalition})


def turn_started(seat: int, actions: int) -> Event:
    """R-TRN-1, R-TRN-7: ``seat`` begins a turn with ``actions``; per-turn flags are cleared."""
    return Event("TurnStarted", {"seat": seat, "actions": actions})


def action_spent(seat: int, action: str) -> Event:
    return Event("ActionSpent", {"seat": seat, "action": action})


def bribe_declined(payer: int, recipient: int, offer: int) -> Event:
    """R-BRB-4: ``recipient`` declined ``payer``'s offer; declines are counted per turn."""
    return Event("BribeDeclined", {"payer": payer, "recipient": recipient, "offer": offer})


def bribe_abandoned(payer: int, recipient: int, card: int, purpose: str) -> Event:
    """R-BRB-4, section 23 item 16: ``payer`` gave up the play of ``card`` (``purpose``
    "play") or the use of its actions ("hostage") rather than pay ``recipient``. It costs
    nothing and may be started again, but it counts with the declines toward the three a
    turn. The card is already public (the play or action started in the open)."""
    return Event("BribeAbandoned", {"payer": payer, "recipient": recipient, "card": card, "purpose": purpose})


def card_used(seat: int, card: int, action: str) -> Event:
    """R-TRN-4: a court card has taken its one card-based action this turn."""
    return Event("CardUsed", {"seat": seat, "card": card, "action": action})


def card_moved(card: int, src: str, dst: str, *, side: str | None = None,
               hidden_to: Iterable[int] | None = None) -> Event:
    """A card goes from ``src`` to ``dst``. ``side`` is ``left``/``right`` for a court.
    ``hidden_to``: the card's identity is a secret of those seats (a card between hands)."""
    # (the public card first, in the one dict: compiled, ``{"card": card, **data}`` is a second
    # dict and a merge, on most commands)
    data: dict[str, Any] = {"src": src, "dst": dst} if hidden_to is not None else {"card": card, "src": src, "dst": dst}
    if side is not None:
        data["side"] = side
    if hidden_to is not None:
        return Event("CardMoved", data, secret={"card": card}, secret_to=frozenset(hidden_to))
    return Event("CardMoved", data)


def rupees_moved(amount: int, src: str, dst: str, reason: str) -> Event:
    """``amount`` rupees from ``src`` to ``dst`` (``bank`` or ``removed`` for the supply)."""
    return Event("RupeesMoved", {"amount": amount, "src": src, "dst": dst, "reason": reason})


def market_slot_marked(row: int, column: int) -> Event:
    """R-PUR-4, R-CST-3: the active player paid a rupee onto this slot and may not buy it this turn."""
    return Event("MarketSlotMarked", {"row": row, "column": column})


def piece_moved(kind: str, owner: str | int, src: str, dst: str, *, placed: bool = False) -> Event:
    """A block (``owner`` a coalition) or cylinder (``owner`` a seat) goes from ``src`` to
    ``dst`` (``supply`` or a place such as ``kabul``, ``herat_kabul``, ``54``, ``4``).
    ``placed``: counts as a placement this turn (section 23 item 8)."""
    data: dict[str, Any] = {"kind": kind, "owner": owner, "src": src, "dst": dst}
    if placed:
        data["placed"] = True
    return Event("PieceMoved", data)


def favored_suit_changed(suit: str, reason: str) -> Event:
    return Event("FavoredSuitChanged", {"suit": suit, "reason": reason})


def loyalty_changed(seat: int, coalition: str) -> Event:
    return Event("LoyaltyChanged", {"seat": seat, "coalition": coalition})


def effect_started(effect: str, seat: int | None) -> Event:
    """A persistent event effect, held by ``seat`` (None: every player) until the next check (R-EVT-1)."""
    return Event("EffectStarted", {"effect": effect, "seat": seat})


def effects_cleared() -> Event:
    return Event("EffectsCleared", {})


def hands_swapped(first: int, second: int, first_hand: list[int], second_hand: list[int]) -> Event:
    """Other Persuasive Methods: the two hands change owners; what was in them stays theirs to know."""
    return Event("HandsSwapped", {"seats": [first, second], "counts": [len(first_hand), len(second_hand)]},
                 secret={"hands": [sorted(first_hand), sorted(second_hand)]}, secret_to=frozenset((first, second)),
                 barrier=True)


def dominance_check_resolved(dominant: str | None, scores: list[dict[str, int]], final: bool,
                             blocks: dict[str, int]) -> Event:
    return Event("DominanceCheckResolved", {"dominant": dominant, "scores": scores, "final": final,
                                            "blocks": blocks})


def victory_points_scored(seat: int, points: int) -> Event:
    return Event("VictoryPointsScored", {"seat": seat, "points": points})


def game_ended(winners: list[int], vp: list[int], reason: str) -> Event:
    return Event("GameEnded", {"winners": list(winners), "vp": list(vp), "reason": reason}, barrier=True)


# -- Wakhan (rules.md section 20) ----------------------------------------------------------------

def wakhan_deck_shuffled(deck: list[int]) -> Event:
    """AI cards shuffled (top first) under what is left of her AI deck: all 24 at setup, her
    discarded ones when one card is left; the order is nobody's."""
    return Event("WakhanDeckShuffled", {"count": len(deck)}, secret={"ai_deck": list(deck)}, secret_to=NOBODY,
                 barrier=True)


def wakhan_card_drawn(card: int, next_back: dict[str, Any]) -> Event:
    """She flips the top AI card onto her discard; ``next_back`` is the back of the new top card."""
    return Event("WakhanCardDrawn", {"ai_card": card, "next_back": next_back}, barrier=True)


def wakhan_loyalty_set(seat: int, coalition: str, reason: str) -> Event:
    """Her pragmatic loyalty: the colour of the blocks she places, moves and fights with."""
    return Event("WakhanLoyaltySet", {"seat": seat, "coalition": coalition, "reason": reason})


def wakhan_decided(seat: int, step: str, command: dict[str, Any], ai_card: int | None, rule: str) -> Event:
    """A decision she took (the command she answers ``step`` with) and why: the AI card and the rule."""
    return Event("WakhanDecided", {"seat": seat, "step": step, "command": command, "ai_card": ai_card,
                                   "rule": rule}, barrier=True)  # another seat acted: no undo past it
