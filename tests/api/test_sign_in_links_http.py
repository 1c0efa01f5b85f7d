"""Signing in on another tab or device over real HTTP: a one-time code made by the signed-in tab gives
the same player and token elsewhere, and the first tab stays signed in; a used, altered, expired or
stale code (its token rotated since) is refused with 401 and the reason, changing nothing."""

from __future__ import annotations

import requests

from service.players import players as players_module


def _register(url, name="Ann"):
    return requests.post(f"{url}/players", json={"name": name}, timeout=10).json()


def _link(url, token):
    return requests.post(f"{url}/players/me/sign-in-links", headers={"Authorization": f"Bearer {token}"}, timeout=10)


def _sign_in(url, body):
    return requests.post(f"{url}/sign-in", json=body, timeout=10)


def _works(url, player) -> bool:
    answer = requests.get(f"{url}/players/{player['id']}/games", timeout=10,
                          headers={"Authorization": f"Bearer {player['token']}"})
    games = requests.post(f"{url}/games", json={"type": "dynasties", "seats": 2}, timeout=10,
                          headers={"Authorization": f"Bearer {player['token']}"})
    return answer.status_code == 200 and games.status_code == 201


def test_a_code_signs_another_tab_in_once_and_the_first_stays_signed_in(live_server):
    url = live_server.url
    ann = _register(url)
    made = _link(url, ann["token"])
    assert made.status_code == 201 and made.json()["expires_in"] == 600
    code = made.json()["code"]
    assert ann["token"] not in code
    other = _sign_in(url, {"code": code})
    assert other.status_code == 200
    assert {k: other.json()[k] for k in ("id", "name", "token")} == ann
    assert _works(url, ann)  # nothing was revoked
    again = _sign_in(url, {"code": code})
    assert again.status_code == 401 and "used already" in again.json()["detail"]


def test_a_code_made_before_a_rotation_no_longer_signs_in(live_server):
    url = live_server.url
    ann = _register(url)
    code = _link(url, ann["token"]).json()["code"]
    rotated = requests.post(f"{url}/players/me/token", headers={"Authorization": f"Bearer {ann['token']}"},
                            timeout=10).json()
    refused = _sign_in(url, {"code": code})
    assert refused.status_code == 401
    fresh = _sign_in(url, {"code": _link(url, rotated["token"]).json()["code"]})  # the rotated key still works
    assert fresh.status_code == 200 and fresh.json()["token"] == rotated["token"]


def test_hostile_codes_are_refused_with_a_reason(live_server, monkeypatch):
    url = live_server.url
    ann = _register(url)
    code = _link(url, ann["token"]).json()["code"]
    altered = code[:-5] + ("A" if code[-5] != "A" else "B") + code[-4:]
    for body, status in (({"code": altered}, 401), ({"code": "x"}, 401), ({"code": "é" * 20}, 401),
                         ({"code": ""}, 422), ({"code": "a" * 1001}, 422), ({}, 422), ({"code": 5}, 422),
                         ({"code": code, "more": 1}, 422)):
        answer = _sign_in(url, body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.headers["Content-Type"].startswith("application/problem+json") and answer.json()["detail"]
    assert _link(url, "nobody.nothing").status_code == 401
    assert requests.post(f"{url}/players/me/sign-in-links", timeout=10).status_code == 401
    monkeypatch.setattr(players_module, "SIGN_IN_LINK_SECONDS", -1)  # every code is already expired
    expired = _sign_in(url, {"code": code})
    assert expired.status_code == 401 and "expired" in expired.json()["detail"]
    monkeypatch.undo()
    assert _sign_in(url, {"code": code}).status_code == 200  # none of the refusals used it up
