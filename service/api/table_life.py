"""The life of a table over the API: resign, abort, end by agreement, rematch, invitations,
chat, and each player's own feed of notices (paged, or live as Server-Sent Events).

Each route parses its input, calls one use case (``service.play.lifecycle``, ``service.play.chat``,
``service.players.player_feed``) and shapes the answer.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from flask import Response, current_app, request
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from service.api import schemas as s
from service.api.auth import bearer_token, current_player
from service.api.errors import problem_responses
from service.api.limits import stream_slot
from service.api.live import SSE_EVENT, _bearer_hash
from service.api.read_model_schemas import StreamHeadersSchema, StreamTicketSchema
from service.base.errors import Unauthorized
from service.play.chat import MAX_TEXT, TEXT_PATTERN

MAX_INT = 2**31 - 1
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
BEARER_OR_SPECTATOR: list[dict[str, list[str]]] = [{"bearerAuth": []}, {}]
PLAYER_ID = r"^[0-9a-f]{16}$"
INVITATION_ID = r"^[0-9a-f]{16}$"

table = Blueprint("table", __name__, url_prefix="/games",
                  description="A table's life around its moves: resign, abort, agreement, rematch, invitations, chat")
me = Blueprint("me", __name__, url_prefix="/players/me", description="The caller's own feed, waiting list and mutes")


def _games():
    return current_app.extensions["games"]


def _me() -> dict:
    """The caller's player (401 without a valid token)."""
    player = current_player(required=True)
    assert player is not None  # required: ``current_player`` raised otherwise
    return player


# -- schemas ---------------------------------------------------------------------------------
class NewInvitationSchema(s.StrictSchema):
    player_id = fields.String(validate=validate.Regexp(PLAYER_ID), load_default=None, allow_none=True, metadata={
        "description": "the player invited; leave it out for an open link that whoever holds its code may accept"})
    seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=63), load_default=None, allow_none=True,
                          metadata={"description": "a seat held for this invitation (404 if the table has no such "
                                                   "seat); none: the first open seat when accepted"})
    expires_in = fields.Integer(strict=True, validate=validate.Range(min=60, max=30 * 86_400), load_default=None,
                                allow_none=True, metadata={"description": "seconds until it expires (default 7 days)"})


class InvitationSchema(Schema):
    id = fields.String(required=True)
    game_id = fields.String(required=True)
    by = fields.String(required=True, metadata={"description": "the player who sent it"})
    seat = fields.Integer(required=True, allow_none=True)
    invitee = fields.String(required=True, allow_none=True, metadata={"description": "null: an open link"})
    invitee_name = fields.String(required=True, allow_none=True)
    open_link = fields.Boolean(required=True)
    expires_at = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["pending", "accepted", "declined", "cancelled", "expired"]))
    accepted_by = fields.String(required=True, allow_none=True)
    code = fields.String(metadata={"description": "an open link's code, shown only to its sender when it is made"})
    link = fields.String(metadata={"description": "the web client's address that accepts the open link"})
    game = fields.Nested(s.GameSchema, metadata={"description": "in GET /players/me/waiting: the table"})


class InvitationListSchema(Schema):
    invitations = fields.List(fields.Nested(InvitationSchema), required=True)


class AcceptSchema(s.StrictSchema):
    code = fields.String(validate=[validate.Length(min=1, max=100), validate.Regexp(r"^[A-Za-z0-9_-]+$")],
                         load_default=None, allow_none=True,
                         metadata={"description": "an open link's code (not needed for an invitation naming you)"})


class NewMessageSchema(s.StrictSchema):
    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TEXT), metadata={
        "pattern": TEXT_PATTERN,
        "description": f"1 to {MAX_TEXT} characters; line breaks allowed, no other control, bidi-override or "
                       "zero-width character (422 with the reason)"})


class MessageSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the message's number in the game's chat"})
    game_id = fields.String(required=True)
    author = fields.String(required=True)
    name = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True)
    room = fields.String(required=True, validate=validate.OneOf(["players", "spectators"]))
    text = fields.String(required=True)
    mentions = fields.List(fields.String(), required=True, metadata={"description": "the players @mentioned"})
    at = fields.String(required=True)


class MessagePageSchema(Schema):
    messages = fields.List(fields.Nested(MessageSchema), required=True)
    last_id = fields.Integer(required=True)
    next_after = fields.Integer(required=True, allow_none=True)


