"""Build (R-BLD, rules.md section 10): armies in regions the builder rules and roads on
their borders, two rupees a block; then Infrastructure."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    BORDERS_OF,
)
from domain.games.pax_pamir.data.cards import (
    Ability,
    EventEffect,
)
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    STOP_ACTION,
    ActionStep,
    Play,
    can_place,
    pay_action_cost,
    place_piece,
    seat_of,
)
from domain.kernel.prompt import BORDER, REGION, Arg, Prompt, Verb
from domain.kernel.steps import Frame, handles

#: R-BLD-1: blocks in one Build, and with Nation Building (R-BLD-2); rupees per paid block.
BUILD_LIMIT: Final = 3
NATION_BUILDING_LIMIT: Final = 6
BLOCK_COST: Final = 2


def can_build(s: PaxState, seat: int) -> bool:
    """R-BLD-1, section 23 item 7: can a block go somewhere now? A region the seat rules, and
    a block to place (armies and roads are both blocks). (The menu asks only this:
    ``build_places`` names the places, and needs it.)"""
    return bool(q.ruled_regions(s, seat)) and can_place(s, seat, "army")


def build_places(s: PaxState, seat: int) -> tuple[list[str], list[str]]:
    """R-BLD-1: (regions, borders) a block can go to now (``can_build``): an army in a region
    the seat rules, a road on a border of one."""
    if not can_build(s, seat):
        return [], []
    ruled = q.ruled_regions(s, seat)
    borders = {str(border) for region in ruled for border in BORDERS_OF[region]}  # (ids: see ``board``)
    return [str(region) for region in ruled], sorted(borders)


def build_limit(s: PaxState, seat: int) -> int:
    return NATION_BUILDING_LIMIT if q.effect_active(s, EventEffect.NATION_BUILDING, seat) else BUILD_LIMIT


def block_is_paid(s: PaxState, seat: int, built: int) -> bool:
    """R-BLD-2: with Nation Building every second block is free (cost 2 * ceil(n / 2))."""
    return not q.effect_active(s, EventEffect.NATION_BUILDING, seat) or built % 2 == 0


#: the verbs of this module, each said once: declared here, handled and offered by name
BUILD_ARMY: Final = Verb("BuildArmy", "Build: place an army of your coalition in this region you rule (R-BLD-1).",
                         Arg("region", REGION), refusal="you are not building now")
BUILD_ROAD: Final = Verb("BuildRoad", "Build: place a road of your coalition on this border of a region you rule (R-BLD-1).",
                         Arg("border", BORDER), refusal="you are not building now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Build(ActionStep):
    """R-BLD-1, R-BLD-2, R-CST-4, section 23 item 7: 1 to 3 blocks (6 with Nation Building),
    2 rupees a block (every second one free with Nation Building), each an army in a region
    you rule or a road on one of its borders, ruled regions read again before each block.
    Then Infrastructure (R-BLD-3)."""

    name = names.BUILD

    def _places(self, s: PaxState, frame: Frame) -> tuple[list[str], list[str]]:
        seat = seat_of(frame)
        if frame.built >= frame.limit:
            return [], []
        if block_is_paid(s, seat, frame.built) and s.players[seat].rupees < BLOCK_COST:
            return [], []
        return build_places(s, seat)

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        regions, borders = self._places(s, frame)
        if not (regions or borders):
            # Never the case for a first block (the menu checked it); a way out all the same.
            return None if frame.built else Prompt(seat, "Build: no block can be placed.").nothing(STOP_ACTION)
        cost = f"{BLOCK_COST} rupees" if block_is_paid(s, seat, frame.built) else "free"
        prompt = Prompt(seat, f"Build: place block {frame.built + 1} of up to {frame.limit} ({cost}): an army "
                        "in a region you rule or a road on one of its borders.")
        prompt.one_of(BUILD_ARMY, regions).one_of(BUILD_ROAD, borders)
        return prompt.nothing(STOP_ACTION) if frame.built else prompt

    def finish(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        if frame.built and q.has_ability(t.state, seat, Ability.INFRASTRUCTURE):
            t.goto(names.INFRASTRUCTURE, seat)
        else:
            t.end()

    def _block(self, t: Play, frame: Frame, seat: int, kind: str, place: str) -> None:
        paid = block_is_paid(t.state, seat, frame.built)
        t.update(built=frame.built + 1, paid=frame.paid + (1 if paid else 0))
        if paid:
            pay_action_cost(t, seat, BLOCK_COST, "build", offset=frame.paid)
        place_piece(t, seat, kind, place)

    @handles(BUILD_ARMY)
    def army(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        self._block(t, frame, seat, "army", region)

    @handles(BUILD_ROAD)
    def road(self, t: Play, frame: Frame, seat: int, border: str) -> None:
        self._block(t, frame, seat, "road", border)


@mypyc_attr(allow_interpreted_subclasses=True)
class Infrastructure(ActionStep):
    """R-BLD-3, section 23 item 5: after a Build, one more block for free where a Build could
    place it; optional, and skipped when there is no such place."""

    name = names.INFRASTRUCTURE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        regions, borders = build_places(s, seat_of(frame))
        if not (regions or borders):
            return None
        return (Prompt(seat_of(frame), "Infrastructure: you may place one more block for free.")
                .one_of(BUILD_ARMY, regions).one_of(BUILD_ROAD, borders).nothing(STOP_ACTION))

    @handles(BUILD_ARMY)
    def army(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        t.end()
        place_piece(t, seat, "army", region)

    @handles(BUILD_ROAD)
    def road(self, t: Play, frame: Frame, seat: int, border: str) -> None:
        t.end()
        place_piece(t, seat, "road", border)


VERBS = (
    BUILD_ARMY,
    BUILD_ROAD,
)

STEPS = (Build(), Infrastructure())
