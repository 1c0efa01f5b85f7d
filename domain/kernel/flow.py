"""Frames and the flow of one command: the part of the step machinery that runs on every event.

``domain.kernel.steps`` says what steps and frames are; this module holds the frame
events and their fold (``apply_frame_event``), the ``Frame`` a step in progress is, and
``Flow``, which applies each event the moment a rule emits it. It is compiled with the rest
of the engine (``make compile``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from mypy_extensions import mypyc_attr

from domain.kernel.errors import RunawayGame
from domain.kernel.events import Event
from domain.kernel.prompt import Prompt
from domain.kernel.rng import Rng

S = TypeVar("S")

STEP_ENTERED: Final = "StepEntered"
STEP_LEFT: Final = "StepLeft"
STEP_UPDATED: Final = "StepUpdated"
#: How one command changed the stack, recorded once as it ends (rules since issue 35); the three
#: events above, one a change, are what streams recorded before it, still folded as they were
STEPS_CHANGED: Final = "StepsChanged"
FRAME_EVENTS: Final = frozenset({STEP_ENTERED, STEP_LEFT, STEP_UPDATED, STEPS_CHANGED})


class Frame:
    """A step in progress. ``seat`` owns it (None: the table, for automatic phases); the step's
    locals are read as attributes too (``frame.card``).

    Never changed once made (``Flow.update`` makes a new frame): its fields are ``Final``,
    which mypy enforces and, where the engine is compiled, the native class too. Compiled, it
    is a native class, as ``Event`` is: the kernel and the steps read ``step``, ``seat``,
    ``owner_seat`` and ``locals`` from its C struct (as an attribute of a plain class each read
    was a dictionary lookup of about 240 instructions, and a frame is made for most frame
    events), and a local is found by ``__getattr__`` in ``locals``. Where the sources run as
    Python the locals are plain attributes besides (``_NATIVE``), read without that hook."""

    step: Final[str]
    seat: Final[int | None]
    #: the step's locals; never changed in place
    locals: Final[dict[str, Any]]
    #: ``seat``, for a step that a seat plays: a frame of the table has none (reading it there
    #: raises AttributeError)
    owner_seat: Final[int]

    def __init__(self, step: str, seat: int | None = None, locals: dict[str, Any] | None = None):
        values = {} if locals is None else locals
        if not _NATIVE and values:  # first: the fields set below win over a local of the same name
            vars(self).update(values)
        self.step = step
        self.seat = seat
        self.locals = values
        if seat is not None:
            self.owner_seat = seat

    def __getattr__(self, name: str) -> Any:
        """A local, read as an attribute (compiled only: see ``_NATIVE``)."""
        try:
            return self.locals[name]
        except KeyError:
            raise AttributeError(name) from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self.step == other.step and self.seat == other.seat and self.locals == other.locals

    def __repr__(self) -> str:
        return f"Frame(step={self.step!r}, seat={self.seat!r}, locals={self.locals!r})"

    def __reduce__(self) -> tuple[type[Frame], tuple[str, int | None, dict[str, Any]]]:
        # pickled as a call of the class with its fields, by either engine (as ``Command``)
        return Frame, (self.step, self.seat, self.locals)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "seat": self.seat, "locals": dict(self.locals)}


#: Is ``Frame`` the compiled native class (no ``__dict__``: its locals are found by
#: ``__getattr__``)? Where the sources run as Python, a class with ``__getattr__`` pays the hook
#: on every attribute read, found or not, and its reads are not specialised: there the locals
#: are put in the instance's ``__dict__`` instead, and the hook is removed.
_NATIVE: Final = hasattr(Frame, "__mypyc_attrs__")
if not _NATIVE:
    del Frame.__getattr__


def frame(step: str, seat: int | None = None, **values: Any) -> Frame:
    return Frame(step, seat, values)


# The frame events of streams recorded before issue 35, one a change of the stack (folded still,
# and made by tests that build such a stream)

def step_entered(step: str, seat: int | None, values: dict[str, Any]) -> Event:
    """``values``, a dict of the caller's own (a ``Flow`` passes its keyword arguments), becomes
    the event's locals as it is: not copied again (a frame event is made for most steps)."""
    return Event(STEP_ENTERED, {"step": step, "seat": seat, "locals": values})


def step_left(step: str) -> Event:
    return Event(STEP_LEFT, {"step": step})


def step_updated(step: str, values: dict[str, Any]) -> Event:
    """As ``step_entered``: ``values`` is the caller's own, kept as it is."""
    return Event(STEP_UPDATED, {"step": step, "locals": values})


def steps_changed(kept: int, frames: list[Frame]) -> Event:
    """The stack keeps its ``kept`` lowest frames, and ``frames`` are on top of them. (The
    frames' locals are their own dicts, never changed in place: the event holds them as they are.)"""
    return Event(STEPS_CHANGED, {"kept": kept, "frames": [
        {"step": top.step, "seat": top.seat, "locals": top.locals} for top in frames]})


