"""Move (R-MOV, rules.md section 10): armies (and tribes under Nationalism) across borders
with a road, spies along the court track."""

from __future__ import annotations

from collections import Counter
from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import CROSSINGS, REGION_BY_ID, REGIONS, Border, Coalition, Region
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    Ability,
    EventEffect,
)
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    CARD,
    PIECE,
    STOP_ACTION,
    ActionStep,
    Play,
    block_owner,
    lose_piece,
    seat_of,
    spied_cards,
)
from domain.kernel.prompt import REGION, Arg, Prompt, Verb
from domain.kernel.steps import Frame, handles


def region_destinations(s: PaxState, seat: int, here: Region) -> list[str]:
    """R-MOV-2: the regions across a border with a road of the seat's coalition (any border
    with Indian Supplies; Wakhan needs no roads, section 20), by name."""
    if _roads_needed(s, seat):
        loyalty = block_owner(s, seat)
        roads = s.roads
        return [str(there) for there, border in CROSSINGS[here] if roads[border].get(loyalty, 0) > 0]
    return [str(there) for there, _ in CROSSINGS[here]]


def _roads_needed(s: PaxState, seat: int) -> bool:
    return not (q.has_ability(s, seat, Ability.INDIAN_SUPPLIES) or is_wakhan(s, seat))


def spy_destinations(s: PaxState, seat: int, origin: int) -> list[int]:
    """R-MOV-3: the next or previous card along the court track (it wraps; empty courts are
    skipped), 1 or 2 cards with Well-Connected; with Strange Bedfellows also any court card
    of the origin's region (not combined with Well-Connected: RTT). Never the origin."""
    return _spy_destinations(s, seat, origin, court_track(s))


def court_track(s: PaxState) -> list[int]:
    """The court cards along the court track: every court in seat order, left to right."""
    track: list[int] = []
    for player in s.players:
        track.extend(player.court)
    return track


def _spy_destinations(s: PaxState, seat: int, origin: int, track: list[int]) -> list[int]:
    """``spy_destinations`` along ``track`` (``court_track``, made once for every spy of a seat)."""
    if origin not in track:
        return []
    at, count = track.index(origin), len(track)
    reach = 2 if q.has_ability(s, seat, Ability.WELL_CONNECTED) else 1
    found: set[int] = set()
    for distance in range(1, reach + 1):
        found.add(track[(at + distance) % count])
        found.add(track[(at - distance) % count])
    if q.has_ability(s, seat, Ability.STRANGE_BEDFELLOWS):
        region = COURT_CARDS[origin].region
        found |= {number for number in track if COURT_CARDS[number].region == region}
    found.discard(origin)
    return [number for number in track if number in found]


def movable_pieces(s: PaxState, seat: int) -> list[str]:
    """R-MOV-1 to R-MOV-4, section 23 item 6: loyal armies, the seat's spies and (with
    Nationalism) its tribes, each only with a legal destination."""
    return _movable(s, seat, False)


def can_move(s: PaxState, seat: int) -> bool:
    """Is some piece ``movable_pieces`` would list? (stops at the first)"""
    return bool(_movable(s, seat, True))


def _movable(s: PaxState, seat: int, first: bool) -> list[str]:
    """``movable_pieces``, or only the first of them (``first``). (A list, not a generator:
    compiled, a generator's every item is a call of its helper.)"""
    found: list[str] = []
    loyalty = block_owner(s, seat)
    nationalism = q.effect_active(s, EventEffect.NATIONALISM, seat)
    roads_needed = _roads_needed(s, seat)
    roads = s.roads
    for region in REGIONS:
        army = s.armies[region].get(loyalty, 0) > 0
        tribe = nationalism and s.tribes[region].get(seat, 0) > 0
        if not (army or tribe):
            continue
        if roads_needed and not _has_road(roads, loyalty, region):
            continue  # no destination (region_destinations is empty)
        if army:
            found.append(places.piece("army", str(region)))
            if first:
                return found
        if tribe:
            found.append(places.piece("tribe", str(region)))
            if first:
                return found
    spied = spied_cards(s, seat)
    if not spied:
        return found
    track = court_track(s)
    for number in spied:
        if _spy_destinations(s, seat, number, track):
            found.append(places.piece("spy", number))
            if first:
                return found
    return found


