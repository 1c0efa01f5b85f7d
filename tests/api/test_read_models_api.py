"""The read-model endpoints: GET /games (the lobby), /scoreboards/{type},
/players/{id}/games and /projections, in-process with the Flask test client."""

from __future__ import annotations

import time

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from service.adapters.memory_store import MemoryStore
from service.api.app import create_app
from service.background.projections_runner import ProjectionRunner
from service.background.read_models import ReadModels
from service.base.config import Config
from service.play.services import GameService
from tests.games.highcard import RULES as HIGHCARD
from tests.unit.projections.playing import play_games

pytestmark = pytest.mark.api
REGISTRY = {"dynasties": DYNASTIES, "highcard": HIGHCARD}


@pytest.fixture
def app():
    return create_app(Config(store_url="memory://", projections="inline"), registry=REGISTRY)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def played(app):
    service = app.extensions["games"]
    finished = play_games(service, "dynasties", 3, seed=31, players=4)
    running = play_games(service, "highcard", 0, seed=32, unfinished=2)
    time.sleep(0.01)  # times are in milliseconds: let the newest game be strictly the latest
    waiting = service.create_game(service.players.create("host"), "highcard", {}, 3).id
    service.read_models.runner.catch_up_all()  # a read catches up for a bounded time only
    return service, finished, running, waiting


def problem(response, status, code):
    assert response.status_code == status, response.get_json()
    assert response.content_type == "application/problem+json"
    assert response.get_json()["code"] == code


def test_games_come_from_the_lobby_projection_not_from_the_streams():
    store = MemoryStore()
    runner = ProjectionRunner(store)
    # no after_append: nothing keeps the lobby current
    service = GameService(store, REGISTRY, read_models=ReadModels(runner, catch_up_on_read=False, mode="rq"))
    client = create_app(Config(store_url="memory://"), service=service).test_client()
    play_games(service, "highcard", 2, seed=1)
    assert client.get("/games").get_json() == {"games": [], "total": 0}
    runner.catch_up("lobby")
    assert len(client.get("/games").get_json()["games"]) == 2


def test_the_lobby_lists_games_by_type_and_status_latest_activity_first(client, played):
    _, finished, running, waiting = played
    listed = client.get("/games").get_json()["games"]
    assert {g["id"] for g in listed} == {*finished, *running, waiting}
    assert listed[0]["id"] == waiting  # the latest activity
    assert [g["id"] for g in client.get("/games?status=waiting").get_json()["games"]] == [waiting]
    assert {g["id"] for g in client.get("/games?type=dynasties&status=finished").get_json()["games"]} == set(finished)
    assert {g["id"] for g in client.get("/games?type=highcard&status=active").get_json()["games"]} == set(running)
    problem(client.get("/games?status=paused"), 422, "invalid_input")


def test_the_lobby_is_paged_and_says_how_many_games_match(client, played):
    everything = client.get("/games").get_json()
    first = client.get("/games?limit=2").get_json()
    rest = client.get("/games?limit=50&offset=2").get_json()
    assert first["total"] == rest["total"] == everything["total"] == len(everything["games"])
    assert first["games"] + rest["games"] == everything["games"]
    assert all(g["last_activity"] >= g["created_at"] for g in everything["games"])
    problem(client.get("/games?limit=0"), 422, "invalid_input")


def test_the_scoreboard_ranks_players_by_rating(client, played):
    service, finished, _, _ = played
    board = client.get("/scoreboards/dynasties").get_json()
    assert board["type"] == "dynasties"
    rows = board["players"]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert [r["rating"]["ordinal"] for r in rows] == sorted((r["rating"]["ordinal"] for r in rows), reverse=True)
    seats = sum(len(service.load(g).summary()["seats"]) for g in finished)
    assert sum(r["games_played"] for r in rows) == seats
    for row in rows:
        assert row["win_rate"] == pytest.approx(row["wins"] / row["games_played"])
        assert set(row) == {"rank", "player_id", "name", "games_played", "wins", "win_rate", "score", "rating"}


def test_a_known_type_without_finished_games_has_an_empty_board_and_an_unknown_type_is_not_found(client, played):
    assert client.get("/scoreboards/highcard").get_json() == {"type": "highcard", "total": 0, "players": []}
    problem(client.get("/scoreboards/chess"), 404, "not_found")


