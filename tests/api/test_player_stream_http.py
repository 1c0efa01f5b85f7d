"""A player's own stream (``GET /players/me/stream``) over real HTTP: across two games, with
invitations, a rematch and a resignation, cut twice, every notice arrives exactly once, in
order, and equal to the paged list (issue 37's "Done when")."""

from __future__ import annotations

import json
import random

import pytest
import requests

from service.api.app import create_app
from service.base.config import Config
from tests.api.conftest import LiveServer, serve


@pytest.fixture
def long_streams(tmp_path):
    """A server whose streams stay open (the shared fixture ends them after 0.1 s)."""
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            stream_max_seconds=60, stream_heartbeat=0.3))
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()


class FeedReader:
    """One connection to the feed: reads SSE messages until told to stop (then cuts it)."""

    def __init__(self, url, token, last_id):
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = str(last_id)
        self.response = requests.get(f"{url}/players/me/stream", headers=headers, stream=True, timeout=(5, 5))
        assert self.response.status_code == 200, self.response.text
        assert self.response.headers["Content-Type"].startswith("text/event-stream")
        self.lines = self.response.iter_lines(decode_unicode=True)

    def read(self, count):
        """The next ``count`` notices (id, notice) as they come."""
        got, message = [], {}
        while len(got) < count:
            line = next(self.lines)
            if line.startswith("id: "):
                message["id"] = int(line[4:])
            elif line.startswith("data: "):
                message["data"] = json.loads(line[6:])
            elif line == "" and "data" in message:
                got.append((message["id"], message["data"]))
                message = {}
        return got

    def cut(self):
        self.response.close()


def _last_id(http, url):
    return http.get(f"{url}/players/me/events", params={"limit": 1}).json()["last_id"]


def _play(url, game_id, by_player, rng, until_over=True, moves=None):
    played = 0
    while moves is None or played < moves:
        game = requests.get(f"{url}/games/{game_id}", timeout=10).json()
        if game["status"] == "finished":
            return
        http = by_player[game["seats"][game["to_move"][0]]["player_id"]]
        legal = http.get(f"{url}/games/{game_id}/legal-commands").json()["commands"]
        assert http.post(f"{url}/games/{game_id}/commands", json=rng.choice(legal)).status_code == 201
        played += 1
    assert not until_over


def test_a_players_stream_cut_twice_gets_every_notice_once_in_order(long_streams):
    url = long_streams.url
    ann, ann_http = long_streams.new_player("Ann")
    bob, bob_http = long_streams.new_player("Bob")
    by_player = {ann["id"]: ann_http, bob["id"]: bob_http}
    rng = random.Random(37)
    received = []

    reader = FeedReader(url, ann["token"], 0)
    # game 1: a private table; a first invitation is cancelled, the second accepted
    game_id = bob_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2, "private": True,
                                                  "options": {"starting_gold": 20}}).json()["id"]
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    first = bob_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": ann["id"]}).json()
    bob_http.delete(f"{url}/games/{game_id}/invitations/{first['id']}")
    second = bob_http.post(f"{url}/games/{game_id}/invitations", json={"player_id": ann["id"]}).json()
    assert ann_http.post(f"{url}/games/{game_id}/invitations/{second['id']}/accept").status_code == 200
    received += reader.read(_last_id(ann_http, url))
    reader.cut()  # cut 1

    # while nobody listens: the game is played to its end, and a rematch offered
    _play(url, game_id, by_player, rng)
    bob_http.post(f"{url}/games/{game_id}/rematch")
    reader = FeedReader(url, ann["token"], received[-1][0])
    backlog = _last_id(ann_http, url) - received[-1][0]
    assert backlog > 3
    received += reader.read(backlog // 2)
    reader.cut()  # cut 2, halfway through the backlog

    reader = FeedReader(url, ann["token"], received[-1][0])
    # game 2: the rematch; Ann accepts it, a few moves, a mention, then Ann resigns
    rematch = ann_http.post(f"{url}/games/{game_id}/rematch").json()["endings"]["rematch"]
    _play(url, rematch, by_player, rng, until_over=False, moves=4)
    bob_http.post(f"{url}/games/{rematch}/chat", json={"text": "well played @Ann"})
    assert ann_http.post(f"{url}/games/{rematch}/resign").status_code == 200
    received += reader.read(_last_id(ann_http, url) - received[-1][0])
    reader.cut()

    ids = [number for number, _ in received]
    assert ids == list(range(1, len(ids) + 1))  # every notice once, in order
    paged = ann_http.get(f"{url}/players/me/events", params={"limit": 500}).json()["events"]
    assert [notice for _, notice in received] == paged
    kinds = [notice["type"] for notice in paged]
    assert kinds[:3] == ["invitation_received", "invitation_cancelled", "invitation_received"]
    for kind in ("seated", "game_started", "your_turn", "game_over", "rematch_offered", "rematch_started",
                 "chat_mention"):
        assert kind in kinds, kind
    assert [n["data"]["game_id"] for n in paged if n["type"] == "game_over"] == [game_id, rematch]
    resigned = [n for n in paged if n["type"] == "game_over"][-1]
    assert resigned["data"]["outcome"]["details"]["reason"] == "resigned"
    turns = [n for n in paged if n["type"] == "your_turn"]
    assert all(n["data"]["prompt"] for n in turns)  # each with the question put to her seat

    # several streams per token: two at once, each the whole feed
    one, two = FeedReader(url, ann["token"], 0), FeedReader(url, ann["token"], 0)
    assert one.read(len(paged)) == two.read(len(paged)) == received
    one.cut()
    two.cut()
    # and Bob's feed holds nothing of Ann's own prompts
    bob_notices = bob_http.get(f"{url}/players/me/events", params={"limit": 500}).json()["events"]
    assert all(n["data"].get("seat") != turns[0]["data"]["seat"] or n["data"]["game_id"] != turns[0]["data"]["game_id"]
               for n in bob_notices if n["type"] == "your_turn")


def test_the_feed_stream_needs_a_token_or_a_feed_ticket(long_streams):
    url = long_streams.url
    ann, ann_http = long_streams.new_player("Ann")
    assert requests.get(f"{url}/players/me/stream", timeout=5).status_code == 401
    ticket = ann_http.post(f"{url}/players/me/stream-ticket").json()
    opened = requests.get(f"{url}{ticket['stream_url']}", stream=True, timeout=(5, 5))
    assert opened.status_code == 200
    opened.close()
    both = ann_http.get(f"{url}{ticket['stream_url']}", timeout=5)
    assert both.status_code == 401 and "not both" in both.json()["detail"]
    # a game's ticket opens no feed
    bob, bob_http = long_streams.new_player("Bob")
    game_id = ann_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2}).json()["id"]
    ann_http.post(f"{url}/games/{game_id}/join", json={})
    bob_http.post(f"{url}/games/{game_id}/join", json={})
    game_ticket = ann_http.post(f"{url}/games/{game_id}/stream-ticket").json()["ticket"]
    refused = requests.get(f"{url}/players/me/stream", params={"ticket": game_ticket}, timeout=5)
    assert refused.status_code == 401


