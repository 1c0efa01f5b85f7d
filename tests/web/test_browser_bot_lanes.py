"""The browser against a tree-search bot at its hardest level, on the embedded store as
``serve`` runs it (gevent web workers, the projector and the background process): the page
shows each of the bot's moves as it is made, and another page's requests stay fast while
the bot thinks, because no search runs in a web process (issue 33)."""

from __future__ import annotations

import random
import re
import time

import requests

from tests.reliability.conftest import ServerProcess
from tests.web.test_browser_play import Seat, _click_a_move, _game, _shot


def test_a_hard_bot_thinks_outside_the_web_and_its_moves_appear_as_made(browser, artifacts, tmp_path):
    server = ServerProcess(f"sqlite:///{tmp_path / 'events.db'}", env={"GAMES_BOT_THINK_SECONDS": "0.3"},
                           workers=1, log_path=tmp_path / "server.log").start()
    url = server.url
    rng = random.Random(5)
    ivy = Seat(browser, url, "Ivy")
    watcher = requests.Session()  # another client, on the same single web worker
    try:
        page = ivy.page
        page.select_option("#new-type", "dynasties")
        page.fill("#new-seats", "2")
        page.select_option("#opponent-1", "mcts:hard")
        page.click("text=Create and take a seat")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        mine = next(s["seat"] for s in _game(url, game_id)["seats"] if s["player_id"] == ivy.player["id"])
        waits: list[float] = []
        bot_moves_seen = 0
        deadline = time.monotonic() + 150
        while bot_moves_seen < 3:
            assert time.monotonic() < deadline, (bot_moves_seen, server.log_tail())
            game = _game(url, game_id)
            if game["status"] == "finished":
                break
            if mine in game["to_move"]:
                before = game["version"]
                _click_a_move(ivy, rng, before, lambda before=before: _game(url, game_id)["version"] != before)
                continue
            # the bot thinks: another page's requests are answered at once meanwhile
            started = time.perf_counter()
            assert watcher.get(f"{url}/health", timeout=10).status_code == 200
            assert watcher.get(f"{url}/games", timeout=10).status_code == 200
            waits.append(time.perf_counter() - started)
            events = requests.get(f"{url}/games/{game_id}/events?after={game['version'] - 1}", timeout=10).json()
            for event in events["events"]:
                if event.get("bot"):  # a bot's move: the page shows its log line within seconds
                    page.wait_for_selector(f"#log li[data-version='{event['version']}']", timeout=10_000)
                    bot_moves_seen += 1
            time.sleep(0.05)
        assert bot_moves_seen >= 1
        assert waits and max(waits) < 1.0, sorted(waits)[-5:]
        assert "bot-decision game=" in (tmp_path / "server.log").read_text()  # decided by the background process
        _shot(ivy, artifacts, "dynasties-against-a-hard-bot")
        assert not ivy.errors, ivy.errors
    finally:
        ivy.close()
        server.stop()
