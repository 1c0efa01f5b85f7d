"""Turn clocks on the embedded store, over real HTTP with a real SQLite file: clocks are
events shown in every view; a seat out of time is played for once (a pass where the rules
have one, else a forfeit); a seat that moved in time never is; every seat voting pauses."""

from __future__ import annotations

import hashlib
import random
import threading
import time

from werkzeug.serving import make_server as serve_receiver

from domain.games import default_registry
from service.play.fairness import verify_fairness
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly
from tests.reliability.test_webhooks import Receiver

CLOCK = {"clock_bank_seconds": 2, "clock_increment_seconds": 1, "clock_cap_seconds": 3}


def _events(server, game_id, kind):
    return [r.event for r in server.games.store.read(stream_of(game_id)) if r.event["type"] == kind]


def _wait(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def _game(server, kind, options, seats=2):
    service = server.games
    players = [server.new_player(f"p{i}")[0] for i in range(seats)]
    game = service.create_game(players[0], kind, options, seats)
    for player in players:
        service.join_game(game.id, player)
    table = service.load(game.id).table
    by_id = {p["id"]: p for p in players}
    return game.id, [by_id[table.players[s]] for s in range(seats)]


def test_a_seat_out_of_time_forfeits_once_and_the_seat_that_moved_in_time_is_untouched(make_server):
    server = make_server()
    game_id, seated = _game(server, "dynasties", {"starting_gold": 20, **CLOCK})
    state = server.client(seated[0]["token"]).get(f"{server.url}/games/{game_id}/state").json()
    clocks = state["clocks"]["seats"]
    assert [c["deadline"] is not None for c in clocks] == [True, True]  # both owe a Tribute
    tribute = server.client(seated[0]["token"]).get(f"{server.url}/games/{game_id}/legal-commands").json()
    posted = server.client(seated[0]["token"]).post(f"{server.url}/games/{game_id}/commands",
                                                    json=tribute["commands"][0])
    assert posted.status_code == 201, posted.text
    assert {e["type"] for e in posted.json()["events"]} >= {"ClockStopped"}
    _wait(lambda: server.games.load(game_id).over)
    timed_out = _events(server, game_id, "ClockTimedOut")
    assert [(e["data"]["seat"], e["data"]["action"]) for e in timed_out] == [(1, "forfeit")]
    finished = server.client().get(f"{server.url}/games/{game_id}").json()
    assert finished["outcome"]["winners"] == [0] and finished["outcome"]["details"]["reason"] == "timeout"
    assert all(c["deadline"] is None for c in finished["clocks"]["seats"])
    time.sleep(0.5)  # nothing more happens: the timeout acted once
    assert len(_events(server, game_id, "ClockTimedOut")) == 1
    # the forfeit ends the game like any ending: the seed is revealed, and the export checks out
    verify_fairness(server.client().get(f"{server.url}/games/{game_id}/export").text, default_registry())


def test_where_the_rules_have_a_pass_the_server_passes_for_the_seat(make_server):
    server = make_server()
    game_id, seated = _game(server, "pax_pamir", {"clock_bank_seconds": 1})
    service = server.games
    rng = random.Random(3)
    while True:  # random moves, at once, until the seat asked may end its turn
        game = service.load(game_id)
        seat = game.rules.to_move(game.state)[0]
        legal = game.rules.legal_commands(game.state, seat)
        if any(c.type == "EndTurn" for c in legal):
            break
        service.submit_command(game_id, seated[seat], rng.choice(legal))
    version = service.load(game_id).version
    _wait(lambda: _events(server, game_id, "ClockTimedOut"))
    first = _events(server, game_id, "ClockTimedOut")[0]
    assert first["data"] == {"seat": seat, "started_version": first["data"]["started_version"], "action": "EndTurn"}
    after = [r.event for r in service.store.read(stream_of(game_id), version)]
    assert any(e["type"] == "TurnStarted" or e.get("actor") == seat for e in after)
    assert not service.load(game_id).over or service.load(game_id).outcome().details.get("reason") != "timeout"
    for player in seated:  # stop the clocks: the server would otherwise pass for both seats forever
        service.vote_pause(game_id, player)
    assert service.load(game_id).table.clocks.paused or service.load(game_id).over


def test_seats_that_move_in_time_are_never_played_for_and_a_vote_of_every_seat_pauses(make_server):
    server = make_server()
    game_id, seated = _game(server, "dynasties", {"starting_gold": 20, "clock_bank_seconds": 1})
    service = server.games
    play_randomly(service, game_id, seated, random.Random(1), max_commands=6)
    assert not service.load(game_id).over
    first = server.client(seated[0]["token"]).post(f"{server.url}/games/{game_id}/clock/pause")
    assert first.status_code == 200 and first.json()["paused"] is False and first.json()["pause_votes"] == [0]
    both = server.client(seated[1]["token"]).post(f"{server.url}/games/{game_id}/clock/pause")
    assert both.json()["paused"] is True and all(c["deadline"] is None for c in both.json()["seats"])
    time.sleep(1.6)  # past every deadline the moves in time had left behind
    assert _events(server, game_id, "ClockTimedOut") == []
    started = len(_events(server, game_id, "ClockStarted"))
    stopped = len(_events(server, game_id, "ClockStopped"))
    assert started == stopped > 6  # every clock that ran was stopped by a move or the pause
    resumed = server.client(seated[1]["token"]).post(f"{server.url}/games/{game_id}/clock/resume")
    assert resumed.json()["paused"] is False and any(c["deadline"] for c in resumed.json()["seats"])
    for player in seated:  # pause again: no clock keeps running after the test
        server.client(player["token"]).post(f"{server.url}/games/{game_id}/clock/pause")
    no_clock, _ = _game(server, "dynasties", {})
    refused = server.client(seated[0]["token"]).post(f"{server.url}/games/{no_clock}/clock/pause")
    assert refused.status_code in (403, 409) and refused.headers["Content-Type"] == "application/problem+json"


def test_clock_options_are_checked_like_every_option(make_server):
    server = make_server()
    _, client = server.new_player("host")
    for options in ({"clock_bank_seconds": 0}, {"clock_bank_seconds": "3 days"}, {"clock_cap_seconds": 10**12},
                    {"clock_increment_seconds": -1}):
        answer = client.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2, "options": options})
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_option", options


