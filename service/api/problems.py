"""Every problem type the API answers with: its code, HTTP status, title and meaning.

A problem's ``type`` is ``/problems/<code>``, relative to the server (RFC 9457 resolves it
against the request's URL); ``GET /problems/<code>`` describes it, ``/docs`` and
docs/api.md list them all. A code raised anywhere in ``service/`` or ``domain/`` must be
listed here (a test looks for every ``code="..."`` in the source).
"""

from __future__ import annotations

from dataclasses import dataclass

#: where the problem types live, relative to the server's root
PROBLEM_PATH = "/problems/"


@dataclass(frozen=True)
class ProblemType:
    code: str
    status: int
    title: str
    description: str


def problem_type(code: str) -> str:
    """The ``type`` URI of a problem code."""
    return f"{PROBLEM_PATH}{code}"


_ALL = [
    # -- input --------------------------------------------------------------------------
    ProblemType("invalid_input", 422, "Invalid input",
                "The body, a query parameter or a header is malformed or out of bounds; `errors` names "
                "each field and what is wrong with it."),
    ProblemType("invalid_option", 422, "Invalid game option",
                "A game option (or the number of seats) is unknown or outside its allowed values; `option` "
                "names it. `GET /game-types` lists every option with its default and limits."),
    ProblemType("invalid_bots", 422, "Invalid bot seats",
                "A seat reserved for a bot names a kind or level this game does not offer, a seat outside the "
                "game, a seat twice, or leaves no seat for a person; `GET /game-types` lists each game's bot "
                "kinds and levels."),
    ProblemType("unknown_game_type", 422, "Unknown game type",
                "No game of this type is hosted here; `GET /game-types` lists those that are."),
    ProblemType("invalid_seat", 422, "No such seat", "The seat asked for is outside the game's seats."),
    ProblemType("idempotency_key_reused", 422, "Idempotency-Key reused",
                "This `Idempotency-Key` was already used for a different request; use a new key."),
    ProblemType("invalid_log", 422, "Invalid game log",
                "The imported log is empty, truncated, altered or of an unknown game; `detail` names the "
                "line and the field at fault. Nothing was imported."),
    ProblemType("invalid_webhook_url", 422, "Invalid webhook URL",
                "The webhook URL is not an http(s) URL with a host (and no user name)."),
    ProblemType("webhook_host_unknown", 422, "Webhook host unknown",
                "The webhook URL's host does not resolve (or its port is not a number up to 65535); nothing "
                "was subscribed."),
    ProblemType("webhook_url_not_allowed", 422, "Webhook URL not allowed",
                "The webhook URL resolves to a loopback, private or reserved address outside the server's "
                "allow-list (GAMES_WEBHOOK_ALLOW); nothing was subscribed."),
    ProblemType("unprocessable", 422, "Unprocessable request", "The request cannot be carried out as it is."),
    ProblemType("bad_request", 400, "Bad request", "The request is malformed."),
    # -- the rules ------------------------------------------------------------------------
    ProblemType("rule_violated", 422, "Not allowed by the rules",
                "The game's rules refuse this command now; `detail` gives the reason in the game's words. "
                "`GET /games/{id}/legal-commands` lists what is allowed."),
    ProblemType("domain_error", 422, "Not allowed", "The game refused the request; `detail` says why."),
    ProblemType("runaway", 422, "The game ran away",
                "The command would make the game run on without ever asking anyone again (a rules bug); "
                "nothing was recorded."),
    # -- who is asking --------------------------------------------------------------------
    ProblemType("unauthorized", 401, "Unauthorized",
                "No player token was sent, or it is not a known player's; send `Authorization: Bearer <token>`."),
    ProblemType("forbidden", 403, "Forbidden", "The caller has no seat at this game."),
    # -- what exists ----------------------------------------------------------------------
    ProblemType("not_found", 404, "Not found",
                "No such game, player, game type, version or path."),
    ProblemType("method_not_allowed", 405, "Method Not Allowed",
                "The path exists but not with this method; the `Allow` header lists those that do."),
    ProblemType("request_entity_too_large", 413, "Request Entity Too Large", "The body is larger than allowed."),
    # -- the game's state -----------------------------------------------------------------
    ProblemType("version_conflict", 409, "Version conflict",
                "The game is not at the `expected_version` sent; `current_version` says where it is. Read the "
                "state again and decide anew."),
    ProblemType("busy", 409, "Busy",
                "Other moves kept landing first and the request gave up; try again."),
    ProblemType("conflict", 409, "Conflict", "The game's state does not allow this now; try again."),
    ProblemType("already_seated", 409, "Already seated", "The caller already has a seat at this game."),
    ProblemType("seat_taken", 409, "Seat taken", "The seat asked for is taken; `detail` lists the open seats."),
    ProblemType("game_started", 409, "Game started", "Every seat is taken and the game has begun."),
    ProblemType("not_started", 409, "Game not started", "Seats are still open; the game has not begun."),
    ProblemType("no_clock", 409, "No turn clock", "The game was created without a turn clock (clock_bank_seconds)."),
    ProblemType("game_over", 409, "Game over", "The game is over: its clocks are stopped."),
    ProblemType("game_in_progress", 409, "Game in progress",
                "A table is aborted only before its first move: resign, or propose to end by agreement."),
    ProblemType("not_over", 409, "Game not over", "A rematch is offered once the game is over."),
    ProblemType("rematch_started", 409, "Rematch started", "The rematch has started; `detail` names its game."),
    ProblemType("not_taken_over", 409, "Seat not taken over",
                "No stand-in plays your seat: it is yours already (a reclaim is for a seat you left)."),
    ProblemType("already_invited", 409, "Already invited", "That player already has a pending invitation to "
                "this table."),
    ProblemType("invitation_closed", 409, "Invitation closed",
                "The invitation was accepted, declined, cancelled or has expired; `detail` says which."),
    ProblemType("private_table", 403, "Private table",
                "The table is private: its seats are taken by accepting an invitation, never by joining."),
    ProblemType("too_many_invitations", 429, "Too many invitations",
                "The table has as many pending invitations as it may (two per seat); cancel one or let it expire."),
    ProblemType("export_not_allowed", 409, "Export not allowed",
                "A game is exported once it is over, or once every seat consented "
                "(`POST /games/{id}/export-consent`)."),
    # -- limits and quotas (service.api.limits, docs/operations.md) ---------------------------
    ProblemType("rate_limited", 429, "Too Many Requests",
                "Too many requests from this address or with this token; wait `Retry-After` seconds."),
    ProblemType("too_many_streams", 429, "Too many open streams",
                "This token or address already holds its maximum of open live streams; close one first."),
    ProblemType("server_busy", 503, "Server busy",
                "This server process holds its maximum of open live streams; retry after `Retry-After` "
                "seconds (another process may have room)."),
    ProblemType("too_many_waiting_games", 429, "Too many waiting games",
                "The player already created the most games that may wait for players at once; fill or "
                "wait for one first."),
    ProblemType("too_many_bot_games", 429, "Too many games with bots",
                "The player already created the most games with bot seats that may run at once; finish one "
                "first (a game counts until it is over)."),
    ProblemType("too_many_webhooks", 429, "Too many webhooks",
                "The player already holds the most webhook subscriptions allowed, in all or for this game; "
                "delete one first."),
    ProblemType("too_many_requests", 429, "Too Many Requests", "A quota is used up; see `Retry-After`."),
    # -- malformed requests refused before any route (service.api.input_guard) -------------
    ProblemType("invalid_json", 422, "Invalid JSON",
                "The body is not strict JSON (invalid UTF-8, a lone surrogate, NaN), nests deeper than 32 "
                "levels, or holds a number beyond 64 bits."),
    ProblemType("unknown_query_parameter", 422, "Unknown query parameter",
                "The operation does not take this query parameter; `errors` names it."),
    ProblemType("uri_too_long", 414, "URI Too Long", "The request's URL is longer than 4,000 characters."),
    ProblemType("request_header_fields_too_large", 431, "Request Header Fields Too Large",
                "More than 100 header fields, or more than 16 KiB of them (gunicorn: one over 8,190 bytes)."),
    ProblemType("unsupported_media_type", 415, "Unsupported Media Type",
                "The body's `Content-Type` is not one the operation takes, or declares a charset other "
                "than UTF-8 (bodies are read as UTF-8 only)."),
    ProblemType("expectation_failed", 417, "Expectation Failed", "The `Expect` header cannot be met."),
    ProblemType("not_implemented", 501, "Not Implemented", "The request uses a transfer coding this server lacks."),
    # -- the server ---------------------------------------------------------------------
    ProblemType("store_unavailable", 503, "Service Unavailable",
                "The event store does not answer (Redis down or frozen, SQLite locked); nothing was done. "
                "Retry after `Retry-After` seconds; `GET /health` says what is down."),
    ProblemType("not_replicated", 503, "Not replicated",
                "The store's master has the write but fewer replicas than the durability setting "
                "(`GAMES_REDIS_WAIT_REPLICAS`) confirmed it in time, so it is not acknowledged. Retry after "
                "`Retry-After` seconds with the same `Idempotency-Key`: the retry answers with the first "
                "request's result once it is confirmed, never with a second move."),
    ProblemType("unavailable", 503, "Service Unavailable", "A backing service does not answer; retry later."),
    ProblemType("internal_error", 500, "Internal server error",
                "The server failed to handle the request; it has been logged. Nothing is known to have changed."),
]

#: every problem type, by code
PROBLEM_TYPES: dict[str, ProblemType] = {problem.code: problem for problem in _ALL}
