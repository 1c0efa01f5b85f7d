"""Conditional GETs over real HTTP: an ETag on a game's summary, state and legal commands
and on the lobby; a matching If-None-Match answers 304 without reading an event, and
any move (or another seat, another query) gives another tag."""

from __future__ import annotations

import pytest

from domain.games import default_registry
from domain.kernel import Command
from service.adapters.memory_store import MemoryStore
from service.background.projections_runner import ProjectionRunner
from service.background.read_models import ReadModels
from service.play.services import GameService
from tests.helpers.play import start_game


class Spy:
    """Counts calls to the methods that read or fold a game's events or a read model."""

    def __init__(self, monkeypatch, service):
        self.calls: list[str] = []
        for owner, name in [(service, "load"), (service, "state"), (service, "legal_commands"),
                            (service, "list_games"), (service.store, "read"),
                            (service.read_models.runner, "model")]:
            self._wrap(monkeypatch, owner, name)

    def _wrap(self, monkeypatch, owner, name):
        original = getattr(owner, name)

        def spied(*args, **kwargs):
            self.calls.append(name)
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, spied)


@pytest.fixture
def game(live_server):
    game_id, players = start_game(live_server.games, "dynasties", 2)
    clients = [live_server.client(player["token"]) for player in players]
    return game_id, players, clients


def move(live_server, game_id, players):
    """Any legal move by a seat the game waits for."""
    loaded = live_server.games.load(game_id)
    seat = loaded.rules.to_move(loaded.state)[0]
    command: Command = loaded.rules.legal_commands(loaded.state, seat)[0]
    live_server.games.submit_command(game_id, players[seat], command)
    return seat


@pytest.mark.api
@pytest.mark.parametrize("path", ["state", "legal-commands", ""])
def test_200_then_304_then_200_after_a_move(live_server, game, monkeypatch, path):
    game_id, players, clients = game
    url = f"{live_server.url}/games/{game_id}" + (f"/{path}" if path else "")
    client = clients[0]
    first = client.get(url)
    assert first.status_code == 200, first.text
    tag = first.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"')
    assert "no-cache" in first.headers["Cache-Control"]

    spy = Spy(monkeypatch, live_server.games)
    again = client.get(url, headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == tag
    assert spy.calls == [], f"a 304 read or folded the game: {spy.calls}"
    monkeypatch.undo()

    move(live_server, game_id, players)
    after = client.get(url, headers={"If-None-Match": tag})
    assert after.status_code == 200, after.text
    assert after.headers["ETag"] != tag
    assert after.json() != first.json()
    assert client.get(url, headers={"If-None-Match": after.headers["ETag"]}).status_code == 304


@pytest.mark.api
@pytest.mark.parametrize("path", ["state", "legal-commands"])
def test_each_seat_has_its_own_tag(live_server, game, path):
    game_id, _, clients = game
    url = f"{live_server.url}/games/{game_id}/{path}"
    tags = [client.get(url).headers["ETag"] for client in clients]
    assert tags[0] != tags[1]
    # a seat's tag is no good for another seat: it gets its own answer
    crossed = clients[1].get(url, headers={"If-None-Match": tags[0]})
    assert crossed.status_code == 200 and crossed.headers["ETag"] == tags[1]
    answered = clients[0].get(url)
    assert answered.headers["Vary"] == "Authorization" and "private" in answered.headers["Cache-Control"]


@pytest.mark.api
def test_the_spectator_view_and_time_travel_have_their_own_tags(live_server, game):
    game_id, players, clients = game
    move(live_server, game_id, players)
    url = f"{live_server.url}/games/{game_id}/state"
    spectator = live_server.client()
    seat = clients[0].get(url).headers["ETag"]
    watching = spectator.get(url)
    assert watching.status_code == 200 and watching.headers["ETag"] != seat
    assert spectator.get(url, headers={"If-None-Match": watching.headers["ETag"]}).status_code == 304
    back = clients[0].get(url, params={"at": 3})
    assert back.headers["ETag"] not in (seat, watching.headers["ETag"])
    assert clients[0].get(url, params={"at": 3}, headers={"If-None-Match": back.headers["ETag"]}).status_code == 304
    assert clients[0].get(url, params={"at": 4}, headers={"If-None-Match": back.headers["ETag"]}).status_code == 200


@pytest.mark.api
def test_if_none_match_is_compared_weakly_and_may_list_tags_or_star(live_server, game):
    game_id, _, clients = game
    url = f"{live_server.url}/games/{game_id}/state"
    tag = clients[0].get(url).headers["ETag"]
    for header in (f"W/{tag}", f'"other", {tag}', "*"):
        assert clients[0].get(url, headers={"If-None-Match": header}).status_code == 304, header
    assert clients[0].get(url, headers={"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.api
def test_errors_stay_errors_whatever_if_none_match_says(live_server, game):
    game_id, _, _ = game
    stranger = live_server.client(live_server.new_player("stranger")[0]["token"])
    assert stranger.get(f"{live_server.url}/games/{'0' * 16}/state", headers={"If-None-Match": "*"}).status_code == 404
    assert stranger.get(f"{live_server.url}/games/{game_id}/legal-commands",
                        headers={"If-None-Match": "*"}).status_code == 403
    anonymous = live_server.client()
    assert anonymous.get(f"{live_server.url}/games/{game_id}/legal-commands",
                         headers={"If-None-Match": "*"}).status_code == 401


@pytest.mark.api
def test_the_lobby_answers_304_until_a_game_changes(live_server, game, monkeypatch):
    game_id, players, _ = game
    client = live_server.client()
    url = f"{live_server.url}/games"
    first = client.get(url)
    assert first.status_code == 200
    tag = first.headers["ETag"]

    spy = Spy(monkeypatch, live_server.games)
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
    assert spy.calls == [], f"a 304 read the lobby: {spy.calls}"
    monkeypatch.undo()

    other = client.get(url, params={"status": "active"})
    assert other.headers["ETag"] != tag  # another query, another answer
    assert client.get(url, params={"limit": 1}).headers["ETag"] not in (tag, other.headers["ETag"])

    move(live_server, game_id, players)
    moved = client.get(url, headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    assert moved.json()["games"][0]["version"] > first.json()["games"][0]["version"]

    live_server.games.create_game(players[0], "dynasties", {}, 2)
    created = client.get(url, headers={"If-None-Match": moved.headers["ETag"]})
    assert created.status_code == 200 and created.json()["total"] == 2


@pytest.mark.api
@pytest.mark.integration
def test_conditional_reads_on_the_redis_store(live_server_on_redis):
    live_server = live_server_on_redis
    game_id, players = start_game(live_server.games, "dynasties", 2)
    client = live_server.client(players[0]["token"])
    for url in (f"{live_server.url}/games", f"{live_server.url}/games/{game_id}/state"):
        tag = client.get(url).headers["ETag"]
        assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
        move(live_server, game_id, players)
        assert client.get(url, headers={"If-None-Match": tag}).status_code == 200


def test_with_projection_workers_the_lobby_version_is_the_stored_checkpoints():
    """With RQ workers a read returns the stored lobby, so its tag follows the stored
    checkpoints: it moves when a worker applies events, not when they are appended."""
    store = MemoryStore()
    runner = ProjectionRunner(store)
    service = GameService(store, default_registry(), read_models=ReadModels(runner, catch_up_on_read=False, mode="rq"))
    before = service.read_models.lobby_version()
    start_game(service, "dynasties", 2)
    assert service.read_models.lobby_version() == before  # appended, not yet applied
    runner.catch_up("lobby")
    assert service.read_models.lobby_version() != before
