"""Seat takeover over real HTTP (issue 37, ``domain.kernel.stand_ins``): when a takeover happens and
when the game ends instead, the stand-in's clock and the reclaimed seat's, the refusals of a
reclaim, and the checks of the stand-in chosen at creation and in an imported log."""

from __future__ import annotations

import hashlib
import json

import pytest
import requests

from service.api.app import create_app
from service.base.config import Config
from tests.api.conftest import LiveServer, serve
from tests.helpers.waiting import wait_until


@pytest.fixture
def site(tmp_path):
    """Bots (stand-ins among them) and clocks in threads of the server's process, no think time."""
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            bot_think_seconds=0, stream_max_seconds=0.1))
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()


def _wait(predicate, timeout=20.0, what="it"):
    return wait_until(predicate, timeout, what)


def _table(site, seats, **created):
    players = [site.new_player(name) for name in ("Ann", "Bob", "Cleo", "Dan")[:seats]]
    answer = players[0][1].post(f"{site.url}/games", json={"type": "dynasties", "seats": seats,
                                                           "options": {"starting_gold": 20}, **created})
    assert answer.status_code == 201, answer.text
    game_id = answer.json()["id"]
    for _, http in players:
        assert http.post(f"{site.url}/games/{game_id}/join", json={}).status_code == 200
    return game_id, players


def test_the_stand_in_is_chosen_at_creation_checked_and_greedy_by_default(site):
    _, http = site.new_player("Ann")
    default = http.post(f"{site.url}/games", json={"type": "dynasties", "seats": 3}).json()
    assert default["stand_in"] == {"kind": "greedy", "level": "default"}
    chosen = http.post(f"{site.url}/games", json={"type": "pax_pamir", "seats": 4,
                                                  "stand_in": {"kind": "mcts", "level": "easy"}}).json()
    assert chosen["stand_in"] == {"kind": "mcts", "level": "easy"}
    assert http.post(f"{site.url}/games", json={"type": "dynasties", "seats": 3,
                                                "stand_in": None}).json()["stand_in"] is None
    lobby = requests.get(f"{site.url}/games", timeout=10).json()["total"]
    for wrong, reason in (({"kind": "oracle"}, "has no bot kind"), ({"kind": "greedy", "level": "godlike"}, "no level"),
                          ({"level": "easy"}, "kind")):
        refused = http.post(f"{site.url}/games", json={"type": "dynasties", "seats": 3, "stand_in": wrong})
        assert refused.status_code == 422 and reason in refused.text, refused.text
        assert refused.headers["Content-Type"] == "application/problem+json"
    assert requests.get(f"{site.url}/games", timeout=10).json()["total"] == lobby  # nothing was created


def test_a_resignation_ends_a_game_of_two_and_a_game_where_no_other_person_is_left(site):
    game_id, players = _table(site, 2)
    assert players[0][1].post(f"{site.url}/games/{game_id}/resign").json()["status"] == "finished"
    _, http = site.new_player("Eve")
    game = http.post(f"{site.url}/games", json={"type": "dynasties", "seats": 3, "options": {"starting_gold": 20},
                                                "bots": [{"kind": "random"}, {"kind": "random"}]}).json()
    http.post(f"{site.url}/games/{game['id']}/join", json={})
    ended = http.post(f"{site.url}/games/{game['id']}/resign").json()
    assert ended["status"] == "finished" and ended["outcome"]["details"]["reason"] == "resigned"


def test_a_stand_in_has_no_clock_and_a_reclaimed_seat_starts_a_fresh_bank(site):
    """Dynasties: a Tribute has no default, so a seat out of time at the Tribute is taken over."""
    game_id, players = _table(site, 3, options={"starting_gold": 20, "clock_bank_seconds": 2,
                                                "clock_increment_seconds": 60})
    (ann, ann_http), (bob, bob_http), (cleo, cleo_http) = players
    seat_of = {s["player_id"]: s["seat"] for s in ann_http.get(f"{site.url}/games/{game_id}").json()["seats"]}
    for http in (ann_http, bob_http):  # Ann and Bob give their Tributes in time; Cleo does not
        legal = http.get(f"{site.url}/games/{game_id}/legal-commands").json()
        assert http.post(f"{site.url}/games/{game_id}/commands", json=legal["commands"][0]).status_code == 201
    game = _wait(lambda: (lambda g: g if g["seats"][seat_of[cleo["id"]]].get("stand_in_for") else None)(
        ann_http.get(f"{site.url}/games/{game_id}").json()), what="the takeover")
    cleo_seat = seat_of[cleo["id"]]
    assert game["status"] == "active"
    events = ann_http.get(f"{site.url}/games/{game_id}/events", params={"limit": 500}).json()["events"]
    assert [(e["data"]["seat"], e["data"]["action"]) for e in events if e["type"] == "ClockTimedOut"] == \
        [(cleo_seat, "takeover")]
    # the stand-in answers without a clock: no deadline ever runs for its seat while it plays
    started = [e for e in events if e["type"] == "ClockStarted" and e["data"]["seat"] == cleo_seat]
    taken = next(e["version"] for e in events if e["type"] == "SeatTakenOver")
    assert all(e["version"] < taken for e in started)
    # Cleo is no longer seated: she reads as a spectator and may not move, only reclaim
    assert cleo_http.get(f"{site.url}/games/{game_id}/legal-commands").status_code == 403
    assert ann_http.post(f"{site.url}/games/{game_id}/reclaim").json()["code"] == "not_taken_over"
    stranger = site.new_player("Stranger")[1]
    assert stranger.post(f"{site.url}/games/{game_id}/reclaim").status_code == 403
    reclaimed = cleo_http.post(f"{site.url}/games/{game_id}/reclaim")
    assert reclaimed.status_code == 200, reclaimed.text
    assert cleo_http.get(f"{site.url}/games/{game_id}/state").json()["seat"] == cleo_seat
    # once she is asked again, her clock runs on a fresh bank (2 s), not the empty one she ran out of
    by_seat = {seat_of[ann["id"]]: ann_http, seat_of[bob["id"]]: bob_http}
    for _ in range(50):
        game = cleo_http.get(f"{site.url}/games/{game_id}").json()
        if cleo_seat in game["to_move"]:
            break
        http = by_seat[game["to_move"][0]]
        legal = http.get(f"{site.url}/games/{game_id}/legal-commands").json()
        assert http.post(f"{site.url}/games/{game_id}/commands", json=legal["commands"][0]).status_code == 201
    clock = game["clocks"]["seats"][cleo_seat]
    assert clock["deadline"] is not None and clock["bank_seconds"] == 2, game["clocks"]


