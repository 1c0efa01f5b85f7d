"""Wakhan's default card-based actions (rules.md section 20): when each is worth taking, with
which court card, and how she answers the action's own questions.

* Tax: players before the market; the player with the most rupees first (the row arrow breaks
  ties); then the leftmost market cards.
* Gift: the cheapest space she can afford.
* Build: armies in the first region she rules in her AI card's region order, as many as she
  can pay for (roads, by the same order, only where no army can go).
* Move: armies only, with no roads needed, from the first region in her region order where
  moving one keeps her rule, towards the first adjacent region (same order) holding other
  players' tribes where her armies are fewer than the tribes; with the variant Spy Movement,
  when no army move is left, an idle spy (her spies outnumber the others' on its card) from
  the lowest-priority card to the top-priority card it can reach where she does not already
  have the most spies.
* Betray: of the cards with her spy that bear a prize, the top-priority one; she keeps it.
* Battle: the first region in region order where she has an army and another player has
  tribes, loyal armies or roads; tribes go first, then armies, then roads. Without such a
  region, the top-priority card holding her spy and another player's spy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import ADJACENT, BORDERS_OF, Region
from domain.games.pax_pamir.data.cards import COURT_CARDS, CardAction
from domain.games.pax_pamir.state import PaxState, copy_state
from domain.games.pax_pamir.steps.actions import minimum_cost, usable_cards
from domain.games.pax_pamir.steps.battle import battle_cards, region_enemies, strength
from domain.games.pax_pamir.steps.betray import betrayable_cards
from domain.games.pax_pamir.steps.bribes import hostage_bribe
from domain.games.pax_pamir.steps.move import spy_destinations
from domain.games.pax_pamir.wakhan.card import arrow_market_row, region_order, row_arrow_pick
from domain.games.pax_pamir.wakhan.priority import card_priority, dominant, top_priority

# -- with which card ---------------------------------------------------------------------------


def affordable_cards(s: PaxState, seat: int, action: CardAction) -> list[int]:
    """Court cards she can take ``action`` with: usable now, and any hostage bribe paid in full
    leaving the action's minimum cost (she never negotiates)."""
    found = []
    for number in usable_cards(s, seat, action):
        owed = hostage_bribe(s, seat, number)
        if owed is None or owed[1] <= s.players[seat].rupees - minimum_cost(s, seat, action):
            found.append(number)
    return found


def card_for(s: PaxState, seat: int, action: CardAction) -> int | None:
    """The card she takes ``action`` with: the first of them by her card priority (the favored
    suit, a patriot of the dominant coalition, a prize of it, another patriot, leveraged, the
    highest rank, the highest number), as BGA chooses it."""
    cards = affordable_cards(s, seat, action)
    return top_priority(s, seat, cards) if cards else None


# -- Move ----------------------------------------------------------------------------------------

def other_tribes(s: PaxState, seat: int, region: Region) -> int:
    return sum(count for owner, count in s.tribes[region].items() if owner != seat)


def keeps_rule(s: PaxState, seat: int, region: Region) -> bool:
    """Moving one of her armies out of ``region`` leaves her rule there as it is."""
    if q.ruler_of(s, region) != seat:
        return True
    after = copy_state(s)
    loyalty = s.players[seat].loyalty
    assert loyalty is not None
    after.armies[region][loyalty] -= 1
    return q.ruler_of(after, region) == seat


def army_moves(s: PaxState, seat: int) -> list[tuple[Region, Region]]:
    """(from, to), in her region order of the origin, then of the destination: one of her
    armies from a region where moving it keeps her rule, to an adjacent region holding other
    players' tribes where her armies are fewer than the tribes there (hers counted too)."""
    loyalty = s.players[seat].loyalty
    if loyalty is None:
        return []
    moves = []
    for here in region_order(s):
        if s.armies[here][loyalty] <= 0 or not keeps_rule(s, seat, here):
            continue
        for there in region_order(s):
            if (there in ADJACENT[here] and other_tribes(s, seat, there) > 0
                    and sum(s.tribes[there].values()) > s.armies[there][loyalty]):
                moves.append((here, there))
    return moves


def idle_spies(s: PaxState, seat: int) -> list[int]:
    """Spy Movement variant: cards where her spies outnumber the other players' (an enemy spy
    ties up one of hers), lowest priority first."""
    leader = dominant(s)
    cards = []
    for _, number in q.court_cards(s):
        spies: Mapping[int, int] = s.spies.get(number) or {}
        mine = spies.get(seat, 0)
        if mine > sum(count for owner, count in spies.items() if owner != seat):
            cards.append(number)
    return sorted(cards, key=lambda n: card_priority(s, seat, n, leader))


