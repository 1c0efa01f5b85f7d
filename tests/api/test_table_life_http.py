"""The life of a table over real HTTP: private tables and invitations, resign, abort, end by
agreement, rematch, chat, and a player's own feed (issue 37)."""

from __future__ import annotations

import random

import requests


def _play_until_over_or(live_server, game_id, clients, stop_after=None):
    """Play legal commands (chosen at random, seeded) by whoever is asked, until the game is over or
    ``stop_after`` commands were played. Returns how many were played."""
    rng = random.Random(7)
    played = 0
    while stop_after is None or played < stop_after:
        game = clients[0].get(f"{live_server.url}/games/{game_id}").json()
        if game["status"] == "finished":
            return played
        seat = game["to_move"][0]
        client = clients[[s["player_id"] for s in game["seats"]].index(game["seats"][seat]["player_id"])]
        legal = client.get(f"{live_server.url}/games/{game_id}/legal-commands").json()
        answer = client.post(f"{live_server.url}/games/{game_id}/commands", json=rng.choice(legal["commands"]))
        assert answer.status_code == 201, answer.text
        played += 1
    return played


def _seats_by_player(game, players):
    return {s["player_id"]: s["seat"] for s in game["seats"]}


def test_a_private_table_is_not_in_the_lobby_and_is_taken_by_invitation_only(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    cleo, cleo_http = live_server.new_player("Cleo")
    game = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 3, "private": True}).json()
    game_id = game["id"]
    assert game["private"] is True
    assert game_id not in [g["id"] for g in requests.get(f"{url}/games", timeout=10).json()["games"]]
    refused = bob_http.post(f"{url}/games/{game_id}/join", json={})
    assert refused.status_code == 403 and refused.json()["code"] == "private_table"

    ann_http.post(f"{url}/games/{game_id}/join", json={})
    to_bob = ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": bob["id"], "seat": 2})
    assert to_bob.status_code == 201, to_bob.text
    link = ann_http.post(f"{url}/games/{game_id}/invitations", json={})
    assert link.status_code == 201 and link.json()["open_link"] and link.json()["code"]

    # Bob sees it waiting for him, Cleo does not see Bob's
    waiting = bob_http.get(f"{url}/players/me/waiting").json()
    assert [i["id"] for i in waiting["invitations"]] == [to_bob.json()["id"]]
    assert cleo_http.get(f"{url}/games/{game_id}/invitations").json()["invitations"] == []

    # the open link needs its code; the seat held for Bob is not Cleo's
    invitation = link.json()["id"]
    wrong = cleo_http.post(f"{url}/games/{game_id}/invitations/{invitation}/accept", json={"code": "nope"})
    assert wrong.status_code == 403
    taken = cleo_http.post(f"{url}/games/{game_id}/invitations/{invitation}/accept", json={"code": link.json()["code"]})
    assert taken.status_code == 200 and taken.json()["seat"] == 1
    again = bob_http.post(f"{url}/games/{game_id}/invitations/{invitation}/accept", json={"code": link.json()["code"]})
    assert again.status_code == 409 and again.json()["code"] == "invitation_closed"
    # Bob's invitation is his alone
    not_yours = cleo_http.post(f"{url}/games/{game_id}/invitations/{to_bob.json()['id']}/accept", json={})
    assert not_yours.status_code in (403, 409)
    joined = bob_http.post(f"{url}/games/{game_id}/invitations/{to_bob.json()['id']}/accept")
    assert joined.status_code == 200 and joined.json()["seat"] == 2
    assert joined.json()["game"]["status"] == "active"
    # the invitations are events of the game's stream, and the link's code is in none of them
    events = requests.get(f"{url}/games/{game_id}/events", timeout=10).json()["events"]
    kinds = [e["type"] for e in events]
    assert kinds.count("InvitationSent") == 2 and kinds.count("InvitationAccepted") == 2
    assert link.json()["code"] not in str(events)


