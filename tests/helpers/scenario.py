"""Given / when / then for any ``GameRules``.

Mid-game states are built by folding events, never by poking state::

    given(RULES, *events).when(0, Command("PlaceNoble", {"card": "coppe-07"})) \\
        .then(expect("NoblePlaced", seat=0, activated=True))

``when`` runs ``decide`` with ``Rng(rng_seed, version)`` (the service's shape: seed plus
stream version) and applies the resulting events. Commands chain (``.when(...).when(...)``);
``then`` looks at the events of the last command, ``all_events`` at every event so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.kernel.commands import Command
from domain.kernel.errors import RuleViolation
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, fold


@dataclass(frozen=True)
class Expect:
    """Matches an event of ``type`` whose data (or secret) holds at least ``fields``."""

    type: str
    fields: dict[str, Any] = field(default_factory=dict)

    def matches(self, event: Event) -> bool:
        if event.type != self.type:
            return False
        known = {**event.data, **(event.secret or {})}
        return all(name in known and known[name] == value for name, value in self.fields.items())

    def __repr__(self) -> str:
        inside = ", ".join(f"{name}={value!r}" for name, value in self.fields.items())
        return f"{self.type}({inside})"


def expect(type_: str, **fields: Any) -> Expect:
    return Expect(type_, fields)


def _as_matcher(item: Expect | Event | str) -> Expect:
    if isinstance(item, Expect):
        return item
    if isinstance(item, Event):
        return Expect(item.type, {**item.data, **(item.secret or {})})
    return Expect(item)


def _describe(events: Iterable[Event]) -> str:
    return "\n".join(f"  {event.type} {event.data}" + (f" secret={event.secret}" if event.secret else "")
                     for event in events)


class Given:
    """A game history; ``state`` folds it afresh each time it is read."""

    def __init__(self, rules: GameRules[Any, Any], history: Iterable[Event]):
        self.rules = rules
        self.history: list[Event] = list(history)

    @property
    def state(self) -> Any:
        return fold(self.rules, self.history)

    def view(self, viewer: int | None) -> dict[str, Any]:
        return self.rules.view(self.state, viewer)

    def legal(self, seat: int) -> list[Command]:
        return self.rules.legal_commands(self.state, seat)

    def to_move(self) -> list[int]:
        return self.rules.to_move(self.state)

    def when(self, seat: int, command: Command, rng_seed: int | str = 0) -> When:
        state = self.state
        try:
            events = self.rules.decide(state, seat, command, Rng(rng_seed, len(self.history)))
        except RuleViolation as error:
            return When(self.rules, self.history, seat, command, [], error)
        return When(self.rules, self.history, seat, command, events, None)


class When(Given):
    """The outcome of one command: its events (or the refusal) on top of the history."""

    def __init__(self, rules: GameRules[Any, Any], before: list[Event], seat: int, command: Command,
                 events: list[Event], error: RuleViolation | None):
        super().__init__(rules, before + events)
        self.before = before
        self.seat = seat
        self.command = command
        self.events = events
        self.error = error

    def _accepted(self) -> None:
        if self.error is not None:
            raise AssertionError(f"{self.command} by seat {self.seat} was refused: {self.error.reason}")

    def when(self, seat: int, command: Command, rng_seed: int | str = 0) -> When:
        self._accepted()
        return super().when(seat, command, rng_seed)

    @property
    def all_events(self) -> list[Event]:
        return self.history

    def of_type(self, type_: str) -> list[Event]:
        self._accepted()
        return [event for event in self.events if event.type == type_]

    def then(self, *expected: Expect | Event | str) -> When:
        """Every expectation matches one of this command's events, in this order."""
        self._accepted()
        position = 0
        for item in expected:
            matcher = _as_matcher(item)
            while position < len(self.events) and not matcher.matches(self.events[position]):
                position += 1
            if position == len(self.events):
                raise AssertionError(f"expected {matcher!r} (in order) among:\n{_describe(self.events)}")
            position += 1
        return self

    def then_history(self, *expected: Expect | Event | str) -> When:
        """Like ``then``, over the whole history (every command so far, and the given events)."""
        self._accepted()
        return When(self.rules, [], self.seat, self.command, self.history, None).then(*expected)

    def then_not(self, *unexpected: Expect | Event | str) -> When:
        """None of this command's events matches any of ``unexpected``."""
        self._accepted()
        for item in unexpected:
            matcher = _as_matcher(item)
            found = [event for event in self.events if matcher.matches(event)]
            if found:
                raise AssertionError(f"did not expect {matcher!r}, got:\n{_describe(found)}")
        return self

    def then_rejects(self, reason: str = "") -> When:
        """The command was refused with a ``RuleViolation`` whose reason contains ``reason``."""
        if self.error is None:
            raise AssertionError(f"{self.command} by seat {self.seat} was accepted:\n{_describe(self.events)}")
        if reason.lower() not in self.error.reason.lower():
            raise AssertionError(f"refused with {self.error.reason!r}, expected it to mention {reason!r}")
        return self


def given(rules: GameRules[Any, Any], *events: Event | Iterable[Event]) -> Given:
    """A history from events and lists of events, in order."""
    history: list[Event] = []
    for item in events:
        if isinstance(item, Event):
            history.append(item)
        else:
            history.extend(item)
    return Given(rules, history)
