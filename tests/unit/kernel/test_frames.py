"""Frames: ``Flow.call/goto/end/update`` change the stack in the state at once, and
``record_steps`` records how it changed as one ``StepsChanged``; ``apply_frame_event`` is the
whole of how that event (and the three of streams from before it) changes the stack, and a
frame's locals read as attributes. Also: how steps find their handlers, and when a step waits."""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from domain.kernel.engine import StepRules
from domain.kernel.events import Event
from domain.kernel.prompt import CARD, Arg, Prompt, Verb
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from domain.kernel.steps import (
    Flow,
    Frame,
    Step,
    apply_frame_event,
    frame,
    handles,
    step_entered,
    step_left,
    step_table,
    step_updated,
    steps_changed,
)
from tests.helpers.engine import domain_is_compiled


@dataclass
class Toy:
    seats: int = 2
    hands: list[list[str]] = field(default_factory=lambda: [[], []])
    frames: list[Frame] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    over: bool = False


class Root(Step[Toy]):
    """The bottom of the stack: when play comes back to it, the game ends."""

    name = "root"

    def advance(self, t: Flow[Toy], f: Frame) -> None:
        t.end()
        t.emit(Event("Ended"))


class Give(Step[Toy]):
    """The owner gives a card from its hand; with no card, it says so and the step ends."""

    name = "give"

    def ask(self, s: Toy, f: Frame) -> Prompt:
        return Prompt(f.seat, "Give a card.").one_of("Give", s.hands[f.seat])  # type: ignore[arg-type,index]

    @handles("Give")
    def give(self, t: Flow[Toy], f: Frame, seat: int, card: str) -> None:
        t.emit(Event("Noted", {"note": f"{seat} gave {card}"}))
        t.end()

    def advance(self, t: Flow[Toy], f: Frame) -> None:
        t.emit(Event("Noted", {"note": f"{f.seat} had nothing to give"}))
        t.end()


class ToyRules(StepRules[Toy]):
    kind = "toy"
    title = "Toy"
    verbs = (Verb("Give", "give a card", Arg("card", CARD)),)
    steps = step_table(Root(), Give())

    def apply(self, s: Toy | None, e: Event) -> Toy:
        if e.type == "Began":
            return Toy(hands=[list(hand) for hand in e.data["hands"]])
        assert s is not None
        if e.type == "Noted":
            s.notes.append(e.data["note"])
        elif e.type == "Ended":
            s.over = True
        return s

    def is_over(self, s: Toy) -> bool:
        return s.over

    def copy(self, s: Toy) -> Toy:
        return replace(s, hands=[list(h) for h in s.hands], frames=list(s.frames), notes=list(s.notes))


RULES = ToyRules()


def begun(*hands: list[str]) -> Flow[Toy]:
    t = RULES.begin(None, Rng(0))  # type: ignore[arg-type]
    t.emit(Event("Began", {"hands": [list(hand) for hand in hands]}))
    return t


def stack(t: Flow[Toy]) -> list[tuple[str, int | None, dict[str, Any]]]:
    return [(f.step, f.seat, dict(f.locals)) for f in t.state.frames]


# -- Flow.call / goto / end / update ----------------------------------------------------------

def recorded(t: Flow[Toy]) -> list[Event]:
    """The events of ``t`` after ``record_steps``, as the kernel records them when it hands back."""
    t.record_steps()
    return t.events


def test_call_pushes_a_frame_at_once_and_the_stack_is_recorded_once_with_its_owner_and_locals():
    t = begun([], [])
    t.call("root")
    t.call("give", 1, count=2)
    assert [e.type for e in t.events] == ["Began"], "no event for each change"
    assert stack(t) == [("root", None, {}), ("give", 1, {"count": 2})]
    assert t.frame.count == 2 and t.frame.seat == 1
    assert recorded(t)[1:] == [steps_changed(0, [Frame("root"), Frame("give", 1, {"count": 2})])]
    assert t.events[-1].to_json() == {"type": "StepsChanged", "data": {"kept": 0, "frames": [
        {"step": "root", "seat": None, "locals": {}}, {"step": "give", "seat": 1, "locals": {"count": 2}}]}}
    assert len(recorded(t)) == 2, "nothing changed since: nothing more is recorded"


