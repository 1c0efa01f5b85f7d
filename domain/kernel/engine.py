"""The engine every game runs on: the flow of one command, and command handling through prompts.

``Flow``: rules code emits events, each applied the moment it is emitted, so handlers can
read the state as the rulebook would ("if the hand is empty, Enquire") while their only
output is the event list; ``decide`` and ``evolve`` cannot drift apart.

``StepRules``: the part of ``GameRules`` that is the same for every game. A game gives its
verbs, its steps, how to find its frames and how to apply its own events; the kernel
derives ``prompt``, ``to_move`` and ``legal_commands`` from the steps' prompts, refuses a
command the prompt does not allow (with the prompt's text) **before** any handler runs,
calls the handler, and runs automatic steps until some seat must answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar, cast

from mypy_extensions import mypyc_attr

from domain.kernel.commands import Command
from domain.kernel.errors import InvalidOptions, RuleViolation, RunawayGame
from domain.kernel.events import Event
from domain.kernel.flow import _NATIVE, FRAME_EVENTS, RUNAWAY_LIMIT, Fold, apply_frame_event
from domain.kernel.prompt import Prompt, Verb, short, verb_table
from domain.kernel.rng import Rng
from domain.kernel.rules import GameOptions
from domain.kernel.steps import KEPT, Flow, Frame, Step, asked_of, prompt_of, seats_kept
from domain.kernel.upcasting import NONE as NO_HISTORY
from domain.kernel.upcasting import Upcasters

S = TypeVar("S")


@mypyc_attr(allow_interpreted_subclasses=True)
class StepRules(Generic[S]):
    """Command handling shared by every game: prompts in, events out.

    A game subclass sets ``kind``, ``title``, ``min_seats``, ``max_seats``, ``verbs`` and
    ``steps`` and implements ``apply`` (its own events), ``frames``, ``seat_count``,
    ``is_over``, ``setup``, ``view``, ``outcome`` and ``copy``.

    Compiled with the engine as a native class, as ``Step`` is: what a game sets in its class
    body is a class attribute (``ClassVar``), which a game in plain Python sets as well.
    """

    kind: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    options_type: ClassVar[type[GameOptions]]
    verbs: ClassVar[tuple[Verb, ...]]
    steps: ClassVar[dict[str, Step[Any]]]
    #: the schema history of the game's own events (its namespace); none by default
    upcasters: ClassVar[Upcasters] = NO_HISTORY

    def __init__(self) -> None:
        # What the class body says, held by the object too: compiled, the kernel reads an
        # object's own attributes from its struct, where a class attribute is looked up
        # through the type, several times a command.
        self._step_of: dict[str, Step[Any]] = self.steps
        #: ``verbs`` by command type, with their position (``verb_table``)
        self._verb_of: Mapping[str, tuple[int, Verb]] = verb_table(self.verbs)
        self._barrier_on_handover: bool = self.barrier_on_handover
        #: how every flow of these rules applies its events (one for the rules: it holds nothing else)
        self._folder: Folder = Folder(self)
        #: ``playing``'s last answer
        self._last_playing: tuple[Frame, Step[Any]] | None = None

    @property
    def default_seats(self) -> int:
        """The seats a new game has unless asked otherwise (the fewest, by default)."""
        return self.min_seats
    #: Mark the last event of a command as an undo barrier when the seats owing the next
    #: decision are no longer just the actor (a bribe asked of another seat, say).
    barrier_on_handover: ClassVar[bool] = False

    # -- what the game supplies ----------------------------------------------------------
    def apply(self, state: S | None, event: Event) -> S:
        raise NotImplementedError

    def frames(self, state: S) -> list[Frame]:
        """By default the stack is ``state.frames``; a game that derives it overrides this."""
        kept: Any = state  # (not ``cast``: a call, on every event)
        frames: list[Frame] = kept.frames
        return frames

    def seat_count(self, state: S) -> int:
        """By default ``state.seats``."""
        kept: Any = state  # (not ``cast``: a call, several a command)
        seats: int = kept.seats
        return seats

    def is_over(self, state: S) -> bool:
        raise NotImplementedError

    def copy(self, state: S) -> S:
        raise NotImplementedError

    # -- derived for every game ------------------------------------------------------------
    @property
    def commands(self) -> tuple[Verb, ...]:
        return self.verbs

    def check_setup(self, seats: object, given: Mapping[str, Any] | None) -> Any:
        """The one check of a new game, made once when it is created: the seat count, every
        option, the options together, and the options against the seat count. ``setup``
        trusts what passed it."""
        self._refuse_seat_count(seats)
        assert isinstance(seats, int)
        options = self.options_type.check(given)
        options.validate_seats(seats)
        return options

    def _refuse_seat_count(self, seats: object) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions("seats", f"{self.title} is for {self.min_seats} to {self.max_seats} seats, "
                                          f"not {short(seats)}")

    def evolve(self, state: S | None, event: Event) -> S:
        """A frame event changes the stack ``frames`` finds (in place); any other event is the
        game's (``apply``)."""
        kept = KEPT.asked  # the prompts built for ``state`` no longer hold (``KEPT``)
        if kept is not None and kept.state is state:
            KEPT.asked = None
        if event.type in FRAME_EVENTS:
            assert state is not None, "frame events come after the setup events"
            apply_frame_event(self.frames(state), event)
            return state
        return self.apply(state, event)

    def begin_setup(self, seats: int, options: GameOptions, rng: Rng) -> Flow[S]:
        """The flow a game's ``setup`` runs in. There is no state until its first event,
        which ``apply`` turns into one: a setup procedure emits before it reads ``state``.

        A seat count the game cannot be played with is refused here too (``InvalidOptions``,
        as ``check_setup`` refuses it), for a caller in process that skipped that check."""
        self._refuse_seat_count(seats)
        options.validate_seats(seats)
        return self.begin(cast(S, None), rng)

    def begin(self, state: S, rng: Rng) -> Flow[S]:
        """The flow handlers receive; a game may return a subclass of ``Flow``. A flow folds
        what the game emits, its own events (the stack changes through the flow, never by an
        event emitted), with the game's ``apply``, and forgets the prompts of the state itself
        (``evolve``'s two other jobs, not done again on every event). Compiled, it folds through
        the rules' ``Folder`` (a native call); where the sources run as Python, through the
        rules' own ``apply`` and ``frames`` (the ``Folder`` would be one more Python call on
        every event)."""
        if _NATIVE:
            return Flow(state, self._folder, rng)
        return Flow(state, self.apply, rng, self.frames)

    def top(self, state: S) -> Frame | None:
        """The frame being played (the top of ``frames``), or None; a game that derives its
        frames may override this to skip building the whole stack."""
        frames = self.frames(state)
        return frames[-1] if frames else None

    def current(self, state: S) -> tuple[Frame, Step[S]] | None:
        """The top frame (``top``) and the step it plays, or None. Asked several times a
        command: a game that derives its frames may answer it at once (Dynasties: a table
        of each phase's frame and step)."""
        top = self.top(state)
        if top is None:
            return None
        return self.playing(top)

    def playing(self, top: Frame) -> tuple[Frame, Step[S]] | None:
        """``top`` and the step it plays (never None: typed optional, as ``current``'s answer is,
        so compiled code keeps the pair one Python tuple and gives that tuple again, where a
        pair typed plainly is unboxed and boxed anew on every call). The last answer is given
        again while the top frame is the same object (a frame is never changed, and ``current``
        is asked several times a command, of the same frame): no name read from the frame, no
        table looked up, no pair made. One answer for the rules object, replaced whole, so a
        reader sees one pair or another, never half of one."""
        last = self._last_playing
        if last is not None and last[0] is top:
            return last
        found = (top, self._step_of[top.step])
        self._last_playing = found
        return found

    def is_seat(self, state: S, seat: object) -> bool:
        return not isinstance(seat, bool) and isinstance(seat, int) and 0 <= seat < self.seat_count(state)

    def prompt(self, state: S, seat: object) -> Prompt | None:
        """The question put to ``seat`` now, or None (not this seat's decision, or no seat
        of this table). Built once while the state is unchanged (``prompt_of``), and read,
        never changed, by whoever receives it."""
        if not isinstance(seat, int) or self.is_over(state):
            return None
        found = self.current(state)
        if found is None:
            return None
        frame, step = found
        asked = prompt_of(step, state, frame, seat)
        return asked if asked else None

    def to_move(self, state: S) -> list[int]:
        """The seats with a prompt now, from the step's ``asked`` (which need not build them)."""
        if self.is_over(state):
            return []
        found = self.current(state)
        if found is None:
            return []
        frame, step = found
        return asked_of(step, state, frame, self.seat_count(state))[:]  # (the caller's own list)

    # (``seat`` and ``command`` are typed ``object`` where a caller may pass what a client sent:
    # compiled, a method checks its arguments' types before it runs, and the kernel's refusal
    # with its reason is the answer to a malformed one)
    def legal_commands(self, state: S, seat: object) -> list[Command]:
        """What the seat's prompt lists (a prompt offering nothing lists nothing)."""
        if not self.is_seat(state, seat) or self.is_over(state):
            return []
        assert isinstance(seat, int)
        found = self.current(state)
        if found is None:
            return []
        frame, step = found
        asked = prompt_of(step, state, frame, seat)
        if asked is None:
            return []
        return asked.commands(self._verb_of)

    def decide(self, state: S, seat: object, command: object, rng: Rng) -> list[Event]:
        return self.play(self.copy(state), seat, command, rng)[0]

    def play(self, state: S, seat: object, command: object, rng: Rng) -> tuple[list[Event], S]:
        """``decide`` and ``evolve`` at once: the events ``command`` causes, already applied
        to ``state`` **in place** (as ``evolve`` applies one), and the state they lead to.
        A caller that must keep ``state`` as it was plays on a ``copy`` (``decide`` does).
        A refused command raises ``RuleViolation`` before anything is applied: every check
        is made on the prompt, before the handler runs."""
        if not self.is_seat(state, seat):
            raise RuleViolation(f"there is no seat {short(seat)} at this table")
        assert isinstance(seat, int)
        if self.is_over(state):
            raise RuleViolation("the game is over")
        verb = self._verb(command)
        value = verb.parse(command)
        found = self.current(state)
        if found is None:
            raise RuleViolation(self._refusal(state, seat, verb, None))
        frame, step = found
        asked = prompt_of(step, state, frame, seat)  # as legal_commands built it, or only the verb sent
        kind = verb.type
        allowed = asked.allowed(kind) if asked is not None else None
        if allowed is None:
            raise RuleViolation(self._refusal(state, seat, verb, asked if asked else None))
        assert asked is not None
        allowed.check(value, asked.text)  # (the prompt's own ``check``, without looking the verb up again)
        handler = step.handler(kind)
        assert handler is not None, f"step {step.name!r} offers {kind} but has no handler for it"
        flow = self.begin(state, rng)
        handler(flow, frame, seat, value)
        self.run_until_input(flow)
        events = flow.events
        if self._barrier_on_handover and events:
            waiting = seats_kept(flow.state)  # (what the last automatic step asked: as ``to_move``)
            if waiting is None:
                waiting = self.to_move(flow.state)
            if waiting != [seat]:
                events[-1] = events[-1].with_barrier()
        return events, flow.state

    def run_until_input(self, flow: Flow[S]) -> None:
        """Automatic steps, until some seat must answer or the game is over; then the frame
        stack as it is now is recorded (``Flow.record_steps``)."""
        seats = self.seat_count(flow.state)
        for _ in range(RUNAWAY_LIMIT):
            state = flow.state
            if self.is_over(state):
                break
            found = self.current(state)
            if found is None:
                break
            frame, step = found
            if step.awaits(state, frame, seats):
                break
            step.advance(flow, frame)
        else:
            raise RunawayGame(f"more than {RUNAWAY_LIMIT} automatic steps without a decision")
        flow.record_steps()

    # -- helpers -----------------------------------------------------------------------------
    def _verb(self, command: object) -> Verb:
        """The game's verb of ``command``'s type, or a refusal naming them."""
        kind = command.type if isinstance(command, Command) else getattr(command, "type", None)
        found = self._verb_of.get(kind) if isinstance(kind, str) else None
        if found is not None:
            return found[1]
        raise RuleViolation(f"unknown command {short(kind)}; {self.title} knows "
                            f"{', '.join(verb.type for verb in self.verbs)}")

    def _refusal(self, state: S, seat: int, verb: Verb, asked: Prompt | None) -> str:
        reason = verb.refused(state, seat)
        if asked is not None:
            return f"{reason} (you are asked: {asked.text})"
        waiting = self.to_move(state)
        if waiting:
            return f"{reason} (waiting for seat {', '.join(map(str, waiting))})"
        return reason


class Folder(Fold):
    """The rules' ``apply`` (of the game's own events: ``begin``) and ``frames`` for the ``Flow``
    of one command."""

    def __init__(self, rules: StepRules[Any]):
        self.rules = rules

    def fold(self, state: Any, event: Event) -> Any:
        return self.rules.apply(state, event)

    def frames(self, state: Any) -> list[Frame]:
        return self.rules.frames(state)