def apply_frame_event(frames: list[Frame], event: Event) -> None:
    """The stack after one frame event (in place). ``evolve`` calls it; it checks nothing of
    the game, only that a ``StepsChanged`` keeps a depth the stack has (a stored body, perhaps
    an imported one, is read as it is)."""
    data = event.data
    if event.type == STEPS_CHANGED:
        kept = data["kept"]
        if isinstance(kept, bool) or not isinstance(kept, int) or not 0 <= kept <= len(frames):
            raise ValueError(f"StepsChanged keeps {kept!r} frames of a stack of {len(frames)}")
        del frames[kept:]
        frames.extend([Frame(row["step"], row["seat"], row["locals"]) for row in data["frames"]])
    elif event.type == STEP_ENTERED:  # (the frame's locals are the event's: neither is ever changed in place)
        frames.append(Frame(data["step"], data["seat"], data["locals"]))
    elif event.type == STEP_LEFT:
        frames.pop()
    else:
        top = frames[-1]
        frames[-1] = Frame(top.step, top.seat, {**top.locals, **data["locals"]})


# -- the prompts of the state last asked about ---------------------------------------------------

class Asked:
    """Who the current step of one state asks and the prompts it puts, per seat, as they were
    worked out: who must answer (``to_move``, ``awaits``), what the seat may do
    (``legal_commands``) and whether a command is allowed (``play``) read the same answers,
    worked out once for that state."""

    def __init__(self, state: object, frame: Frame):
        self.state = state
        self.frame = frame
        self.prompts: dict[int, Prompt | None] = {}
        #: ``Step.asked``, once worked out
        self.seats: list[int] | None = None


class _Kept:
    asked: Asked | None = None


#: The prompts of the last state asked about (one state, whichever it is). Kept only while that
#: state is unchanged: every event is applied through ``StepRules.evolve``, which forgets them
#: when it changes that state, and the frame stack is changed through a ``Flow``, which forgets
#: them too (what a step asks may depend on the frames below it). A state copied is another
#: state (nothing is shared with the copy), and a caller that works on several states in turn
#: only builds more often. Its prompts are read, never changed (``Prompt`` works out a lazy
#: choice once, in place).
KEPT: Final = _Kept()


#: Events a single command may cause, and automatic steps it may run, before the game is
#: judged to run away (a rules bug: the game would never ask anyone anything again).
RUNAWAY_LIMIT = 10_000