def test_a_move_with_its_clock_events_can_still_be_undone():
    """The clock events of a move belong to it (its actor), so undo finds the seat's move."""
    from service.adapters.memory_store import MemoryStore
    from service.play.services import GameService
    from tests.helpers.play import start_game

    service = GameService(MemoryStore(), default_registry())
    game_id, players = start_game(service, "pax_pamir", 2, {"clock_bank_seconds": 1000})
    play_randomly(service, game_id, players, random.Random(0), undo_chance=0.3, max_commands=200)
    records = service.store.read(stream_of(game_id))
    assert sum(r.event["type"] == "MovesUndone" for r in records) > 5
    assert sum(r.event["type"] == "ClockStarted" for r in records) > 20
    game = service.load(game_id)
    running = game.table.clocks.running
    assert set(running) == set(game.public_facts()["to_move"])  # the clocks follow the undone moves too


def test_r17a_a_seat_that_seals_but_never_reveals_forfeits_when_its_clock_runs_out(make_server):
    """Commit-reveal Tributes: both seats seal in time, seat 0 reveals, seat 1 never does.
    Nothing may be played for a sealed seat (any card would break its seal), so it forfeits."""
    server = make_server()
    game_id, seated = _game(server, "dynasties", {"starting_gold": 20, "commit_reveal_tributes": True,
                                                  "clock_bank_seconds": 3, "clock_increment_seconds": 1})
    salts = ["11" * 16, "22" * 16]

    def post(seat, command):
        posted = server.client(seated[seat]["token"]).post(f"{server.url}/games/{game_id}/commands", json=command)
        assert posted.status_code == 201, posted.text

    for seat in (0, 1):
        hand = server.client(seated[seat]["token"]).get(f"{server.url}/games/{game_id}/state").json()["view"]["hand"]
        post(seat, {"type": "CommitTribute",
                    "args": {"hash": hashlib.sha256(bytes.fromhex(salts[seat]) + hand[0].encode()).hexdigest()}})
    post(0, {"type": "RevealTribute", "args": {"salt": salts[0]}})
    _wait(lambda: server.games.load(game_id).over)
    timed_out = _events(server, game_id, "ClockTimedOut")
    assert [(e["data"]["seat"], e["data"]["action"]) for e in timed_out] == [(1, "forfeit")]
    assert not _events(server, game_id, "TributesRevealed")  # seat 1's Tribute was never opened
    finished = server.client().get(f"{server.url}/games/{game_id}").json()
    assert finished["outcome"]["winners"] == [0] and finished["outcome"]["details"]["reason"] == "timeout"
    verify_fairness(server.client().get(f"{server.url}/games/{game_id}/export").text, default_registry())


