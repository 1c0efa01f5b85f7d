"""Streams stored by older code still fold to the same games, and the same commands still
make the same events.

``tests/fixtures/streams/`` holds seeded random games of both games recorded by the code
before issue 17's engine rework (``tools/record_streams.py``): every stored event, every
command, and every few commands what the game looked like (whose move, every seat's view,
a spectator's, everyone's, and every seat's legal commands). Here the current code folds
those stored events and must show exactly the same at every checkpoint; deciding the
recorded commands again must give the very game events that were stored and lead to the
same states, frames included (the frame bookkeeping between them may be shorter since Pax
Pamir's rules version 2: ``_game_events``). Two Pax Pamir games recorded again under its rules
version 5 (``*-rules5``, the first whose commands record the frame stack once, as
``StepsChanged``) keep that shape checked the same way. The one ruling made
since (R-LIM, Pax Pamir rules.md section 23 item 14) adds one legal command where it
applies, and nothing else; a give-up at a bribe now records a ``BribeAbandoned`` event, which
counts toward the three declines a turn (section 23 item 16: the stored streams never reach
three, so they replay to the end).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from domain.games import default_registry
from domain.kernel.commands import Command
from domain.kernel.events import EVERYONE, Event
from domain.kernel.rng import Rng
from domain.kernel.steps import FRAME_EVENTS
from domain.kernel.table import read_event

STREAMS = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "streams").glob("*.jsonl.gz"))


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def _read(rules, stored: dict) -> Event:
    """As the service's loader reads a stored game event: through its game's schema history."""
    return read_event(stored, rules.upcasters)


def _looks(rules, state, seats: int) -> dict:
    return {"to_move": rules.to_move(state),
            "views": {str(v): rules.view(state, v) for v in [*range(seats), None, EVERYONE]},
            "legal": [[c.to_json() for c in rules.legal_commands(state, s)] for s in range(seats)]}


def _as_recorded_by(header: dict, state, legal: list[dict]) -> list[dict]:
    """Legal commands as the code that recorded the stream listed them. One ruling changed
    since the streams of before issue 17 (their header names no rules version; Pax Pamir,
    rules.md section 23 item 14): under R-LIM the piece already at the destination is offered
    too; that code left it out, so it is left out here, and nothing else may differ."""
    if "rules_version" in header:
        return legal
    frames = getattr(state, "frames", None)
    if not frames or frames[-1].step != "take_piece":
        return legal
    here = {"type": "TakePiece", "args": {"piece": f"{frames[-1].kind}:{frames[-1].dst}"}}
    return [command for command in legal if command != here]


def _as_recorded(now: object, then: object) -> object:
    """``now`` restricted to what the recording ``then`` holds: a view may gain a field (the
    options a new option, a player a new count) after the recording, at any depth; every
    field the recording holds must be as it was."""
    if isinstance(now, dict) and isinstance(then, dict):
        return {k: _as_recorded(now.get(k), v) for k, v in then.items()}
    if isinstance(now, list) and isinstance(then, list) and len(now) == len(then):
        return [_as_recorded(a, b) for a, b in zip(now, then, strict=True)]
    return now


def _options_as_recorded(rules, event: dict, recorded: dict) -> dict:
    """An opening event whose options hold an option added after the recording: that option
    must stand at its default (an old game never set it), and is then left out."""
    options, then = event.get("data", {}).get("options"), recorded.get("data", {}).get("options")
    if not isinstance(options, dict) or not isinstance(then, dict):
        return event
    defaults = {spec.name: spec.default for spec in rules.options}
    added = set(options) - set(then)
    assert all(options[name] == defaults[name] for name in added), f"a new option off its default: {added}"
    return {**event, "data": {**event["data"], "options": {k: v for k, v in options.items() if k in then}}}


def _same(a: object) -> object:
    return json.loads(json.dumps(a, sort_keys=True))


def test_there_are_stored_streams_of_both_games():
    kinds = {path.name.split("-")[0] for path in STREAMS}
    assert kinds == {"dynasties", "pax_pamir"} and len(STREAMS) >= 6


@pytest.mark.parametrize("path", STREAMS, ids=[p.name.split(".")[0] for p in STREAMS])
def test_a_stream_stored_by_the_code_before_folds_to_the_same_game(path):
    header, *commands = _lines(path)
    rules = default_registry()[header["game"]]
    seats = header["seats"]
    state = None
    checked = 0
    for line in commands:
        for stored in line["events"]:
            state = rules.evolve(state, _read(rules, stored))
        if "check" in line:
            looks, before = _same(_looks(rules, state, seats)), line["check"]
            assert looks["to_move"] == before["to_move"], f"after command {checked}"
            assert _as_recorded(looks["views"], before["views"]) == before["views"], f"after command {checked}"
            for seat, (now, then) in enumerate(zip(looks["legal"], before["legal"], strict=True)):
                assert _as_recorded_by(header, state, now) == then, f"after command {checked}, seat {seat}"
        checked += 1
    assert rules.outcome(state).to_json() == commands[-1]["outcome"]


@pytest.mark.parametrize("path", STREAMS, ids=[p.name.split(".")[0] for p in STREAMS])
def test_the_recorded_commands_decide_the_very_events_that_were_stored(path):
    header, setup, *moves = _lines(path)
    rules = default_registry()[header["game"]]
    seed = header["seed"]
    options = rules.check_options(header["options"])
    events = rules.setup(header["seats"], options, Rng(seed, 0))
    stored_setup = [_read(rules, s) for s in setup["events"]]
    recorded = _game_events(stored_setup)
    assert [_options_as_recorded(rules, e, then)
            for e, then in zip(_game_events(events), recorded, strict=True)] == recorded
    state = stored_state = None
    for event in events:
        state = rules.evolve(state, event)
    for event in stored_setup:
        stored_state = rules.evolve(stored_state, event)
    assert _same(_frames(rules, state)) == _same(_frames(rules, stored_state)), "after the setup"
    count = len(stored_setup)
    for number, line in enumerate(moves):
        command = Command(line["command"]["type"], line["command"]["args"])
        decided = rules.decide(state, line["seat"], command, Rng(seed, count))
        stored = [_read(rules, s) for s in line["events"]]
        assert _game_events(decided) == _game_events(stored), f"command {number}: {command}"
        assert any(e.barrier for e in decided) == any(e.barrier for e in stored), f"command {number}: {command}"
        for event in decided:
            state = rules.evolve(state, event)
        for event in stored:
            stored_state = rules.evolve(stored_state, event)
        if not rules.is_over(state):  # once over, no step resumes: its frames are never read again
            assert _same(_frames(rules, state)) == _same(_frames(rules, stored_state)), f"command {number}: {command}"
        assert _same(rules.view(state, EVERYONE)) == _same(rules.view(stored_state, EVERYONE)), \
            f"command {number}: {command}"
        count += len(stored)  # the version a game continued today has: its stored stream's length


def _game_events(events: list[Event]) -> list[dict]:
    """Every event but the frame bookkeeping, which may be shorter than it was: since Pax
    Pamir's rules version 2 a procedure records the stage it reached only when a sub-step
    needs it, and a sub-step with nothing to do is not entered (docs/adding-a-game.md,
    "Speed"); since version 5 a command records how it changed the stack once, as it ends
    (``StepsChanged``), where each change was an event before. Nor the ``BribeAbandoned`` a
    give-up now records (section 23 item 16). The states the two streams lead to must still be
    the same, frames included while the game runs."""
    rows = [e.to_json() for e in events if e.type not in FRAME_EVENTS and e.type != "BribeAbandoned"]
    for row in rows:  # where a command's barrier is: compared apart, as undo reads it (any event of
        row.pop("barrier", None)  # the command); a handover marks the last event, now often the frame record
    return rows


def _frames(rules, state) -> list[dict]:
    return [frame.to_json() for frame in rules.frames(state)]
