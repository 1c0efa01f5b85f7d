"""Positive data acceptance where JSON Schema cannot say everything (loaded by
tests/api/schemathesis.toml's ``hooks``).

openapi.yaml states every shape the server checks: lengths, patterns, enums, bounds, the
game types, each game's seat range, options and bot kinds, the form of a webhook's URL. A few
refusals are not of a shape but of a relation or a fact no schema can state: a move the
game's rules refuse now, a seat the game does not have, options that only go together (a
hand limit under the refill), a log whose events the rules do not replay, a webhook host that
does not resolve. For the operations listed here schemathesis' own ``positive_data_acceptance``
is off (the .toml) and this check takes its place: the same statuses are expected, and a 422
only with one of the operation's problem codes below. Any other 422 to schema-valid data
(``invalid_input`` above all: the contract failed to state a shape) fails the run.
"""

from __future__ import annotations

import json

import schemathesis
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

#: what schemathesis' positive_data_acceptance expects by default (401: the run's token)
ACCEPTED = {401, 403, 404, 409, 429}

#: operationId -> the 422 problem codes of refusals no schema can state (docs/api.md#problems)
REFUSALS_BEYOND_SCHEMA: dict[str, frozenset[str]] = {
    # the rules decide whether a move is allowed now (the prompt, whose turn, the game over)
    "submitCommand": frozenset({"rule_violated", "domain_error", "runaway"}),
    # the rules decide what may be taken back (nothing hidden revealed, nobody else acted)
    "undoMove": frozenset({"rule_violated"}),
    # options that go together only (e.g. starting_hand <= hand_limit, Wakhan's seats, a deal's
    # deck for the seat count) and bot seats inside the table, each once, a person left a seat
    "createGame": frozenset({"invalid_option", "invalid_bots"}),
    # a seat number exists or not at this game (its seat count)
    "joinGame": frozenset({"invalid_seat"}),
    # a log is checked event by event (its header, its rules): its lines' contents are not a shape
    "importGame": frozenset({"invalid_log"}),
    # a URL's host must resolve, and to an address the server may post to
    "createWebhook": frozenset({"webhook_host_unknown", "webhook_url_not_allowed"}),
}


def _operation_id(case) -> str | None:
    return case.operation.definition.raw.get("operationId")


@schemathesis.check
def refusals_beyond_the_schema_only(ctx, response, case):
    """Schema-valid data is accepted, or refused for one of the operation's reasons above."""
    allowed = REFUSALS_BEYOND_SCHEMA.get(_operation_id(case) or "")
    meta = case.meta
    if allowed is None or meta is None or is_unexpected_http_status_case(case):
        return None
    if not meta.generation.mode.is_positive or response.status_code < 400 or response.status_code >= 500:
        return None
    if response.status_code in ACCEPTED:
        return None
    code = None
    if response.status_code == 422:
        try:
            code = json.loads(response.content).get("code")
        except (ValueError, AttributeError):
            code = None
        if code in allowed:
            return None
    raise AssertionError(f"Schema-valid request rejected: {response.status_code} {code!r}; "
                         f"{_operation_id(case)} may refuse valid data only with 422 and one of "
                         f"{', '.join(sorted(allowed))}")
