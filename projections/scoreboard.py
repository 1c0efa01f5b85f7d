"""Scoreboards, one per game type: games played, wins, win rate, points, and a skill rating.

A game counts once it is finished: when an append's public ``after`` carries the
outcome (winning seats and a score per seat: gold in Dynasties, points elsewhere). Who
sat where comes from the platform's ``GameStarted``; names from ``SeatTaken``.

The rating is openskill's Plackett-Luce model, one team per seat: winners share rank 1
and the others follow by score. Ratings depend on the order in which games are rated,
and a partitioned log has no single order in which events arrive, so the order is
defined by the data instead: finished games are rated in order of ``(finished at, game
id)``. Each type keeps its results in that order; a result that arrives out of order (a
game that finished a moment before one already rated, in another partition) is
inserted in its place and the type's ratings are recomputed from its results. A rebuild
and any sequence of incremental updates therefore give the same ratings, to the bit.
"""

from __future__ import annotations

import bisect
from typing import Any

from openskill.models import PlackettLuce

from domain.kernel.table import FINISHED, GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN
from projections.base import ranks, unranked

NAME = "scoreboard"
#: totals saturate here (2^53 - 1: exact as a double, safe in every JSON reader and in a
#: 64-bit integer column), so no sum of scores can overflow or fail to encode
SCORE_LIMIT = 2**53 - 1


def bounded(value: Any) -> int:
    """A score as an integer within +-SCORE_LIMIT (a non-number counts as 0)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    return int(max(-SCORE_LIMIT, min(SCORE_LIMIT, value)))
MODEL = PlackettLuce()


class Scoreboard:
    name = NAME

    def initial(self) -> dict[str, Any]:
        #: ``playing``: games not yet finished -> {type, players (by seat), names};
        #: ``types``: type -> {players: id -> standing, results: [[at, game, rows], ...]}
        return {"playing": {}, "types": {}}

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        game_id = envelope["game_id"]
        playing = model["playing"]
        data = envelope["data"]
        if envelope["source"] == PLATFORM:
            kind = envelope["type"]
            if kind == GAME_CREATED and not unranked(envelope):
                playing[game_id] = {"type": data["game_type"], "players": [], "names": {}}
            elif kind == SEAT_TAKEN and game_id in playing:
                playing[game_id]["names"][data["player_id"]] = data["name"]
            elif kind == GAME_STARTED and game_id in playing:
                playing[game_id]["players"] = list(data["players"])
        after = envelope.get("after")
        if after and after["status"] == FINISHED and after["outcome"] and game_id in playing:
            self._finish(model, game_id, playing.pop(game_id), after["outcome"], envelope["at"])
        return model

    def _finish(self, model: dict[str, Any], game_id: str, game: dict[str, Any], outcome: dict[str, Any],
                at: str) -> None:
        players = game["players"]
        board = model["types"].setdefault(game["type"], {"players": {}, "results": []})
        placed = ranks(outcome["winners"], outcome["scores"], len(players))
        rows = [[player, bounded(outcome["scores"].get(str(seat), 0)), placed[seat]]
                for seat, player in enumerate(players)]
        standings = board["players"]
        for seat, (player, score, _) in enumerate(rows):
            mine = standings.setdefault(player, _newcomer(game["names"].get(player, "")))
            mine["name"] = game["names"].get(player, mine["name"])
            mine["games_played"] += 1
            mine["wins"] += 1 if seat in outcome["winners"] else 0
            mine["win_rate"] = mine["wins"] / mine["games_played"]
            mine["score"] = bounded(mine["score"] + score)
        result = [at, game_id, rows]
        results = board["results"]
        if not results or results[-1][:2] < result[:2]:
            results.append(result)
            _rate(standings, rows)
        else:  # arrived out of (finished at, game id) order: put it in place, re-rate the type
            bisect.insort(results, result, key=lambda r: (r[0], r[1]))
            for standing in standings.values():
                standing["rating"] = _initial_rating()
            for _, _, earlier in results:
                _rate(standings, earlier)


def _initial_rating() -> dict[str, float]:
    rating = MODEL.rating()
    return {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()}


def _newcomer(name: str) -> dict[str, Any]:
    return {"name": name, "games_played": 0, "wins": 0, "win_rate": 0.0, "score": 0, "rating": _initial_rating()}


def _rate(standings: dict[str, Any], rows: list[list[Any]]) -> None:
    """One Plackett-Luce update for a finished game (``rows``: [player, score, rank] by seat)."""
    if len(rows) < 2:
        return
    teams = [[MODEL.rating(mu=standings[p]["rating"]["mu"], sigma=standings[p]["rating"]["sigma"])]
             for p, _, _ in rows]
    rated = MODEL.rate(teams, ranks=[rank for _, _, rank in rows])
    for (player, _, _), (rating,) in zip(rows, rated, strict=True):
        standings[player]["rating"] = {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()}


def table(model: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The players of ``kind`` ranked by rating ordinal (best first), with their standing."""
    board = model["types"].get(kind)
    if board is None:
        return []
    rows = [{"player_id": player, **standing} for player, standing in board["players"].items()]
    rows.sort(key=lambda r: r["player_id"])
    rows.sort(key=lambda r: r["rating"]["ordinal"], reverse=True)
    for place, row in enumerate(rows, start=1):
        row["rank"] = place
    return rows


SCOREBOARD = Scoreboard()
