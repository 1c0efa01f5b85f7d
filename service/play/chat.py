"""Chat beside each game: its messages as events of a stream of their own (``chat-<game id>``).

Two rooms: ``players`` (what seated players write; everyone reads it) and ``spectators``
(what anyone else writes; seated players read it only once the game is over, so a
watcher, who may see the board from elsewhere, can never pass a seat what it may not
know). The server adds nothing of the game to a message: a message is its author's text.

Bounds: a message is 1 to ``MAX_TEXT`` characters of printable text (line breaks allowed;
no other control, bidi-override or zero-width characters), and an author writes at most
``RATE_COUNT`` messages per ``RATE_SECONDS`` in one game (429 with Retry-After). A player
may mute another: their messages are left out of what the muting player reads, and
mention nobody. ``@Name`` of a seated player is a mention, which that player's feed
receives (``service.players.player_feed``).

The chat stream is no game: it is kept beside the game's stream so moves, versions and
undo are untouched by talk, and projections ignore it (``projections.base.restated``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from service.base.errors import Conflict, NotFound, TooManyRequests, Unprocessable
from service.streams.appending import retry_on_conflict

CHAT_PREFIX = "chat-"
MAX_TEXT = 500
RATE_COUNT = 5
RATE_SECONDS = 10.0
MUTES = "mutes:"
PLAYERS_ROOM = "players"
SPECTATORS_ROOM = "spectators"
CHAT_POSTED = "ChatPosted"
#: characters a message may not hold: controls other than a line break, bidi overrides and
#: isolates, zero-width marks, private use (as a name: ``service.api.schemas.NAME_FORBIDDEN``)
FORBIDDEN = ("\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ue000-\\uf8ff"
             "\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff")
#: a message, as openapi.yaml states it: none of those, and something besides white space
TEXT_PATTERN = f"^[^{FORBIDDEN}]*[^{FORBIDDEN}\\s][^{FORBIDDEN}]*$"
_FORBIDDEN = re.compile(f"[{FORBIDDEN}]")


def chat_stream(game_id: str) -> str:
    return f"{CHAT_PREFIX}{game_id}"


def check_text(text: str) -> str:
    """The message as stored (white space at its ends taken off), or ``Unprocessable``."""
    text = text.strip()
    if not text:
        raise Unprocessable("the message is blank", code="invalid_input")
    if len(text) > MAX_TEXT:
        raise Unprocessable(f"a message holds at most {MAX_TEXT} characters (this one {len(text)})",
                            code="invalid_input")
    wrong = _FORBIDDEN.search(text)
    if wrong is not None:
        raise Unprocessable(f"a message must not contain the character U+{ord(wrong.group()):04X}",
                            code="invalid_input")
    return text


class Chat:
    def __init__(self, games: Any):
        """``games``: the ``service.play.services.GameService`` this serves (its store, loader, appender)."""
        self.games = games

    def post(self, game_id: str, player: Mapping[str, Any], text: str) -> dict[str, Any]:
        text = check_text(text)
        game = self.games.load(game_id)
        table = game.table
        seat = game.seat_of(player)
        room = PLAYERS_ROOM if seat is not None else SPECTATORS_ROOM
        stream = chat_stream(game_id)
        now = self.games.appender.clock.now()
        mentioned = sorted({pid for pid in table.players.values() if pid not in table.bots and pid != player["id"]
                            and f"@{table.names.get(pid, pid)}".casefold() in text.casefold()})

        def attempt() -> dict[str, Any]:
            version = self.games.store.version(stream)
            recent = self.games.store.read(stream, max(0, version - RATE_COUNT * 4), version)
            mine = [r for r in recent if r.event["data"]["author"] == player["id"]
                    and (now - _parse(r.event["at"])).total_seconds() < RATE_SECONDS]
            if len(mine) >= RATE_COUNT:
                wait = RATE_SECONDS - (now - _parse(mine[-RATE_COUNT].event["at"])).total_seconds()
                raise TooManyRequests(f"at most {RATE_COUNT} messages per {RATE_SECONDS:g} s in one game",
                                      code="rate_limited", retry_after=max(1, int(wait + 0.999)))
            body = {"type": CHAT_POSTED, "at": self.games.appender.clock.iso(),
                    "data": {"author": player["id"], "name": player["name"], "seat": seat, "room": room,
                             "text": text, "mentions": mentioned}}
            self.games.store.append(stream, version, [body])
            self.games.appender.after_append(stream)  # the log moved: projections pass over it
            return _shown(game_id, version + 1, body)

        message = retry_on_conflict(attempt)
        for other in mentioned:
            if player["id"] not in self.muted_by(other):
                self.games.feed.post(other, [{"type": "chat_mention", "data": {
                    "game_id": game_id, "message_id": message["id"], "by": player["name"], "text": text}}],
                    f"chat:{game_id}:{message['id']}")
                self.games.appender.after_append(stream)
        return message

    def read(self, game_id: str, player: Mapping[str, Any] | None, after: int, limit: int) -> dict[str, Any]:
        """The messages after ``after`` the caller may read: the spectators' room is left out for
        a seated player until the game is over, and muted authors for whoever muted them."""
        game = self.games.load(game_id)
        seated = game.seat_of(player) is not None
        muted = set(self.muted_by(player["id"])) if player else set()
        stream = chat_stream(game_id)
        records = self.games.store.read(stream, after, after + limit)
        last = self.games.store.version(stream)
        shown = [_shown(game_id, r.version, r.event) for r in records
                 if r.event["data"]["author"] not in muted
                 and not (seated and not game.over and r.event["data"]["room"] == SPECTATORS_ROOM)]
        return {"messages": shown, "last_id": last,
                "next_after": records[-1].version if records and records[-1].version < last else None}

    # -- mutes ------------------------------------------------------------------------------
    def muted_by(self, player_id: str) -> list[str]:
        return self.games.store.set_members(MUTES + player_id)

    def mute(self, player: Mapping[str, Any], other: str) -> list[str]:
        if other == player["id"]:
            raise Conflict("you cannot mute yourself")
        self.games.players.get(other)  # NotFound for an unknown player
        if len(self.muted_by(player["id"])) >= MAX_MUTES:
            raise Conflict(f"at most {MAX_MUTES} players may be muted; unmute one first")
        self.games.store.set_add(MUTES + player["id"], other)
        return self.muted_by(player["id"])

    def unmute(self, player: Mapping[str, Any], other: str) -> list[str]:
        if other not in self.muted_by(player["id"]):
            raise NotFound(f"you have not muted {other!r}")
        self.games.store.set_remove(MUTES + player["id"], other)
        return self.muted_by(player["id"])


MAX_MUTES = 500


def _parse(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def _shown(game_id: str, number: int, body: dict[str, Any]) -> dict[str, Any]:
    data = body["data"]
    return {"id": number, "game_id": game_id, "author": data["author"], "name": data["name"], "seat": data["seat"],
            "room": data["room"], "text": data["text"], "mentions": data["mentions"], "at": body["at"]}