def test_a_flow_finds_the_stack_of_its_state_as_it_is_now_once_an_event_makes_another_state():
    """The flow keeps the stack it found while its state is the same object; an event that makes a
    new state (as the first one of a setup does, or a game whose fold returns a copy) is followed."""
    class Copying(ToyRules):
        def apply(self, s: Toy | None, e: Event) -> Toy:
            made = super().apply(s, e)
            return made if s is None else self.copy(made)  # every event makes another state

    t = Copying().begin(None, Rng(0))  # type: ignore[arg-type]
    t.emit(Event("Began", {"hands": [[], []]}))
    t.call("root")
    first = t.state
    t.emit(Event("Noted", {"note": "a new state"}))
    assert t.state is not first and t.stack is t.state.frames
    t.call("give", 0, count=1)
    assert stack(t) == [("root", None, {}), ("give", 0, {"count": 1})]
    assert [f.step for f in first.frames] == ["root"], "the state left behind is not changed"


def test_update_changes_only_the_named_locals_of_the_top_frame_and_makes_a_new_frame():
    t = begun([], [])
    t.call("root", None, turn=0)
    t.call("give", 1, count=2, region="kabul")
    t.record_steps()
    before = t.frame
    t.update(count=1)
    assert stack(t) == [("root", None, {"turn": 0}), ("give", 1, {"count": 1, "region": "kabul"})]
    assert before.count == 2, "the frame that was on top is not changed in place"
    assert recorded(t)[-1] == steps_changed(1, [Frame("give", 1, {"count": 1, "region": "kabul"})]), \
        "the frame below is kept"


def test_end_pops_the_top_frame_so_the_caller_is_on_top_again():
    t = begun([], [])
    t.call("root", None, turn=3)
    t.call("give", 1)
    t.record_steps()
    t.end()
    assert stack(t) == [("root", None, {"turn": 3})]
    assert recorded(t)[-1] == steps_changed(1, [])


def test_goto_replaces_the_top_frame_and_keeps_the_caller_below():
    t = begun([], [])
    t.call("root")
    t.call("give", 0, count=1)
    t.record_steps()
    t.goto("give", 1, count=5)
    assert stack(t) == [("root", None, {}), ("give", 1, {"count": 5})]
    assert recorded(t)[-1] == steps_changed(1, [Frame("give", 1, {"count": 5})])


def test_the_record_keeps_the_frames_below_the_lowest_one_changed():
    t = begun([], [])
    t.call("root", None, turn=0)
    t.call("give", 0, count=1)
    t.call("give", 1, count=2)
    t.record_steps()
    t.end()
    t.end()  # down to the root, then up again: the root itself is kept
    t.call("give", 1, count=7)
    t.call("give", 0, count=8)
    t.end()
    assert recorded(t)[-1] == steps_changed(1, [Frame("give", 1, {"count": 7})])
    t.update(turn=1)  # the top only: the root stays
    assert recorded(t)[-1] == steps_changed(1, [Frame("give", 1, {"count": 7, "turn": 1})])
    assert fold(RULES, t.events).frames == t.state.frames


def test_resume_at_puts_locals_in_a_frame_below_the_steps_called_on_top_of_it_and_records_from_there():
    t = begun([], [])
    t.call("root")
    t.call("give", 1, stage=0)
    t.record_steps()
    below, depth = t.stack[-1], len(t.stack)
    t.emit(Event("Noted", {"note": "work of stage 2"}))
    t.call("give", 0, count=1)  # a stage called a step on top of it
    assert t.stack[depth - 1] is below  # nothing is made before it is asked for
    t.resume_at(below, depth, stage=2)
    assert stack(t) == [("root", None, {}), ("give", 1, {"stage": 2}), ("give", 0, {"count": 1})]
    assert recorded(t)[-2:] == [Event("Noted", {"note": "work of stage 2"}),
                                steps_changed(1, [Frame("give", 1, {"stage": 2}), Frame("give", 0, {"count": 1})])]
    assert fold(RULES, t.events).frames == t.state.frames


@pytest.mark.parametrize("change", ["end", "goto", "nothing"])
def test_resume_at_keeps_nothing_of_a_frame_that_ended_or_is_still_on_top(change: str):
    t = begun([], [])
    t.call("root")
    t.call("give", 1, stage=0)
    t.record_steps()
    below, depth = t.stack[-1], len(t.stack)
    if change == "end":
        t.end()
    elif change == "goto":
        t.goto("give", 0, count=3)
    before = stack(t)
    t.resume_at(below, depth, stage=2)
    assert stack(t) == before and all(f.locals.get("stage") != 2 for f in t.stack)


