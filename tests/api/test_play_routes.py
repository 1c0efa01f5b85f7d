"""The play routes (GET legal-commands, GET state, POST commands) are served outside Flask's
request cycle (``service.api.lean.PlayRoutes``): every answer, refusals included, is the one
Flask gives for the same request on the same game, byte for byte and header for header."""

from __future__ import annotations

import json

import pytest

from service.api.app import create_app
from service.api.lean import PlayRoutes
from service.base.config import Config
from tests.helpers.play import start_game


@pytest.fixture
def app(tmp_path):
    return create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline"))


@pytest.fixture
def served_by_play_routes(monkeypatch):
    """The requests ``PlayRoutes`` served, by path."""
    served: list[str] = []
    original = PlayRoutes.serve

    def counting(self, found, environ, start_response):
        served.append(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}")
        return original(self, found, environ, start_response)

    monkeypatch.setattr(PlayRoutes, "serve", counting)
    return served


def _answer(app, play: bool, method: str, path: str, **kwargs):
    kept = app.play_routes
    if not play:
        app.play_routes = None
    try:
        answer = app.test_client().open(path, method=method, **kwargs)
    finally:
        app.play_routes = kept
    return answer.status_code, sorted(answer.headers.items()), answer.get_data()


def _requests(game_id: str, token: str, other_token: str, version: int) -> list[tuple[str, str, dict]]:
    bearer = {"Authorization": f"Bearer {token}"}
    url = f"/games/{game_id}"
    return [
        ("GET", f"{url}/legal-commands", {"headers": bearer}),
        ("GET", f"{url}/legal-commands", {"headers": {"Authorization": f"Bearer {other_token}"}}),  # not to move
        ("GET", f"{url}/legal-commands", {}),  # no token: 401
        ("GET", f"{url}/legal-commands", {"headers": {"Authorization": "Bearer nobody"}}),  # unknown token: 401
        ("GET", f"{url}/legal-commands", {"headers": {"Authorization": "Basic abc"}}),  # not a bearer: 401
        ("GET", f"{url}/legal-commands", {"headers": bearer, "query_string": {"at": 1}}),  # not a parameter: 422
        ("GET", f"{url}/legal-commands", {"headers": {**bearer, "Idempotency-Key": "k"}}),  # not taken: 422
        ("GET", "/games/0123456789abcdef/legal-commands", {"headers": bearer}),  # no such game: 404
        ("GET", f"{url}/state", {"headers": bearer}),
        ("GET", f"{url}/state", {}),  # a spectator
        ("GET", f"{url}/state", {"headers": bearer, "query_string": {"at": 1}}),
        ("GET", f"{url}/state", {"headers": bearer, "query_string": {"at": "soon"}}),  # 422
        ("POST", f"{url}/commands", {"headers": bearer, "data": "{not json", "content_type": "application/json"}),
        ("POST", f"{url}/commands", {"headers": bearer, "json": {"type": "Nothing", "args": {}}}),
        ("POST", f"{url}/commands", {"headers": bearer, "json": {"type": "PlaceNoble", "args": {}}}),
        ("POST", f"{url}/commands", {"headers": bearer, "json": [1, 2]}),
        ("POST", f"{url}/commands", {"headers": bearer, "json": {"type": "Pass", "args": {},
                                                                 "expected_version": version + 5}}),  # 409 or 422
        ("POST", f"{url}/commands", {"headers": {"Authorization": f"Bearer {other_token}"},
                                     "json": {"type": "Pass", "args": {}}}),  # not this seat's turn
        ("POST", f"{url}/commands", {"json": {"type": "Pass", "args": {}}}),  # no token
        ("POST", f"{url}/commands", {"headers": {**bearer, "Idempotency-Key": " "}, "json": {}}),  # a blank key
        ("POST", f"{url}/commands", {"headers": bearer, "data": "{}",
                                     "content_type": "application/json; charset=latin-1"}),  # 415
        ("POST", f"{url}/commands", {"headers": bearer, "data": "[" * 40 + "]" * 40,
                                     "content_type": "application/json"}),  # too deep
    ]


