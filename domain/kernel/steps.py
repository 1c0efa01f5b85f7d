"""Steps and frames: rulebook procedures that ask questions and call each other.

A **step** is one named rulebook procedure. It may put a prompt to a seat (``prompt``),
handle each verb of that prompt (a method marked ``@handles("Verb")``), and do its
automatic work when nobody is asked anything (``advance``).

A **frame** is a step in progress: the step's name, the seat that owns it and a few
locals (JSON values). The frames form a stack kept in the game state; the top frame is
the step being played. Games that keep the stack explicitly change it only through the
three frame events below (``Flow.call``, ``goto``, ``end``, ``update`` emit them), so a
sub-decision can be called, answered by another seat, and return to where it was.
A game whose procedure is already recorded by its own events may instead derive its
frames from its state (Dynasties: the phase and the pending decision).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MethodType
from typing import Any, ClassVar, Generic, TypeVar, cast

from domain.kernel.errors import DomainError
from domain.kernel.events import Event
from domain.kernel.prompt import Prompt, Verb, verb_type
from domain.kernel.rng import Rng

S = TypeVar("S")

STEP_ENTERED = "StepEntered"
STEP_LEFT = "StepLeft"
STEP_UPDATED = "StepUpdated"
FRAME_EVENTS = frozenset({STEP_ENTERED, STEP_LEFT, STEP_UPDATED})


@dataclass(frozen=True)
class Frame:
    """A step in progress. ``seat`` owns it (None: the table, for automatic phases)."""

    step: str
    seat: int | None = None
    #: the step's locals; never changed in place (``step_updated`` makes a new frame)
    locals: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _readable(self)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["locals"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def owner_seat(self) -> int:
        """``seat``, for a step that a seat plays (a frame of the table has none: an error)."""
        seat = self.seat
        if seat is None:
            raise TypeError(f"step {self.step!r} is the table's: it has no seat")
        return seat

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "seat": self.seat, "locals": dict(self.locals)}


def _readable(made: Frame) -> None:
    """The locals as plain attributes too (``frame.card``), so reading one costs no
    ``__getattr__`` call; the three fields win over a local of the same name."""
    d = made.__dict__
    d.update({name: value for name, value in d["locals"].items() if name not in ("step", "seat", "locals")})


def frame(step: str, seat: int | None = None, **values: Any) -> Frame:
    return _made(step, seat, values)


def step_entered(step: str, seat: int | None, values: Mapping[str, Any]) -> Event:
    return Event(STEP_ENTERED, {"step": step, "seat": seat, "locals": dict(values)})


def step_left(step: str) -> Event:
    return Event(STEP_LEFT, {"step": step})


def step_updated(step: str, values: Mapping[str, Any]) -> Event:
    return Event(STEP_UPDATED, {"step": step, "locals": dict(values)})


def _made(step: str, seat: int | None, values: dict[str, Any]) -> Frame:
    """``Frame(step, seat, values)`` without the frozen dataclass's ``__init__`` (a frame
    is made for every frame event folded, so this is on the hot path)."""
    made = object.__new__(Frame)
    made.__dict__.update(values)  # read as attributes without ``__getattr__``
    made.__dict__.update(step=step, seat=seat, locals=values)
    return made


def apply_frame_event(frames: list[Frame], event: Event) -> None:
    """The stack after one frame event (in place). ``evolve`` calls it; it never validates."""
    data = event.data
    if event.type == STEP_ENTERED:
        frames.append(_made(data["step"], data["seat"], dict(data["locals"])))
    elif event.type == STEP_LEFT:
        frames.pop()
    else:
        top = frames[-1]
        frames[-1] = _made(top.step, top.seat, {**top.locals, **data["locals"]})


class _Handler:
    """A step method marked by ``handles``: read from a step, the bound method; from its class,
    the function. (A marker object rather than an attribute set on the function: a function
    compiled by mypyc takes no attributes.)"""

    def __init__(self, verb: str, method: Callable[..., None]):
        self.verb = verb
        self.method = method

    def __get__(self, step: object, owner: type | None = None) -> Callable[..., None]:
        return self.method if step is None else MethodType(self.method, step)


def handles(verb: str | Verb) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark a step method as the handler of ``verb`` (a ``Verb``, or its type): ``handler(flow,
    frame, seat, arg)``."""
    name = verb_type(verb)

    def mark(method: Callable[..., None]) -> Callable[..., None]:
        return cast(Callable[..., None], _Handler(name, method))
    return mark


