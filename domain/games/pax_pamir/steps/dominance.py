"""Dominance Checks (R-DOM) and the end of the game (R-END)."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import COALITIONS, REGIONS, Coalition, Suit
from domain.games.pax_pamir.data.cards import EventEffect
from domain.games.pax_pamir.state import SUPPLY, PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play, Procedure
from domain.kernel.steps import Frame

#: R-DOM-2: the lead one coalition needs over each other, and under Conflict Fatigue.
DOMINANCE_LEAD: Final = 4
FATIGUED_LEAD: Final = 2
#: R-DOM-3 / R-DOM-4: points by place (the final check doubles them).
SUCCESS_POINTS = (5, 3, 1)
FAILURE_POINTS = (3, 1)
FINAL_MULTIPLIER: Final = 2
#: R-DOM-8: a lead of this many VP ends the game at once.
WINNING_LEAD: Final = 4


def dominant_coalition(s: PaxState) -> tuple[Coalition | None, dict[str, int]]:
    """R-DOM-1, R-DOM-2: the coalition with at least the lead over each other, if any."""
    blocks = {str(c): q.blocks_in_play(s, c) for c in COALITIONS}
    lead = FATIGUED_LEAD if EventEffect.CONFLICT_FATIGUE in s.effects else DOMINANCE_LEAD
    for coalition in COALITIONS:
        if all(blocks[coalition] - blocks[other] >= lead for other in COALITIONS if other != coalition):
            return coalition, blocks
    return None, blocks


def split_points(ranking: list[tuple[int, int]], points: tuple[int, ...]) -> dict[int, int]:
    """R-DOM-5: walk down ``(seat, value)`` ranked high to low; a group of k tied seats shares
    the next k places' points, divided by k and rounded down."""
    ranking = sorted(ranking, key=lambda pair: -pair[1])
    out: dict[int, int] = {}
    place = 0
    while place < len(ranking):
        value = ranking[place][1]
        group = [seat for seat, v in ranking if v == value]
        share = sum(points[place:place + len(group)]) // len(group)
        for seat in group:
            out[seat] = share
        place += len(group)
    return out


def check_scores(s: PaxState, final: bool) -> tuple[Coalition | None, dict[str, int], dict[int, int]]:
    """R-DOM-1 to R-DOM-5: the dominant coalition (if any), the blocks counted, and the points
    each scoring seat gets. Wakhan always scores at a successful check, with her influence
    with the dominant coalition (section 20)."""
    dominant, blocks = dominant_coalition(s)
    multiplier = FINAL_MULTIPLIER if final else 1
    if dominant is not None:
        ranking = [(seat, q.influence_with(s, seat, dominant) if is_wakhan(s, seat) else q.influence(s, seat))
                   for seat in range(s.seats) if s.players[seat].loyalty == dominant or is_wakhan(s, seat)]
        points = tuple(p * multiplier for p in SUCCESS_POINTS)
    else:
        ranking = [(seat, q.cylinders_in_play(s, seat)) for seat in range(s.seats)]
        points = tuple(p * multiplier for p in FAILURE_POINTS)
    return dominant, blocks, split_points(ranking, points) if ranking else {}


def winners(s: PaxState) -> list[int]:
    """R-END-2: most VP, then most military stars, then most rupees; else shared."""
    def key(seat: int) -> tuple[int, int, int]:
        return s.players[seat].vp, q.stars(s, seat, Suit.MILITARY), s.players[seat].rupees
    best = max(key(seat) for seat in range(s.seats))
    return [seat for seat in range(s.seats) if key(seat) == best]


def end_game(t: Play, reason: str) -> None:
    """R-END-1, R-END-2: the game ends, and nothing follows its end (R-DOM-8): the frame stack
    as the game leaves it is recorded first (``Flow.record_steps``), not after the last event."""
    s = t.state
    t.record_steps()
    t.emit(ev.game_ended(winners(s), [p.vp for p in s.players], reason))


@mypyc_attr(allow_interpreted_subclasses=True)
class DominanceCheck(Procedure):
    """R-DOM-1 to R-DOM-10: score, clear the board after a success, test for the end, then
    (if the game goes on) clear persistent events and resolve Insurrection."""

    name = names.DOMINANCE_CHECK
    stages = ("score", "after")

    def score(self, t: Play, frame: Frame) -> None:
        s = t.state
        final = q.dominance_checks_left(s) == 0  # R-DOM-6: the triggering card(s) are gone already
        dominant, blocks, scored = check_scores(s, final)
        t.emit(ev.dominance_check_resolved(str(dominant) if dominant else None,
                                           [{"seat": seat, "points": scored[seat]} for seat in sorted(scored)],
                                           final, blocks))
        for seat in sorted(scored):
            if scored[seat]:
                t.emit(ev.victory_points_scored(seat, scored[seat]))
        if dominant is not None:  # R-DOM-7
            for region in REGIONS:
                for coalition, count in sorted(s.armies[region].items()):
                    for _ in range(count):
                        t.emit(ev.piece_moved("army", str(coalition), str(region), SUPPLY))
            for border, roads in s.roads.items():
                for coalition, count in sorted(roads.items()):
                    for _ in range(count):
                        t.emit(ev.piece_moved("road", str(coalition), str(border), SUPPLY))
        vps = sorted((player.vp for player in s.players), reverse=True)
        if final:
            end_game(t, "final_dominance_check")
        elif vps[0] - vps[1] >= WINNING_LEAD:
            end_game(t, "victory_point_lead")

    def after(self, t: Play, frame: Frame) -> None:
        if t.state.effects:
            t.emit(ev.effects_cleared())  # R-EVT-1
        t.call(names.INSURRECTION, None)


STEPS = (DominanceCheck(),)
