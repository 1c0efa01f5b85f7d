"""Player history: for each player, the games they sat at, with their seat and result.

A player enters a game's history when they take a seat; ``GameStarted`` fixes the seat
for good (seating may be random). Status and the result come from ``after`` only, the
public facts re-stated on every append, so undone moves never show.

Tables: ``entries``, one row per (player, game) keyed ``<player>/<game>``, in the index
``player/<player>`` (latest activity first); ``games``, one row per unfinished game with
its type and players (dropped once the game is finished).
"""

from __future__ import annotations

from typing import Any

from domain.kernel.stand_ins import SEAT_TAKEN_OVER
from domain.kernel.table import FINISHED, GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN, WAITING
from projections.base import ranks, restated, scan, time_score, unranked

NAME = "history"


class History:
    name = NAME

    def initial(self) -> dict[str, Any]:
        return {"entries": {}, "games": {}}

    def wants(self, event: Any) -> bool:
        return not restated(event)

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        if restated(envelope):  # its version and time come again with the append's last event
            return model
        game_id = envelope["game_id"]
        games = model["games"]
        data = envelope["data"]
        if envelope["source"] == PLATFORM and envelope["type"] == GAME_CREATED and not unranked(envelope):
            games[game_id] = {"type": data["game_type"], "players": []}
        game = games.get(game_id)
        if game is None:  # finished already (or began before the log): nothing changes
            return model
        entries = model["entries"]
        if envelope["source"] == PLATFORM and envelope["type"] == SEAT_TAKEN:
            game["players"].append(data["player_id"])
            entries[entry_key(data["player_id"], game_id)] = {
                "game_id": game_id, "type": game["type"], "seat": data["seat"], "status": WAITING,
                "joined_at": envelope["at"], "last_activity": envelope["at"], "result": None}
        elif envelope["source"] == PLATFORM and envelope["type"] == GAME_STARTED:
            game["players"] = list(data["players"])
            for seat, player in enumerate(data["players"]):
                entries[entry_key(player, game_id)]["seat"] = seat
        elif envelope["source"] == PLATFORM and envelope["type"] == SEAT_TAKEN_OVER:
            # a stand-in plays on for the player who left: a lost game for them, reclaimed or not
            game.setdefault("left", []).append(data["player_id"])
        mine = [entries[entry_key(player, game_id)] for player in game["players"]]
        for entry in mine:
            entry["last_activity"] = envelope["at"]
        after = envelope.get("after")
        if after is not None:
            for entry in mine:
                entry["status"] = after["status"]
            outcome = after["outcome"]
            if after["status"] == FINISHED and outcome:
                # an aborted table may end before it started, its players at any of its seats
                seats = 1 + max((entry["seat"] for entry in mine), default=-1)
                placed = ranks(outcome["winners"], outcome["scores"], seats)
                left = set(game.get("left", ()))
                for player, entry in zip(game["players"], mine, strict=True):
                    seat = entry["seat"]
                    gone = player in left
                    entry["result"] = {"won": seat in outcome["winners"] and not gone,
                                       "score": outcome["scores"].get(str(seat)),
                                       "rank": seats if gone else placed[seat], "winners": list(outcome["winners"])}
                del games[game_id]
        return model

    def indexes(self, table: str, key: str, row: dict[str, Any]) -> dict[str, float]:
        if table != "entries":
            return {}
        return {index(key.split("/", 1)[0]): -time_score(row["last_activity"])}


def entry_key(player_id: str, game_id: str) -> str:
    return f"{player_id}/{game_id}"


def index(player_id: str) -> str:
    """The index of a player's games, latest activity first."""
    return f"player/{player_id}"


def games_of(model: dict[str, Any], player_id: str) -> list[dict[str, Any]]:
    """The player's games, latest activity first."""
    return [model["entries"][key] for key in scan(HISTORY, model["entries"], "entries", index(player_id))]


HISTORY = History()