class Step(Generic[S]):
    """One rulebook procedure. Subclasses set ``name`` and override what they need."""

    #: a class attribute; a step class played under several names sets it per instance
    name: str
    handlers: ClassVar[dict[str, str]] = {}
    #: True when the owner's prompt always offers something (a verb without an argument,
    #: such as ending the turn): the owner is then known to be asked without building it.
    always_asks: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found = dict(getattr(cls, "handlers", {}))
        for attr, value in vars(cls).items():
            if isinstance(value, _Handler):
                found[value.verb] = attr
        cls.handlers = found

    def prompt(self, state: S, frame: Frame, seat: int) -> Prompt | None:
        """The question put to ``seat`` now, or None. By default only the owner is asked."""
        if seat != frame.seat:
            return None
        return self.ask(state, frame)

    def ask(self, state: S, frame: Frame) -> Prompt | None:
        """The question put to the frame's owner, or None (then ``advance`` runs)."""
        return None

    def asked(self, state: S, frame: Frame, seats: int) -> list[int]:
        """The seats with a prompt now (``to_move``). By default each possible seat's
        prompt is built; a step that can tell more cheaply overrides this (and ``awaits``).

        A prompt that offers nothing (every choice left out, as ``one_of`` does with an
        empty set) asks nobody, as ``StepRules.prompt`` says."""
        if frame.seat is not None:
            return [frame.seat] if self.asks(state, frame) else []
        return [seat for seat in range(seats) if self.prompt(state, frame, seat)]

    def awaits(self, state: S, frame: Frame, seats: int) -> bool:
        """Does some seat owe an answer now? If not, ``advance`` runs. By default: is some
        seat ``asked``."""
        if frame.seat is not None:
            return self.asks(state, frame)
        return any(self.prompt(state, frame, seat) for seat in range(seats))

    def asks(self, state: S, frame: Frame) -> bool:
        """Does the owner of a seat's frame have a prompt now (``asked`` and ``awaits`` ask
        this)? By default its prompt is built; a step that can tell more cheaply overrides
        this, and must agree with its prompt (the random-play tests check they do)."""
        return self.always_asks or bool(self.prompt(state, frame, frame.owner_seat))

    def advance(self, flow: Flow[S], frame: Frame) -> None:
        """The automatic work done when nobody is asked anything."""
        raise NotImplementedError(f"step {self.name!r} waits for input but nobody is asked")

    def handler(self, verb: str) -> Callable[..., None] | None:
        attr = self.handlers.get(verb)
        return getattr(self, attr) if attr is not None else None


def step_table(*steps: Step[Any]) -> dict[str, Step[Any]]:
    """``{name: step}``; a name used twice is a programming error."""
    table: dict[str, Step[Any]] = {}
    for step in steps:
        if step.name in table:
            raise ValueError(f"two steps are named {step.name!r}")
        table[step.name] = step
    return table


#: Events a single command may cause, and automatic steps it may run, before the game is
#: judged to run away (a rules bug: the game would never ask anyone anything again).
RUNAWAY_LIMIT = 10_000


class RunawayGame(DomainError):
    code = "runaway"


class Flow(Generic[S]):
    """The flow of play one command sets off: the state being worked on and the events
    emitted so far. (Not a player's turn in any rulebook: one command may end a turn, or
    several commands make one.)

    For games that keep their frame stack in the state, ``call``/``goto``/``end``/``update``
    change it by emitting frame events (``frames`` finds the stack in a state).
    """

    def __init__(self, state: S, evolve: Callable[[S, Event], S], rng: Rng | None = None,
                 frames: Callable[[S], list[Frame]] | None = None):
        self.state = state
        self.events: list[Event] = []
        self.rng = rng
        self._evolve = evolve
        self._frames = frames
        #: locals the current step will record only if needed (``update_later``): (depth, values)
        self._later: tuple[int, dict[str, Any]] | None = None

    def emit(self, event: Event) -> None:
        if len(self.events) >= RUNAWAY_LIMIT:
            raise RunawayGame(f"more than {RUNAWAY_LIMIT} events from one command")
        self.state = self._evolve(self.state, event)
        self.events.append(event)

    # -- the frame stack ---------------------------------------------------------------
    @property
    def frame(self) -> Frame:
        assert self._frames is not None, "this game keeps no frame stack"
        return self._frames(self.state)[-1]

    def call(self, step: str, seat: int | None = None, **values: Any) -> None:
        """Start ``step`` on top of the current one; it returns here when it ends."""
        if self._later is not None:
            self.settle()
        self.emit(step_entered(step, seat, values))

    def end(self) -> None:
        """The current step is done: play returns to the step that called it."""
        if self._later is not None and self._later[0] == self._depth():
            self._later = None  # what it would have recorded goes with it
        self.emit(step_left(self.frame.step))

    def goto(self, step: str, seat: int | None = None, **values: Any) -> None:
        """Replace the current step by ``step`` (the caller resumes when that one ends)."""
        self.end()
        self.call(step, seat, **values)

    def update(self, **values: Any) -> None:
        """Change some locals of the current step."""
        later = self._later
        if later is not None:
            self._later = None
            assert later[0] == self._depth(), "only the step that deferred its locals is current"
            values = {**later[1], **values}
        self.emit(step_updated(self.frame.step, values))

    def update_later(self, **values: Any) -> None:
        """Change some locals of the current step, recorded only when they can matter: before
        a step is called on top of it (which returns to it and reads them), merged into its
        next ``update``, or by ``settle``; forgotten if the step ends first. A procedure
        moving on through its stages says so this way, so stages that call nothing cost no
        event (a later ``update_later`` replaces an unrecorded one)."""
        assert self._frames is not None, "this game keeps no frame stack"
        self._later = (len(self._frames(self.state)), values)

    @property
    def deferring(self) -> bool:
        """Are locals of ``update_later`` still unrecorded (nothing has needed them yet)?"""
        return self._later is not None

    def settle(self) -> None:
        """Record the locals ``update_later`` left unrecorded, if any (the kernel does this
        before it hands back the state of a game that goes on, so no step resumes without
        them)."""
        later = self._later
        if later is None:
            return
        self._later = None
        depth, values = later
        frames = self._frames_now()
        assert len(frames) == depth, "only the step that deferred its locals is current"
        self.emit(step_updated(frames[-1].step, values))

    def _frames_now(self) -> list[Frame]:
        assert self._frames is not None, "this game keeps no frame stack"
        return self._frames(self.state)

    def _depth(self) -> int:
        return len(self._frames_now())