def test_in_a_game_with_bots_the_people_alone_decide_a_pause(make_server):
    """Bot seats do not vote: the clocks stop once every seat played by a person has voted,
    and any person resumes them; with one person and bots, that person's vote pauses."""
    server = make_server(bot_think_seconds=0)
    people = [server.new_player(name) for name in ("ann", "bob")]
    created = people[0][1].post(f"{server.url}/games", json={
        "type": "dynasties", "seats": 3, "options": {"starting_gold": 20, "clock_bank_seconds": 600},
        "bots": [{"kind": "random"}]})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for _, client in people:
        assert client.post(f"{server.url}/games/{game_id}/join", json={}).status_code == 200
    ann, bob = (client for _, client in people)
    first = ann.post(f"{server.url}/games/{game_id}/clock/pause")
    assert first.status_code == 200 and first.json()["paused"] is False
    both = bob.post(f"{server.url}/games/{game_id}/clock/pause")
    assert both.status_code == 200 and both.json()["paused"] is True, both.text
    assert all(c["deadline"] is None for c in both.json()["seats"])
    assert _events(server, game_id, "ClocksPaused")
    resumed = ann.post(f"{server.url}/games/{game_id}/clock/resume")
    assert resumed.json()["paused"] is False and any(c["deadline"] for c in resumed.json()["seats"])

    _, alone = server.new_player("cat")
    solo = alone.post(f"{server.url}/games", json={
        "type": "dynasties", "seats": 3, "options": {"starting_gold": 20, "clock_bank_seconds": 600},
        "bots": [{"kind": "random"}, {"kind": "greedy"}]}).json()["id"]
    assert alone.post(f"{server.url}/games/{solo}/join", json={}).status_code == 200
    paused = alone.post(f"{server.url}/games/{solo}/clock/pause")
    assert paused.json()["paused"] is True and paused.json()["pause_votes"] == []
    for client, game in ((ann, game_id), (bob, game_id)):  # no clock keeps running after the test
        client.post(f"{server.url}/games/{game}/clock/pause")


def test_a_seat_is_reminded_at_80_percent_of_its_time_in_its_feed_and_by_webhooks(make_server):
    """The clocks' lane (threads here, as the embedded store runs it) schedules the reminder with
    the timeout: a ClockWarned event in the game's stream once 80% of the run is used, then the
    feed's ``clock_warning`` and the webhooks (the event, and the chat preset's text)."""
    hooks = Receiver(flaky=False)
    receiver = serve_receiver("127.0.0.1", 0, hooks, threaded=True)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        server = make_server(webhook_allow=("127.0.0.1/32",))
        players = [server.new_player(f"p{i}")[0] for i in range(2)]
        for player, preset in zip(players, ("events", "chat"), strict=True):
            made = server.client(player["token"]).post(f"{server.url}/webhooks", json={
                "url": f"http://127.0.0.1:{receiver.server_port}/{player['id']}", "scope": "my_games",
                "preset": preset})
            assert made.status_code == 201, made.text
            hooks.secrets[player["id"]] = made.json()["secret"]
        service = server.games
        game = service.create_game(players[0], "dynasties", {"starting_gold": 20, "clock_bank_seconds": 4}, 2)
        for player in players:
            service.join_game(game.id, player)
        started = time.monotonic()
        _wait(lambda: len(_events(server, game.id, "ClockWarned")) == 2, timeout=3.9)  # both owe a Tribute
        assert time.monotonic() - started >= 3.0  # not before 80% of 4 s (less the time the joins took)
        warned = _events(server, game.id, "ClockWarned")
        assert sorted(w["data"]["seat"] for w in warned) == [0, 1]
        assert all(0 < w["data"]["seconds_left"] <= 0.9 for w in warned), warned
        seat_of = {p["id"]: service.load(game.id).table.seat_of(p["id"]) for p in players}
        for player in players:
            notices = server.client(player["token"]).get(f"{server.url}/players/me/events").json()["events"]
            assert [n["data"]["seat"] for n in notices if n["type"] == "clock_warning"] == [seat_of[player["id"]]]
        def reminded_by_chat():
            return [p["text"] for p in hooks.effective.get(players[1]["id"], {}).values() if "runs out" in p["text"]]

        _wait(lambda: reminded_by_chat() and sum(p["data"]["event"]["type"] == "ClockWarned"
                                                 for p in hooks.effective.get(players[0]["id"], {}).values()) == 2,
              timeout=10)
        [text] = reminded_by_chat()  # the chat preset: the reminder of its own seat only
        assert text.startswith(f"Your clock in game {game.id} (Dynasties) runs out in "), text
        events = [p["data"]["event"] for p in hooks.effective[players[0]["id"]].values()]
        assert sorted(e["data"]["seat"] for e in events if e["type"] == "ClockWarned") == [0, 1]
        _wait(lambda: service.load(game.id).over)  # nobody moved: the timeout comes after the reminder
        assert len(_events(server, game.id, "ClockWarned")) == 2  # once per run
    finally:
        receiver.shutdown()