def test_invitations_are_declined_cancelled_and_bounded(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2, "private": True}).json()["id"]
    sent = ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": bob["id"]}).json()
    twice = ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": bob["id"]})
    assert twice.status_code == 409 and twice.json()["code"] == "already_invited"
    assert bob_http.post(f"{url}/games/{game_id}/invitations/{sent['id']}/decline").status_code == 200
    closed = bob_http.post(f"{url}/games/{game_id}/invitations/{sent['id']}/accept")
    assert closed.status_code == 409 and "declined" in closed.json()["detail"]
    again = ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": bob["id"]}).json()
    assert bob_http.delete(f"{url}/games/{game_id}/invitations/{again['id']}").status_code == 403
    assert ann_http.delete(f"{url}/games/{game_id}/invitations/{again['id']}").status_code == 200
    # hostile input: unknown player, a seat the table lacks, a bad expiry, a stranger inviting, too many links
    assert ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": "0" * 16}).status_code == 404
    assert ann_http.post(f"{url}/games/{game_id}/invitations", json={"seat": 5}).status_code == 404
    bad = ann_http.post(f"{url}/games/{game_id}/invitations", json={"expires_in": 5})
    assert bad.status_code == 422 and "expires_in" in bad.text
    assert bob_http.post(f"{url}/games/{game_id}/invitations", json={}).status_code == 403
    for _ in range(4):
        assert ann_http.post(f"{url}/games/{game_id}/invitations", json={}).status_code == 201
    over = ann_http.post(f"{url}/games/{game_id}/invitations", json={})
    assert over.status_code == 429 and over.json()["code"] == "too_many_invitations" and "Retry-After" in over.headers
    assert ann_http.post(f"{url}/games/{game_id}/invitations/zz/accept").status_code == 404


def test_an_invitation_expires(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    sent = ann_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": bob["id"], "seat": 1,
                                                                      "expires_in": 60}).json()
    clock = live_server.games.appender.clock
    real = clock.now
    try:
        clock.now = lambda: real() + __import__("datetime").timedelta(seconds=61)
        late = bob_http.post(f"{url}/games/{game_id}/invitations/{sent['id']}/accept")
        assert late.status_code == 409 and "expired" in late.json()["detail"]
        # the seat it held is open again
        assert bob_http.post(f"{url}/games/{game_id}/join", json={"seat": 1}).status_code == 200
    finally:
        clock.now = real


