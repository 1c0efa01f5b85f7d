"""POST /games/{id}/stream-ticket over real HTTP: a browser's way to open a live stream
without its token in a URL. A ticket opens that game's stream as the player's seat within a
minute; it is refused for another game, once expired or altered, once its token is rotated
or revoked, and by every other endpoint."""

from __future__ import annotations

import json
import time

import orjson
import pytest
import requests

pytestmark = pytest.mark.api


def _seated_game(live_server):
    ann, ann_http = live_server.new_player("Ann")
    bob, bob_http = live_server.new_player("Bob")
    game = ann_http.post(f"{live_server.url}/games", json={"type": "dynasties", "seats": 2}).json()
    for http in (ann_http, bob_http):
        assert http.post(f"{live_server.url}/games/{game['id']}/join", json={}).status_code == 200
    return game["id"], (ann, ann_http), (bob, bob_http)


def _ticket(live_server, http, game_id) -> dict:
    answer = http.post(f"{live_server.url}/games/{game_id}/stream-ticket")
    assert answer.status_code == 201, answer.text
    return answer.json()


def _events(url: str) -> list[dict]:
    """Every message of a stream (the test server ends streams after 0.1 s)."""
    answer = requests.get(url, stream=True, timeout=10)
    assert answer.status_code == 200, answer.text
    assert "Authorization" not in answer.request.headers
    return [json.loads(line[len("data: "):]) for line in answer.iter_lines(decode_unicode=True)
            if line.startswith("data: ")]


def test_a_ticket_opens_the_stream_as_the_players_seat(live_server):
    game_id, (ann, ann_http), _ = _seated_game(live_server)
    issued = _ticket(live_server, ann_http, game_id)
    assert issued["expires_in"] == 60
    assert ann["token"] not in issued["ticket"] and ann["token"] not in issued["stream_url"]
    events = _events(live_server.url + issued["stream_url"])
    dealt = [e for e in events if e["type"] == "CardDrawn"]
    assert dealt and events[0]["version"] == 1
    # Ann's own deal comes with its card, Bob's without: the ticket reads as Ann's seat
    assert all("card" in e["secret"] for e in dealt if e["data"]["seat"] == 0)
    assert all("secret" not in e and e["redacted"] for e in dealt if e["data"]["seat"] == 1)
    # the same stream as a spectator shows neither seat's cards
    spectator = _events(f"{live_server.url}/games/{game_id}/stream")
    assert all("secret" not in e for e in spectator)


def test_a_ticket_is_refused_for_another_game_altered_expired_or_elsewhere(live_server):
    game_id, (_, ann_http), _ = _seated_game(live_server)
    other_id, (_, other_http), _ = _seated_game(live_server)
    ticket = _ticket(live_server, ann_http, game_id)["ticket"]
    base = live_server.url

    answer = requests.get(f"{base}/games/{other_id}/stream", params={"ticket": ticket}, timeout=10)
    assert answer.status_code == 401 and "another game" in answer.json()["detail"]

    altered = ticket[:-6] + ("AAAAAA" if not ticket.endswith("AAAAAA") else "BBBBBB")
    answer = requests.get(f"{base}/games/{game_id}/stream", params={"ticket": altered}, timeout=10)
    assert answer.status_code == 401 and "expired" in answer.json()["detail"]
    assert answer.headers["Content-Type"] == "application/problem+json"

    tickets = live_server.app.extensions["stream_tickets"]
    payload = orjson.loads(tickets._key().decrypt(ticket.encode()))
    old = tickets._key().encrypt_at_time(orjson.dumps(payload), int(time.time()) - 61).decode()
    answer = requests.get(f"{base}/games/{game_id}/stream", params={"ticket": old}, timeout=10)
    assert answer.status_code == 401 and "expired" in answer.json()["detail"]

    # useless for anything but the stream: other endpoints do not take it
    answer = requests.get(f"{base}/games/{game_id}/state", params={"ticket": ticket}, timeout=10)
    assert answer.status_code == 422 and answer.json()["code"] == "unknown_query_parameter"
    # a ticket and a header at once is ambiguous
    answer = ann_http.get(f"{base}/games/{game_id}/stream", params={"ticket": ticket}, timeout=10)
    assert answer.status_code == 401 and "not both" in answer.json()["detail"]


@pytest.mark.parametrize("change", ["rotate", "revoke"])
def test_a_ticket_dies_with_its_token(live_server, change):
    game_id, (ann, ann_http), _ = _seated_game(live_server)
    url = live_server.url + _ticket(live_server, ann_http, game_id)["stream_url"]
    assert _events(url)  # it works
    method = ann_http.post if change == "rotate" else ann_http.delete
    assert method(f"{live_server.url}/players/me/token").status_code in (201, 204)
    answer = requests.get(url, timeout=10)
    assert answer.status_code == 401 and "rotated or revoked" in answer.json()["detail"]


def test_only_a_seated_player_gets_a_ticket(live_server):
    game_id, _, _ = _seated_game(live_server)
    _, carl_http = live_server.new_player("Carl")
    answer = carl_http.post(f"{live_server.url}/games/{game_id}/stream-ticket")
    assert answer.status_code == 403 and "spectator" in answer.json()["detail"]
    answer = requests.post(f"{live_server.url}/games/{game_id}/stream-ticket", timeout=10)
    assert answer.status_code == 401
    answer = carl_http.post(f"{live_server.url}/games/0123456789abcdef/stream-ticket")
    assert answer.status_code == 404
