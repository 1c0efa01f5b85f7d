"""The lobby: every game with its type, status, seats, whose move it is and last activity.

Seats come from the platform's own events (``GameCreated``, ``SeatTaken``,
``GameStarted``), which are never undone. Status, whose move it is and the outcome come
only from ``after``, the public facts re-stated at the end of every append, so an undone
move leaves no trace: the ``MovesUndone`` append states them again as they are.

One row per game (table ``games``). Each row sits in four ordered indexes, latest
activity first: every game, its type, its status, and its type with its status; a
lobby query pages through one of them (``index``).
"""

from __future__ import annotations

from typing import Any

from domain.kernel.stand_ins import SEAT_RECLAIMED, SEAT_TAKEN_OVER
from domain.kernel.table import GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN, WAITING
from projections.base import restated, scan, time_score

NAME = "lobby"


class Lobby:
    name = NAME

    def initial(self) -> dict[str, Any]:
        return {"games": {}}

    def wants(self, event: Any) -> bool:
        return not restated(event)

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        if restated(envelope):  # its version and time come again with the append's last event
            return model
        games = model["games"]
        game_id = envelope["game_id"]
        platform = envelope["source"] == PLATFORM
        if platform and envelope["type"] == GAME_CREATED and not envelope["data"].get("private"):
            games[game_id] = _created(game_id, envelope)  # a private table is never listed
        game = games.get(game_id)
        if game is None:  # a log that starts mid-game (never in a full log): nothing to show
            return model
        data = envelope["data"]
        if platform and envelope["type"] == SEAT_TAKEN:
            game["seats"][data["seat"]] = {"seat": data["seat"], "player_id": data["player_id"],
                                           "name": data["name"], **({"bot": data["bot"]} if "bot" in data else {})}
        elif platform and envelope["type"] == GAME_STARTED:
            taken = {s["player_id"]: s for s in game["seats"] if s["player_id"] is not None}
            game["seats"] = [{"seat": seat, "player_id": player, "name": taken.get(player, {}).get("name"),
                              **({"bot": taken[player]["bot"]} if "bot" in taken.get(player, {}) else {})}
                             for seat, player in enumerate(data["players"])]
        elif platform and envelope["type"] == SEAT_TAKEN_OVER:
            stand_in = data["stand_in"]
            game["seats"][data["seat"]] = {"seat": data["seat"], "player_id": stand_in["player_id"],
                                           "name": stand_in["name"], "bot": stand_in["bot"],
                                           "stand_in_for": data["player_id"]}
        elif platform and envelope["type"] == SEAT_RECLAIMED:
            game["seats"][data["seat"]] = {"seat": data["seat"], "player_id": data["player_id"], "name": data["name"]}
        game["version"] = envelope["version"]
        game["at"] = envelope["at"]
        after = envelope.get("after")
        if after is not None:
            game["status"] = after["status"]
            game["to_move"] = list(after["to_move"])
            game["outcome"] = after["outcome"]
        return model

    def indexes(self, table: str, key: str, row: dict[str, Any]) -> dict[str, float]:
        score = -time_score(row["at"])  # latest activity first; ties by game id
        return {index(kind, status): score
                for kind in (None, row["type"]) for status in (None, row["status"])}


def index(kind: str | None = None, status: str | None = None) -> str:
    """The index of the games of ``kind`` with ``status`` (None: any)."""
    return "all" + (f"/type/{kind}" if kind is not None else "") + (f"/status/{status}" if status is not None else "")


def _created(game_id: str, envelope: dict[str, Any]) -> dict[str, Any]:
    data = envelope["data"]
    return {
        "id": game_id,
        "type": data["game_type"],
        "options": dict(data["options"]),
        "status": WAITING,
        "seats": [{"seat": s, "player_id": None, "name": None} for s in range(data["seats"])],
        "to_move": [],
        "version": envelope["version"],
        "created_at": envelope["at"],
        "at": envelope["at"],
        "outcome": None,
        "ranked": envelope.get("ranked", True),
    }


def games(model: dict[str, Any], kind: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
    """The lobby's games of ``kind`` with ``status`` (None: any), latest activity first."""
    return [model["games"][key] for key in scan(LOBBY, model["games"], "games", index(kind, status))]


LOBBY = Lobby()
