"""A seat a stand-in took over (issue 37, ``domain.kernel.stand_ins``) in the read models: unrated
for that seat (who left counts a lost game below every other seat, with no points, reclaimed or
not; the stand-in counts for nobody), and the lobby shows who plays the seat now."""

from __future__ import annotations

from domain.kernel.stand_ins import RESIGNED, TIMED_OUT, seat_reclaimed, seat_taken_over
from projections.history import HISTORY, entry_key
from projections.lobby import LOBBY
from projections.scoreboard import MODEL, SCOREBOARD, table
from tests.unit.projections.envelopes import GameLog, fold

BOT = {"kind": "greedy", "level": "normal"}


def three_seat_game(reclaim: bool) -> GameLog:
    log = GameLog("g1", seats=3).join(0, "ann").join(1, "bob").join(2, "cat").start(["ann", "bob", "cat"])
    log.move(0, [1])
    log.append([(seat_taken_over(1, "bob", TIMED_OUT, "robot", "greedy bot (normal)", BOT), "platform", 1)],
               status="active", to_move=[1])
    log.move(1, [2])
    if reclaim:
        log.append([(seat_reclaimed(1, "bob", "BOB"), "platform", 1)], status="active", to_move=[2])
    # the seat Bob left wins the game, and has the most points
    return log.move(2, [0]).finish(0, [1], {0: 10, 1: 40, 2: 5})


def test_who_left_counts_a_lost_game_below_every_seat_and_the_stand_in_is_not_rated():
    for reclaim in (False, True):
        model = fold(SCOREBOARD, three_seat_game(reclaim))
        rows = {row["player_id"]: row for row in table(model, "highcard")}
        assert set(rows) == {"ann", "bob", "cat"}  # the stand-in ("robot") has no standing
        assert (rows["bob"]["games_played"], rows["bob"]["wins"], rows["bob"]["score"]) == (1, 0, 0)
        # rated as if the winning seat were nobody's: Ann (10 points) before Cat (5), Bob after both
        [[ann], [bob], [cat]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()], [MODEL.rating()]], ranks=[2, 4, 3])
        assert [rows[p]["rating"]["mu"] for p in ("ann", "bob", "cat")] == [ann.mu, bob.mu, cat.mu]
        assert [r["player_id"] for r in table(model, "highcard")] == ["ann", "cat", "bob"]


def test_the_history_of_who_left_shows_a_lost_game_ranked_last():
    model = fold(HISTORY, three_seat_game(reclaim=True))
    result = model["entries"][entry_key("bob", "g1")]["result"]
    assert result["won"] is False and result["rank"] == 3
    assert model["entries"][entry_key("ann", "g1")]["result"]["rank"] == 2  # behind the winning seat


def test_the_lobby_shows_the_stand_in_in_the_seat_and_its_person_once_reclaimed():
    log = GameLog("g1", seats=3).join(0, "ann").join(1, "bob").join(2, "cat").start(["ann", "bob", "cat"])
    log.append([(seat_taken_over(1, "bob", RESIGNED, "robot", "greedy bot (normal)", BOT), "platform", 1)],
               status="active", to_move=[1])
    seat = fold(LOBBY, log)["games"]["g1"]["seats"][1]
    assert seat == {"seat": 1, "player_id": "robot", "name": "greedy bot (normal)", "bot": BOT, "stand_in_for": "bob"}
    log.append([(seat_reclaimed(1, "bob", "BOB"), "platform", 1)], status="active", to_move=[1])
    assert fold(LOBBY, log)["games"]["g1"]["seats"][1] == {"seat": 1, "player_id": "bob", "name": "BOB"}
