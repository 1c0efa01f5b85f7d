"""What a seat may see, built from scratch as an allow-list (section 23 item 10).

Public: every court, the market and its rupees, the discard pile, prizes, gifts, rupees,
victory points, loyalties, the favored suit, the pieces on the map, persistent effects,
hand sizes, the number of cards left in the deck and of Dominance Checks left. A seat also
sees its own hand (every hand with ``open_hands``). The deck order and the cards left out
are nobody's until the game is over; then, and for ``EVERYONE``, everything is shown.
"""

from __future__ import annotations

from typing import Any

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Region, Suit
from domain.games.pax_pamir.data.cards import ALL_CARDS, CourtCard, EventCard
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps.turn import cost_unit, purchase_cost
from domain.kernel.events import EVERYONE, Viewer


def _counts(counter: Any) -> dict[str, int]:
    return {str(key): count for key, count in sorted(counter.items(), key=lambda kv: str(kv[0])) if count}


def view(s: PaxState, viewer: Viewer, to_move: list[int]) -> dict[str, Any]:
    seated = isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < s.seats
    everything = viewer == EVERYONE or s.over
    players = []
    for seat, player in enumerate(s.players):
        row: dict[str, Any] = {
            "seat": seat,
            "loyalty": player.loyalty.value if player.loyalty else None,
            "rupees": player.rupees,
            "vp": player.vp,
            "court": list(player.court),
            "prizes": list(player.prizes),
            "gifts": sorted(player.gifts),
            "hand_count": len(player.hand),
            "cylinders_in_supply": q.cylinders_in_supply(s, seat),
            "influence": q.influence(s, seat),
            "stars": {str(suit): q.stars(s, seat, suit) for suit in Suit},
            "hand_limit": q.hand_limit(s, seat),
            "court_limit": q.court_limit(s, seat),
        }
        if everything or s.options.open_hands or seat == viewer:
            row["hand"] = sorted(player.hand)
        players.append(row)
    out: dict[str, Any] = {
        "game": "pax_pamir",
        "viewer": viewer if seated else None,
        "options": s.options.to_json(),
        "seats": s.seats,
        "active": s.active,
        "actions_left": s.actions_left,
        "to_move": to_move,
        "favored_suit": str(s.favored),
        "market": _market(s, viewer if isinstance(viewer, int) and seated else None),
        "marked": sorted([row, column] for row, column in s.marked),
        "used_cards": sorted(s.used_cards),
        "discard": list(s.discard),
        "deck_count": len(s.deck),
        "dominance_checks_left": q.dominance_checks_left(s),
        "checks_resolved": s.checks_resolved,
        "map": {region.value: {"armies": _counts(s.armies[region]), "tribes": _counts(s.tribes[region]),
                               "ruler": q.ruler_of(s, region)} for region in Region},
        "roads": {border.value: _counts(roads) for border, roads in s.roads.items() if sum(roads.values())},
        "spies": {str(number): _counts(spies) for number, spies in sorted(s.spies.items()) if sum(spies.values())},
        "effects": {str(effect): holder for effect, holder in sorted(s.effects.items())},
        "decision": s.frames[-1].to_json() if s.frames and not s.over else None,
        "players": players,
        "outcome": dict(s.outcome) if s.outcome else None,
        "wakhan": None if s.wakhan is None else {
            "seat": s.wakhan.seat, "ai_card": s.wakhan.card, "ai_discard": list(s.wakhan.discard),
            "ai_deck_count": len(s.wakhan.deck), "next_back": s.wakhan.next_back},
    }
    if everything:
        out["revealed"] = {"deck": list(s.deck), "out_of_game": sorted(s.out_of_game)}
        if s.wakhan is not None:
            out["revealed"]["ai_deck"] = list(s.wakhan.deck)
    out["faces"] = printed_faces(_shown_cards(out))
    return out


def _market(s: PaxState, seat: int | None) -> list[list[dict[str, Any]]]:
    """The market's cards and their rupees, each with what buying it costs (R-PUR-2): the seat's own
    price (an influence ability may make it free), or a spectator's column x unit."""
    unit = cost_unit(s)
    return [[{"card": card, "rupees": s.market_rupees[row][column],
              "cost": None if card is None else (column * unit if seat is None else purchase_cost(s, seat, card, column))}
             for column, card in enumerate(cards)] for row, cards in enumerate(s.market)]


def _shown_cards(out: dict[str, Any]) -> set[int]:
    """The cards this view already shows (market, courts, hands it holds, discard, what the end revealed)."""
    shown = {slot["card"] for row in out["market"] for slot in row if slot["card"] is not None}
    shown.update(out["discard"])
    for player in out["players"]:
        shown.update(player["court"], player.get("hand", ()), player["prizes"])
    revealed = out.get("revealed")
    if revealed:
        shown.update(revealed["deck"], revealed["out_of_game"])
    return shown


def printed_faces(numbers: set[int]) -> dict[str, dict[str, Any]]:
    """What is printed on each of these cards, for a front end to name them: never a card the view
    does not already show, so it reveals nothing."""
    faces: dict[str, dict[str, Any]] = {}
    for number in sorted(numbers):
        card = ALL_CARDS[number]
        face: dict[str, Any] = {"name": card.name}
        if isinstance(card, CourtCard):
            face.update(kind="court", region=card.region.value, suit=card.suit.value, rank=card.rank,
                        patriot=card.patriot.value if card.patriot else None,
                        prize=card.prize.value if card.prize else None)
        elif isinstance(card, EventCard):
            face.update(kind="event", purchase=card.purchase.name, discard=card.discard.name)
        else:
            face["kind"] = "dominance_check"
        faces[str(number)] = face
    return faces
