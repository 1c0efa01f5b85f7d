"""Every question the rules put to Wakhan's seat, answered by her rules (rules.md section 20),
each answer with the rule that gave it. Nobody is ever asked for her: the kernel's automatic
steps take these answers (``domain.games.pax_pamir.wakhan.take_her_decision``).

General rules: she pays every cost and bribe and never negotiates (as a recipient she asks
the full amount); she always uses "may" abilities; a suit to choose is the favored one; a
court card to choose is her top-priority one; a card to discard follows her cleanup order.
"""

from __future__ import annotations

from typing import Any

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import BORDERS_OF, Region
from domain.games.pax_pamir.data.cards import COURT_CARDS
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.wakhan import actions
from domain.games.pax_pamir.wakhan.card import arrow_row, region_order, row_arrow_pick
from domain.games.pax_pamir.wakhan.priority import first_to_discard, top_priority
from domain.kernel.prompt import Prompt
from domain.kernel.steps import Frame

Answer = tuple[str, Any, str]


def choices_of(prompt: Prompt) -> dict[str, list[Any]]:
    return {verb: list(allowed.values()) for verb, allowed in prompt.choices.items()}


def planned(s: PaxState, key: str) -> Any:
    """What her turn planned for the action under way (``plan`` in the ``wakhan_turn`` frame)."""
    for frame in reversed(s.frames):
        if frame.step == "wakhan_turn":
            return dict(frame.locals.get("plan") or {}).get(key)
    return None


def spy_target(s: PaxState, seat: int, cards: list[int]) -> int:
    """A spy goes to the top-priority card of the region where she does not already have the
    most spies (any card offered, if she has the most everywhere)."""
    return top_priority(s, seat, [n for n in cards if not actions.has_most_spies(s, seat, n)] or cards)


def road_border(s: PaxState, borders: list[str], region: Region) -> str:
    """A road on a border of ``region``: towards the region first in her region order."""
    order = [r.value for r in region_order(s)]

    def other_end(border: str) -> int:
        ends = [r.value for r in Region if r != region and any(b.value == border for b in BORDERS_OF[r])]
        return min(order.index(end) for end in ends) if ends else len(order)
    return min(borders, key=other_end)


def piece_to_take(s: PaxState, seat: int, pieces: list[str]) -> str:
    """R-LIM: the piece she can best spare: a road, a spy, a gift, an army or tribe in a region
    she does not rule; the last region of her region order first."""
    order = [r.value for r in region_order(s)]
    kinds = ("road", "spy", "gift", "army", "tribe")

    def cost(piece: str) -> tuple[int, int, int]:
        kind, _, place = piece.partition(":")
        ruled = place in order and q.ruler_of(s, Region(place)) == seat
        return int(ruled), kinds.index(kind), -(order.index(place) if place in order else 0)
    return min(pieces, key=cost)


def answer(s: PaxState, frame: Frame, prompt: Prompt) -> Answer:
    """Her answer to ``prompt`` (asked of her by step ``frame``): the verb, its value, why."""
    seat = prompt.seat
    choices = choices_of(prompt)
    step = frame.step
    if step == "choose_side":
        side = "left" if arrow_row(s) == "top" else "right"
        return "ChooseSide", side, f"play: the row arrow says {arrow_row(s)}: the {side} end of her court"
    if step == "bribe":
        if "RefuseBribe" in choices:
            return "RefuseBribe", None, "bribe: Courtly Manners lets her refuse, and she uses every ability"
        if "PayBribe" in choices:
            return "PayBribe", None, "bribe: she pays every bribe in full"
        return "AbandonBribe", None, "bribe: she cannot pay it in full and never negotiates"
    if step == "bribe_offer":
        if "CounterBribeOffer" in choices:
            return "CounterBribeOffer", max(choices["CounterBribeOffer"]), "bribe: she demands the full amount"
        return "AcceptBribeOffer", None, "bribe: the offer is the full amount"
    if step == "impacts":
        region = COURT_CARDS[frame.card].region
        if "PlaceRoad" in choices:
            return "PlaceRoad", road_border(s, choices["PlaceRoad"], region), "road: by the AI card's region order"
        cards = choices["PlaceSpy"]
        return "PlaceSpy", spy_target(s, seat, cards), \
            "spy: the top-priority card of the region where she does not already have the most spies"
    if step == "take_piece":
        return "TakePiece", piece_to_take(s, seat, choices["TakePiece"]), \
            "out of pieces: the one she can best spare (roads, spies and gifts before her ruling pieces)"
    if step in ("limit_discard", "leverage_discard", "confidence_failure"):
        return "Discard", first_to_discard(s, seat, choices["Discard"]), "discard: her cleanup discard order"
    if step == "start_of_turn":
        if "Blackmail" in choices:
            return "Blackmail", top_priority(s, seat, choices["Blackmail"]), \
                "blackmail: she uses every ability, on the top-priority card"
    if step == "tax":
        return actions.answer_tax(s, seat, choices)
    if step == "gift":
        return "PlaceGift", min(choices["PlaceGift"]), "gift: the cheapest she can afford"
    if step in ("build", "infrastructure"):
        return actions.answer_build(s, seat, choices)
    if step == "move":
        return actions.answer_move(s, seat, frame.locals.get("piece"), choices)
    if step == "betray":
        return actions.answer_betray(s, seat, choices)
    if step == "prize":
        return "KeepPrize", None, "betray: she always keeps the prize (and never changes loyalty)"
    if step == "battle":
        return actions.answer_battle(s, seat, planned(s, "site"), choices)
    if step == "safe_house" and "UseSafeHouse" in choices:
        return "UseSafeHouse", choices["UseSafeHouse"][0], "safe house: she uses every ability"
    if "ChooseSuit" in choices:
        return "ChooseSuit", s.favored, "a suit to choose: the favored suit"
    if "ChoosePlayer" in choices:
        return "ChoosePlayer", row_arrow_pick(s, choices["ChoosePlayer"]), "a player to choose: the row arrow's"
    if "ChooseRegion" in choices:
        order = [r.value for r in region_order(s)]
        return "ChooseRegion", min(choices["ChooseRegion"], key=order.index), \
            "a region to choose: the first of the AI card's region order"
    verb = next(iter(choices))  # no rule of section 20 covers it: the first choice offered
    return verb, choices[verb][0], "no rule of hers covers this question: the first choice offered"


__all__ = ["Answer", "answer", "choices_of"]
