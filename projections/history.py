"""Player history: for each player, the games they sat at, with their seat and result.

A player enters a game's history when they take a seat; ``GameStarted`` fixes the seat
for good (seating may be random). Status and the result come from ``after`` only, the
public facts re-stated on every append, so undone moves never show.
"""

from __future__ import annotations

from typing import Any

from domain.kernel.table import FINISHED, GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN, WAITING
from projections.base import ranks, unranked

NAME = "history"


class History:
    name = NAME

    def initial(self) -> dict[str, Any]:
        #: ``players``: player id -> game id -> entry; ``games``: unfinished game -> {type, players}
        return {"players": {}, "games": {}}

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        game_id = envelope["game_id"]
        games = model["games"]
        data = envelope["data"]
        if envelope["source"] == PLATFORM and envelope["type"] == GAME_CREATED and not unranked(envelope):
            games[game_id] = {"type": data["game_type"], "players": []}
        game = games.get(game_id)
        if game is None:  # finished already (or began before the log): nothing changes
            return model
        players = model["players"]
        if envelope["source"] == PLATFORM and envelope["type"] == SEAT_TAKEN:
            game["players"].append(data["player_id"])
            players.setdefault(data["player_id"], {})[game_id] = {
                "game_id": game_id, "type": game["type"], "seat": data["seat"], "status": WAITING,
                "joined_at": envelope["at"], "last_activity": envelope["at"], "result": None}
        elif envelope["source"] == PLATFORM and envelope["type"] == GAME_STARTED:
            game["players"] = list(data["players"])
            for seat, player in enumerate(data["players"]):
                players[player][game_id]["seat"] = seat
        entries = [players[player][game_id] for player in game["players"]]
        for entry in entries:
            entry["last_activity"] = envelope["at"]
        after = envelope.get("after")
        if after is not None:
            for entry in entries:
                entry["status"] = after["status"]
            outcome = after["outcome"]
            if after["status"] == FINISHED and outcome:
                placed = ranks(outcome["winners"], outcome["scores"], len(entries))
                for entry in entries:
                    seat = entry["seat"]
                    entry["result"] = {"won": seat in outcome["winners"], "score": outcome["scores"].get(str(seat)),
                                       "rank": placed[seat], "winners": list(outcome["winners"])}
                del games[game_id]
        return model


def games_of(model: dict[str, Any], player_id: str) -> list[dict[str, Any]]:
    """The player's games, latest activity first."""
    found = list(model["players"].get(player_id, {}).values())
    found.sort(key=lambda g: g["game_id"])
    found.sort(key=lambda g: g["last_activity"], reverse=True)
    return found


HISTORY = History()
