"""The lobby: envelopes in, the list of games out."""

from __future__ import annotations

from projections.lobby import LOBBY, games
from tests.unit.projections.envelopes import GameLog, fold, two_player_game


def test_a_new_game_is_waiting_with_every_seat_open():
    model = fold(LOBBY, GameLog("g1", seats=3))
    game = model["games"]["g1"]
    assert game["type"] == "highcard" and game["status"] == "waiting" and game["to_move"] == []
    assert game["options"] == {"tricks": 3}
    assert game["seats"] == [{"seat": s, "player_id": None, "name": None} for s in range(3)]
    assert game["version"] == 1 and game["created_at"] == game["at"]


def test_seats_fill_as_players_join_and_the_start_fixes_who_sits_where():
    log = GameLog("g1", seats=2).join(0, "ann").join(1, "bob")
    joined = fold(LOBBY, log)["games"]["g1"]
    assert [(s["player_id"], s["name"]) for s in joined["seats"]] == [("ann", "ANN"), ("bob", "BOB")]
    started = fold(LOBBY, log.start(["bob", "ann"], to_move=1))["games"]["g1"]  # random seating swapped them
    assert [(s["seat"], s["player_id"], s["name"]) for s in started["seats"]] == [(0, "bob", "BOB"), (1, "ann", "ANN")]
    assert started["status"] == "active" and started["to_move"] == [1]


def test_whose_move_it_is_follows_each_append_and_the_outcome_ends_the_game():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["ann", "bob"]).move(0, [1])
    game = fold(LOBBY, log)["games"]["g1"]
    assert game["to_move"] == [1] and game["version"] == len(log.bodies) and game["at"] == log.bodies[-1]["at"]
    finished = fold(LOBBY, log.finish(1, [1], {0: 1, 1: 2}))["games"]["g1"]
    assert finished["status"] == "finished" and finished["to_move"] == []
    assert finished["outcome"]["winners"] == [1]


def test_a_move_then_its_undo_leaves_the_lobby_as_before_the_move():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["ann", "bob"], to_move=0)
    before = fold(LOBBY, log)["games"]["g1"]
    log.move(0, to_move=[1]).undo(0, to_move=[0])
    after = fold(LOBBY, log)["games"]["g1"]
    assert after["to_move"] == before["to_move"] == [0]
    assert after["status"] == before["status"] == "active"
    assert after["version"] == before["version"] + 2  # the move and the undo are both in the log


def test_games_filter_by_type_and_status_and_the_latest_activity_comes_first():
    old = two_player_game("g1", "ann", "bob", 0, {0: 2, 1: 1}, minute=0)
    waiting = GameLog("g2", kind="dynasties", minute=10)
    busy = GameLog("g3", minute=20).join(0, "ann").join(1, "cat").start(["ann", "cat"])
    model = fold(LOBBY, old, waiting, busy)
    assert [g["id"] for g in games(model)] == ["g3", "g2", "g1"]
    assert [g["id"] for g in games(model, kind="highcard")] == ["g3", "g1"]
    assert [g["id"] for g in games(model, status="finished")] == ["g1"]
    assert [g["id"] for g in games(model, kind="dynasties", status="waiting")] == ["g2"]
    assert games(model, kind="chess") == []


def test_events_of_a_game_the_lobby_never_saw_created_are_ignored():
    log = GameLog("g1").join(0, "ann")
    assert fold(LOBBY, log.envelopes()[1:]) == {"games": {}}
