"""The runaway guard: a rules bug that would never ask anyone anything again stops with
``RunawayGame`` instead of hanging the server, counting automatic steps and events."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from domain.kernel import flow
from domain.kernel.commands import Command
from domain.kernel.engine import StepRules
from domain.kernel.errors import DomainError, RuleViolation
from domain.kernel.events import Event
from domain.kernel.prompt import Prompt, Verb
from domain.kernel.rng import Rng
from domain.kernel.steps import RUNAWAY_LIMIT, Flow, Frame, RunawayGame, Step, handles, step_table


@dataclass
class Loop:
    seats: int = 1
    frames: list[Frame] = field(default_factory=list)
    ticks: int = 0


class Idle(Step[Loop]):
    """Asks nobody and does nothing: play never moves on."""

    name = "idle"

    def advance(self, t: Flow[Loop], f: Frame) -> None:
        pass


class Chatty(Step[Loop]):
    """Asks nobody and records two events every time it is run, forever."""

    name = "chatty"

    def advance(self, t: Flow[Loop], f: Frame) -> None:
        t.emit(Event("Ticked"))
        t.emit(Event("Ticked"))


class Start(Step[Loop]):
    """Asks seat 0 to Go; going calls the step named in the frame's ``then``."""

    name = "start"

    def ask(self, s: Loop, f: Frame) -> Prompt:
        return Prompt(0, "Go?").nothing("Go")

    @handles("Go")
    def go(self, t: Flow[Loop], f: Frame, seat: int, value: None) -> None:
        t.goto(f.then)


class Flood(Step[Loop]):
    """A handler that emits one event more than the limit."""

    name = "flood"

    def ask(self, s: Loop, f: Frame) -> Prompt:
        return Prompt(0, "Flood?").nothing("Go")

    @handles("Go")
    def go(self, t: Flow[Loop], f: Frame, seat: int, value: None) -> None:
        for _ in range(RUNAWAY_LIMIT + 1):
            t.emit(Event("Ticked"))


class LoopRules(StepRules[Loop]):
    kind = "loop"
    title = "Loop"
    verbs = (Verb("Go", "go"),)
    steps = step_table(Idle(), Chatty(), Start(), Flood())

    def apply(self, s: Loop | None, e: Event) -> Loop:
        assert s is not None
        s.ticks += 1
        return s

    def is_over(self, s: Loop) -> bool:
        return False

    def copy(self, s: Loop) -> Loop:
        return replace(s, frames=list(s.frames))


RULES = LoopRules()


def at(step: str, **values) -> Loop:
    return Loop(frames=[Frame(step, 0 if step in ("start", "flood") else None, values)])


def test_a_step_that_never_asks_anything_and_never_moves_on_is_a_runaway():
    t = RULES.begin(at("idle"), Rng(0))
    with pytest.raises(RunawayGame, match=f"more than {RUNAWAY_LIMIT} automatic steps without a decision"):
        RULES.run_until_input(t)
    assert t.events == []


def test_a_step_that_records_events_forever_is_stopped_by_the_event_count():
    t = RULES.begin(at("chatty"), Rng(0))
    with pytest.raises(RunawayGame, match=f"more than {RUNAWAY_LIMIT} events from one command"):
        RULES.run_until_input(t)
    assert len(t.events) == RUNAWAY_LIMIT


def test_a_command_that_leads_to_a_runaway_is_refused_as_one_not_as_a_rule_violation():
    state = at("start", then="idle")
    with pytest.raises(RunawayGame) as raised:
        RULES.decide(state, 0, Command("Go"), Rng(0))
    assert isinstance(raised.value, DomainError) and not isinstance(raised.value, RuleViolation)
    assert raised.value.code == "runaway"
    assert state.frames == [Frame("start", 0, {"then": "idle"})], "the state given to decide is untouched"


def test_a_handler_that_emits_too_many_events_is_a_runaway():
    with pytest.raises(RunawayGame, match="events from one command"):
        RULES.decide(at("flood"), 0, Command("Go"), Rng(0))


def test_the_limit_allows_exactly_its_number_of_events(monkeypatch):
    monkeypatch.setattr(flow, "RUNAWAY_LIMIT", 5)  # where Flow reads it
    t = Flow(Loop(), RULES.evolve)
    for _ in range(5):
        t.emit(Event("Ticked"))
    assert t.state.ticks == 5
    with pytest.raises(RunawayGame, match="more than 5 events"):
        t.emit(Event("Ticked"))
    assert t.state.ticks == 5, "the event over the limit is not applied"
