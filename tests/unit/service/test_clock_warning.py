"""The reminder at 80% of a clock run (issue 37 item 6): a ``clock_warning`` in the seat's
player's feed, once per run however often it is asked, and none for a run that ended. A real
SQLite file, a clock the test moves. (The clocks' lane calls ``GameService.warn_clock`` at
``warn_at(run.since, run.deadline)``: that hook is the lead's lanes work.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.games import default_registry
from service.adapters.sqlite_store import SqliteStore
from service.appending import Clock
from service.player_feed import warn_at
from service.services import GameService
from tests.helpers.play import start_game


def test_a_clock_run_is_reminded_once_at_80_percent_and_never_after_it_ended(tmp_path):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    service = GameService(SqliteStore(str(tmp_path / "events.db")), default_registry(), clock=Clock(lambda: now[0]))
    game_id, players = start_game(service, "dynasties", 2, {"clock_bank_seconds": 100})
    game = service.load(game_id)
    seat = game.public_facts()["to_move"][0]
    run = game.table.clocks.running[seat]
    assert warn_at(run.since, run.deadline) == "2026-01-01T00:01:20.000Z"  # 80 of 100 s
    now[0] += timedelta(seconds=80)
    assert service.warn_clock(game_id, seat, run.started_version)
    assert service.warn_clock(game_id, seat, run.started_version)  # a second timer firing: no second notice
    notices = service.feed.page(players[seat]["id"], 0, 100)["events"]
    warnings = [n for n in notices if n["type"] == "clock_warning"]
    assert len(warnings) == 1
    assert warnings[0]["data"] == {"game_id": game_id, "seat": seat, "deadline": run.deadline, "seconds_left": 20.0}
    other = 1 - seat
    assert not [n for n in service.feed.page(players[other]["id"], 0, 100)["events"] if n["type"] == "clock_warning"]
    # the seat moves: that run is over, and a late reminder writes nothing
    service.submit_command(game_id, players[seat], game.legal_commands(seat)[0])
    assert not service.warn_clock(game_id, seat, run.started_version)
    assert len([n for n in service.feed.page(players[seat]["id"], 0, 100)["events"]
                if n["type"] == "clock_warning"]) == 1
