"""The REST resources. Each route parses its input, calls one use case, shapes the answer."""

from __future__ import annotations

from flask import Response, request
from flask_smorest import Blueprint
from werkzeug.routing import BaseConverter

from service.api import schemas as s
from service.api.auth import IDEMPOTENCY_KEY_PATTERN, bearer_token, current_player, idempotency_key
from service.api.commands import parse_command
from service.api.conditional import HEADERS, PRIVATE, answer, conditional, etag, player_id
from service.api.errors import problem_responses
from service.api.lean import current_request, extensions, json_answer, lean, query

players = Blueprint("players", __name__, url_prefix="/players", description="Players and their tokens")
sign_in_codes = Blueprint("sign_in", __name__, url_prefix="/sign-in",
                          description="Signing another tab or device in with a one-time code")
game_types = Blueprint("game_types", __name__, url_prefix="/game-types", description="The games this server hosts")
games = Blueprint("games", __name__, url_prefix="/games", description="Games: create, join, play, read")

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
BEARER_OR_SPECTATOR: list[dict[str, list[str]]] = [{"bearerAuth": []}, {}]
IDEMPOTENCY = {"in": "header", "name": "Idempotency-Key", "required": False,
               "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": IDEMPOTENCY_KEY_PATTERN},
               "description": "a retried POST with the same key returns the first answer and acts once (1 to 200 "
                              "printable ASCII characters, neither first nor last a space)"}

IDEMPOTENCY_ROTATION = {**IDEMPOTENCY, "description": "a retry with the same old token and key answers with the same "
                        "new token, as long as it is current"}

#: GET state's query, parsed by the route itself (``lean``)
STATE_QUERY = s.StateQuerySchema()
COMMAND_BODY = {"required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GameCommand"}}}}


class GameIdConverter(BaseConverter):
    """A game id: 16 lowercase hex digits (so /games/import is never read as a game id)."""

    regex = "[0-9a-f]{16}"


def service():
    return extensions()["games"]


def _errors(*codes):
    return problem_responses(games, *codes)


def _versioned_tag(game_id: str, *parts) -> tuple[str | None, int]:
    """The ETag and the version it was made from (0: no such game, and no tag: let the
    answer say so). The version lets the answer use this process's cached game, when it is
    that new, without reading the store again."""
    version = service().current_version(game_id)
    return _tag(game_id, version, *parts), version


def _tag(game_id: str, version: int, *parts) -> str | None:
    return etag(game_id, version, *parts) if version else None


@players.route("", methods=["POST"])
@players.arguments(s.NewPlayerSchema())
@players.response(201, s.PlayerWithTokenSchema)
@players.doc(operationId="createPlayer")
@problem_responses(players, 422)
def create_player(body):
    """Register a player; keep the token secret: it is the player's key to its seats."""
    return service().players.create(body["name"])


@players.route("/me/token", methods=["POST"])
@players.response(201, s.PlayerWithTokenSchema)
@players.doc(operationId="rotateToken", security=BEARER, parameters=[IDEMPOTENCY_ROTATION])
@problem_responses(players, 401)
def rotate_token():
    """Rotate your token: a new one is issued and the one sent stops working at once. Send an
    ``Idempotency-Key`` to be able to retry: the same old token with the same key answers with
    the same new token while it is current (an answer lost on the way does not lock you out)."""
    return service().players.rotate_token(bearer_token(required=True), idempotency_key())


@players.route("/me/sign-in-links", methods=["POST"])
@players.response(201, s.SignInLinkSchema)
@players.doc(operationId="createSignInLink", security=BEARER)
@problem_responses(players, 401)
def create_sign_in_link():
    """A one-time code (10 minutes) that signs another tab or device in as you with your current token,
    which stays valid here too: open ``/#/sign-in/<code>`` there, or post it to ``POST /sign-in``."""
    return service().players.sign_in_link(bearer_token(required=True))


@sign_in_codes.route("", methods=["POST"])
@sign_in_codes.arguments(s.SignInSchema())
@sign_in_codes.response(200, s.PlayerWithTokenSchema)
@sign_in_codes.doc(operationId="signIn")
@problem_responses(sign_in_codes, 401, 422)
def sign_in(body):
    """Redeem a sign-in code: the player and its token. A code works once, within 10 minutes, and not
    after the token it was made with was rotated or revoked."""
    return service().players.sign_in(body["code"])


@players.route("/me/token", methods=["DELETE"])
@players.response(204)
@players.doc(operationId="revokeToken", security=BEARER)
@problem_responses(players, 401)
def revoke_token():
    """Revoke the token sent: it stops working at once (the player keeps no other token)."""
    service().players.revoke_token(bearer_token(required=True))


@players.route("/<string:player_id>", methods=["GET"])
@players.response(200, s.PlayerSchema)
@players.doc(operationId="getPlayer")
@problem_responses(players, 404)
def get_player(player_id):
    """A player's public profile."""
    return service().players.get(player_id)