def _has_road(roads: dict[Border, Counter[Coalition]], loyalty: Coalition, region: Region) -> bool:
    """A road of ``loyalty`` on some border out of ``region``."""
    for _, border in CROSSINGS[region]:
        if roads[border].get(loyalty, 0) > 0:
            return True
    return False


#: the verbs of this module, each said once: declared here, handled and offered by name
MOVE_PIECE: Final = Verb("MovePiece", "Move: the piece to move one step (army:<region>, tribe:<region>, spy:<card>) (R-MOV).",
                         Arg("piece", PIECE), refusal="you are not moving pieces now")
MOVE_TO: Final = Verb("MoveTo", "Move: the region the chosen army or tribe goes to (R-MOV-2, R-MOV-4).", Arg("region", REGION),
                      refusal="you are not moving an army or tribe now")
MOVE_SPY_TO: Final = Verb("MoveSpyTo", "Move: the court card the chosen spy goes to (R-MOV-3).", Arg("card", CARD),
                          refusal="you are not moving a spy now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Move(ActionStep):
    """R-MOV-1 to R-MOV-5: as many steps as the card's rank, one piece one step each: a loyal
    army across a border with a road of your coalition (any border with Indian Supplies),
    one of your spies along the court track, or (Nationalism) one of your tribes like an
    army, its leaving checked for overthrow. Stopping early is allowed."""

    name = names.MOVE

    def asks(self, s: PaxState, frame: Frame) -> bool:
        """A chosen piece with somewhere to go, or steps left and a piece that can move (told
        without listing every piece and destination)."""
        return self._destinations(s, frame) is not None or self._may_choose(s, frame)

    def _may_choose(self, s: PaxState, frame: Frame) -> bool:
        """Steps left, and a piece that can move one."""
        return frame.left > 0 and can_move(s, seat_of(frame))

    def _destinations(self, s: PaxState, frame: Frame) -> Prompt | None:
        """Where the chosen piece may go, asked of its mover; None when no piece is chosen or
        it has nowhere to go (then another piece may be chosen)."""
        piece = frame.piece
        if piece is None:
            return None
        seat = seat_of(frame)
        kind, place = places.parse_piece(piece)
        if kind == "spy":
            cards = spy_destinations(s, seat, int(place))
            return Prompt(seat, f"Move: the spy on card {place} goes to...").one_of(MOVE_SPY_TO, cards) if cards else None
        regions = region_destinations(s, seat, REGION_BY_ID[place])
        return Prompt(seat, f"Move: the {kind} in {place.title()} goes to...").one_of(MOVE_TO, regions) if regions else None

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        going = self._destinations(s, frame)
        if going is not None:
            return going
        if not self._may_choose(s, frame):
            return None
        return (Prompt(seat_of(frame), f"Move: {frame.left} step(s) left; choose a piece to move, or stop.")
                .one_of(MOVE_PIECE, movable_pieces(s, seat_of(frame))).nothing(STOP_ACTION))

    @handles(MOVE_PIECE)
    def choose(self, t: Play, frame: Frame, seat: int, piece: str) -> None:
        t.update(piece=piece)

    @handles(MOVE_TO)
    def to_region(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        kind, place = places.parse_piece(frame.piece)
        t.update(piece=None, left=frame.left - 1)
        if kind == "army":
            t.emit(ev.piece_moved("army", str(block_owner(t.state, seat)), place, region))
        else:
            lose_piece(t, "tribe", seat, place, dst=region)

    @handles(MOVE_SPY_TO)
    def to_card(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        place = places.parse_piece(frame.piece)[1]
        t.update(piece=None, left=frame.left - 1)
        t.emit(ev.piece_moved("spy", seat, place, str(number)))


VERBS = (
    MOVE_PIECE,
    MOVE_TO,
    MOVE_SPY_TO,
)

STEPS = (Move(),)
