"""The protocol a game implements, and the fold that rebuilds state from events."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Protocol, TypeVar

from domain.kernel.commands import Command
from domain.kernel.errors import InvalidOptions
from domain.kernel.events import Event, Viewer
from domain.kernel.prompt import Prompt, Verb
from domain.kernel.rng import Rng
from domain.kernel.upcasting import Upcasters

S = TypeVar("S")
Opts = TypeVar("Opts", bound="GameOptions")

#: The most characters of JSON an ``object`` option may take (a dealt deck is a few hundred).
OBJECT_OPTION_MAX_CHARS = 10_000


@dataclass(frozen=True)
class OptionSpec:
    """One game-creation option, as listed by ``GET /game-types``.

    ``kind`` is ``int``, ``bool``, ``choice`` or ``object``. For ``int`` a ``minimum``/``maximum``
    may apply (``nullable`` lets ``null`` mean "no limit"); for ``choice`` the ``choices``. An
    ``object`` is a JSON object of at most ``OBJECT_OPTION_MAX_CHARS`` characters; its shape is
    the game's to check (``GameOptions.validate``).
    """

    name: str
    kind: str
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    #: A secret option (a given deal) is kept with the game's hidden facts: never shown in the
    #: game's public record, its summary or the lobby.
    secret: bool = False
    #: For an ``object``: its form as JSON Schema (keys, types, bounds), which openapi.yaml and
    #: ``GET /game-types`` state; what its values must be together is still ``validate``'s.
    shape: Mapping[str, Any] | None = field(default=None, compare=False)

    def check(self, value: Any) -> Any:
        if value is None and self.nullable:
            return None
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(self.name, "must be true or false")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(self.name, f"must be an integer{self._range_text()}")
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise InvalidOptions(self.name, f"{value} is out of range; allowed{self._range_text()}")
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise InvalidOptions(self.name, f"must be one of {', '.join(self.choices)}")
            return value
        if self.kind == "object":
            return self._check_object(value)
        raise AssertionError(f"unknown option kind {self.kind}")

    def _check_object(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise InvalidOptions(self.name, "must be an object" + (" or null" if self.nullable else ""))
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            raise InvalidOptions(self.name, "must be plain JSON") from None
        if len(text) > OBJECT_OPTION_MAX_CHARS:
            raise InvalidOptions(self.name, f"is too large: at most {OBJECT_OPTION_MAX_CHARS} characters of JSON")
        copied: dict[str, Any] = json.loads(text)  # a copy the caller cannot change afterwards
        return copied

    def _range_text(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f">= {self.minimum}")
        if self.maximum is not None:
            parts.append(f"<= {self.maximum}")
        if self.nullable:
            parts.append("or null")
        return (" " + " ".join(parts)) if parts else ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "default": self.default,
                               "description": self.description, "nullable": self.nullable}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.secret:
            out["secret"] = True
        if self.shape is not None:
            out["shape"] = json.loads(json.dumps(self.shape))  # a copy
        return out


def check_options(specs: Sequence[OptionSpec], given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults filled in, every value checked; unknown names are refused by name."""
    known = {spec.name: spec for spec in specs}
    for name in given:
        if name not in known:
            raise InvalidOptions(name, f"unknown option; known options are {', '.join(sorted(known))}")
    return {name: spec.check(given[name]) if name in given else spec.default for name, spec in known.items()}


def option(default: Any, description: str, *, choices: tuple[str, ...] = (), minimum: int | None = None,
           maximum: int | None = None, nullable: bool = False, kind: str | None = None,
           secret: bool = False, shape: Mapping[str, Any] | None = None) -> Any:
    """A field of a ``GameOptions`` dataclass: its default and what ``GET /game-types`` says of it.
    ``kind`` is inferred from the default unless given (``kind="object"``: a JSON object, or
    null when the default is None)."""
    return field(default=default, metadata={"option": {
        "description": description, "choices": choices, "minimum": minimum, "maximum": maximum,
        "nullable": nullable or (kind == "object" and default is None), "kind": kind, "secret": secret,
        "shape": shape}})


