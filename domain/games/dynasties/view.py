"""What a seat may see (rulings §1.6, R57), built from scratch as an allow-list.

Public: treasuries, Stakes, Legacy, Families, the Tribute Zone, the First Player, hand
counts, deck and Graveyard counts, the Current Dynasty, who has committed a Tribute (and,
under commit-reveal, each seat's sealed hash, R17a), the
pending decision, this round's Enquire flips and the rewarded combinations. A seat also
sees its own hand and its own committed Tribute. Once the game is over, everything, and
the viewer ``EVERYONE`` (a finished game replayed from any moment) sees everything too.
"""

from __future__ import annotations

from typing import Any

from domain.games.dynasties.cards import in_display_order
from domain.games.dynasties.state import OVER, DynastiesState
from domain.kernel.events import EVERYONE, Viewer


def _pending(s: DynastiesState) -> dict[str, Any] | None:
    if s.pending is None:
        return None
    return {"kind": s.pending.kind, "seat": s.pending.seat, "count": s.pending.card_count}


def view(s: DynastiesState, viewer: Viewer, to_move: list[int]) -> dict[str, Any]:
    over = s.phase == OVER
    seat = viewer if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < s.seats else None
    players = [
        {
            "seat": seat,
            "treasury": s.treasury[seat],
            "debt": s.debt[seat],
            "hand_count": len(s.hands[seat]),
            "family": list(s.families[seat]),
            "tribute_committed": s.tribute_commit[seat] is not None,
            # commit-reveal (R17a): the seal is public; the card behind it is not
            "tribute_hash": s.tribute_hash[seat],
            "rewarded": sorted(s.rewarded[seat]),
        }
        for seat in range(s.seats)
    ]
    out: dict[str, Any] = {
        "game": "dynasties",
        "viewer": seat,
        "options": s.options.to_json(),
        "seats": s.seats,
        "round": s.round,
        "phase": s.phase,
        "turn": s.turn,
        "tie_break": s.tie_break,
        "first_player": s.first_player,
        "turn_leader": s.turn_leader,
        "next_placer": s.next_placer if not over else None,
        "to_move": to_move,
        "pending": _pending(s),
        "stakes": s.stakes,
        "stakes_carried": s.stakes_carried,
        "legacy": s.legacy,
        "current_dynasty": s.current_dynasty,
        "crowned_card": s.crowned_card,
        "tribute_zone": list(s.tribute_zone),
        "enshrined": s.enshrined,
        "turn_placements": [{"seat": placed.seat, "card": placed.card, "activated": placed.activated}
                            for placed in s.turn_placements],
        "enquiries": [dict(row) for row in s.enquiries],
        "players": players,
        "deck_count": len(s.deck),
        "graveyard_count": len(s.graveyard),
        "last_stakes_winner": s.last_stakes_winner,
        "tied_seats": list(s.tied_seats),
        "hand": in_display_order(s.hands[seat]) if seat is not None else None,
        "my_tribute": s.tribute_commit[seat] if seat is not None else None,
        "outcome": dict(s.outcome) if over and s.outcome is not None else None,
    }
    if over or viewer == EVERYONE:  # a finished game, looked at from any moment
        out["revealed"] = {
            "hands": [in_display_order(hand) for hand in s.hands],
            "tributes": list(s.tribute_commit),
            "deck": list(s.deck),
            "graveyard": list(s.graveyard),
        }
    return out