@game_types.route("", methods=["GET"])
@game_types.response(200, s.GameTypeSchema(many=True))
@game_types.doc(operationId="listGameTypes")
def list_game_types():
    """Each game type with its seat range, its options (defaults and limits) and its commands."""
    return service().game_types()


@game_types.route("/<string:game_type>/cards", methods=["GET"])
@game_types.response(200, s.CardCatalogueSchema, headers=HEADERS)
@game_types.doc(operationId="getCardCatalogue")
@conditional(game_types)
@problem_responses(game_types, 404)
def get_card_catalogue(game_type):
    """What every card of a game says (Pax Pamir: actions, impact icons, special abilities, events), the
    same for every game of the type: a front end fetches it once and keeps it while the ETag holds."""
    catalogue = service().card_catalogue(game_type)
    return answer(catalogue["version"], lambda: catalogue)


@games.route("", methods=["POST"])
@games.arguments(s.NewGameSchema())
@games.response(201, s.GameSchema)
@games.doc(operationId="createGame", security=BEARER, parameters=[IDEMPOTENCY])
@_errors(401, 422)
def create_game(body):
    """Create a game with open seats. The creator does not take a seat until it joins. Seats in
    ``bots`` are reserved for computer opponents: they play through the same commands as anyone,
    seeing only their seat's view, as soon as they are asked."""
    stand_in = {"stand_in": body["stand_in"]} if "stand_in" in body else {}  # absent: the default
    game = service().create_game(current_player(required=True), body["type"], body["options"], body["seats"],
                                 idempotency_key(), body["bots"], body.get("private", False), **stand_in)
    return game.summary()


@games.route("", methods=["GET"])
@games.arguments(s.GameQuerySchema(), location="query")
@games.response(200, s.GameListSchema, headers=HEADERS)
@games.doc(operationId="listGames")
@conditional(games)
@_errors(422)
def list_games(query):
    """The lobby: games by type and status, latest activity first, paged with limit and offset."""
    def build():
        page = service().lobby(query.get("type"), query.get("status"), query["offset"],
                                    query["limit"])
        return {"games": [{**game, "last_activity": game["at"]} for game in page["games"]], "total": page["total"]}

    lobby = service().read_models.lobby_version()
    return answer(etag("lobby", lobby, [query.get("type"), query.get("status"), query["limit"], query["offset"]]),
                  build)


@games.route("/<game_id:game_id>", methods=["GET"])
@games.response(200, s.GameSchema, headers=HEADERS)
@games.doc(operationId="getGame")
@conditional(games)
@_errors(404)
def get_game(game_id):
    """A game's summary: type, status, seats, whose move, version, outcome."""
    tag, version = _versioned_tag(game_id, "summary")
    return answer(tag, lambda: service().load(game_id, known_version=version).summary())


@games.route("/<game_id:game_id>/join", methods=["POST"])
@games.arguments(s.JoinSchema(), required=False, description="the seat wanted; no body: the first open seat")
@games.response(200, s.JoinedSchema)
@games.doc(operationId="joinGame", security=BEARER)
@_errors(401, 404, 409, 422)
def join_game(body, game_id):
    """Take a seat (a given one, or the first open). The game starts when every seat is filled."""
    game, seat = service().join_game(game_id, current_player(required=True), body.get("seat"))
    return {"seat": seat, "game": game.summary()}


@games.route("/<game_id:game_id>/state", methods=["GET"])
@lean
@games.arguments(s.StateQuerySchema(), location="query")
@games.response(200, s.StateSchema, headers=HEADERS)
@games.doc(operationId="getState", security=BEARER_OR_SPECTATOR)
@conditional(games)
@_errors(401, 404, 422)
def get_state(game_id):
    """The game as the caller's seat sees it (the spectator view without a token); `at` travels back."""
    at = query(STATE_QUERY).get("at")
    games = service()
    player, version = games.caller_and_version(game_id, bearer_token())
    tag = _tag(game_id, version, "state", player_id(player), at)
    return answer(tag, lambda: json_answer(games.state(game_id, player, at, version), 200), PRIVATE)


@games.route("/<game_id:game_id>/legal-commands", methods=["GET"])
@lean
@games.response(200, s.LegalCommandsSchema, headers=HEADERS)
@games.doc(operationId="getLegalCommands", security=BEARER)
@conditional(games)
@_errors(401, 403, 404, 409)
def get_legal_commands(game_id):
    """Every command the caller's seat may post now; each is accepted verbatim."""
    games = service()
    player, version = games.caller_and_version(game_id, bearer_token(required=True))
    tag = _tag(game_id, version, "legal-commands", player_id(player))
    return answer(tag, lambda: json_answer(games.legal_commands(game_id, player, version), 200), PRIVATE)


