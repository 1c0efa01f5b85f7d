"""Player history: envelopes in, each player's games out."""

from __future__ import annotations

from projections.history import HISTORY, games_of
from tests.unit.projections.envelopes import GameLog, fold, two_player_game


def test_taking_a_seat_puts_the_game_in_the_players_history():
    model = fold(HISTORY, GameLog("g1").join(1, "ann"))
    (entry,) = games_of(model, "ann")
    assert entry["game_id"] == "g1" and entry["type"] == "highcard"
    assert entry["seat"] == 1 and entry["status"] == "waiting" and entry["result"] is None
    assert entry["joined_at"] == entry["last_activity"]
    assert games_of(model, "bob") == []


def test_the_start_fixes_the_seat_and_the_status():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["bob", "ann"])
    model = fold(HISTORY, log)
    assert [(e["seat"], e["status"]) for e in games_of(model, "ann")] == [(1, "active")]
    assert [(e["seat"], e["status"]) for e in games_of(model, "bob")] == [(0, "active")]


def test_a_finished_game_shows_each_players_result():
    model = fold(HISTORY, two_player_game("g1", "ann", "bob", winner=1, scores={0: 1, 1: 2}))
    (ann,) = games_of(model, "ann")
    (bob,) = games_of(model, "bob")
    assert ann["status"] == bob["status"] == "finished"
    assert ann["result"] == {"won": False, "score": 1, "rank": 2, "winners": [1]}
    assert bob["result"] == {"won": True, "score": 2, "rank": 1, "winners": [1]}
    assert model["games"] == {}  # nothing more to follow for a finished game


def test_the_latest_activity_comes_first():
    first = two_player_game("g1", "ann", "bob", 0, {0: 2, 1: 0}, minute=0)
    second = GameLog("g2", minute=30).join(0, "ann")
    third = GameLog("g3", minute=15).join(1, "ann")
    model = fold(HISTORY, first, second, third)
    assert [e["game_id"] for e in games_of(model, "ann")] == ["g2", "g3", "g1"]


def test_an_undone_move_leaves_the_status_as_it_was():
    log = GameLog("g1").join(0, "ann").join(1, "bob").start(["ann", "bob"]).move(0, [1]).undo(0, [0])
    assert [e["status"] for e in games_of(fold(HISTORY, log), "ann")] == ["active"]
