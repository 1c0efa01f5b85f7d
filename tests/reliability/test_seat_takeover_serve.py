"""Seat takeover as users run it (issue 37): ``python -m service serve`` on a real SQLite file
(its web workers, and the background process that plays the bots and runs the clocks), over
real HTTP. A 4-seat Pax Pamir game where one seat runs out of time finishes with a computer
opponent in that seat; in another game, a player who resigned reclaims the seat, and the
stand-in never acts for it again."""

from __future__ import annotations

import random
import time

import requests

from tests.helpers.http import PlayerClients
from tests.helpers.waiting import wait_until


class Site(PlayerClients):
    def __init__(self, url: str):
        self.url = url


def _wait(predicate, timeout: float, what: str):
    return wait_until(predicate, timeout, what, every=0.1)


def _events(site: Site, game_id: str, session: requests.Session) -> list[dict]:
    events, after = [], 0
    while True:
        page = session.get(f"{site.url}/games/{game_id}/events", params={"after": after, "limit": 500},
                           timeout=10).json()
        events += page["events"]
        if page["next_after"] is None:
            return events
        after = page["next_after"]


def _play_people(site: Site, game_id: str, people: dict[str, requests.Session], rng: random.Random,
                 until, limit: int = 5000) -> dict:
    """Whoever of ``people`` (player id -> session) is asked plays a legal command at random,
    until ``until(game)``; the bots and the stand-in play in the server's background process."""
    any_session = next(iter(people.values()))
    for _ in range(limit):
        game = any_session.get(f"{site.url}/games/{game_id}", timeout=10).json()
        if until(game):
            return game
        asked = [s for s in game["to_move"] if game["seats"][s]["player_id"] in people]
        if not asked:
            time.sleep(0.05)  # a computer opponent's move
            continue
        session = people[game["seats"][asked[0]]["player_id"]]
        legal = session.get(f"{site.url}/games/{game_id}/legal-commands", timeout=10).json()
        if not legal["commands"]:
            continue
        answer = session.post(f"{site.url}/games/{game_id}/commands", json=rng.choice(legal["commands"]),
                              timeout=10)
        assert answer.status_code in (201, 409), answer.text  # 409: a bot moved first
    raise AssertionError(f"game {game_id} went on for {limit} rounds")


