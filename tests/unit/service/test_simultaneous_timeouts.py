"""Several seats out of time at once: the seat whose clock ran out first is acted on first,
whichever seat's timeout job runs first; equal deadlines go to the clock started first,
then the lower seat (docs/api.md, Turn clocks). A real SQLite file, a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.games import default_registry
from service.adapters.sqlite_store import SqliteStore
from service.play.services import GameService
from service.streams.appending import Clock
from service.streams.envelopes import stream_of
from tests.helpers.play import start_game

CLOCK = {"starting_gold": 20, "clock_bank_seconds": 60, "clock_increment_seconds": 30}


@pytest.fixture
def table(tmp_path):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    service = GameService(SqliteStore(str(tmp_path / "events.db")), default_registry(), clock=Clock(lambda: now[0]))
    game_id, players = start_game(service, "dynasties", 2, CLOCK)
    return service, game_id, players, now


def _timed_out(service, game_id):
    return [(r.event["data"]["seat"], r.event["data"]["action"]) for r in service.store.read(stream_of(game_id))
            if r.event["type"] == "ClockTimedOut"]


def _both_asked_with_seat_1_due_first(service, game_id, players, now):
    """Seat 0 answers in 1 s and seat 1 in 20 s until both owe a Tribute again: seat 0's
    bank (and so its deadline) is then the later one. A game that ends first (the deck is
    shuffled) is replaced by a new one."""
    for _ in range(20):
        game = service.load(game_id)
        while not game.over:
            to_move = game.public_facts()["to_move"]
            running = game.table.clocks.running
            if len(to_move) == 2 and running[1].deadline < running[0].deadline:
                return game_id, running
            seat = to_move[0]
            now[0] += timedelta(seconds=1 if seat == 0 else 20)
            service.submit_command(game_id, players[seat], game.rules.legal_commands(game.state, seat)[0])
            game = service.load(game_id)
        game_id, players = start_game(service, "dynasties", 2, CLOCK)
    raise AssertionError("the seats were never asked together again")


def test_the_seat_whose_clock_ran_out_first_forfeits_even_when_the_others_timeout_runs_first(table):
    service, game_id, players, now = table
    game_id, running = _both_asked_with_seat_1_due_first(service, game_id, players, now)
    now[0] = datetime.fromisoformat(running[0].deadline.replace("Z", "+00:00")) + timedelta(seconds=1)
    assert service.time_out(game_id, 0, running[0].started_version) is None  # seat 0's job runs first
    assert _timed_out(service, game_id) == [(1, "forfeit")]
    assert service.load(game_id).outcome().winners == (0,)
    assert service.time_out(game_id, 1, running[1].started_version) is None  # seat 1's job: nothing left
    assert _timed_out(service, game_id) == [(1, "forfeit")]


def test_a_timeout_not_yet_due_waits_even_when_another_seats_clock_ran_out(table):
    service, game_id, players, now = table
    game_id, running = _both_asked_with_seat_1_due_first(service, game_id, players, now)
    between = datetime.fromisoformat(running[1].deadline.replace("Z", "+00:00")) + timedelta(seconds=1)
    now[0] = between
    left = service.time_out(game_id, 0, running[0].started_version)
    assert left is not None and left > 0 and _timed_out(service, game_id) == []
    assert service.time_out(game_id, 1, running[1].started_version) is None
    assert _timed_out(service, game_id) == [(1, "forfeit")]


@pytest.mark.parametrize("first_job", [0, 1])
def test_equal_deadlines_go_to_the_clock_started_first_then_the_lower_seat(table, first_job):
    service, game_id, _, now = table
    running = service.load(game_id).table.clocks.running
    assert running[0].deadline == running[1].deadline and running[0].started_version < running[1].started_version
    now[0] += timedelta(seconds=61)
    service.time_out(game_id, first_job, running[first_job].started_version)
    service.time_out(game_id, 1 - first_job, running[1 - first_job].started_version)
    assert _timed_out(service, game_id) == [(0, "forfeit")]
    assert service.load(game_id).outcome().winners == (1,)