@games.route("/<game_id:game_id>/commands", methods=["POST"])
@lean
@games.response(201, s.CommandResultSchema)
@games.doc(operationId="submitCommand", security=BEARER, parameters=[IDEMPOTENCY], requestBody=COMMAND_BODY)
@_errors(401, 403, 404, 409, 422)
def post_command(game_id):
    """Play a move. 422: the rules refuse it (the reason is in `detail`); 409: the game moved on."""
    games = service()
    current = current_request()

    def submit(player, generation):
        command, expected = parse_command(current.get_json(silent=True), extensions()["command_schemas"])
        return games.submit_command(game_id, player, command, expected, idempotency_key(),
                                    token_generation=generation)

    # a retry with an Idempotency-Key may be answered from its record, with no append to check the token
    return json_answer(games.players.as_checked(bearer_token(required=True), submit,
                                                fresh="HTTP_IDEMPOTENCY_KEY" in current.environ), 201)


@games.route("/<game_id:game_id>/undo", methods=["POST"])
@games.response(201, s.CommandResultSchema)
@games.doc(operationId="undoMove", security=BEARER, parameters=[IDEMPOTENCY])
@_errors(401, 403, 404, 409, 422)
def post_undo(game_id):
    """Take back your latest move, while no other seat has acted and nothing hidden was revealed."""
    return service().undo(game_id, current_player(required=True), idempotency_key())


@games.route("/<game_id:game_id>/replay", methods=["GET"])
@games.arguments(s.ReplayQuerySchema(), location="query")
@games.response(200, s.ReplaySchema)
@games.doc(operationId="getReplay", security=BEARER_OR_SPECTATOR)
@_errors(401, 403, 404, 422)
def get_replay(query, game_id):
    """The game step by step for a replay viewer: each event with the view right after it, paged.
    Once the game is over every step shows everything, or with ``as_seat`` what that seat saw then.
    A viewer of a long game lists its steps with ``view_every=0`` and asks for views where it looks."""
    return service().replay(game_id, current_player(), query["after"], query["limit"], query["as_seat"],
                            query["view_every"])


@games.route("/<game_id:game_id>/export", methods=["GET"])
@games.doc(operationId="exportGame",
           responses={"200": {"description": "the game log: a header line, then one event per line",
                              "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}})
@games.doc(security=BEARER_OR_SPECTATOR)
@_errors(401, 403, 404, 409)
def export_game(game_id):
    """The game as signed JSON Lines: whole to anyone after Game Over; during play only to a seated
    player once every seat consented, with what that seat may not see left out."""
    return Response(service().export(game_id, current_player()), mimetype="application/x-ndjson")


@games.route("/<game_id:game_id>/export-consent", methods=["POST"])
@games.response(201, s.ExportConsentSchema)
@games.doc(operationId="consentToExport", security=BEARER)
@_errors(401, 403, 404, 409)
def consent_to_export(game_id):
    """Agree that this unfinished game may be exported whole; export opens once every seat agrees."""
    return service().consent_to_export(game_id, current_player(required=True))


@games.route("/<game_id:game_id>/export-consent", methods=["DELETE"])
@games.response(200, s.ExportConsentSchema)
@games.doc(operationId="withdrawConsent", security=BEARER)
@_errors(401, 403, 404, 409)
def withdraw_export_consent(game_id):
    """Take your seat's consent back: the unfinished game can no longer be exported."""
    return service().withdraw_export_consent(game_id, current_player(required=True))


@games.route("/<game_id:game_id>/clock/pause", methods=["POST"])
@games.response(200, s.ClocksAnswerSchema)
@games.doc(operationId="votePause", security=BEARER)
@_errors(401, 403, 404, 409)
def vote_pause(game_id):
    """Vote to pause the turn clocks; they stop once every seat has voted."""
    return service().vote_pause(game_id, current_player(required=True))


@games.route("/<game_id:game_id>/clock/resume", methods=["POST"])
@games.response(200, s.ClocksAnswerSchema)
@games.doc(operationId="resumeClocks", security=BEARER)
@_errors(401, 403, 404, 409)
def resume_clocks(game_id):
    """Resume paused turn clocks (any seat), or withdraw the pause votes given so far."""
    return service().resume_clocks(game_id, current_player(required=True))


@games.route("/import", methods=["POST"])
@games.doc(operationId="importGame", security=BEARER, requestBody={
    "required": True, "description": "a log as returned by GET /games/{id}/export",
    "content": {"application/x-ndjson": {"schema": {"type": "string", "minLength": 1}},
                "text/plain": {"schema": {"type": "string", "minLength": 1}}}})
@games.response(201, s.GameSchema)
@_errors(401, 422)
def import_game():
    """Import an exported log. A log this server signed, of a game not here yet, comes back ranked
    under its own id; any other log becomes a new, unranked game (`ranked: false`) for replay and
    study. Public facts are recomputed from the events; a broken or truncated log is refused whole."""
    current_player(required=True)
    return service().import_game(request.get_data(as_text=True)).summary()


@games.route("/<game_id:game_id>/events", methods=["GET"])
@games.arguments(s.EventPageQuerySchema(), location="query")
@games.response(200, s.EventPageSchema)
@games.doc(operationId="listEvents", security=BEARER_OR_SPECTATOR)
@_errors(401, 404, 422)
def list_events(query, game_id):
    """The game's events in order, paged, each as the caller may see it."""
    return service().events(game_id, current_player(), query["after"], query["limit"])