@dataclass(frozen=True)
class GameOptions:
    """A game's options as one typed, frozen object: checked once, at game creation, then
    read by the rules as attributes (``options.hand_limit``).

    A subclass declares each option as a field made with ``option(...)``; its kind comes
    from the default (bool, int, or a choice when ``choices`` are given) unless it is given
    (``kind="object"``). Cross-option rules are the game's: it overrides ``validate``.
    """

    @classmethod
    def specs(cls) -> tuple[OptionSpec, ...]:
        out = []
        for f in fields(cls):
            meta = f.metadata["option"]
            kind = meta.get("kind") or (
                "choice" if meta["choices"] else "bool" if isinstance(f.default, bool) else "int")
            out.append(OptionSpec(f.name, kind, f.default, meta["description"], choices=meta["choices"],
                                  minimum=meta["minimum"], maximum=meta["maximum"], nullable=meta["nullable"],
                                  secret=meta.get("secret", False), shape=meta.get("shape")))
        return tuple(out)

    @classmethod
    def check(cls: type[Opts], given: Mapping[str, Any] | None = None) -> Opts:
        """Every value checked against its spec, defaults filled in, then ``validate``."""
        checked = cls(**check_options(cls.specs(), dict(given or {})))
        checked.validate()
        return checked

    @classmethod
    def from_json(cls: type[Opts], recorded: Mapping[str, Any]) -> Opts:
        """Options as recorded in an event (checked when the game was created), an option
        recorded before it existed at its default. Trusted, so made without the frozen
        dataclass's ``__init__`` (which sets each field through ``object.__setattr__``: about
        three times the cost, and this runs whenever a game is set up or folded). (The names
        are read from ``__dataclass_fields__``, as ``to_json``'s are: ``fields`` rebuilds a
        tuple on each call. An options class declares its options only, each with a default
        (``option``), no ``ClassVar``.)"""
        made = object.__new__(cls)
        values = made.__dict__
        fields_ = cls.__dataclass_fields__
        if recorded.keys() == fields_.keys():  # every option recorded, and nothing else: as a
            values.update(recorded)  # game records them once all of them exist (``to_json``)
            return made
        for name, spec in fields_.items():
            values[name] = recorded[name] if name in recorded else spec.default
        return made

    def validate(self) -> None:
        """Cross-option rules; raise ``InvalidOptions`` naming the option at fault."""

    def validate_seats(self, seats: int) -> None:
        """Rules that tie an option to the seat count (a deal made for 4 seats), checked when
        the game is created; raise ``InvalidOptions`` naming the option at fault."""

    @classmethod
    def secret_names(cls) -> tuple[str, ...]:
        return tuple(spec.name for spec in cls.specs() if spec.secret)

    def to_json(self) -> dict[str, Any]:
        values = self.__dict__  # (each field read from it: cheaper than ``getattr``, and a game records
        return {name: values[name] for name in self.__dataclass_fields__}  # its options as it is set up)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winning seats and a score per seat (gold, points)."""

    winners: tuple[int, ...]
    scores: dict[int, int]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "scores": {str(k): v for k, v in self.scores.items()},
                "details": self.details}


class GameRules(Protocol[S, Opts]):
    """What every game provides, for its state type ``S`` and options type ``Opts``. All
    functions are pure."""

    kind: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]

    @property
    def options_type(self) -> type[Opts]:
        """The game's options class (a class attribute of the game's)."""

    @property
    def default_seats(self) -> int:
        """The seats a new game has unless asked otherwise: the fewest its default options
        play with (a front end's first choice)."""
    #: the schema history of the game's own events, its namespace (``domain.kernel.upcasting``)
    upcasters: ClassVar[Upcasters]

    @property
    def commands(self) -> tuple[Verb, ...]:
        """The game's verbs: the commands a seat may ever send."""

    def check_options(self, given: Mapping[str, Any]) -> Opts:
        """The game's options, checked once (``InvalidOptions`` names the one at fault)."""

    def check_setup(self, seats: int, given: Mapping[str, Any]) -> Opts:
        """The one check of a new game (seat count, options, options against the seat count),
        made when it is created; ``setup`` trusts it (``InvalidOptions`` names what is at fault)."""

    def setup(self, seats: int, options: Opts, rng: Rng) -> list[Event]:
        """The opening events (options recorded, shuffle, deal) and whatever runs automatically,
        for a seat count and options that passed ``check_setup``."""

    def evolve(self, state: S | None, event: Event) -> S:
        """Apply one event and return the state. Never validates, never draws.

        It may change ``state`` in place: whoever must keep the old state takes ``copy`` first.
        """

    def decide(self, state: S, seat: int, command: Command, rng: Rng) -> list[Event]:
        """The events ``command`` by ``seat`` causes, or ``RuleViolation`` with the reason."""

    def play(self, state: S, seat: int, command: Command, rng: Rng) -> tuple[list[Event], S]:
        """``decide`` and ``evolve`` at once: the events, applied to ``state`` in place as
        ``evolve`` would (a caller that keeps ``state`` plays on a ``copy``), and the state
        after them. A refusal raises ``RuleViolation`` before anything is applied."""

    def prompt(self, state: S, seat: int) -> Prompt | None:
        """The question put to ``seat`` now, or None when nothing is asked of it."""

    def legal_commands(self, state: S, seat: int) -> list[Command]:
        """Exactly the commands ``decide`` would accept from ``seat`` now, except a free-form
        choice (``Prompt.free``: a hash the client computes), which ``prompt`` describes and
        nothing can list."""

    def to_move(self, state: S) -> list[int]:
        """Seats the game is waiting for (empty once over)."""

    def view(self, state: S, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` (a seat; ``None`` for a spectator; ``EVERYONE``) may see, built from scratch."""

    def outcome(self, state: S) -> Outcome | None:
        """``None`` while running; the result once the game is over."""

    def copy(self, state: S) -> S:
        """An independent copy that ``evolve`` may change without touching ``state``."""


def fold(rules: GameRules[S, Any], events: Iterable[Event], state: S | None = None) -> S:
    """State = evolve applied to every event in order."""
    for event in events:
        state = rules.evolve(state, event)
    assert state is not None, "a game stream starts with its setup events"
    return state