def test_resign_ends_the_game_as_the_rules_say_and_is_an_event_like_a_move(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    ann_http.post(f"{url}/games/{game_id}/join", json={})
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    _play_until_over_or(live_server, game_id, [ann_http, bob_http], stop_after=3)
    assert ann_http.post(f"{url}/games/{game_id}/abort").json()["code"] == "game_in_progress"
    resigned = bob_http.post(f"{url}/games/{game_id}/resign")
    assert resigned.status_code == 200, resigned.text
    game = resigned.json()
    assert game["status"] == "finished"
    assert game["outcome"]["winners"] == [0] and game["outcome"]["details"]["reason"] == "resigned"
    assert game["outcome"]["details"]["resigned"] == 1
    # no more moves, nor a second resignation
    assert ann_http.post(f"{url}/games/{game_id}/resign").json()["code"] == "game_over"
    legal = ann_http.get(f"{url}/games/{game_id}/legal-commands").json()
    assert legal["commands"] == []
    # in the stream, the replay and the export like a move
    events = requests.get(f"{url}/games/{game_id}/events", timeout=10).json()["events"]
    resignation = next(e for e in events if e["type"] == "SeatResigned")
    assert resignation["source"] == "platform" and resignation["actor"] == 1 and resignation["data"]["seat"] == 1
    exported = requests.get(f"{url}/games/{game_id}/export", timeout=10)
    assert exported.status_code == 200 and "SeatResigned" in exported.text
    imported = ann_http.post(f"{url}/games/import", data=exported.text, headers={"Content-Type": "text/plain"})
    assert imported.status_code == 201, imported.text
    assert imported.json()["outcome"] == game["outcome"]


def test_a_resignation_in_pax_pamir_goes_to_the_best_standing_of_the_others(live_server):
    """At a table with no stand-in (``stand_in: null``), a resignation ends a game of three too."""
    url = live_server.url
    players = [live_server.new_player(name) for name in ("Ann", "Bob", "Cleo")]
    game_id = players[0][1].post(f"{url}/games", json={"type": "pax_pamir", "seats": 3,
                                                       "stand_in": None}).json()["id"]
    for _, http in players:
        assert http.post(f"{url}/games/{game_id}/join", json={}).status_code == 200
    game = players[1][1].post(f"{url}/games/{game_id}/resign").json()
    assert game["status"] == "finished" and 1 not in game["outcome"]["winners"]
    # at the start nobody has a point: every other seat shares the win (R-END-2 ties)
    assert game["outcome"]["winners"] == [0, 2]


def test_a_table_is_aborted_before_its_first_move_and_counts_for_nobody(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    waiting = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    assert bob_http.post(f"{url}/games/{waiting}/abort").status_code == 403  # neither creator nor seated
    assert ann_http.post(f"{url}/games/{waiting}/abort").json()["status"] == "finished"
    assert bob_http.post(f"{url}/games/{waiting}/join", json={}).status_code == 409
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    ann_http.post(f"{url}/games/{game_id}/join", json={})
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    aborted = bob_http.post(f"{url}/games/{game_id}/abort").json()
    assert aborted["outcome"]["winners"] == [] and aborted["outcome"]["details"]["reason"] == "aborted"
    board = requests.get(f"{url}/scoreboards/dynasties", timeout=10).json()
    assert board["total"] == 0 and board["players"] == []
    # a game that ends otherwise does count (the same board, the same players)
    counted = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    ann_http.post(f"{url}/games/{counted}/join", json={})
    bob_http.post(f"{url}/games/{counted}/join", json={})
    bob_http.post(f"{url}/games/{counted}/resign")
    board = requests.get(f"{url}/scoreboards/dynasties", timeout=10).json()
    assert board["total"] == 2 and {p["games_played"] for p in board["players"]} == {1}


def test_a_table_aborted_while_waiting_with_its_player_at_a_later_seat_stays_in_their_history(live_server):
    """Found by schemathesis (issue 37): the history ranked a finished table's seats by the
    number of players seated, so one aborted with its only player at seat 2 failed to fold,
    GET /players/{id}/games answered 500 and every player's history stopped there."""
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    waiting = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 3}).json()["id"]
    assert ann_http.post(f"{url}/games/{waiting}/join", json={"seat": 2}).status_code == 200
    assert ann_http.post(f"{url}/games/{waiting}/abort").json()["status"] == "finished"
    history = ann_http.get(f"{url}/players/{ann['id']}/games")
    assert history.status_code == 200, history.text
    [entry] = history.json()["games"]
    assert entry["game_id"] == waiting and entry["seat"] == 2 and entry["status"] == "finished"
    assert entry["result"]["winners"] == [] and entry["result"]["rank"] == 1
    # and the history goes on: a later game of another player is in theirs
    bob, bob_http = live_server.new_player("Bob")
    later = bob_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    bob_http.post(f"{url}/games/{later}/join", json={})
    assert [g["game_id"] for g in bob_http.get(f"{url}/players/{bob['id']}/games").json()["games"]] == [later]


def test_the_game_ends_by_unanimous_agreement_and_a_decline_keeps_it_going(live_server):
    url = live_server.url
    players = [live_server.new_player(name) for name in ("Ann", "Bob", "Cleo")]
    game_id = players[0][1].post(f"{url}/games", json={"type": "dynasties", "seats": 3}).json()["id"]
    for _, http in players:
        http.post(f"{url}/games/{game_id}/join", json={})
    assert players[0][1].post(f"{url}/games/{game_id}/end-proposal").json()["endings"]["end_votes"] == [0]
    assert players[1][1].post(f"{url}/games/{game_id}/end-proposal").json()["status"] == "active"
    assert players[2][1].delete(f"{url}/games/{game_id}/end-proposal").json()["endings"]["end_votes"] == []
    for _, http in players:
        game = http.post(f"{url}/games/{game_id}/end-proposal").json()
    assert game["status"] == "finished" and game["outcome"]["winners"] == [0, 1, 2]
    assert game["outcome"]["details"]["reason"] == "agreement"


