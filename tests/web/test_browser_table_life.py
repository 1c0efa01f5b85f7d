"""The life of a table in the browser (issue 37): a friend invited by link, the game played to
the end by clicking, chat both ways, a rematch offered and accepted, a resignation, and the
notifications fed by each player's own stream."""

from __future__ import annotations

import random
import re
import time

import requests

from tests.web.test_browser_play import Seat, _click_a_move, _game, _shot


def _play_to_the_end(url, game_id, seats, rng, deadline_s=240):
    by_player = {seat.player["id"]: seat for seat in seats}
    game = _game(url, game_id)
    deadline = time.monotonic() + deadline_s
    moves = 0
    while game["status"] != "finished":
        assert time.monotonic() < deadline and moves < 500, "the game did not end"
        mover = by_player[game["seats"][game["to_move"][0]]["player_id"]]
        before = game["version"]
        _click_a_move(mover, rng, before, lambda before=before: _game(url, game_id)["version"] != before)
        moves += 1
        wait_until = time.monotonic() + 10
        while _game(url, game_id)["version"] == before and time.monotonic() < wait_until:
            time.sleep(0.05)
        game = _game(url, game_id)
    return moves


def test_invite_by_link_play_to_the_end_chat_rematch_and_resign_in_the_browser(web_server, browser, artifacts):
    rng = random.Random(37)
    started = time.monotonic()
    ann = Seat(browser, web_server, "Ann")
    bob = Seat(browser, web_server, "Bob")
    try:
        # Ann's private table, made with the lobby's create form
        page = ann.page
        page.select_option("#new-type", "dynasties")
        page.fill("#new-seats", "2")
        page.check("#new-private")
        page.click("details summary")
        page.fill("#option-starting_gold", "8")
        page.click("text=Create and take a seat")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        made = _game(web_server, game_id)
        assert made["private"] is True and made["options"]["starting_gold"] == 8
        assert [s["player_id"] for s in made["seats"]] == [ann.player["id"], None]
        assert game_id not in [g["id"] for g in requests.get(f"{web_server}/games", timeout=10).json()["games"]]
        ann.page.click("#invite-link")
        link = ann.page.input_value("#invite-url")
        assert f"/#/invitation/{game_id}/" in link and "?" not in link  # the code stays after the #
        _shot(ann, artifacts, "table-life-invite-link")

        # Bob opens the link and accepts: the game starts
        bob.page.goto(link)
        bob.page.click("#accept-invitation")
        bob.page.wait_for_url(re.compile(rf"#/game/{game_id}$"))
        assert _game(web_server, game_id)["status"] == "active"

        # chat both ways, as the other sees it
        ann.page.fill("#chat-text", "good luck @Bob")
        ann.page.click("#chat-send")
        bob.page.wait_for_selector("#chat-messages li:has-text('good luck @Bob')", timeout=10000)
        bob.page.fill("#chat-text", "you too")
        bob.page.press("#chat-text", "Enter")
        ann.page.wait_for_selector("#chat-messages li:has-text('you too')", timeout=10000)
        texts = ann.page.eval_on_selector_all("#chat-messages li", "items => items.map(i => i.textContent)")
        assert texts == ["Ann: good luck @Bob", "Bob: you too"], texts  # each message once

        # played to the end by clicking
        assert _play_to_the_end(web_server, game_id, [ann, bob], rng) > 0
        _shot(bob, artifacts, "table-life-game-over")

        # a rematch: Ann offers, Bob accepts; both are led to the new table, seats rotated
        ann.page.wait_for_selector("#offer-rematch", timeout=10000)
        ann.page.click("#offer-rematch")
        bob.page.wait_for_selector("#accept-rematch", timeout=10000)
        bob.page.click("#accept-rematch")
        bob.page.wait_for_selector("#rematch-link", timeout=10000)
        bob.page.click("#rematch-link")
        rematch_id = _game(web_server, game_id)["endings"]["rematch"]
        bob.page.wait_for_url(re.compile(rf"#/game/{rematch_id}$"))
        rematch = _game(web_server, rematch_id)
        assert [s["player_id"] for s in rematch["seats"]] == [bob.player["id"], ann.player["id"]]
        assert rematch["status"] == "active" and rematch["rematch_of"] == game_id

        # Bob resigns the rematch from the page (and confirms)
        bob.page.once("dialog", lambda dialog: dialog.accept())
        bob.page.wait_for_selector("#resign", timeout=10000)
        bob.page.click("#resign")
        bob.page.wait_for_selector("#ended-how:has-text('resigned')", timeout=10000)
        finished = _game(web_server, rematch_id)
        assert finished["status"] == "finished" and finished["outcome"]["winners"] == [1]

        # the notifications came through each player's own stream
        ann.page.wait_for_selector("#notices li[data-type=game_over]", timeout=10000)
        kinds = ann.page.eval_on_selector_all("#notices li", "items => items.map(i => i.dataset.type)")
        assert "rematch_started" in kinds or "your_turn" in kinds
        # one feed at a time per tab: the server ends a stream every 2 s here and the page opens the
        # next a second later (a route change never starts a second one)
        for seat in (ann, bob):
            opened = [u for u in seat.urls if "/players/me/stream?ticket=" in u]
            assert 1 <= len(opened) <= (time.monotonic() - started) / 2.5 + 3, len(opened)
        notices = requests.get(f"{web_server}/players/me/events", params={"limit": 500}, timeout=10,
                               headers={"Authorization": f"Bearer {ann.player['token']}"}).json()["events"]
        ann.page.wait_for_function("(n) => document.querySelectorAll('#notices li').length === n",
                                   arg=min(8, len(notices)), timeout=10000)  # the newest eight, once each
        _shot(ann, artifacts, "table-life-notices")
        assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
    finally:
        ann.close()
        bob.close()


def test_a_player_who_resigned_takes_the_seat_back_from_its_stand_in_in_the_browser(web_server, browser, artifacts):
    """A 3-seat table made in the browser with a random stand-in: Ann resigns from the page, a
    computer opponent plays her seat while the others play on, and she takes it back by a click."""
    ann = Seat(browser, web_server, "Ann")
    try:
        page = ann.page
        page.select_option("#new-type", "dynasties")
        page.fill("#new-seats", "3")
        page.select_option("#new-stand-in", "random:default")
        page.click("text=Create and take a seat")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        assert _game(web_server, game_id)["stand_in"] == {"kind": "random", "level": "default"}
        for name in ("Bob", "Cleo"):
            token = requests.post(f"{web_server}/players", json={"name": name}, timeout=10).json()["token"]
            assert requests.post(f"{web_server}/games/{game_id}/join", json={}, timeout=10,
                                 headers={"Authorization": f"Bearer {token}"}).status_code == 200
        page.once("dialog", lambda dialog: dialog.accept())
        page.wait_for_selector("#resign", timeout=10000)
        page.click("#resign")
        page.wait_for_selector("#reclaim", timeout=10000)
        seat = next(s for s in _game(web_server, game_id)["seats"] if s.get("stand_in_for") == ann.player["id"])
        assert seat["bot"] == {"kind": "random", "level": "default"}
        page.wait_for_selector("#notices li[data-type=seat_taken_over]", timeout=10000)
        _shot(ann, artifacts, "table-life-stand-in")
        page.click("#reclaim")
        page.wait_for_selector("#resign", timeout=10000)  # seated again: she may resign (or play) once more
        back = _game(web_server, game_id)
        assert back["status"] == "active" and back["seats"][seat["seat"]]["player_id"] == ann.player["id"]
        assert not ann.errors, ann.errors
    finally:
        ann.close()