class PageQuerySchema(s.StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class NoticeSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the notice's number in the player's feed"})
    type = fields.String(required=True, validate=validate.OneOf(
        ["invitation_received", "invitation_declined", "invitation_cancelled", "seated", "game_started",
         "your_turn", "game_over", "end_proposed", "rematch_offered", "rematch_started", "chat_mention",
         "clock_warning", "seat_taken_over"]))
    data = fields.Dict(required=True, metadata={"description": "its facts, always with `game_id`"})
    at = fields.String(required=True)


class NoticePageSchema(Schema):
    events = fields.List(fields.Nested(NoticeSchema), required=True)
    last_id = fields.Integer(required=True)
    next_after = fields.Integer(required=True, allow_none=True)


class FeedQuerySchema(s.StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT),
                           metadata={"description": "send notices after this id (Last-Event-ID wins)"})
    ticket = fields.String(validate=[validate.Length(min=1, max=400), validate.Regexp(r"^[A-Za-z0-9_=-]+$")],
                           metadata={"description": "a ticket from POST /players/me/stream-ticket, for clients "
                                                    "that cannot send Authorization; one or the other, not both"})


class WaitingSchema(Schema):
    invitations = fields.List(fields.Nested(InvitationSchema), required=True,
                              metadata={"description": "pending invitations to you, private tables included"})
    your_turn = fields.List(fields.Nested(s.GameSchema), required=True,
                            metadata={"description": "games where you are asked to move now"})


class MutesSchema(Schema):
    muted = fields.List(fields.String(), required=True)


FEED_STREAM_DOC = {"200": {"description": "Server-Sent Events: one `message` per notice (`id:` its number), "
                                          "`: keep-alive` comments while nothing happens",
                           "content": {"text/event-stream": {"schema": SSE_EVENT}}}}


# -- resign, abort, agreement, rematch ------------------------------------------------------------
def _summary(game):
    return game.summary()


