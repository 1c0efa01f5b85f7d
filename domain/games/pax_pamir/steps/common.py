"""What every step module shares: the flow of play (``Play``), automatic procedures in stages, the
argument kinds, placing a piece (with R-LIM when the supply is empty), and what the six
card-based actions share (``ActionStep``, paying an action's cost to the market, R-CST).

A ``Procedure`` is a rulebook procedure that runs by itself in ``stages``; any stage may
call a sub-step that asks a seat something (a border for a road, a card to discard), and
the procedure resumes at its next stage when that sub-step ends: the frame records the stage
that called it (``Flow.resume_at``), and the procedure goes on from the stage after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import MARKET_COLUMNS, MARKET_ROWS, REGION_BY_ID, Coalition
from domain.games.pax_pamir.data.cards import COURT_CARDS, PUBLIC_WITHDRAWAL
from domain.games.pax_pamir.state import SUPPLY, PaxState
from domain.games.pax_pamir.steps import names
from domain.kernel.prompt import NUMBER as _NUMBER
from domain.kernel.prompt import Arg, Kind, Prompt, Verb
from domain.kernel.steps import Flow, Frame, Step, handles

Play = Flow[PaxState]

#: a card is named by its number in cards.yaml (1-100 court cards, 101-104 checks, 105-116 events)
CARD = _NUMBER
#: a piece on the board, as ``<kind>:<place>``: ``army:kabul``, ``road:herat_kabul``,
#: ``tribe:kabul``, ``spy:54``, ``gift:4``
PIECE: Final = Kind("piece", "string", "a piece as kind:place, such as tribe:kabul, road:herat_kabul, spy:54, gift:4")


#: the verbs of this module, each said once: declared here, handled and offered by name
TAKE_PIECE: Final = Verb("TakePiece", "Your supply is empty: take this piece from the board to place instead (R-LIM).",
                         Arg("piece", PIECE),
                         refusal="you are not asked to take a piece from the board")
#: listed among the card-based actions' verbs (``actions.VERBS``), handled by every ``ActionStep``
STOP_ACTION: Final = Verb("StopAction", "Stop the card-based action here (R-TAX-3, R-MOV-5, R-BAT-4, an optional block).",
                          refusal="you are not in the middle of an action you may stop")


@mypyc_attr(allow_interpreted_subclasses=True)
class Procedure(Step[PaxState]):
    """An automatic procedure run in ``stages`` (method names), then ended."""

    stages: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        super().__init__()
        #: ``stages``, the methods themselves, found once when the step is made (compiled, a
        #: method found by its name is a generic attribute lookup, and a bound method made, on
        #: every stage run; a class attribute is read through the type, on every ``advance``)
        self._stage_methods: tuple[Callable[[Play, Frame], None], ...] = tuple(
            [getattr(self, name) for name in self.stages])

    def advance(self, t: Play, frame: Frame) -> None:
        """Runs stages until one calls a sub-step (or ends the procedure, or the game), then
        the procedure ends. The stage reached is recorded only when a sub-step is called (it
        returns here, to the next stage): ``Flow.resume_at``."""
        stages = self._stage_methods
        stage: int = frame.locals.get("stage", 0)
        frames = t.stack  # (changed in place: read after each stage, no call)
        depth = len(frames)
        while stage < len(stages):
            stage += 1
            stages[stage - 1](t, frame)
            if len(frames) != depth or frames[-1] is not frame:
                t.resume_at(frame, depth, stage=stage)  # a sub-step was called, or the stage ended this
                return
            if t.state.outcome is not None:
                return  # nothing follows the end of the game (R-DOM-8), nor resumes this
        t.end()


def block_owner(s: PaxState, seat: int) -> Coalition:
    loyalty = s.players[seat].loyalty
    assert loyalty is not None, "blocks are placed only after loyalty is chosen"
    return loyalty


def supply_of(s: PaxState, kind: str, seat: int) -> int:
    if kind in ("army", "road"):
        return q.blocks_in_supply(s, block_owner(s, seat))
    return q.cylinders_in_supply(s, seat)


def owner_key(s: PaxState, kind: str, seat: int) -> str | int:
    return block_owner(s, seat) if kind in ("army", "road") else seat


def pieces_on_board(s: PaxState, kind: str, seat: int) -> list[str]:
    """R-LIM-2: where a piece of the needed kind may be taken from: a block of the seat's
    coalition (army or road) or one of its cylinders (tribe, spy or gift), except pieces
    placed this turn (R-LIM-1, section 23 item 8). As ``kind:place`` strings."""
    found: list[str] = []  # (a count read with ``get`` first: a Counter's missing key is a Python-level
    # ``__missing__``, and a place's key is built only where there is a piece to take)
    if kind in ("army", "road"):
        coalition = block_owner(s, seat)
        for region, armies in s.armies.items():
            count = armies.get(coalition, 0)
            if count > 0 and count > s.placed.get(places.placed_key("army", coalition, region), 0):
                found.append(places.piece("army", region))
        for border, roads in s.roads.items():
            count = roads.get(coalition, 0)
            if count > 0 and count > s.placed.get(places.placed_key("road", coalition, border), 0):
                found.append(places.piece("road", border))
        return found
    for region, tribes in s.tribes.items():
        count = tribes.get(seat, 0)
        if count > 0 and count > s.placed.get(places.placed_key("tribe", seat, region), 0):
            found.append(places.piece("tribe", region))
    for number, spies in s.spies.items():
        count = spies.get(seat, 0)
        if count > 0 and count > s.placed.get(places.placed_key("spy", seat, number), 0):
            found.append(places.piece("spy", number))
    for value in sorted(s.players[seat].gifts):
        if not s.placed.get(places.placed_key("gift", seat, value)):
            found.append(places.piece("gift", value))
    return found


def place_piece(t: Play, seat: int, kind: str, dst: str, *, placed: bool = True) -> None:
    """Place one piece of ``kind`` for ``seat`` at ``dst`` (R-IMP-1): from the supply, or
    else the seat chooses one from the board (R-LIM, step ``take_piece``). ``placed``: it
    counts as placed this turn, so R-LIM may not take it back (section 23 item 8: impact
    icons, Gift, Build, Infrastructure and Blackmail do; Insurrection and Safe House don't)."""
    s = t.state
    if supply_of(s, kind, seat) > 0:
        t.emit(ev.piece_moved(kind, owner_key(s, kind, seat), SUPPLY, dst, placed=placed))
    else:
        t.call(names.TAKE_PIECE, seat, kind=kind, dst=dst, placed=placed)


def lose_piece(t: Play, kind: str, owner: str | int, place: str, dst: str = SUPPLY) -> None:
    """A piece leaves ``place`` (to the supply unless ``dst``); a tribe leaving its owner's
    last place in a region starts the overthrow check there (R-OVR-1)."""
    t.emit(ev.piece_moved(kind, owner, place, dst))
    if kind == "tribe":
        s = t.state
        assert isinstance(owner, int), "a tribe belongs to a seat"
        if s.tribes[REGION_BY_ID[place]][owner] == 0:
            t.call(names.OVERTHROW, owner, region=place, lost="tribe")


def describe_place(kind: str, place: str) -> str:
    """``tribe``, ``kabul`` -> "a tribe in Kabul" (for prompts)."""
    if kind == "spy":
        return f"a spy on {COURT_CARDS[int(place)].name}"
    if kind == "gift":
        return f"a gift on your {place}-rupee gift space"
    if kind == "road":
        return f"a road on the {place.replace('_', '-').title()} border"
    return f"{'an' if kind == 'army' else 'a'} {kind} in {place.title()}"


@mypyc_attr(allow_interpreted_subclasses=True)
class TakePiece(Step[PaxState]):
    """R-LIM: the supply is empty, so the placing seat takes a piece of the same kind from
    the board (R-LIM-2: a block of its coalition, or one of its cylinders, gifts included;
    not one placed this turn, R-LIM-1) and places it at ``dst``; with none, the placement
    is skipped (R-LIM-4). Taking a tribe may overthrow its owner there (R-OVR-6). The piece
    already standing at ``dst`` may be taken like any other (section 23 item 14): the board
    stays as it was, the piece now counts as placed this turn, and every other piece keeps
    its place."""

    name = names.TAKE_PIECE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = frame.owner_seat
        choices = pieces_on_board(s, frame.kind, seat)
        if not choices:
            return None
        what = "block" if frame.kind in ("army", "road") else "cylinder"
        here = places.piece(frame.kind, frame.dst)
        stays = " (taking the one already there leaves the board as it is)" if here in choices else ""
        return Prompt(seat, f"Your supply has no {what} left: take one of yours from the board to place as "
                      f"{describe_place(frame.kind, frame.dst)}{stays}.").one_of(TAKE_PIECE, choices)

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()  # R-LIM-4: nothing eligible, the placement is skipped

    @handles(TAKE_PIECE)
    def take(self, t: Play, frame: Frame, seat: int, piece: str) -> None:
        s = t.state
        source_kind, place = places.parse_piece(piece)
        owner = owner_key(s, frame.kind, seat)
        kind, dst = frame.kind, frame.dst
        placed = frame.locals.get("placed", True)
        t.end()
        if source_kind == kind and place == dst:  # section 23 item 14: it goes back where it stood
            t.emit(ev.piece_moved(kind, owner, place, SUPPLY))
        else:
            lose_piece(t, source_kind, owner, place)
        t.emit(ev.piece_moved(kind, owner, SUPPLY, dst, placed=placed))


VERBS = (
    TAKE_PIECE,
)

STEPS = (TakePiece(),)


def pay_rupee_to_market(t: Play, seat: int, row: int, column: int, reason: str) -> None:
    """One rupee onto a market slot: destroyed on Public Withdrawal (section 16.2), and the
    slot is marked for this turn when a card sits there (R-PUR-4, R-CST-3)."""
    s = t.state
    number = s.market[row][column]
    if number == PUBLIC_WITHDRAWAL:
        t.emit(ev.rupees_moved(1, places.purse(seat), "removed", reason))
        return
    t.emit(ev.rupees_moved(1, places.purse(seat), places.market(row, column), reason))
    if number is not None and (row, column) not in s.marked:
        t.emit(ev.market_slot_marked(row, column))


# -- shared by the card-based actions (R-ACT) ----------------------------------------------

def seat_of(frame: Frame) -> int:
    """The seat an action step belongs to (always a seat, never the table)."""
    assert frame.seat is not None
    return frame.seat


def can_place(s: PaxState, seat: int, kind: str) -> bool:
    """A piece of ``kind`` can be placed: from the supply, or else from the board (R-LIM-1,
    R-LIM-4; the one already at the destination counts, section 23 item 14, so where it goes
    does not matter and a caller asks once per kind, not once per place)."""
    return supply_of(s, kind, seat) > 0 or bool(pieces_on_board(s, kind, seat))


def my_spies(s: PaxState, seat: int, number: int) -> int:
    spies = s.spies.get(number)
    return spies.get(seat, 0) if spies is not None else 0


def spied_cards(s: PaxState, seat: int) -> list[int]:
    """Court cards holding a spy of ``seat``, along the court track (every court in seat order,
    left to right). The courts are looked through only when the seat has a spy out (Battle's and
    Move's menus ask this of every state)."""
    spied = s.spies
    for spies in spied.values():
        if spies.get(seat, 0) > 0:
            break
    else:
        return []
    found: list[int] = []
    for player in s.players:
        for number in player.court:
            spies_here = spied.get(number)
            if spies_here is not None and spies_here.get(seat, 0) > 0:
                found.append(number)
    return found


# -- R-CST: paying an action's cost to the market -------------------------------------------------

def pay_action_cost(t: Play, seat: int, amount: int, reason: str, offset: int = 0) -> None:
    """R-CST-1 to R-CST-4: ``amount`` (even) as ``amount // 2`` rupees per row, from the
    rightmost card leftwards, one card per rupee, skipping empty slots; a row that runs out
    removes its remaining rupees from the game. ``offset`` rupees per row were already paid
    in this action (a Build pays block by block and goes on leftwards)."""
    s = t.state
    per_row = amount // 2
    cards = [[column for column in reversed(range(MARKET_COLUMNS)) if s.market[row][column] is not None]
             for row in range(MARKET_ROWS)]
    for index in range(offset, offset + per_row):
        for row in range(MARKET_ROWS):
            if index < len(cards[row]):
                pay_rupee_to_market(t, seat, row, cards[row][index], reason)
            else:
                t.emit(ev.rupees_moved(1, places.purse(seat), "removed", reason))


@mypyc_attr(allow_interpreted_subclasses=True)
class ActionStep(Step[PaxState]):
    """A step of a card-based action: its ``ask`` returns None once it is over, or its seat
    stops it; either way it ``finish``-es (by default it ends)."""

    def advance(self, t: Play, frame: Frame) -> None:
        self.finish(t, frame)

    @handles(STOP_ACTION)
    def stop(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        self.finish(t, frame)

    def finish(self, t: Play, frame: Frame) -> None:
        t.end()
