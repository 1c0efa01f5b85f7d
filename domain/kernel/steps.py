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

Frames, frame events and ``Flow`` live in ``domain.kernel.flow`` (compiled with the engine)
and are named here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

from mypy_extensions import mypyc_attr

from domain.kernel.errors import RunawayGame as RunawayGame
from domain.kernel.flow import FRAME_EVENTS as FRAME_EVENTS
from domain.kernel.flow import KEPT as KEPT
from domain.kernel.flow import RUNAWAY_LIMIT as RUNAWAY_LIMIT
from domain.kernel.flow import STEP_ENTERED as STEP_ENTERED
from domain.kernel.flow import STEP_LEFT as STEP_LEFT
from domain.kernel.flow import STEP_UPDATED as STEP_UPDATED
from domain.kernel.flow import STEPS_CHANGED as STEPS_CHANGED
from domain.kernel.flow import Asked as Asked
from domain.kernel.flow import Flow as Flow
from domain.kernel.flow import Frame as Frame
from domain.kernel.flow import apply_frame_event as apply_frame_event
from domain.kernel.flow import frame as frame
from domain.kernel.flow import step_entered as step_entered
from domain.kernel.flow import step_left as step_left
from domain.kernel.flow import step_updated as step_updated
from domain.kernel.flow import steps_changed as steps_changed
from domain.kernel.prompt import Prompt, Verb, verb_type

S = TypeVar("S")

class _Handler:
    """A step method marked by ``handles``, until its class is made: ``Step.__init_subclass__``
    records the verb and puts the method back in its place, an ordinary method. (A marker
    object rather than an attribute set on the function: a function compiled by mypyc takes
    no attributes.)"""

    def __init__(self, verb: str, method: Callable[..., None]):
        self.verb = verb
        self.method = method


