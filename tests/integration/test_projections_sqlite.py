"""Projections on the embedded store (SQLite, in-process): games played through the
service keep every read model current after each append, and a rebuild (in-process or
from the command line) gives exactly the model that the incremental updates gave."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from service.base.config import Config
from service.wiring.bootstrap import build_service
from tests.games.highcard import RULES as HIGHCARD
from tests.unit.projections.playing import open_game, play_games, play_moves

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = {"dynasties": DYNASTIES, "highcard": HIGHCARD}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("projections") / "events.db"
    config = Config(store_url=f"sqlite:///{path}", projections="inline", projection_batch=50,
                    projection_save_every=200)
    service = build_service(config, REGISTRY)
    ids = play_games(service, "dynasties", 5, seed=11, unfinished=2)
    ids += play_games(service, "highcard", 6, seed=12, undo_rate=0.3, unfinished=1)
    return service, ids, config


def runner_of(service):
    return service.read_models.runner


def test_the_background_catch_up_makes_every_projection_current_after_the_last_append(played):
    service, _, _ = played
    deadline = time.monotonic() + 10
    while any(s["lag"] for s in runner_of(service).status_all()):  # nobody reads: the thread catches up
        assert time.monotonic() < deadline, runner_of(service).status_all()
        time.sleep(0.05)


def test_the_lobby_agrees_with_every_games_own_summary(played):
    service, ids, _ = played
    listed = {g["id"]: g for g in service.list_games()}
    assert set(listed) == set(ids)
    for game_id in ids:
        summary = service.load(game_id).summary()
        for key in ("type", "status", "options", "seats", "to_move", "version", "outcome"):
            assert listed[game_id][key] == summary[key], (game_id, key)


def test_the_scoreboard_counts_every_finished_game_once(played):
    service, ids, _ = played
    finished = [service.load(i).summary() for i in ids]
    finished = [g for g in finished if g["status"] == "finished"]
    for kind in ("dynasties", "highcard"):
        board = service.read_models.scoreboard(kind)["players"]
        games_of_kind = [g for g in finished if g["type"] == kind]
        assert sum(r["games_played"] for r in board) == sum(len(g["seats"]) for g in games_of_kind)
        assert sum(r["wins"] for r in board) == sum(len(g["outcome"]["winners"]) for g in games_of_kind)
        assert sum(r["score"] for r in board) == sum(sum(g["outcome"]["scores"].values()) for g in games_of_kind)
        ordinals = [r["rating"]["ordinal"] for r in board]
        assert ordinals == sorted(ordinals, reverse=True)


def test_each_players_history_lists_their_games_with_results(played):
    service, ids, _ = played
    for game_id in ids:
        summary = service.load(game_id).summary()
        for seat in summary["seats"]:
            history = service.read_models.player_games(seat["player_id"])["games"]
            (entry,) = [g for g in history if g["game_id"] == game_id]
            assert entry["seat"] == seat["seat"] and entry["status"] == summary["status"]
            if summary["outcome"]:
                assert entry["result"]["won"] == (seat["seat"] in summary["outcome"]["winners"])
                assert entry["result"]["score"] == summary["outcome"]["scores"][str(seat["seat"])]


def test_a_rebuild_gives_exactly_the_incremental_model(played):
    service, _, _ = played
    runner = runner_of(service)
    for name in runner.names:
        incremental = runner.model(name)
        assert runner.rebuild(name) == sum(runner.heads().values())
        assert runner.model(name) == incremental


def test_a_rebuild_from_the_command_line_gives_the_same_model(played):
    service, _, config = played
    runner = runner_of(service)
    before = {name: runner.model(name) for name in runner.names}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAMES_PROJECTIONS": "inline"}
    done = subprocess.run([sys.executable, "-m", "service", "rebuild", "--store", config.store_url],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "rebuild scoreboard" in done.stderr  # tqdm's bar
    for name in runner.names:
        assert runner.model(name) == before[name]
    lag = subprocess.run([sys.executable, "-m", "service", "lag", "--store", config.store_url],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert lag.returncode == 0 and "lobby" in lag.stdout and "lag        0" in lag.stdout, lag.stdout


def test_an_undone_move_is_never_seen_as_standing(tmp_path):
    service = build_service(Config(store_url=f"sqlite:///{tmp_path}/undo.db", projections="inline"), REGISTRY)
    players = [service.players.create(n) for n in ("ann", "bob")]
    game_id, by_seat = open_game(service, "highcard", players, 2)
    before = service.list_games()[0]
    seat = before["to_move"][0]
    play_moves(service, game_id, by_seat, random.Random(1), moves=1)
    moved = service.list_games()[0]
    assert moved["to_move"] != before["to_move"]
    service.undo(game_id, by_seat[seat])
    after = service.list_games()[0]
    assert after["to_move"] == before["to_move"] and after["status"] == "active"
    assert after["version"] == before["version"] + 2
    history = service.read_models.player_games(players[0]["id"])["games"]
    assert [g["status"] for g in history] == ["active"]
