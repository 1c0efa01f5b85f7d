"""The clocks' sweep (``service.background.clocks.Timeouts.sweep``): every running clock's timeout
and reminder is scheduled again, and a game that has not moved since the last sweep is scheduled
from what that sweep found, without loading it, so a sweep over thousands of clocked games waiting
for their people costs one read of their versions. A real SQLite file; a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.games import default_registry
from service.adapters.sqlite_store import SqliteStore
from service.background.clocks import RUNNING, WARN, Timeouts
from service.play.services import GameService
from service.streams.appending import Clock
from tests.helpers.play import start_game


class _Counted:
    """The game service, counting the games it loads."""

    def __init__(self, service: GameService):
        self.service, self.loaded = service, []

    def load(self, game_id, *args, **kwargs):
        self.loaded.append(game_id)
        return self.service.load(game_id, *args, **kwargs)


def _timeouts(service, games, clock):
    scheduled: list[tuple[float, tuple]] = []
    return Timeouts(games, service.store, clock, lambda delay, key: scheduled.append((delay, key))), scheduled


def test_a_game_that_has_not_moved_is_scheduled_again_without_being_loaded(tmp_path):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    clock = Clock(lambda: now[0])
    service = GameService(SqliteStore(str(tmp_path / "events.db")), default_registry(), clock=clock)
    started = [start_game(service, "dynasties", 2, {"clock_bank_seconds": 100}) for _ in range(3)]
    games = _Counted(service)
    timeouts, scheduled = _timeouts(service, games, clock)
    for game_id, _ in started:
        timeouts.schedule(service.load(game_id))
    assert set(service.store.set_members(RUNNING)) == {game_id for game_id, _ in started}

    now[0] += timedelta(seconds=30)
    scheduled.clear()
    assert timeouts.sweep() == 3  # its first sweep loads every game
    assert sorted(games.loaded) == sorted(game_id for game_id, _ in started)
    first = sorted(scheduled)
    # both seats choose a Tribute at once: two timeouts and two reminders a game, 70 and 50 s away
    assert len(first) == 12 and {delay for delay, _ in first} == {50.0, 70.0}
    assert {key[0] == WARN for _, key in first} == {True, False}

    now[0] += timedelta(seconds=10)
    games.loaded.clear()
    scheduled.clear()
    assert timeouts.sweep() == 3  # nothing moved: nothing loaded, the same clocks ten seconds nearer
    assert games.loaded == []
    assert sorted(scheduled) == [(delay - 10, key) for delay, key in first]

    fresh, fresh_scheduled = _timeouts(service, _Counted(service), clock)
    fresh.sweep()  # a runner that loads every game schedules the very same
    assert sorted(fresh_scheduled) == sorted(scheduled)

    moved, players = started[0]
    service.submit_command(moved, players[0], service.load(moved).legal_commands(0)[0])
    games.loaded.clear()
    scheduled.clear()
    timeouts.sweep()  # seat 0 chose: that game is loaded again, and its clock for seat 0 stopped
    assert games.loaded == [moved]
    running = service.load(moved).table.clocks.running
    assert running.keys() == {1}
    assert {key for _, key in scheduled if moved in key} == {(moved, 1, running[1].started_version),
                                                             (WARN, moved, 1, running[1].started_version)}


def test_a_game_over_leaves_the_running_set_at_the_next_sweep(tmp_path):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    clock = Clock(lambda: now[0])
    service = GameService(SqliteStore(str(tmp_path / "events.db")), default_registry(), clock=clock)
    game_id, players = start_game(service, "dynasties", 2, {"clock_bank_seconds": 100})
    games = _Counted(service)
    timeouts, scheduled = _timeouts(service, games, clock)
    timeouts.schedule(service.load(game_id))
    timeouts.sweep()
    service.lifecycle.resign(game_id, players[0])
    assert service.load(game_id).over
    scheduled.clear()
    timeouts.sweep()  # the game moved (it ended): loaded, and it runs no clock any more
    assert scheduled == [] and service.store.set_members(RUNNING) == []