@pytest.mark.api
def test_every_answer_of_a_play_route_is_flasks_answer(app, served_by_play_routes):
    games = app.extensions["games"]
    game_id, players = start_game(games, "dynasties", 3)
    loaded = games.load(game_id)
    while len(loaded.rules.to_move(loaded.state)) == 3:  # on to a moment when a seat waits
        seat = loaded.rules.to_move(loaded.state)[0]
        games.submit_command(game_id, players[seat], loaded.rules.legal_commands(loaded.state, seat)[0])
        loaded = games.load(game_id)
    seat = loaded.rules.to_move(loaded.state)[0]
    other = next(s for s in range(3) if s not in loaded.rules.to_move(loaded.state))
    token, other_token = players[seat]["token"], players[other]["token"]
    requests = _requests(game_id, token, other_token, loaded.version)
    for method, path, kwargs in requests:
        served_by_play_routes.clear()
        played = _answer(app, True, method, path, **kwargs)
        assert served_by_play_routes == [f"{method} {path}"], (method, path)
        through_flask = _answer(app, False, method, path, **kwargs)
        assert len(served_by_play_routes) == 1, "with play_routes None, Flask serves the request"
        assert played == through_flask, (method, path, kwargs)
        if played[0] >= 400:
            assert dict(played[1])["Content-Type"] == "application/problem+json", (method, path, played)
    assert games.load(game_id).version == loaded.version, "no refused request changed the game"
    # the conditional GET: the tag of one path is honoured by the other
    first = _answer(app, True, "GET", f"/games/{game_id}/legal-commands", headers={"Authorization": f"Bearer {token}"})
    tag = dict(first[1])["ETag"]
    for play in (True, False):
        status, headers, body = _answer(app, play, "GET", f"/games/{game_id}/legal-commands",
                                        headers={"Authorization": f"Bearer {token}", "If-None-Match": tag})
        assert (status, body) == (304, b""), play
    # a move through each: the same answer's shape and headers
    answers = []
    for play in (True, False):
        loaded = games.load(game_id)
        seat = loaded.rules.to_move(loaded.state)[0]
        command = loaded.rules.legal_commands(loaded.state, seat)[0]
        status, headers, body = _answer(app, play, "POST", f"/games/{game_id}/commands",
                                        headers={"Authorization": f"Bearer {players[seat]['token']}"},
                                        json={"type": command.type, "args": dict(command.args),
                                              "expected_version": loaded.version})
        assert status == 201, body
        assert json.loads(body)["version"] == games.load(game_id).version
        answers.append(([name for name, _ in headers if name != "Content-Length"], sorted(json.loads(body))))
    assert answers[0] == answers[1]


@pytest.mark.api
def test_other_methods_and_paths_go_through_flask(app, served_by_play_routes):
    games = app.extensions["games"]
    game_id, players = start_game(games, "dynasties", 2)
    bearer = {"Authorization": f"Bearer {players[0]['token']}"}
    client = app.test_client()
    head = client.head(f"/games/{game_id}/legal-commands", headers=bearer)
    assert head.status_code in (200, 403) and head.get_data() == b""
    assert client.delete(f"/games/{game_id}/commands", headers=bearer).status_code == 405
    assert client.get(f"/games/{game_id}/commands", headers=bearer).status_code == 405
    assert client.get(f"/games/{game_id}/legal-commands/", headers=bearer).status_code == 404
    assert client.get(f"/games/{game_id.upper()}/state").status_code == 404
    assert client.get(f"/games/{game_id}").status_code == 200
    assert served_by_play_routes == []


@pytest.mark.api
def test_with_cors_flask_serves_the_play_routes_and_adds_its_headers(tmp_path, served_by_play_routes):
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            cors_origins=("https://play.example.org",)))
    assert app.play_routes is None, "the fast path would skip flask-cors's after-request function"
    game_id, players = start_game(app.extensions["games"], "dynasties", 2)
    answer = app.test_client().get(f"/games/{game_id}/state", headers={"Origin": "https://play.example.org"})
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    assert served_by_play_routes == []


@pytest.mark.api
def test_an_error_handler_that_fails_gives_flasks_500(app, served_by_play_routes):
    """A handler that raises (a bug) ends as Flask ends it: the 500 problem of the
    ``InternalServerError`` that wraps the failure, never a bare server error."""
    from domain.kernel import RuleViolation

    def failing(exc):
        raise RuntimeError("a handler's own bug")

    app.error_handler_spec[None][None][RuleViolation] = failing
    games = app.extensions["games"]
    game_id, players = start_game(games, "dynasties", 2)
    loaded = games.load(game_id)
    seat = loaded.rules.to_move(loaded.state)[0]
    command = loaded.rules.legal_commands(loaded.state, seat)[0]
    # a legal command's shape with a value no rule allows: the rules refuse it (RuleViolation)
    args = {name: "no-such-card" if type(value) is str else value for name, value in command.args.items()}
    assert args != dict(command.args)
    request = {"headers": {"Authorization": f"Bearer {players[seat]['token']}"},
               "json": {"type": command.type, "args": args}}
    played = _answer(app, True, "POST", f"/games/{game_id}/commands", **request)
    assert served_by_play_routes == [f"POST /games/{game_id}/commands"]
    assert played == _answer(app, False, "POST", f"/games/{game_id}/commands", **request)
    assert played[0] == 500 and json.loads(played[2])["code"] == "internal_server_error", played


@pytest.mark.api
def test_the_play_routes_run_the_apps_own_hooks_views_and_request(app):
    """What ``PlayRoutes`` runs is what the app holds, the same objects: its before-request
    hooks, the endpoints' views (the bare functions ``mount_lean`` mounted), its request class
    and its JSON provider."""
    play = app.play_routes
    assert play is not None
    hooks = app.before_request_funcs[None]
    assert all(mine is theirs for mine, theirs in zip(play.hooks, hooks, strict=True))
    for rule, view in play.routes.values():
        assert view is app.view_functions[rule.endpoint]
        assert not hasattr(view, "__wrapped__"), f"{rule.endpoint}: flask-smorest's wrappers are mounted"
    assert play.request_class is app.request_class and play.json is app.json
