"""The Flask application factory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask.sessions import NullSession, SessionInterface

from domain.kernel import GameRules
from service.adapters.store import EventStore
from service.api import (
    commands,
    cors,
    faults,
    input_guard,
    limits,
    live,
    meta,
    read_models,
    routes,
    table_life,
    web_client,
    webhooks,
)
from service.api.contract import ContractApi, register_new_games, register_new_webhooks, register_views
from service.api.errors import register_error_handlers
from service.api.lean import PlayRoutes, mount_lean
from service.background.webhooks import ONE_GAME
from service.base.config import Config
from service.play.services import GameService
from service.players.stream_tickets import StreamTickets
from service.wiring.bootstrap import build_service

API_VERSION = "1.0.0"
#: the largest request body accepted (an exported game log is far smaller)
MAX_BODY_BYTES = 16 * 1024 * 1024
DESCRIPTION = """\
An event-sourced server for turn-based games with hidden information.

Register a player (`POST /players`) and keep its token; send it as
`Authorization: Bearer <token>`. Create a game, join it, then read
`/games/{id}/legal-commands` and post one of them to `/games/{id}/commands`.
Every error is `application/problem+json` with a stable `code` and a readable `detail`;
its `type`, `/problems/{code}`, describes it. `GET /games`, `GET /games/{id}`, its state and
its legal commands answer with an `ETag`: send it back as `If-None-Match` to be told
`304 Not Modified` until something changes.
"""


class GameApp(Flask):
    """Flask, told once per function that it is synchronous: Flask asks
    ``inspect.iscoroutinefunction`` of every hook and view on every request (``ensure_sync``),
    and the answer never changes for a function."""

    #: at most this many functions remembered (hooks and views: a few dozen)
    SYNC_KEPT = 1024

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    #: the play routes, served outside Flask's request cycle (``service.api.lean``); None: Flask serves them
    play_routes: PlayRoutes | None = None

    def wsgi_app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        play = self.play_routes
        if play is not None:
            found = play.route(environ)
            if found is not None:
                return play.serve(found, environ, start_response)
        return super().wsgi_app(environ, start_response)

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found = self._sync.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync) < self.SYNC_KEPT:
                self._sync[func] = found
        return found


class NoSessions(SessionInterface):
    """No cookie sessions: the API's callers are known by their bearer tokens, and nothing
    keeps state in ``flask.session``. Every request gets the same empty null session (which
    refuses writes), instead of Flask looking for a secret key and a cookie and making one."""

    _none = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:
        return self._none

    def save_session(self, app: Flask, session: Any, response: Any) -> None:  # never called: it is null
        return None


def create_app(config: Config | None = None, *, registry: Mapping[str, GameRules] | None = None,
               store: EventStore | None = None, service: GameService | None = None) -> Flask:
    config = config or Config.from_env()
    app = GameApp(__name__)
    app.session_interface = NoSessions()
    app.config.update(
        API_TITLE="Game service",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION, "license": {"name": "MIT"}},
            "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
        },
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,  # a larger body is refused with 413, before it is read
    )
    games = service or build_service(config, registry, store)
    app.extensions["games"] = games
    app.url_map.converters["game_id"] = routes.GameIdConverter
    api = ContractApi(app)
    api.register_converter(routes.GameIdConverter, lambda converter: {"type": "string", "pattern": "^[0-9a-f]{16}$"})
    schemas = commands.command_schemas(games.registry)
    app.extensions["command_schemas"] = schemas
    commands.register_in_spec(api.spec, schemas)
    register_views(api.spec, games.registry)
    app.extensions["config"] = config
    app.extensions["stream_tickets"] = StreamTickets(games.store)
    for blueprint in (routes.players, routes.sign_in_codes, routes.game_types, routes.games, meta.blp,
                      live.blp, read_models.scoreboards, read_models.histories, read_models.projections,
                      webhooks.blp, table_life.table, table_life.me):
        api.register_blueprint(blueprint)
    mount_lean(app)  # the routes marked lean served by their bare functions (documented as registered)
    app.register_blueprint(web_client.blp)  # the web client's files: not part of the API's contract
    register_error_handlers(app)
    faults.register(app)
    limits.install(app, config)
    input_guard.install(app, api.spec)
    cors.install(app, config)
    register_new_games(api.spec, games.game_types())
    register_new_webhooks(api.spec, ONE_GAME)
    app.extensions["api"] = api
    app.play_routes = PlayRoutes.of(app)  # last: it takes the hooks and handlers installed above
    return app


def committed_spec_path() -> Path:
    return Path(__file__).resolve().parents[2] / "openapi.yaml"