def test_a_step_running_in_stages_records_its_stage_only_when_a_stage_calls_a_step():
    class Staged(Step[Toy]):
        """Stage 1 notes something; stage 2 calls ``give`` when ``calls`` says so; then it ends."""

        name = "staged"

        def advance(self, t: Flow[Toy], f: Frame) -> None:
            stage: int = f.locals.get("stage", 0)
            frames = t.stack
            depth = len(frames)
            while stage < 2:
                stage += 1
                if stage == 1:
                    t.emit(Event("Noted", {"note": "stage 1 reached"}))
                elif f.locals.get("calls"):
                    t.call("give", 0, count=1)
                if len(frames) != depth or frames[-1] is not f:
                    t.resume_at(f, depth, stage=stage)
                    return
            t.end()

    class StagedRules(ToyRules):
        steps = step_table(Root(), Give(), Staged())

    rules = StagedRules()
    for calls in (False, True):
        flow = rules.begin(None, Rng(0))  # type: ignore[arg-type]
        flow.emit(Event("Began", {"hands": [["a"], ["b"]]}))
        flow.call("root")
        flow.call("staged", None, calls=calls)
        rules.run_until_input(flow)
        if calls:  # stage 2 called a step: the staged frame resumes after it, at stage 2
            assert flow.events[-1] == steps_changed(0, [Frame("root"), Frame("staged", None, {"calls": True, "stage": 2}),
                                                        Frame("give", 0, {"count": 1})])
            assert rules.to_move(flow.state) == [0]
        else:  # no stage called anything: no stage was ever made, and the game ended at the root
            assert [e.type for e in flow.events[-3:]] == ["Noted", "Ended", "StepsChanged"]
            assert flow.events[-1] == steps_changed(0, [])
        assert fold(rules, flow.events).frames == flow.state.frames


def test_the_stack_folds_again_from_its_events_after_a_json_round_trip():
    t = begun([], [])
    t.call("root", None, turn=0)
    t.call("give", 0, count=2)
    t.record_steps()
    t.update(count=1)
    t.goto("give", 1, count=3)
    t.call("give", 0)
    t.end()
    stored = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in recorded(t)]
    assert fold(RULES, stored).frames == t.state.frames
    assert [f.to_json() for f in fold(RULES, stored).frames] == [
        {"step": "root", "seat": None, "locals": {"turn": 0}},
        {"step": "give", "seat": 1, "locals": {"count": 3}},
    ]


def test_a_stream_of_before_folds_its_stack_one_event_a_change():
    """Streams recorded before ``StepsChanged`` hold an event for each change; they fold as they did."""
    t = begun([], [])
    old = [*t.events, step_entered("root", None, {"turn": 0}), step_entered("give", 0, {"count": 2}),
           step_updated("give", {"count": 1}), step_left("give"), step_entered("give", 1, {})]
    assert [f.to_json() for f in fold(RULES, old).frames] == [
        {"step": "root", "seat": None, "locals": {"turn": 0}}, {"step": "give", "seat": 1, "locals": {}}]


def test_apply_frame_event_changes_a_plain_list_in_place_and_only_the_top():
    frames: list[Frame] = []
    apply_frame_event(frames, step_entered("root", None, {"turn": 1}))
    apply_frame_event(frames, step_entered("give", 0, {"count": 2}))
    apply_frame_event(frames, step_updated("give", {"count": 1, "extra": True}))
    assert frames == [Frame("root", None, {"turn": 1}), Frame("give", 0, {"count": 1, "extra": True})]
    apply_frame_event(frames, step_left("give"))
    assert frames == [Frame("root", None, {"turn": 1})]


@pytest.mark.parametrize("kept", [-1, 2, None, "1", True, 1.0])
def test_a_frame_record_keeping_what_the_stack_has_not_is_refused_and_the_stack_is_left_alone(kept):
    """A stored body is read as it is (an imported log is untrusted): the depth kept must be one
    of the stack's, 0 to its height, or the fold refuses the event."""
    frames = [Frame("root", None, {"turn": 1})]
    record = Event("StepsChanged", {"kept": kept, "frames": []})
    with pytest.raises(ValueError, match="StepsChanged keeps"):
        apply_frame_event(frames, record)
    assert frames == [Frame("root", None, {"turn": 1})]
    apply_frame_event(frames, Event("StepsChanged", {"kept": 1, "frames": []}))  # the height itself is kept
    assert frames == [Frame("root", None, {"turn": 1})]


