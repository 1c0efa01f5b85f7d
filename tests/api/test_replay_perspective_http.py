"""A replay seen through one seat's eyes (``GET /games/{id}/replay?as_seat=N``): once the
game is over anyone may step through what any seat could see then, which is exactly what
that seat was shown during play; during play a seat may ask only for its own view."""

from __future__ import annotations

import random

import pytest

from service.api.app import create_app
from service.base.config import Config
from tests.api.conftest import LiveServer, serve
from tests.helpers.play import start_game

pytestmark = pytest.mark.api


@pytest.fixture
def live_server(tmp_path):
    """A whole game of reads by two clients: faster than the per-token rate limit allows on the
    compiled engine, so that limit is off here (it is tested on its own)."""
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            stream_max_seconds=0.1, limit_per_token=""))
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()


def replay(client, url, game_id, **query) -> list[dict]:
    steps, after = [], 0
    while after is not None:
        answer = client.get(f"{url}/games/{game_id}/replay", params={"after": after, "limit": 200, **query})
        assert answer.status_code == 200, answer.text
        steps += answer.json()["steps"]
        after = answer.json()["next_after"]
    return steps


@pytest.mark.parametrize("kind, options", [("dynasties", {"starting_gold": 8}), ("pax_pamir", {})])
def test_a_finished_games_replay_as_a_seat_shows_what_that_seat_was_shown_in_play(live_server, kind, options):
    url = live_server.url
    game_id, players = start_game(live_server.games, kind, 2, options)
    clients = [live_server.client(p["token"]) for p in players]
    rng = random.Random(3)
    shown: list[dict[int, dict]] = [{}, {}]  # seat -> version -> the view its GET /state gave in play
    during = clients[0].get(f"{url}/games/{game_id}/replay", params={"as_seat": 1})
    assert during.status_code == 403 and during.headers["Content-Type"] == "application/problem+json"
    assert "own seat" in during.json()["detail"]
    assert live_server.client().get(f"{url}/games/{game_id}/replay", params={"as_seat": 0}).status_code == 403
    own = replay(clients[0], url, game_id, as_seat=0)
    assert own == replay(clients[0], url, game_id)  # during play: the caller's own view, as without as_seat
    for _ in range(2000):
        summary = clients[0].get(f"{url}/games/{game_id}").json()
        if summary["status"] == "finished":
            break
        seat = rng.choice(summary["to_move"])
        for s, client in enumerate(clients):
            answer = client.get(f"{url}/games/{game_id}/state")
            assert answer.status_code == 200, answer.text
            shown[s][answer.json()["version"]] = answer.json()["view"]
        legal = clients[seat].get(f"{url}/games/{game_id}/legal-commands").json()
        command = rng.choice(legal["commands"])
        posted = clients[seat].post(f"{url}/games/{game_id}/commands",
                                    json={**command, "expected_version": legal["version"]})
        assert posted.status_code == 201, posted.text
    else:
        raise AssertionError("the game did not end")
    spectator = live_server.client()
    whole = {step["event"]["version"]: step["view"] for step in replay(spectator, url, game_id)}
    compared = differing = 0
    for seat in (0, 1):
        seen = {step["event"]["version"]: step["view"] for step in replay(spectator, url, game_id, as_seat=seat)}
        assert set(seen) == set(whole)
        for version, view in shown[seat].items():
            if version in seen:
                assert seen[version] == view, f"seat {seat} at version {version}"
                compared += 1
                differing += seen[version] != whole[version]
    assert compared >= 10 and differing > 0  # the whole view shows more than a seat saw
    bad = spectator.get(f"{url}/games/{game_id}/replay", params={"as_seat": 2})
    assert bad.status_code == 404 and "0 to 1" in bad.json()["detail"]