def test_a_finished_game_is_not_reclaimed_and_an_imported_log_names_a_stand_in_this_server_has(site):
    game_id, players = _table(site, 3)
    (ann, ann_http), (bob, bob_http), (cleo, cleo_http) = players
    assert ann_http.post(f"{site.url}/games/{game_id}/resign").json()["status"] == "active"
    assert bob_http.post(f"{site.url}/games/{game_id}/resign").json()["status"] == "active"
    ended = cleo_http.post(f"{site.url}/games/{game_id}/resign").json()  # no other person is left: it ends
    assert ended["status"] == "finished" and ended["outcome"]["details"]["resigned"] == ended["seats"].index(
        next(s for s in ended["seats"] if s["player_id"] == cleo["id"]))
    refused = ann_http.post(f"{site.url}/games/{game_id}/reclaim")
    assert refused.status_code == 409 and refused.json()["code"] == "game_over"
    exported = ann_http.get(f"{site.url}/games/{game_id}/export").text
    lines = exported.splitlines()
    assert any(json.loads(line).get("type") == "SeatTakenOver" for line in lines)
    for index, line in enumerate(lines):
        body = json.loads(line)
        if body.get("type") == "SeatTakenOver":
            body["data"]["stand_in"]["bot"] = {"kind": "oracle", "level": "default"}
            lines[index] = json.dumps(body)
    tampered = ann_http.post(f"{site.url}/games/import", data="\n".join(lines).encode(),
                             headers={"Content-Type": "application/x-ndjson"})
    assert tampered.status_code == 422 and "data.stand_in.bot" in tampered.json()["detail"], tampered.text


def _seal(site, game_id, http, salt):
    hand = http.get(f"{site.url}/games/{game_id}/state").json()["view"]["hand"]
    digest = hashlib.sha256(bytes.fromhex(salt) + hand[0].encode()).hexdigest()
    posted = http.post(f"{site.url}/games/{game_id}/commands", json={"type": "CommitTribute", "args": {"hash": digest}})
    assert posted.status_code == 201, posted.text


def test_r17a_a_sealed_tribute_stays_with_who_sealed_it(site):
    """Commit-reveal Tributes: only who sealed a Tribute knows the salt that opens it. A person who
    resigns with a seal unrevealed ends the game (no stand-in could reveal it); a stand-in's seal
    keeps the seat from its person until the stand-in has revealed it."""
    options = {"starting_gold": 20, "commit_reveal_tributes": True}
    game_id, players = _table(site, 3, options=options)
    _seal(site, game_id, players[0][1], "11" * 16)
    ended = players[0][1].post(f"{site.url}/games/{game_id}/resign").json()
    assert ended["status"] == "finished" and ended["outcome"]["details"]["reason"] == "resigned"

    game_id, players = _table(site, 3, options=options)
    (ann, ann_http), (bob, bob_http), (cleo, cleo_http) = players
    taken = ann_http.post(f"{site.url}/games/{game_id}/resign").json()
    ann_seat = next(s["seat"] for s in taken["seats"] if s.get("stand_in_for") == ann["id"])
    sealed = lambda: any(e["type"] == "TributeSealed" and e["actor"] == ann_seat  # noqa: E731
                         for e in ann_http.get(f"{site.url}/games/{game_id}/events").json()["events"])
    _wait(sealed, what="the stand-in's seal")
    refused = ann_http.post(f"{site.url}/games/{game_id}/reclaim")
    assert refused.status_code == 409 and "reveal" in refused.json()["detail"], refused.text
    _seal(site, game_id, bob_http, "22" * 16)
    _seal(site, game_id, cleo_http, "33" * 16)  # every seat sealed: the stand-in reveals its own
    revealed = lambda: any(e["type"] == "TributeCommitted" and e["actor"] == ann_seat  # noqa: E731
                           for e in ann_http.get(f"{site.url}/games/{game_id}/events").json()["events"])
    _wait(revealed, what="the stand-in's reveal")
    assert ann_http.post(f"{site.url}/games/{game_id}/reclaim").status_code == 200