def test_events_other_than_frame_events_leave_the_stack_alone():
    t = begun(["c1"], [])
    t.call("root")
    frames = list(t.state.frames)
    t.emit(Event("Noted", {"note": "hello"}))
    assert t.state.frames == frames and t.state.notes == ["hello"]


# -- Frame ----------------------------------------------------------------------------------

def test_a_frames_locals_read_as_attributes_and_a_missing_one_is_an_attribute_error():
    f = frame("give", 1, count=2, region="kabul")
    assert (f.step, f.seat, f.count, f.region) == ("give", 1, 2, "kabul")
    assert not hasattr(f, "missing")
    with pytest.raises(AttributeError, match="missing"):
        _ = f.missing
    assert f.to_json() == {"step": "give", "seat": 1, "locals": {"count": 2, "region": "kabul"}}


def test_a_frame_is_frozen_and_survives_pickling_as_snapshots_do():
    """Its fields are ``Final``: mypy refuses a change (the ``type: ignore`` below), and the
    compiled native class too, as ``Event``'s (the sources leave it to mypy)."""
    f = frame("give", 1, count=2)
    if domain_is_compiled():
        with pytest.raises(AttributeError):
            f.step = "other"  # type: ignore[misc]
    restored = pickle.loads(pickle.dumps(f))
    assert restored == f and restored.count == 2 and restored.owner_seat == 1
    assert Frame("table") == Frame("table", None, {})
    with pytest.raises(AttributeError):
        _ = Frame("table").owner_seat  # a frame of the table has no owner


# -- steps ------------------------------------------------------------------------------------

def test_handlers_are_found_by_verb_and_inherited_by_subclasses():
    class Base(Step[Any]):
        name = "base"

        @handles("Stop")
        def stop(self, t: Any, f: Frame, seat: int, value: None) -> None: ...

    class Wider(Base):
        name = "wider"

        @handles("Go")
        def go(self, t: Any, f: Frame, seat: int, value: None) -> None: ...

    assert Base.handlers == {"Stop": "stop"}
    assert Wider.handlers == {"Stop": "stop", "Go": "go"}
    wider = Wider()
    assert wider.handler("Go") == wider.go and wider.handler("Fly") is None


def test_a_step_table_refuses_two_steps_with_one_name():
    with pytest.raises(ValueError, match="two steps are named 'give'"):
        step_table(Give(), Root(), Give())


def test_by_default_only_the_frames_owner_is_asked():
    s = Toy(hands=[["c1"], ["c2"]])
    give = Give()
    f = frame("give", 1)
    assert give.prompt(s, f, 0) is None
    assert give.prompt(s, f, 1).choices == Prompt(1, "").one_of("Give", ["c2"]).choices
    assert give.awaits(s, f, 2) is True


def test_a_step_whose_prompt_offers_nothing_does_not_wait_but_advances():
    """An empty prompt asks nobody (``StepRules.prompt`` gives None, so no seat is to move);
    the step must then do its automatic work, or the game would stop with nobody to move."""
    give, f = Give(), frame("give", 0)
    assert give.awaits(Toy(hands=[[], ["c2"]]), f, 2) is False
    t = begun([], ["c2"])
    t.call("root")
    t.call("give", 0)
    RULES.run_until_input(t)
    assert [e.type for e in t.events[-3:]] == ["Noted", "Ended", "StepsChanged"]
    assert t.state.notes == ["0 had nothing to give"] and RULES.is_over(t.state)


def test_after_a_handler_the_kernel_runs_automatic_steps_until_someone_is_asked():
    t = begun(["c1"], [])
    t.call("root")
    t.call("give", 1)  # seat 1 has nothing: skipped
    t.call("give", 0)
    state = t.state
    assert RULES.to_move(state) == [0]
    events = RULES.decide(state, 0, RULES.legal_commands(state, 0)[0], Rng(0))
    assert [e.type for e in events] == ["Noted", "Noted", "Ended", "StepsChanged"]
    assert events[-1] == steps_changed(0, []), "every frame has ended"