def test_a_players_games_show_seat_status_and_result(client, played):
    service, finished, _, _ = played
    summary = service.load(finished[0]).summary()
    seat = summary["seats"][0]
    games = client.get(f"/players/{seat['player_id']}/games").get_json()
    assert games["player_id"] == seat["player_id"]
    (entry,) = [g for g in games["games"] if g["game_id"] == finished[0]]
    assert entry["seat"] == 0 and entry["status"] == "finished" and entry["type"] == "dynasties"
    assert entry["result"]["won"] == (0 in summary["outcome"]["winners"])
    activity = [g["last_activity"] for g in games["games"]]
    assert activity == sorted(activity, reverse=True)
    problem(client.get("/players/0123456789abcdef/games"), 404, "not_found")


def test_a_new_player_has_no_games(client):
    created = client.post("/players", json={"name": "new"}).get_json()
    assert client.get(f"/players/{created['id']}/games").get_json() == {"player_id": created["id"], "total": 0, "games": []}


def test_projections_show_their_checkpoints_and_no_lag_in_inline_mode(client, played):
    service = played[0]
    status = client.get("/projections").get_json()
    assert status["mode"] == "inline"
    assert [p["name"] for p in status["projections"]] == ["lobby", "scoreboard", "history"]
    head = service.store.log_head(0)
    for projection in status["projections"]:
        assert projection["lag"] == 0
        assert projection["partitions"] == [{"partition": 0, "checkpoint": head, "head": head, "lag": 0}]


def test_projections_show_the_lag_a_worker_has_yet_to_catch_up():
    store = MemoryStore()
    service = GameService(store, REGISTRY,
                          read_models=ReadModels(ProjectionRunner(store), catch_up_on_read=False, mode="rq"))
    client = create_app(Config(store_url="memory://"), service=service).test_client()
    play_games(service, "highcard", 1)
    status = client.get("/projections").get_json()
    assert status["mode"] == "rq"
    assert {p["lag"] for p in status["projections"]} == {store.log_head(0)}
    service.read_models.runner.catch_up_all()
    assert {p["lag"] for p in client.get("/projections").get_json()["projections"]} == {0}


def test_the_contract_documents_the_read_models_and_the_event_stream(app):
    spec = app.extensions["api"].spec.to_dict()
    for path in ("/scoreboards/{game_type}", "/players/{player_id}/games", "/projections"):
        assert "200" in spec["paths"][path]["get"]["responses"]
    stream = spec["paths"]["/games/{game_id}/stream"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    assert {p["name"] for p in stream["parameters"]} >= {"after", "Last-Event-ID"}


def test_scoreboards_and_histories_page_from_their_indexes(client, played):
    service, finished, _, _ = played
    seated = {player for game in finished for player in service.load(game).table.players.values()}
    assert len(seated) == 4  # seed 31 seats all four of its players (tests/unit/projections/playing.py)
    board = client.get("/scoreboards/dynasties").get_json()
    assert board["total"] == len(board["players"]) == len(seated)
    assert {row["player_id"] for row in board["players"]} == seated
    page = client.get("/scoreboards/dynasties?limit=2&offset=1").get_json()
    assert page["total"] == board["total"]
    assert page["players"] == board["players"][1:3]  # ranks count from the whole board
    assert [p["rank"] for p in page["players"]] == [2, 3]
    player = board["players"][0]["player_id"]
    history = client.get(f"/players/{player}/games").get_json()
    assert history["total"] == len(history["games"]) >= 1
    first = client.get(f"/players/{player}/games?limit=1").get_json()
    assert first["total"] == history["total"] and first["games"] == history["games"][:1]
    problem(client.get("/scoreboards/dynasties?limit=0"), 422, "invalid_input")
    problem(client.get(f"/players/{player}/games?offset=-1"), 422, "invalid_input")


def test_a_read_whose_catch_up_keeps_losing_to_other_runners_answers_what_is_stored():
    """Another process's background catch-up may save first every time (CheckpointMoved
    after the runner's reloads): the read then answers from the stored model, never a 500."""
    from service.adapters.store import CheckpointMoved

    class Outrun(ProjectionRunner):
        def catch_up(self, name, **options):
            raise CheckpointMoved(f"{name}: gave up after 20 reloads; another runner keeps winning")

    store = MemoryStore()
    ProjectionRunner(store).catch_up_all()
    service = GameService(store, REGISTRY, read_models=ReadModels(Outrun(store), catch_up_on_read=True))
    client = create_app(Config(store_url="memory://"), service=service).test_client()
    for path in ("/games", "/scoreboards/dynasties", "/projections"):
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.get_json())
    assert client.get("/games").get_json() == {"games": [], "total": 0}