@mypyc_attr(allow_interpreted_subclasses=True)
class Flow(Generic[S]):
    """The flow of play one command sets off: the state being worked on and the events
    emitted so far. (Not a player's turn in any rulebook: one command may end a turn, or
    several commands make one.)

    For games that keep their frame stack in the state, ``call``/``goto``/``end``/``update``
    change it there (``frames`` finds the stack in a state), and ``record_steps`` records how
    it changed, once a command.
    """

    def __init__(self, state: S, evolve: Callable[[S, Event], S], rng: Rng | None = None,
                 frames: Callable[[S], list[Frame]] | None = None):
        self.state = state
        self.events: list[Event] = []
        self.rng = rng
        #: ``RUNAWAY_LIMIT`` when the flow began (a module global, which a test may lower, is a
        #: dictionary lookup on each read: read once, not once an event)
        self._limit = RUNAWAY_LIMIT
        self._evolve = evolve
        #: the kernel's own fold (a ``Fold``: ``StepRules.begin`` gives the rules' one), called as
        #: a compiled method rather than through ``__call__`` (Python's calling convention, on
        #: every event); it finds the frames too
        self._folder: Fold | None = evolve if isinstance(evolve, Fold) else None
        self._frames = frames
        #: the stack ``_frames_now`` found last, and the state it is the stack of
        self._stack: list[Frame] | None = None
        self._stack_of: object = None
        #: the frames below this depth are as they were when the stack was last recorded; -1:
        #: none has changed since (``record_steps``)
        self._kept = -1

    def emit(self, event: Event) -> None:
        """One of the game's own events, applied to the state the moment it is emitted (the
        stack changes through ``call``, ``goto``, ``end`` and ``update``, never by an event
        emitted)."""
        if len(self.events) >= self._limit:
            raise RunawayGame(f"more than {self._limit} events from one command")
        state = self.state
        kept = KEPT.asked  # the prompts worked out for the state no longer hold (``KEPT``)
        if kept is not None and kept.state is state:
            KEPT.asked = None
        folder = self._folder
        self.state = self._evolve(state, event) if folder is None else folder.fold(state, event)
        self.events.append(event)

    # -- the frame stack ---------------------------------------------------------------
    # A step called, ended or updated changes the stack in the state at once, and no event says
    # so then: the stack a command leaves is recorded once, when the kernel hands the state back
    # (``record_steps``: one ``StepsChanged``, where each change was an event of its own before).
    # Nothing but the kernel's own steps reads the stack, and they read it from the state.

    @property
    def frame(self) -> Frame:
        return self._frames_now()[-1]

    @property
    def stack(self) -> list[Frame]:
        """The frame stack itself, which ``call``, ``goto``, ``end`` and ``update`` change in place:
        a step that runs in stages reads it once, and after each stage sees whether that stage
        called a step on top of it or ended it (``resume_at``), without asking the flow."""
        return self._frames_now()

    def call(self, step: str, seat: int | None = None, **values: Any) -> None:
        """Start ``step`` on top of the current one; it returns here when it ends."""
        self._enter(step, seat, values)

    def _enter(self, step: str, seat: int | None, values: dict[str, Any]) -> None:
        """``call``, with its locals as a dict of the caller's own (``goto`` passes its keyword
        arguments on this way: compiled, a call with ``**values`` of a method a subclass may
        override goes through Python's calling convention). The dict becomes the frame's
        locals as it is, never changed in place."""
        self._top_changing(0).append(Frame(step, seat, values))

    def end(self) -> None:
        """The current step is done: play returns to the step that called it."""
        self._top_changing(-1).pop()

    def goto(self, step: str, seat: int | None = None, **values: Any) -> None:
        """Replace the current step by ``step`` (the caller resumes when that one ends)."""
        self.end()
        self._enter(step, seat, values)

    def update(self, **values: Any) -> None:
        """Change some locals of the current step."""
        frames = self._top_changing(-1)
        top = frames[-1]
        frames[-1] = Frame(top.step, top.seat, {**top.locals, **values})

    def resume_at(self, frame: Frame, depth: int, **values: Any) -> None:
        """``frame`` (the step at ``depth`` of the stack, 1 the bottom) has just changed the stack
        while it ran by itself: if it called steps on top of itself, it resumes with ``values``
        among its locals when they end (a procedure moving on through its stages records the
        stage it reached only then, so a stage that calls nothing makes no frame); if it ended,
        nothing is kept of it."""
        frames = self._frames_now()
        if len(frames) > depth and frames[depth - 1] is frame:
            self._changing(depth - 1)
            frames[depth - 1] = Frame(frame.step, frame.seat, {**frame.locals, **values})

    def _changing(self, depth: int) -> None:
        """The frame at ``depth`` (from the bottom) and every frame above it are about to
        change: ``record_steps`` records them all. The prompts worked out for the state no
        longer hold."""
        if self._kept < 0 or depth < self._kept:
            self._kept = depth
        KEPT.asked = None

    def _top_changing(self, offset: int) -> list[Frame]:
        """The stack, whose frame ``offset`` from the top (0: one about to be put on it, -1: the
        top) and every frame above it are about to change: ``_frames_now`` and ``_changing`` in
        one call (said again here: ``call``, ``end`` and ``update`` are on most commands' path,
        and where the sources run as Python each call costs more than these lines)."""
        stack = self._stack
        if stack is None or self._stack_of is not self.state:
            stack = self._frames_now()
        depth = len(stack) + offset
        if self._kept < 0 or depth < self._kept:
            self._kept = depth
        KEPT.asked = None
        return stack

    def record_steps(self) -> None:
        """Record how the stack changed since it was last recorded, if it did: one
        ``StepsChanged`` with the frames from the lowest one changed to the top. The state
        has it already; folded onto the state as it was before, it gives the same stack."""
        kept = self._kept
        if kept < 0:
            return
        self._kept = -1
        if len(self.events) >= self._limit:
            raise RunawayGame(f"more than {self._limit} events from one command")
        frames = self._frames_now()
        self.events.append(steps_changed(kept, frames[kept:]))

    def _frames_now(self) -> list[Frame]:
        """The state's own stack, which the frame methods change in place: found once for a
        state (a game keeps it in its state, so the list is the same while the state is; the
        flow's state changes only when the first event makes one)."""
        state = self.state
        stack = self._stack
        if stack is not None and self._stack_of is state:
            return stack
        folder = self._folder
        if folder is not None:
            stack = folder.frames(state)
        else:
            assert self._frames is not None, "this game keeps no frame stack"
            stack = self._frames(state)
        self._stack = stack
        self._stack_of = state
        return stack


class Fold:
    """How a ``Flow`` applies an event and finds the frame stack: the rules' ``apply`` (a flow
    folds the game's own events) and ``frames``, as a native class the flow calls directly
    (``StepRules.begin`` gives the rules' own, ``domain.kernel.engine.Folder``)."""

    def fold(self, state: Any, event: Event) -> Any:
        raise NotImplementedError

    def frames(self, state: Any) -> list[Frame]:
        raise NotImplementedError

    def __call__(self, state: Any, event: Event) -> Any:
        return self.fold(state, event)
