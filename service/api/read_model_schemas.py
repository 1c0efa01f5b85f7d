"""Response schemas of the read models (scoreboards, histories, projection status) and the
query of the live stream."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from service.api.schemas import MAX_INT, StrictSchema


class RatingSchema(Schema):
    mu = fields.Float(required=True, metadata={"description": "estimated skill"})
    sigma = fields.Float(required=True, metadata={"description": "uncertainty of the estimate"})
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma: the skill the board ranks by"})


class StandingSchema(Schema):
    rank = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    games_played = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True)
    score = fields.Integer(required=True, metadata={"description": "gold or points won over all games"})
    rating = fields.Nested(RatingSchema, required=True,
                           metadata={"description": "openskill Plackett-Luce rating"})


class PageQuerySchema(StrictSchema):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))


class ScoreboardSchema(Schema):
    type = fields.String(required=True)
    total = fields.Integer(required=True, metadata={"description": "ranked players in all, on every page"})
    players = fields.List(fields.Nested(StandingSchema), required=True,
                          metadata={"description": "best rating ordinal first"})


class ResultSchema(Schema):
    won = fields.Boolean(required=True)
    score = fields.Integer(required=True, allow_none=True)
    rank = fields.Integer(required=True, metadata={"description": "1: a winner; then by score"})
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "the winning seats"})


class PlayerGameSchema(Schema):
    game_id = fields.String(required=True)
    type = fields.String(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished"]))
    joined_at = fields.String(required=True)
    last_activity = fields.String(required=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True,
                           metadata={"description": "null until the game is finished"})


class PlayerGamesSchema(Schema):
    player_id = fields.String(required=True)
    total = fields.Integer(required=True, metadata={"description": "the player's games in all, on every page"})
    games = fields.List(fields.Nested(PlayerGameSchema), required=True,
                        metadata={"description": "latest activity first"})


class PartitionStatusSchema(Schema):
    partition = fields.Integer(required=True)
    checkpoint = fields.Integer(required=True, metadata={"description": "log position of the last event applied"})
    head = fields.Integer(required=True, metadata={"description": "log position of the newest event"})
    lag = fields.Integer(required=True, metadata={
        "description": "head - checkpoint, never clamped: negative when the checkpoint is ahead of the log "
                       "(the store went back in time; the projection is rebuilt)"})


class ProjectionStatusSchema(Schema):
    name = fields.String(required=True)
    lag = fields.Integer(required=True, metadata={"description": "events in the log not yet applied"})
    ahead = fields.Integer(required=True, metadata={
        "description": "positions by which checkpoints are past the log's heads (0 normally): the model holds "
                       "events the store lost (a failover, a restore) and is rebuilt from the log"})
    partitions = fields.List(fields.Nested(PartitionStatusSchema), required=True)


class ProjectionsSchema(Schema):
    mode = fields.String(required=True, validate=validate.OneOf(["inline", "rq"]),
                         metadata={"description": "inline: updated by the web process; rq: by workers"})
    projections = fields.List(fields.Nested(ProjectionStatusSchema), required=True)


class StreamQuerySchema(StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT),
                           metadata={"description": "send events after this version (the Last-Event-ID "
                                                    "header, sent by a reconnecting client, wins)"})
    # a ticket is URL-safe base64 of about 230 characters: bounded so that even a malformed one
    # keeps the URL within the server's 4,000 characters (and is refused as invalid input)
    ticket = fields.String(validate=[validate.Length(min=1, max=400), validate.Regexp(r"^[A-Za-z0-9_=-]+$")],
                           metadata={"description": "a stream ticket from POST /games/{id}/stream-ticket, for "
                                                    "clients that cannot send Authorization (EventSource); "
                                                    "send one or the other, not both"})


class StreamTicketSchema(StrictSchema):
    ticket = fields.String(required=True, metadata={"description": "pass as `?ticket=` to GET /games/{id}/stream"})
    expires_in = fields.Integer(required=True, metadata={"description": "seconds within which it opens a stream"})
    stream_url = fields.String(required=True, metadata={"description": "the stream's path with the ticket"})


class StreamHeadersSchema(Schema):
    class Meta:
        unknown = EXCLUDE  # every other header

    last_event_id = fields.Integer(data_key="Last-Event-ID", validate=validate.Range(min=0, max=MAX_INT),
                                   metadata={"description": "the version of the last event received; "
                                                            "the stream resumes after it"})