def spy_moves(s: PaxState, seat: int) -> list[tuple[int, int]]:
    """Spy Movement variant (only when no army move is left): an idle spy from the
    lowest-priority card to the top-priority card it can reach where she does not already
    have the most spies."""
    if not s.options.wakhan_spy_movement:
        return []
    for origin in idle_spies(s, seat):
        targets = [n for n in spy_destinations(s, seat, origin) if not has_most_spies(s, seat, n)]
        if targets:
            return [(origin, top_priority(s, seat, targets))]
    return []


def has_most_spies(s: PaxState, seat: int, number: int) -> bool:
    spies: Mapping[int, int] = s.spies.get(number) or {}
    mine = spies.get(seat, 0)
    return mine > 0 and all(mine > count for owner, count in spies.items() if owner != seat)


# -- Battle and Betray ---------------------------------------------------------------------------

def other_players_pieces(s: PaxState, seat: int, region: Region) -> list[str]:
    """Enemy pieces there that are another player's: their tribes, and armies and roads of a
    coalition another player is loyal to."""
    held = {p.loyalty.value for other, p in enumerate(s.players) if other != seat and p.loyalty is not None}
    found = []
    for piece in region_enemies(s, seat, region):
        kind, _, owner = piece.split(":")
        if kind == "tribe" or owner in held:
            found.append(piece)
    return found


def battle_region(s: PaxState, seat: int) -> Region | None:
    for region in region_order(s):
        if strength(s, seat, region) > 0 and other_players_pieces(s, seat, region):
            return region
    return None


def battle_site(s: PaxState, seat: int) -> str | int | None:
    region = battle_region(s, seat)
    if region is not None:
        return region.value
    cards = battle_cards(s, seat)
    return top_priority(s, seat, cards) if cards else None


def spy_battle_site(s: PaxState, seat: int) -> int | None:
    """``battle_spies_on_priority_card``: the card with her spy and an enemy spy holding the
    most spies, ties by her card priority."""
    cards = battle_cards(s, seat)
    if not cards:
        return None
    most = max(sum(s.spies[n].values()) for n in cards)
    return top_priority(s, seat, [n for n in cards if sum(s.spies[n].values()) == most])


def betray_target(s: PaxState, seat: int) -> int | None:
    cards = [n for n in betrayable_cards(s, seat) if COURT_CARDS[n].prize is not None]
    return top_priority(s, seat, cards) if cards else None


# -- is it worth it ------------------------------------------------------------------------------

def plan(s: PaxState, seat: int, action: CardAction, spy_battle: bool = False) -> dict[str, Any] | None:
    """What the action would do, or None when her default behaviour has nothing to do."""
    if action == CardAction.MOVE:
        moves = army_moves(s, seat)
        if moves:
            return {"to": moves[0][1].value}
        spies = spy_moves(s, seat)
        return {"to": spies[0][1]} if spies else None
    if action == CardAction.BETRAY:
        target = betray_target(s, seat)
        return {"target": target} if target is not None else None
    if action == CardAction.BATTLE:
        site = spy_battle_site(s, seat) if spy_battle else battle_site(s, seat)
        return {"site": site} if site is not None else None
    return {}  # Tax, Gift, Build: the menu's own preconditions say it can have an effect (R-ACT-4)


# -- answering the action's questions ------------------------------------------------------------

Answer = tuple[str, Any, str]


def _order_index(s: PaxState, region: str) -> int:
    return [r.value for r in region_order(s)].index(region)


def answer_tax(s: PaxState, seat: int, choices: dict[str, list[Any]]) -> Answer:
    if "TaxPlayer" in choices:
        seats = choices["TaxPlayer"]
        most = max(s.players[other].rupees for other in seats)
        richest = [other for other in seats if s.players[other].rupees == most]
        return "TaxPlayer", row_arrow_pick(s, richest), "tax: players first, the one with the most rupees"
    if "TaxMarket" in choices:
        column_of = {n: c for _, c, n in q.market_slots(s)}
        row_of = {n: r for r, _, n in q.market_slots(s)}
        first_row = arrow_market_row(s)
        number = min(choices["TaxMarket"], key=lambda n: (column_of[n], row_of[n] != first_row))
        return "TaxMarket", number, "tax: then the market, leftmost cards first (the row arrow's row first)"
    return "StopAction", None, "tax: nothing left to take"