def test_a_seat_out_of_time_finishes_with_a_stand_in_and_a_player_reclaims_a_seat_in_another_game(
        server_process, tmp_path):
    server = server_process(f"sqlite:///{tmp_path / 'events.db'}", env={"GAMES_BOT_THINK_SECONDS": "0"})
    site = Site(server.url)
    rng = random.Random(37)

    # -- a 4-seat Pax Pamir game: Ann never answers; her clock runs out at her first question (the
    # coalition she is loyal to, which has no default), and a stand-in plays her seat to the end
    ann, ann_http = site.new_player("Ann")
    others = [site.new_player(name) for name in ("Bob", "Cleo", "Dan")]
    created = ann_http.post(f"{site.url}/games", json={
        "type": "pax_pamir", "seats": 4, "stand_in": {"kind": "random"},
        "options": {"clock_bank_seconds": 4, "clock_increment_seconds": 300}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert created.json()["stand_in"] == {"kind": "random", "level": "default"}
    for _, http in [(ann, ann_http), *others]:
        assert http.post(f"{site.url}/games/{game_id}/join", json={}).status_code == 200
    people = {player["id"]: http for player, http in others}
    taken = _play_people(site, game_id, people, rng,
                         until=lambda g: any(s.get("stand_in_for") == ann["id"] for s in g["seats"]))
    ann_seat = next(s["seat"] for s in taken["seats"] if s.get("stand_in_for") == ann["id"])
    assert taken["status"] == "active" and taken["seats"][ann_seat]["bot"] == {"kind": "random", "level": "default"}
    finished = _play_people(site, game_id, people, rng, until=lambda g: g["status"] == "finished")
    assert finished["outcome"]["details"].get("reason") != "timeout"  # the rules ended it, not a forfeit
    assert finished["seats"][ann_seat].get("stand_in_for") == ann["id"]

    events = _events(site, game_id, ann_http)
    timed_out = [e for e in events if e["type"] == "ClockTimedOut"]
    assert [(e["data"]["seat"], e["data"]["action"]) for e in timed_out] == [(ann_seat, "takeover")]
    takeover = [e for e in events if e["type"] == "SeatTakenOver"]
    assert len(takeover) == 1 and takeover[0]["data"]["player_id"] == ann["id"]
    assert takeover[0]["data"]["reason"] == "timeout" and takeover[0]["source"] == "platform"
    by_stand_in = [e for e in events if e["source"] == "game" and e["actor"] == ann_seat]
    assert by_stand_in and all(e["bot"] == "random:default" for e in by_stand_in)
    assert any(e["type"] == "SeatForfeited" for e in events) is False
    # Ann was told, and her rating counts a lost game (below every other seat), the stand-in's result nobody's
    notices = ann_http.get(f"{site.url}/players/me/events", timeout=10).json()["events"]
    assert [n["data"]["seat"] for n in notices if n["type"] == "seat_taken_over"] == [ann_seat]
    board = _wait(lambda: (lambda rows: rows if len(rows) == 4 else None)(
        requests.get(f"{site.url}/scoreboards/pax_pamir", timeout=10).json()["players"]), 30, "the scoreboard")
    mine = next(r for r in board if r["player_id"] == ann["id"])
    assert mine["games_played"] == 1 and mine["wins"] == 0 and mine["score"] == 0
    assert mine["rank"] == 4  # the lowest rating of the four: the one who left
    assert {r["player_id"] for r in board} == {ann["id"], *people}  # the stand-in is not rated
    # the whole game exports and imports to the same end, the takeover in it like a move
    exported = requests.get(f"{site.url}/games/{game_id}/export", timeout=30)
    assert exported.status_code == 200 and '"SeatTakenOver"' in exported.text
    imported = ann_http.post(f"{site.url}/games/import", data=exported.text.encode(),
                             headers={"Content-Type": "application/x-ndjson"}, timeout=60)
    assert imported.status_code == 201, imported.text
    assert imported.json()["outcome"] == finished["outcome"]

    # -- another game: 3-seat Dynasties; Cleo resigns, the stand-in (the default: greedy) plays her
    # seat, she reclaims it, and from then on she plays it and the stand-in never does
    (bob, bob_http), (cleo, cleo_http), (dan, dan_http) = others
    game_id = bob_http.post(f"{site.url}/games", json={"type": "dynasties", "seats": 3,
                                                       "options": {"starting_gold": 20}}).json()["id"]
    for http in (bob_http, cleo_http, dan_http):
        assert http.post(f"{site.url}/games/{game_id}/join", json={}).status_code == 200
    resigned = cleo_http.post(f"{site.url}/games/{game_id}/resign", timeout=10)
    assert resigned.status_code == 200, resigned.text
    cleo_seat = next(s["seat"] for s in resigned.json()["seats"] if s.get("stand_in_for") == cleo["id"])
    assert resigned.json()["status"] == "active"
    assert resigned.json()["seats"][cleo_seat]["bot"]["kind"] == "greedy"
    two = {bob["id"]: bob_http, dan["id"]: dan_http}

    def stand_in_moved(game):
        return any(e["actor"] == cleo_seat and e.get("bot") for e in _events(site, game_id, bob_http)
                   if e["source"] == "game")

    _play_people(site, game_id, two, rng, until=stand_in_moved)
    assert bob_http.post(f"{site.url}/games/{game_id}/reclaim").status_code == 409  # his own seat is his
    assert dan_http.post(f"{site.url}/games/{game_id}/reclaim").json()["code"] == "not_taken_over"
    reclaimed = cleo_http.post(f"{site.url}/games/{game_id}/reclaim", timeout=10)
    assert reclaimed.status_code == 200, reclaimed.text
    seat = reclaimed.json()["seats"][cleo_seat]
    assert seat["player_id"] == cleo["id"] and "bot" not in seat and "stand_in_for" not in seat
    assert cleo_http.post(f"{site.url}/games/{game_id}/reclaim").json()["code"] == "not_taken_over"
    finished = _play_people(site, game_id, {**two, cleo["id"]: cleo_http}, rng,
                            until=lambda g: g["status"] == "finished")
    events = _events(site, game_id, bob_http)
    back = next(e["version"] for e in events if e["type"] == "SeatReclaimed")
    after = [e for e in events if e["version"] > back and e["source"] == "game" and e["actor"] == cleo_seat]
    assert after, "Cleo played her seat after reclaiming it"
    assert all(e.get("bot") is None for e in after), "the stand-in acted for a reclaimed seat"
    assert finished["status"] == "finished"