def handles(verb: str | Verb) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark a step method as the handler of ``verb`` (a ``Verb``, or its type): ``handler(flow,
    frame, seat, arg)``."""
    name = verb_type(verb)

    def mark(method: Callable[..., None]) -> Callable[..., None]:
        return cast(Callable[..., None], _Handler(name, method))
    return mark


@mypyc_attr(allow_interpreted_subclasses=True)
class Step(Generic[S]):
    """One rulebook procedure. Subclasses set ``name`` and override what they need.

    Compiled with the engine as a native class: the kernel calls a step's methods as C calls
    (a game's compiled steps are native too); a game written in plain Python subclasses it
    as any class. What a subclass sets in its class body is a class attribute (``ClassVar``):
    compiled code reads a native instance attribute from the object itself, where a plain
    subclass's class-level value is not."""

    #: the step's name in the game's step table and in its frames
    name: ClassVar[str]
    handlers: ClassVar[dict[str, str]] = {}
    #: True when the owner's prompt always offers something (a verb without an argument,
    #: such as ending the turn): the owner is then known to be asked without building it.
    always_asks: ClassVar[bool] = False
    #: Derived when the class is made: a step that writes neither ``prompt`` nor ``ask`` (an
    #: automatic procedure) never asks anyone, so ``advance`` runs without a prompt built.
    never_asks: ClassVar[bool] = True
    #: Derived when the class is made: a step every seat may answer that writes ``seat_asked``
    #: asks one seat at a time, the one it names; only that seat is then looked at.
    one_seat_at_a_time: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found = dict(getattr(cls, "handlers", {}))
        marked = [(attr, value) for attr, value in vars(cls).items() if isinstance(value, _Handler)]
        for attr, value in marked:
            found[value.verb] = attr
            setattr(cls, attr, value.method)  # bound as any method is, with no descriptor of ours
        cls.handlers = found
        below = cls.__mro__[:cls.__mro__.index(Step)]
        cls.never_asks = not [k for k in below if "prompt" in vars(k) or "ask" in vars(k)]
        cls.one_seat_at_a_time = bool([k for k in below if "seat_asked" in vars(k)])

    def __init__(self) -> None:
        # What the class says, held by the step too (as ``StepRules.__init__`` does): compiled,
        # the kernel reads an object's own attributes from its struct, where a class attribute
        # is looked up through the type, several times a command. A step that writes an
        # ``__init__`` calls ``super().__init__()``.
        self._never_asks: bool = self.never_asks
        self._always_asks: bool = self.always_asks
        self._one_seat_at_a_time: bool = self.one_seat_at_a_time
        #: ``handlers``, the methods themselves, found once (``handler``)
        self._handler_of: dict[str, Callable[..., None]] = {
            verb: getattr(self, attr) for verb, attr in self.handlers.items()}

    def prompt(self, state: S, frame: Frame, seat: int) -> Prompt | None:
        """The question put to ``seat`` now, or None. By default only the owner is asked."""
        if seat != frame.seat:
            return None
        return self.ask(state, frame)

    def ask(self, state: S, frame: Frame) -> Prompt | None:
        """The question put to the frame's owner, or None (then ``advance`` runs)."""
        return None

    def asked(self, state: S, frame: Frame, seats: int) -> list[int]:
        """The seats with a prompt now (``to_move``), from ``asks`` (a seat's frame) or
        ``asks_seat`` (a frame every seat may answer): the step's own statement of when it
        asks, never restated here.

        A prompt that offers nothing (every choice left out, as ``one_of`` does with an
        empty set) asks nobody, as ``StepRules.prompt`` says."""
        if self._never_asks:
            return []
        if frame.seat is not None:
            return [frame.seat] if self.asks(state, frame) else []
        if self._one_seat_at_a_time:
            one = self.seat_asked(state, frame)
            return [] if one is None else [one]
        return [seat for seat in range(seats) if self.asks_seat(state, frame, seat)]

    def awaits(self, state: S, frame: Frame, seats: int) -> bool:
        """Does some seat owe an answer now? If not, ``advance`` runs. Is some seat ``asked``
        (a step overrides this only to stop the game, as a finished game's last step does):
        worked out once for the state (``asked_of``), as ``to_move`` then reads it."""
        if self._never_asks:
            return False
        return bool(asked_of(self, state, frame, seats))

    def asks(self, state: S, frame: Frame) -> bool:
        """Does the owner of a seat's frame have a prompt now? By default its prompt is
        built. A step that can tell more cheaply overrides this, and then says it once: its
        ``ask`` begins with ``if not self.asks(...)`` and does not test it again (the
        random-play tests check that the two agree)."""
        return self._always_asks or bool(prompt_of(self, state, frame, frame.owner_seat))

    def asks_seat(self, state: S, frame: Frame, seat: int) -> bool:
        """``asks`` for a frame every seat may answer (no owner): does ``seat`` have a prompt
        now? For a step that asks one seat at a time, is it the one ``seat_asked`` names; else
        its prompt is built by default, and an override is the guard its ``prompt`` begins with."""
        if self._one_seat_at_a_time:
            return self.seat_asked(state, frame) == seat
        return bool(prompt_of(self, state, frame, seat))

    def seat_asked(self, state: S, frame: Frame) -> int | None:
        """For a frame every seat may answer where the rulebook asks one seat at a time (the
        seat due to place, say): that seat, or None when nobody is asked. A step that writes
        this is asked about that seat alone (``asked``, ``awaits``, ``asks_seat``), and its
        ``prompt`` begins with ``if not self.asks_seat(...)``: return None``."""
        raise NotImplementedError(f"step {self.name!r} asks any seat, not one at a time")

    def advance(self, flow: Flow[S], frame: Frame) -> None:
        """The automatic work done when nobody is asked anything."""
        raise NotImplementedError(f"step {self.name!r} waits for input but nobody is asked")

    def handler(self, verb: str) -> Callable[..., None] | None:
        """The method marked ``@handles(verb)``, read from the step itself (an override in a
        subclass is the one called), or None. Found when the step was made: compiled, a method
        found by its name is a generic attribute lookup, and a bound method made, on every command."""
        return self._handler_of.get(verb)


# -- the prompts of the state last asked about ---------------------------------------------------

def _found(state: object, frame: Frame) -> Asked | None:
    """What is kept for ``state``, if anything (``frame`` is its current one; a game that derives
    its frames may make an equal one on each call)."""
    kept = KEPT.asked
    if kept is not None and kept.state is state and (kept.frame is frame or kept.frame == frame):
        return kept
    return None


def prompt_of(step: Step[Any], state: object, frame: Frame, seat: int) -> Prompt | None:
    """``step.prompt(state, frame, seat)``, built once while ``state`` is unchanged: the one way
    the kernel asks a step for a prompt."""
    kept = KEPT.asked  # (``_found``, said here again: where the sources run as Python a call is
    # several hundred instructions, and the kernel asks this several times a command)
    if kept is None or kept.state is not state or (kept.frame is not frame and kept.frame != frame):
        kept = KEPT.asked = Asked(state, frame)
    prompts = kept.prompts
    if seat in prompts:
        return prompts[seat]
    made = step.prompt(state, frame, seat)
    prompts[seat] = made
    return made


def asked_of(step: Step[Any], state: object, frame: Frame, seats: int) -> list[int]:
    """``step.asked(state, frame, seats)``, worked out once while ``state`` is unchanged: the one
    way the kernel learns who must answer. The list kept is the one given, read and never
    changed (``to_move`` hands its caller a copy; ``Step.awaits`` asks whether it is empty).
    Kept only when someone is asked: when nobody is, the automatic steps go on and change the
    state at once."""
    kept = KEPT.asked  # (``_found``, said here again, as in ``prompt_of``)
    if (kept is not None and kept.seats is not None and kept.state is state
            and (kept.frame is frame or kept.frame == frame)):
        return kept.seats
    found = step.asked(state, frame, seats)
    if found:
        kept = _found(state, frame)  # (again: working it out may have built a prompt, kept there)
        if kept is None:
            kept = KEPT.asked = Asked(state, frame)
        kept.seats = found
    return found


def seats_kept(state: object) -> list[int] | None:
    """Who must answer in ``state``, if ``asked_of`` has worked it out since ``state`` last
    changed (read, never changed), else None. The kernel asks this right after the automatic
    steps stop, which asked it of the state they stopped at."""
    kept = KEPT.asked
    if kept is not None and kept.state is state:
        return kept.seats
    return None


def step_table(*steps: Step[Any]) -> dict[str, Step[Any]]:
    """``{name: step}``; a name used twice is a programming error."""
    table: dict[str, Step[Any]] = {}
    for step in steps:
        if step.name in table:
            raise ValueError(f"two steps are named {step.name!r}")
        table[step.name] = step
    return table