def test_a_rematch_seats_the_same_players_one_seat_on_once_each_accepts(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2,
                                                   "options": {"starting_gold": 40}}).json()["id"]
    ann_http.post(f"{url}/games/{game_id}/join", json={})
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    early = ann_http.post(f"{url}/games/{game_id}/rematch")
    assert early.status_code == 409 and early.json()["code"] == "not_over"
    ann_http.post(f"{url}/games/{game_id}/resign")
    offered = ann_http.post(f"{url}/games/{game_id}/rematch").json()
    assert offered["endings"]["rematch_votes"] == [0] and offered["endings"]["rematch"] is None
    assert bob_http.delete(f"{url}/games/{game_id}/rematch").json()["endings"]["rematch_declined"] is True
    ann_http.post(f"{url}/games/{game_id}/rematch")
    accepted = bob_http.post(f"{url}/games/{game_id}/rematch").json()
    rematch_id = accepted["endings"]["rematch"]
    assert rematch_id
    rematch = requests.get(f"{url}/games/{rematch_id}", timeout=10).json()
    assert rematch["status"] == "active" and rematch["rematch_of"] == game_id
    assert [s["player_id"] for s in rematch["seats"]] == [bob["id"], ann["id"]]
    assert rematch["options"]["starting_gold"] == 40
    # asking again changes nothing
    assert ann_http.post(f"{url}/games/{game_id}/rematch").json()["endings"]["rematch"] == rematch_id
    kinds = [e["type"] for e in requests.get(f"{url}/games/{game_id}/events", timeout=10).json()["events"]]
    assert kinds[-4:] == ["RematchOffered", "RematchDeclined", "RematchOffered", "RematchAccepted"] or \
        kinds[-5:] == ["RematchOffered", "RematchDeclined", "RematchOffered", "RematchAccepted", "RematchStarted"]


def test_chat_rooms_limits_mentions_and_mutes(live_server):
    url = live_server.url
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    eve, eve_http = live_server.new_player("Eve")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    ann_http.post(f"{url}/games/{game_id}/join", json={})
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    said = ann_http.post(f"{url}/games/{game_id}/chat", json={"text": "good luck @Bob"})
    assert said.status_code == 201 and said.json()["room"] == "players" and said.json()["mentions"] == [bob["id"]]
    assert eve_http.post(f"{url}/games/{game_id}/chat", json={"text": "Bob holds the Gold King"}).json()["room"] == \
        "spectators"
    # a spectator's words never reach a seat during play
    assert [m["text"] for m in bob_http.get(f"{url}/games/{game_id}/chat").json()["messages"]] == ["good luck @Bob"]
    assert len(requests.get(f"{url}/games/{game_id}/chat", timeout=10).json()["messages"]) == 2
    notices = bob_http.get(f"{url}/players/me/events").json()["events"]
    assert notices[-1]["type"] == "your_turn" or "chat_mention" in [n["type"] for n in notices]
    assert "chat_mention" in [n["type"] for n in notices]
    # bounds: length, characters, rate
    assert ann_http.post(f"{url}/games/{game_id}/chat", json={"text": "x" * 501}).status_code == 422
    assert ann_http.post(f"{url}/games/{game_id}/chat", json={"text": "a\u202eb"}).status_code == 422
    assert ann_http.post(f"{url}/games/{game_id}/chat", json={"text": "   "}).status_code == 422
    answers = [ann_http.post(f"{url}/games/{game_id}/chat", json={"text": f"m{i}"}) for i in range(5)]
    assert [a.status_code for a in answers][-1] == 429 and "Retry-After" in answers[-1].headers
    # Bob mutes Ann: her messages leave his reading, and her mentions his feed
    assert bob_http.put(f"{url}/players/me/mutes/{ann['id']}").json()["muted"] == [ann["id"]]
    assert all(m["author"] != ann["id"] for m in bob_http.get(f"{url}/games/{game_id}/chat").json()["messages"])
    assert bob_http.put(f"{url}/players/me/mutes/{bob['id']}").status_code == 409
    assert bob_http.delete(f"{url}/players/me/mutes/{ann['id']}").json()["muted"] == []