def answer_build(s: PaxState, seat: int, choices: dict[str, list[Any]]) -> Answer:
    if "BuildArmy" in choices:
        region = min(choices["BuildArmy"], key=lambda r: _order_index(s, r))
        return "BuildArmy", region, "build: armies in the first ruled region in region order, as many as she can"
    if "BuildRoad" in choices:
        order = [r.value for r in region_order(s)]

        def rank(border: str) -> tuple[int, int]:
            ends = sorted(order.index(r.value) for r in Region if any(b.value == border for b in BORDERS_OF[r]))
            return ends[0], ends[-1]
        return "BuildRoad", min(choices["BuildRoad"], key=rank), "build: no army can be placed: a road, by region order"
    return "StopAction", None, "build: nothing more to place"


def answer_move(s: PaxState, seat: int, frame_piece: str | None, choices: dict[str, list[Any]]) -> Answer:
    if frame_piece is not None:
        kind, _, place = frame_piece.partition(":")
        if kind == "spy" and "MoveSpyTo" in choices:
            target = next((to for start, to in spy_moves(s, seat) if start == int(place)), None)
            if target is not None and target in choices["MoveSpyTo"]:
                return "MoveSpyTo", target, "move (Spy Movement): to the top-priority card where she does not " \
                                            "have the most spies"
            return "MoveSpyTo", choices["MoveSpyTo"][0], "move: the spy chosen has no better place"
        if "MoveTo" in choices:
            here = Region(place)
            there = next((to for start, to in army_moves(s, seat) if start == here), None)
            if there is not None and there.value in choices["MoveTo"]:
                return "MoveTo", there.value, f"move: towards {there.value}, where the tribes outnumber her armies"
            return "MoveTo", choices["MoveTo"][0], "move: the piece chosen has no better place"
    movable = choices.get("MovePiece", [])
    for here, there in army_moves(s, seat):
        if f"army:{here.value}" in movable:
            return "MovePiece", f"army:{here.value}", f"move: an army from {here.value} towards {there.value}"
    for origin, target in spy_moves(s, seat):
        if f"spy:{origin}" in movable:
            return "MovePiece", f"spy:{origin}", f"move (Spy Movement): an idle spy from card {origin} to card {target}"
    return "StopAction", None, "move: no move of hers is left"


def answer_battle(s: PaxState, seat: int, planned: Any, choices: dict[str, list[Any]]) -> Answer:
    if "BattleRegion" in choices or "BattleCard" in choices:
        site = planned if planned is not None else battle_site(s, seat)
        if isinstance(site, str) and site in choices.get("BattleRegion", []):
            return "BattleRegion", site, f"battle: {site}, the first region in region order with her army and " \
                                         "another player's pieces"
        if isinstance(site, int) and site in choices.get("BattleCard", []):
            return "BattleCard", site, "battle: the top-priority card with her spy and another player's spy"
        verb = "BattleRegion" if "BattleRegion" in choices else "BattleCard"
        return verb, choices[verb][0], "battle: the first site offered"
    targets = choices.get("RemoveEnemy", [])
    if not targets:
        return "StopAction", None, "battle: nothing left to remove"
    return "RemoveEnemy", battle_target(s, seat, targets), \
        "battle: tribes first, then armies, then roads; the row arrow's player first"


def battle_target(s: PaxState, seat: int, targets: list[str]) -> str:
    """Tribes (or spies, on a card) first, then armies, then roads; among each, those of the
    player the row arrow picks (their cylinders, their coalition's blocks) first."""
    others = [other for other in range(s.seats) if other != seat]
    target = row_arrow_pick(s, others)
    loyalty = s.players[target].loyalty
    kinds = ("tribe", "spy", "army", "road")

    def order(piece: str) -> tuple[int, int, str]:
        kind, _, owner = piece.split(":")
        theirs = owner == str(target) if kind in ("tribe", "spy") else loyalty is not None and owner == loyalty.value
        return kinds.index(kind), int(not theirs), piece
    return min(targets, key=order)


def answer_betray(s: PaxState, seat: int, choices: dict[str, list[Any]]) -> Answer:
    cards = choices["BetrayCard"]
    with_prize = [n for n in cards if COURT_CARDS[n].prize is not None]
    return "BetrayCard", top_priority(s, seat, with_prize or cards), "betray: the top-priority card bearing a prize"