@table.route("/<game_id:game_id>/resign", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="resign", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def resign(game_id):
    """Resign. In a game of three or more seats with a stand-in (`stand_in` at creation), while another
    seat is a person's, the game goes on for the others with the stand-in in your seat, which you may
    reclaim (your rating counts a lost game); otherwise the game ends now for everyone, and what that means
    for the other seats is the game's own ruling (docs/rules). An event in the game's stream, like a move."""
    return _summary(_games().lifecycle.resign(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/reclaim", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="reclaimSeat", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def reclaim(game_id):
    """Take back your seat from the stand-in that plays it since you timed out or resigned (a game of three
    or more seats): the stand-in stops at once and you answer whatever the seat is asked from here. An event
    in the game's stream, like a move. Leaving still counts as a lost game for your rating."""
    return _summary(_games().lifecycle.reclaim(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/abort", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="abortGame", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def abort(game_id):
    """Call the table off before its first move (a waiting table: its creator or a seated player; a
    started one: any seated player while nobody has moved). Nobody wins; it counts for nobody."""
    return _summary(_games().lifecycle.abort(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/end-proposal", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="proposeEnd", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def propose_end(game_id):
    """Propose to end the game now, or agree to the standing proposal; once every seat played by a
    person agreed, the game ends as a draw (every seat shares the result)."""
    return _summary(_games().lifecycle.propose_end(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/end-proposal", methods=["DELETE"])
@table.response(200, s.GameSchema)
@table.doc(operationId="declineEnd", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def decline_end(game_id):
    """Decline the proposal to end the game (or withdraw your own): play goes on."""
    return _summary(_games().lifecycle.decline_end(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/rematch", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="offerRematch", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def offer_rematch(game_id):
    """After the end: offer a rematch, or accept the standing offer. Once every seat played by a person
    accepted, the new game starts with the same players, each one seat on (`endings.rematch` names it)."""
    return _summary(_games().lifecycle.offer_rematch(game_id, current_player(required=True)))


@table.route("/<game_id:game_id>/rematch", methods=["DELETE"])
@table.response(200, s.GameSchema)
@table.doc(operationId="declineRematch", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def decline_rematch(game_id):
    """Decline the rematch offered (or withdraw your own offer)."""
    return _summary(_games().lifecycle.decline_rematch(game_id, current_player(required=True)))


# -- invitations -------------------------------------------------------------------------------
@table.route("/<game_id:game_id>/invitations", methods=["POST"])
@table.arguments(NewInvitationSchema(), required=False, description="whom to invite; no body: an open link for the first open seat")
@table.response(201, InvitationSchema)
@table.doc(operationId="invite", security=BEARER)
@problem_responses(table, 401, 403, 404, 409, 422)
def invite(body, game_id):
    """Invite a player to the table (by id), or make an open link whose code lets whoever holds it take a
    seat. The table's creator or a seated player invites while seats are open."""
    return _games().lifecycle.invite(game_id, current_player(required=True), body["seat"], body["player_id"],
                                     body["expires_in"])


@table.route("/<game_id:game_id>/invitations", methods=["GET"])
@table.response(200, InvitationListSchema)
@table.doc(operationId="listInvitations", security=BEARER)
@problem_responses(table, 401, 404)
def list_invitations(game_id):
    """The table's invitations: all of them for its creator and seated players, your own otherwise."""
    return {"invitations": _games().lifecycle.invitations(game_id, current_player(required=True))}


def _invitation_id(invitation_id):
    if not validate.Regexp(INVITATION_ID).regex.match(invitation_id):
        from service.base.errors import NotFound

        raise NotFound("an invitation id is 16 hexadecimal digits")


@table.route("/<game_id:game_id>/invitations/<string:invitation_id>/accept", methods=["POST"])
@table.arguments(AcceptSchema(), required=False, description="an open link's code; no body for an invitation "
                                                             "naming you")
@table.response(200, s.JoinedSchema)
@table.doc(operationId="acceptInvitation", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def accept_invitation(body, game_id, invitation_id):
    """Accept: take the seat the invitation offers (the last seat taken starts the game)."""
    _invitation_id(invitation_id)
    game, seat = _games().lifecycle.accept(game_id, invitation_id, current_player(required=True), body.get("code"))
    return {"seat": seat, "game": game.summary()}


@table.route("/<game_id:game_id>/invitations/<string:invitation_id>/decline", methods=["POST"])
@table.response(200, s.GameSchema)
@table.doc(operationId="declineInvitation", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def decline_invitation(game_id, invitation_id):
    """Decline an invitation naming you; who sent it is told in their feed."""
    _invitation_id(invitation_id)
    return _summary(_games().lifecycle.decline(game_id, invitation_id, current_player(required=True)))


@table.route("/<game_id:game_id>/invitations/<string:invitation_id>", methods=["DELETE"])
@table.response(200, s.GameSchema)
@table.doc(operationId="cancelInvitation", security=BEARER)
@problem_responses(table, 401, 403, 404, 409)
def cancel_invitation(game_id, invitation_id):
    """Cancel an invitation you sent (or any, as the table's creator); the invitee is told."""
    _invitation_id(invitation_id)
    return _summary(_games().lifecycle.cancel(game_id, invitation_id, current_player(required=True)))


# -- chat ----------------------------------------------------------------------------------
@table.route("/<game_id:game_id>/chat", methods=["POST"])
@table.arguments(NewMessageSchema())
@table.response(201, MessageSchema)
@table.doc(operationId="postMessage", security=BEARER)
@problem_responses(table, 401, 404, 422, 429)
def post_message(body, game_id):
    """Write in the game's chat: seated players in the players' room, anyone else in the spectators'
    (which seated players read once the game is over). `@Name` mentions a seated player."""
    return _games().chat.post(game_id, current_player(required=True), body["text"])


@table.route("/<game_id:game_id>/chat", methods=["GET"])
@table.arguments(PageQuerySchema(), location="query")
@table.response(200, MessagePageSchema)
@table.doc(operationId="listMessages", security=BEARER_OR_SPECTATOR)
@problem_responses(table, 401, 404, 422)
def list_messages(query, game_id):
    """The game's chat after a message number, as you may read it (muted players left out)."""
    return _games().chat.read(game_id, current_player(), query["after"], query["limit"])


# -- the caller's own ------------------------------------------------------------------------
@me.route("/events", methods=["GET"])
@me.arguments(PageQuerySchema(), location="query")
@me.response(200, NoticePageSchema)
@me.doc(operationId="listMyEvents", security=BEARER)
@problem_responses(me, 401, 422)
def list_my_events(query):
    """Your feed: what happened for you across every table (invitations, seats, starts, your turns,
    game ends, rematches, mentions), paged by notice number."""
    player = _me()
    return _games().feed.page(player["id"], query["after"], query["limit"])


@me.route("/stream", methods=["GET"])
@me.arguments(FeedQuerySchema(), location="query")
@me.arguments(StreamHeadersSchema(), location="headers")
@me.doc(operationId="streamMyEvents", security=BEARER, responses=FEED_STREAM_DOC)
@problem_responses(me, 401, 422)
def stream_my_events(query, headers):
    """Your feed as Server-Sent Events: each notice once, in order; reconnect with `Last-Event-ID` (an
    EventSource does) and nothing is lost or repeated. Several may be open per token, within the stream
    limits; `?ticket=` from POST /players/me/stream-ticket where the client cannot send Authorization."""
    games = _games()
    config = current_app.extensions["config"]
    after = headers.get("last_event_id", query["after"])
    ticket = query.get("ticket")
    if ticket is None:
        player, credential, token_hash = current_player(required=True), _bearer_hash(), None
    else:
        if request.headers.get("Authorization"):
            raise Unauthorized("send a stream ticket or an Authorization header, not both")
        tickets = current_app.extensions["stream_tickets"]
        player, token_hash = tickets.redeem(tickets.feed_scope(ticket), ticket)
        if f"player:{player['id']}" != tickets.feed_scope(ticket):
            raise Unauthorized("this ticket is for another player's feed")
        credential = token_hash
    release, refused = stream_slot(current_app, token_hash)
    if refused is not None:
        return refused
    try:
        notices = games.feed.follow(games.live_hub, player, after, heartbeat=config.stream_heartbeat,
                                    max_seconds=config.stream_max_seconds, credential=credential,
                                    connection=request.environ.get("gunicorn.socket")
                                    or request.environ.get("werkzeug.socket"))
        response = Response(_feed_messages(notices), mimetype="text/event-stream",
                            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    except BaseException:
        release()
        raise
    response.call_on_close(release)
    return response


def _feed_messages(notices):
    yield "retry: 1000\n\n"  # reconnect after a second when the stream ends
    for item in notices:
        if item is None:
            yield ": keep-alive\n\n"
        else:
            yield f"id: {item['id']}\ndata: {json.dumps(item, separators=(',', ':'), ensure_ascii=False)}\n\n"


@me.route("/stream-ticket", methods=["POST"])
@me.response(201, StreamTicketSchema)
@me.doc(operationId="createFeedTicket", security=BEARER)
@problem_responses(me, 401)
def create_feed_ticket():
    """A one-minute ticket to open your feed's stream from a browser (EventSource cannot send Authorization)."""
    token = bearer_token(required=True)
    player = _me()
    issued = current_app.extensions["stream_tickets"].issue(f"player:{player['id']}", token)
    return {**issued, "stream_url": f"/players/me/stream?ticket={quote(str(issued['ticket']), safe='')}"}


@me.route("/waiting", methods=["GET"])
@me.response(200, WaitingSchema)
@me.doc(operationId="waitingForMe", security=BEARER)
@problem_responses(me, 401)
def waiting_for_me():
    """What waits for you: invitations (private tables included) and the games where it is your move."""
    return _games().lifecycle.waiting_for(current_player(required=True))


@me.route("/mutes", methods=["GET"])
@me.response(200, MutesSchema)
@me.doc(operationId="listMutes", security=BEARER)
@problem_responses(me, 401)
def list_mutes():
    """The players you muted: their chat messages are left out of what you read, and mention you never."""
    return {"muted": _games().chat.muted_by(_me()["id"])}


@me.route("/mutes/<string:player_id>", methods=["PUT"])
@me.response(200, MutesSchema)
@me.doc(operationId="mute", security=BEARER)
@problem_responses(me, 401, 404, 409)
def mute(player_id):
    """Mute a player."""
    if not validate.Regexp(PLAYER_ID).regex.match(player_id):
        from service.base.errors import NotFound

        raise NotFound("a player id is 16 hexadecimal digits")
    return {"muted": _games().chat.mute(current_player(required=True), player_id)}


@me.route("/mutes/<string:player_id>", methods=["DELETE"])
@me.response(200, MutesSchema)
@me.doc(operationId="unmute", security=BEARER)
@problem_responses(me, 401, 404)
def unmute(player_id):
    """Unmute a player."""
    return {"muted": _games().chat.unmute(current_player(required=True), player_id)}