def test_on_redis_a_feed_that_ends_every_tenth_of_a_second_loses_and_repeats_nothing(live_server_on_redis):
    """On Redis (4 log partitions), the shared server ends each stream after 0.1 s: a client that
    reconnects from its Last-Event-ID, as an EventSource does, gets every notice exactly once."""
    url = live_server_on_redis.url
    ann, ann_http = live_server_on_redis.new_player("Ann")
    bob, bob_http = live_server_on_redis.new_player("Bob")
    by_player = {ann["id"]: ann_http, bob["id"]: bob_http}
    rng = random.Random(3)
    games = []
    for _ in range(2):
        game_id = bob_http.post(f"{url}/games", json={"type": "dynasties", "seats": 2, "private": True,
                                                      "options": {"starting_gold": 20}}).json()["id"]
        bob_http.post(f"{url}/games/{game_id}/join", json={})
        link = bob_http.post(f"{url}/games/{game_id}/invitations", json={}).json()
        ann_http.post(f"{url}/games/{game_id}/invitations/{link['id']}/accept", json={"code": link["code"]})
        games.append(game_id)
    received, connections = [], 0
    _play(url, games[0], by_player, rng, until_over=False, moves=6)
    total = _last_id(ann_http, url)
    while len(received) < total:
        connections += 1
        headers = {"Authorization": f"Bearer {ann['token']}"}
        if received:
            headers["Last-Event-ID"] = str(received[-1][0])
        with requests.get(f"{url}/players/me/stream", headers=headers, stream=True, timeout=(5, 5)) as answer:
            message = {}
            for line in answer.iter_lines(decode_unicode=True):
                if line.startswith("id: "):
                    message["id"] = int(line[4:])
                elif line.startswith("data: "):
                    message["data"] = json.loads(line[6:])
                elif line == "" and "data" in message:
                    received.append((message["id"], message["data"]))
                    message = {}
        if connections == 1:  # more notices while the client is away, then in the other game
            _play(url, games[1], by_player, rng, until_over=False, moves=4)
            ann_http.post(f"{url}/games/{games[1]}/resign")
            total = _last_id(ann_http, url)
        assert connections < 200
    assert [n for n, _ in received] == list(range(1, total + 1))
    assert [notice for _, notice in received] == ann_http.get(f"{url}/players/me/events",
                                                              params={"limit": 500}).json()["events"]
    assert {notice["data"]["game_id"] for _, notice in received} == set(games)
