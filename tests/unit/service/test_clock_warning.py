"""The reminder at 80% of a clock run (issue 37): a ``ClockWarned`` event in the game's stream, once
per run however often it is asked, none for a run that ended or a bot's seat; the seat's player's
feed tells it (``clock_warning``), and it stops no undo. A real SQLite file and a real Redis, a
clock the test moves. (The clocks' lane's scheduling of it: tests/reliability/test_turn_clocks.py
and tests/integration/test_turn_clocks_rq.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.games import default_registry
from domain.kernel.clocks import warn_at
from service.adapters.redis_store import RedisStore
from service.adapters.sqlite_store import SqliteStore
from service.play.services import GameService
from service.streams.appending import Clock
from service.streams.envelopes import stream_of
from tests.helpers.play import start_game


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return SqliteStore(str(tmp_path / "events.db"))
    url, namespace = request.getfixturevalue("redis_url")
    return RedisStore(url, partitions=2, prefix=namespace)


def _warnings(service, game_id):
    return [r.event for r in service.store.read(stream_of(game_id)) if r.event["type"] == "ClockWarned"]


def test_a_clock_run_is_reminded_once_at_80_percent_and_never_after_it_ended(store):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    service = GameService(store, default_registry(), clock=Clock(lambda: now[0]))
    game_id, players = start_game(service, "dynasties", 2, {"clock_bank_seconds": 100})
    game = service.load(game_id)
    seat = game.public_facts()["to_move"][0]
    run = game.table.clocks.running[seat]
    assert warn_at(run.since, run.deadline) == "2026-01-01T00:01:20.000Z"  # 80 of 100 s
    now[0] += timedelta(seconds=79)
    assert service.warn_clock(game_id, seat, run.started_version) == pytest.approx(1.0)  # not due: a second left
    assert _warnings(service, game_id) == []
    now[0] += timedelta(seconds=1)
    assert service.warn_clock(game_id, seat, run.started_version) is None
    assert service.warn_clock(game_id, seat, run.started_version) is None  # a second timer firing: nothing more
    [warned] = _warnings(service, game_id)
    assert warned["source"] == "platform" and warned["actor"] is None
    assert warned["data"] == {"seat": seat, "started_version": run.started_version, "deadline": run.deadline,
                              "seconds_left": 20.0}
    assert service.load(game_id).table.clocks.running[seat].warned
    notices = service.feed.page(players[seat]["id"], 0, 100)["events"]
    assert [n["data"] for n in notices if n["type"] == "clock_warning"] == [
        {"game_id": game_id, "seat": seat, "deadline": run.deadline, "seconds_left": 20.0}]
    other = 1 - seat
    assert not [n for n in service.feed.page(players[other]["id"], 0, 100)["events"] if n["type"] == "clock_warning"]
    # the seat moves: that run is over, and a late reminder appends nothing
    service.submit_command(game_id, players[seat], game.legal_commands(seat)[0])
    assert service.warn_clock(game_id, seat, run.started_version) is None
    assert len(_warnings(service, game_id)) == 1


def test_a_reminder_stops_no_undo(store):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    service = GameService(store, default_registry(), clock=Clock(lambda: now[0]))
    game_id, players = start_game(service, "dynasties", 2, {"clock_bank_seconds": 100})
    game = service.load(game_id)
    service.submit_command(game_id, players[0], game.legal_commands(0)[0])  # seat 0's Tribute; seat 1 thinks
    run = service.load(game_id).table.clocks.running[1]
    now[0] += timedelta(seconds=85)
    assert service.warn_clock(game_id, 1, run.started_version) is None and len(_warnings(service, game_id)) == 1
    undone = service.undo(game_id, players[0])  # the reminder is nobody's act: seat 0 takes its Tribute back
    assert service.load(game_id).table.clocks.running.keys() == {0, 1} and undone["version"] > run.started_version


def test_a_bots_seat_is_never_reminded(store):
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    service = GameService(store, default_registry(), clock=Clock(lambda: now[0]))  # no bot lane: the bot waits
    person = service.players.create("person")
    game = service.create_game(person, "dynasties", {"clock_bank_seconds": 100}, 2, bots=[{"kind": "random"}])
    service.join_game(game.id, person)
    table = service.load(game.id).table
    assert table.clocks.running.keys() == {0, 1}  # both owe a Tribute
    now[0] += timedelta(seconds=90)
    for seat, run in table.clocks.running.items():
        assert service.warn_clock(game.id, seat, run.started_version) is None
    assert [w["data"]["seat"] for w in _warnings(service, game.id)] == [table.seat_of(person["id"])]
