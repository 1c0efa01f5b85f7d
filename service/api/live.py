"""Live updates: ``GET /games/{id}/stream``, the game's events as Server-Sent Events.

Each event is one SSE message: ``id:`` is the event's version and ``data:`` the event as
the caller may see it (the same JSON as ``GET /games/{id}/events``: redacted for the
caller's seat, for a spectator without a token, and whole once the game is over). A
client that reconnects sends the last id it saw as ``Last-Event-ID`` (EventSource does
this by itself) and the stream resumes after it; ``?after=`` does the same for a first
connection. A comment line (``: keep-alive``) goes out every ``stream_heartbeat``
seconds of silence, so proxies keep the connection and a gone client is noticed. When a
finished game has sent everything, an ``end`` event closes the stream; the server also
ends a stream after ``stream_max_seconds`` (the client reconnects and loses nothing), and
within a second of its token being rotated or revoked (a reconnection with that token is
refused, 401) or of its client going away (its slot is free again at once).

New events come from the process's ``LiveHub`` (service/players/live_hub.py): one poll of the
store every ``stream_poll`` seconds serves every open stream of the process, so it sees
moves made through any server process, with Redis or SQLite alike, and an open stream
costs a socket, a greenlet and a queue rather than a query.

Serving: each open stream holds its connection for as long as the client listens. Under
gunicorn's default sync workers every stream would hold a whole worker process, so the
server runs gunicorn with the **gevent** worker class (``--worker-class gevent
--worker-connections 1000``; ``python -m service serve`` and the Dockerfile do), where a
stream is a greenlet that sleeps between polls. See docs/operations.md.

Browsers: ``EventSource`` cannot send ``Authorization``, and a token must not go in a URL.
``POST /games/{id}/stream-ticket`` (with the token in the header) gives a seated player a
ticket that opens this game's stream as its seat within a minute (service/players/stream_tickets.py);
the stream is then ``GET /games/{id}/stream?ticket=...``.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from flask import Response, current_app, request
from flask_smorest import Blueprint

from service.api.auth import bearer_token, current_player
from service.api.errors import problem_responses
from service.api.limits import stream_slot
from service.api.read_model_schemas import StreamHeadersSchema, StreamQuerySchema, StreamTicketSchema
from service.base.errors import Forbidden, Unauthorized
from service.play.live_feed import End, Heartbeat, follow
from service.players.players import hash_token

blp = Blueprint("live", __name__, url_prefix="/games", description="Live updates (Server-Sent Events)")

#: one server-sent event, as an EventSource hands it over (OpenAPI 3.0: the schema of each event)
SSE_EVENT = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the event's version (absent on `end`)"},
        "event": {"type": "string", "enum": ["message", "end"],
                  "description": "`message`: a game event; `end`: a finished game has nothing more to send"},
        "data": {"type": "string",
                 "description": "JSON: for `message` an event exactly as in GET /games/{id}/events (the Event "
                                "schema); for `end` `{version, status}`"},
        "retry": {"type": "integer", "description": "milliseconds to wait before reconnecting"},
    },
}
STREAM_DOC = {
    "200": {
        "description": "Server-Sent Events: one `message` per game event, `: keep-alive` comments while nothing "
                       "happens, and a final `end` once a finished game has sent everything",
        "content": {"text/event-stream": {"schema": SSE_EVENT}},
    },
}


@blp.route("/<game_id:game_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema(), location="query")
@blp.arguments(StreamHeadersSchema(), location="headers")
@blp.doc(operationId="streamEvents", security=[{"bearerAuth": []}, {}], responses=STREAM_DOC)
@problem_responses(blp, 422, 404, 401)
def stream_game(query, headers, game_id):
    """The game's new events as they happen, as the caller's seat sees them (spectator without a token;
    `?ticket=` from POST /games/{id}/stream-ticket where the client cannot send Authorization)."""
    service = current_app.extensions["games"]
    config = current_app.extensions["config"]
    after = headers.get("last_event_id", query["after"])
    player, ticket_token_hash = _reader(game_id, query.get("ticket"))
    release, refused = stream_slot(current_app, ticket_token_hash)  # open streams per token, per IP, per process
    if refused is not None:
        return refused
    try:
        # the hub ends the stream within a second of its token's rotation or revocation, or of
        # its client going away (service/players/live_hub.py)
        events = follow(service, game_id, player, after, heartbeat=config.stream_heartbeat,
                        max_seconds=config.stream_max_seconds,
                        credential=ticket_token_hash or _bearer_hash(),
                        connection=request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket"))
    except BaseException:
        release()
        raise
    response = Response(_messages(events), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(release)
    return response


def _bearer_hash():
    """The hash of the bearer token, the credential the live hub re-checks (None: a spectator)."""
    token = bearer_token()
    return hash_token(token) if token is not None else None


def _reader(game_id, ticket):
    """Who reads the stream: the bearer token's player, a ticket's, or a spectator (None)."""
    if ticket is None:
        return current_player(), None
    if request.headers.get("Authorization"):
        # two credentials at once are ambiguous: refused as credentials (401), for whichever it is
        raise Unauthorized("send a stream ticket or an Authorization header, not both")
    return current_app.extensions["stream_tickets"].redeem(game_id, ticket)


@blp.route("/<game_id:game_id>/stream-ticket", methods=["POST"])
@blp.response(201, StreamTicketSchema)
@blp.doc(operationId="createStreamTicket", security=[{"bearerAuth": []}])
@problem_responses(blp, 401, 403, 404)
def create_stream_ticket(game_id):
    """A ticket to open this game's stream as your seat from a browser (`EventSource` cannot send
    Authorization): valid for a minute, for this game's stream only, and void once your token is rotated
    or revoked."""
    token = bearer_token(required=True)
    player = current_player(required=True)
    game = current_app.extensions["games"].load(game_id)
    if game.seat_of(player) is None:
        raise Forbidden("you have no seat at this game: watch its stream without a ticket, as a spectator")
    issued = current_app.extensions["stream_tickets"].issue(game_id, token)
    return {**issued, "stream_url": f"/games/{game_id}/stream?ticket={quote(str(issued['ticket']), safe='')}"}


def _messages(events):
    yield "retry: 1000\n\n"  # reconnect after a second when the stream ends
    for item in events:
        if isinstance(item, Heartbeat):
            yield ": keep-alive\n\n"
        elif isinstance(item, End):
            yield f"event: end\ndata: {_json({'version': item.version, 'status': 'finished'})}\n\n"
            return
        else:
            yield f"id: {item['version']}\ndata: {_json(item)}\n\n"


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
