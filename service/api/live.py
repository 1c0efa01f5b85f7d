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

New events come from the process's ``LiveHub`` (service/live_hub.py): one poll of the
store every ``stream_poll`` seconds serves every open stream of the process, so it sees
moves made through any server process, with Redis or SQLite alike, and an open stream
costs a socket, a greenlet and a queue rather than a query.

Serving: each open stream holds its connection for as long as the client listens. Under
gunicorn's default sync workers every stream would hold a whole worker process, so the
server runs gunicorn with the **gevent** worker class (``--worker-class gevent
--worker-connections 1000``; ``python -m service serve`` and the Dockerfile do), where a
stream is a greenlet that sleeps between polls. See docs/operations.md.
"""

from __future__ import annotations

import json

from flask import Response, current_app, request
from flask_smorest import Blueprint

from service.api.auth import bearer_token, current_player
from service.api.errors import problem_responses
from service.api.limits import stream_slot
from service.api.read_model_schemas import StreamHeadersSchema, StreamQuerySchema
from service.live_feed import End, Heartbeat, follow
from service.players import hash_token

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
    """The game's new events as they happen, as the caller's seat sees them (spectator without a token)."""
    service = current_app.extensions["games"]
    config = current_app.extensions["config"]
    after = headers.get("last_event_id", query["after"])
    token = bearer_token()
    player = current_player()
    release, refused = stream_slot(current_app)  # open streams per token, per IP, per process
    if refused is not None:
        return refused
    try:
        # the hub ends the stream within a second of its token's rotation or revocation, or of
        # its client going away (service/live_hub.py)
        events = follow(service, game_id, player, after, heartbeat=config.stream_heartbeat,
                        max_seconds=config.stream_max_seconds,
                        credential=hash_token(token) if token is not None else None,
                        connection=request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket"))
    except BaseException:
        release()
        raise
    response = Response(_messages(events), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(release)
    return response


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
