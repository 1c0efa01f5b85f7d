"""A working turn: rules code emits events, each applied the moment it is emitted.

``decide`` builds a ``Turn`` over a copy of the state, so handlers can read the state as
the rulebook would ("if the hand is empty, Enquire") while their only output is the
event list. ``decide`` and ``evolve`` cannot drift apart: the state a handler reads is
the state the events produce.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from domain.kernel.errors import DomainError
from domain.kernel.events import Event

S = TypeVar("S")

#: Automatic steps a single command may trigger before a game is judged to run away.
RUNAWAY_LIMIT = 10_000


class RunawayGame(DomainError):
    code = "runaway"


class Turn(Generic[S]):
    def __init__(self, state: S, evolve: Callable[[S, Event], S]):
        self.state = state
        self.events: list[Event] = []
        self._evolve = evolve

    def emit(self, event: Event) -> None:
        if len(self.events) >= RUNAWAY_LIMIT:
            raise RunawayGame(f"more than {RUNAWAY_LIMIT} events from one command")
        self.state = self._evolve(self.state, event)
        self.events.append(event)
