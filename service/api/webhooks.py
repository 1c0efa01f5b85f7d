"""Webhook subscriptions: create, list, delete, rotate the secret, their delivery log, and
replay of failures."""

from __future__ import annotations

import hmac
import re
from typing import Any

from flask import current_app
from flask_smorest import Blueprint
from marshmallow import Schema, ValidationError, fields, validate

from service.api.auth import bearer_token, current_player
from service.api.errors import problem_responses
from service.api.schemas import StrictSchema
from service.background.webhooks import MAX_URL, OPERATOR, PRESETS, RAW, SCOPES, URL_PATTERN

blp = Blueprint("webhooks", __name__, url_prefix="/webhooks",
                description="Webhooks: events pushed to a URL, signed the Standard Webhooks way")
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]


_URL = re.compile(URL_PATTERN)


def url_form(url: str) -> None:
    """The whole URL matches ``URL_PATTERN`` (a trailing line break too: Python's ``$`` would
    let one through, JSON Schema's does not)."""
    if not _URL.fullmatch(url):
        raise ValidationError("must be an http:// or https:// URL with a host and no user name")


class NewWebhookSchema(StrictSchema):
    url = fields.String(required=True, validate=[validate.Length(min=1, max=MAX_URL), url_form],
                        metadata={"pattern": URL_PATTERN,
                                  "description": "an http(s) URL with a host and no user name; its host must "
                                                 "resolve, to a public address unless the server allows it"})
    scope = fields.String(required=True, validate=validate.OneOf(SCOPES), metadata={
        "description": "my_games: every game the player sits at; game: one game (game_id); "
                       "public: every game's public events (the operator's token only)"})
    game_id = fields.String(validate=validate.Regexp("^[0-9a-f]{16}$"), load_default=None)
    preset = fields.String(validate=validate.OneOf(PRESETS), load_default=RAW, metadata={
        "description": "events: each event as the subscriber's seat may see it; chat: a chat room message "
                       "({text, content}) when it becomes the player's turn"})


class WebhookSchema(Schema):
    id = fields.String(required=True)
    owner = fields.String(required=True, metadata={"description": "a player id, or 'operator'"})
    scope = fields.String(required=True)
    game_id = fields.String(required=True, allow_none=True)
    url = fields.String(required=True)
    preset = fields.String(required=True)
    created_at = fields.String(required=True)
    active = fields.Boolean(required=True)


class NewWebhookAnswerSchema(WebhookSchema):
    secret = fields.String(required=True, metadata={
        "description": "the signing secret (whsec_...), shown only now: verify each delivery with it"})


class RotatedSecretSchema(NewWebhookAnswerSchema):
    secret = fields.String(required=True, metadata={
        "description": "the new signing secret (whsec_...), shown only now"})
    previous_secret_valid_until = fields.String(required=True, metadata={
        "description": "until then (ISO 8601, UTC) each delivery is signed by the new secret and the one it "
                       "replaced (two v1 signatures in webhook-signature); after it, by the new one only"})


class WebhookListSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


class DeliverySchema(Schema):
    delivery_id = fields.String(required=True, metadata={"description": "the webhook-id header it was sent with"})
    game_id = fields.String(required=True)
    outcome = fields.String(required=True, validate=validate.OneOf(
        ["delivered", "failed", "dead_lettered", "replay_requested"]))
    version = fields.Integer(metadata={"description": "the game version delivered"})
    attempt = fields.Integer()
    status = fields.Integer(allow_none=True, metadata={"description": "the receiver's HTTP status"})
    error = fields.String(allow_none=True)
    retry_at = fields.Float(metadata={"description": "when the next attempt is due (Unix time)"})
    at = fields.String(required=True)


class DeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema), required=True)


class WebhookReplaySchema(Schema):
    replayed = fields.List(fields.String(), required=True, metadata={
        "description": "the dead-lettered deliveries sent again (the same webhook-id each)"})


def _webhooks() -> Any:
    return current_app.extensions["games"].webhooks


def _owner() -> str:
    """The caller: the operator (its configured token) or a player."""
    operator = current_app.extensions["config"].operator_token
    token = bearer_token(required=True)
    if operator and token and hmac.compare_digest(token.encode(), operator.encode()):
        return OPERATOR
    player = current_player(required=True)
    assert player is not None
    return str(player["id"])


@blp.route("", methods=["POST"])
@blp.arguments(NewWebhookSchema())
@blp.response(201, NewWebhookAnswerSchema)
@blp.doc(operationId="createWebhook", security=BEARER)
@problem_responses(blp, 401, 403, 404, 422)
def create_webhook(body):
    """Subscribe a URL. The answer carries the secret that signs every delivery (shown once)."""
    return _webhooks().subscribe(_owner(), body["url"], body["scope"], body.get("game_id"), body["preset"])


@blp.route("", methods=["GET"])
@blp.response(200, WebhookListSchema)
@blp.doc(operationId="listWebhooks", security=BEARER)
@problem_responses(blp, 401)
def list_webhooks():
    """The caller's subscriptions (their secrets are not shown again)."""
    return {"webhooks": _webhooks().of_owner(_owner())}


@blp.route("/<string:webhook_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(operationId="deleteWebhook", security=BEARER)
@problem_responses(blp, 401, 404)
def delete_webhook(webhook_id):
    """Stop a subscription: nothing more is delivered to its URL."""
    _webhooks().unsubscribe(webhook_id, _owner())


@blp.route("/<string:webhook_id>/rotate-secret", methods=["POST"])
@blp.response(200, RotatedSecretSchema)
@blp.doc(operationId="rotateWebhookSecret", security=BEARER)
@problem_responses(blp, 401, 404, 409)
def rotate_webhook_secret(webhook_id):
    """A new signing secret, shown once. The replaced secret keeps signing deliveries beside it
    for the grace period (GAMES_WEBHOOK_SECRET_GRACE, a day by default), then stops."""
    return _webhooks().rotate_secret(webhook_id, _owner())


@blp.route("/<string:webhook_id>/deliveries", methods=["GET"])
@blp.response(200, DeliveryListSchema)
@blp.doc(operationId="listDeliveries", security=BEARER)
@problem_responses(blp, 401, 404)
def list_deliveries(webhook_id):
    """The subscription's delivery log, newest first: each attempt's outcome and the receiver's status."""
    return {"deliveries": _webhooks().deliveries(webhook_id, _owner())}


@blp.route("/<string:webhook_id>/replay", methods=["POST"])
@blp.response(202, WebhookReplaySchema)
@blp.doc(operationId="replayFailures", security=BEARER)
@problem_responses(blp, 401, 404)
def replay_failures(webhook_id):
    """Send every dead-lettered delivery again, with its original webhook-id."""
    return {"replayed": _webhooks().replay_failed(webhook_id, _owner())}



