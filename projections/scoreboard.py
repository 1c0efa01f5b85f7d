"""Scoreboards, one per game type: games played, wins, win rate, points, and a skill rating.

A game counts once it is finished: when an append's public ``after`` carries the
outcome (winning seats and a score per seat: gold in Dynasties, points elsewhere). Who
sat where comes from the platform's ``GameStarted``; names from ``SeatTaken``. A seat a
stand-in took over (``SeatTakenOver``, ``domain.kernel.stand_ins``) is unrated: its player
counts a lost game ranked below every other seat, with no points, reclaimed or not.

The rating is openskill's Plackett-Luce model, one team per seat: winners share rank 1
and the others follow by score. Ratings depend on the order in which games are rated,
and a partitioned log has no single order in which events arrive, so the order is
defined by the data instead: finished games are rated in order of ``(finished at, game
id)``. Each type keeps its results in that order; a result that arrives out of order (a
game that finished a moment before one already rated, in another partition) is
inserted in its place and the type's ratings are recomputed from its results. A rebuild
and any sequence of incremental updates therefore give the same ratings, to the bit.

Tables: ``playing`` (a row per unfinished game: type, players by seat, names),
``standings`` (a row per type and player, key ``<type>/<player>``, in the index
``board/<type>`` by rating ordinal, best first), ``results`` (a row per finished game,
key ``<type>/<finished at>/<game>``, in the index ``results/<type>``: keys sort by finish
time) and ``types`` (a row per type: the last result rated). Finishing a game in order
touches only its players' rows; a result out of order re-rates its type, reading every
result and standing of that type (rare: two games that finished within moments of each
other, in different log partitions).
"""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from domain.kernel.endings import ABORTED
from domain.kernel.stand_ins import SEAT_TAKEN_OVER
from domain.kernel.table import FINISHED, GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN
from projections.base import ranks, restated, scan, unranked

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
        return {"playing": {}, "standings": {}, "results": {}, "types": {}}

    def wants(self, event: Any) -> bool:
        return not restated(event)

    def apply(self, model: dict[str, Any], envelope: dict[str, Any]) -> dict[str, Any]:
        if restated(envelope):  # neither a platform event nor a result
            return model
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
            elif kind == SEAT_TAKEN_OVER and game_id in playing:  # unrated for that seat from now on
                playing[game_id].setdefault("left", []).append(data["seat"])
        after = envelope.get("after")
        if after and after["status"] == FINISHED and after["outcome"] and game_id in playing:
            game = playing[game_id]
            del playing[game_id]
            if after["outcome"]["details"].get("reason") != ABORTED:  # an aborted table counts for nobody
                self._finish(model, game_id, game, after["outcome"], envelope["at"])
        return model

    def indexes(self, table: str, key: str, row: Any) -> dict[str, float]:
        kind = key.split("/", 1)[0]
        if table == "standings":
            return {board(kind): -row["rating"]["ordinal"]}
        if table == "results":
            return {f"results/{kind}": 0.0}
        return {}

    def _finish(self, model: dict[str, Any], game_id: str, game: dict[str, Any], outcome: dict[str, Any],
                at: str) -> None:
        players = game["players"]
        kind = game["type"]
        standings = model["standings"]
        placed = ranks(outcome["winners"], outcome["scores"], len(players))
        # a seat its person left (``domain.kernel.stand_ins``): the stand-in's result counts for nobody,
        # and who left counts a lost game, below every other seat, with no points
        left = set(game.get("left", ()))
        last = max(placed) + 1
        rows = [[player, 0 if seat in left else bounded(outcome["scores"].get(str(seat), 0)),
                 last if seat in left else placed[seat]]
                for seat, player in enumerate(players)]
        for seat, (player, score, _) in enumerate(rows):
            key = f"{kind}/{player}"
            mine = standings.get(key)
            if mine is None:
                mine = standings[key] = _newcomer(game["names"].get(player, ""))
            mine["name"] = game["names"].get(player, mine["name"])
            mine["games_played"] += 1
            mine["wins"] += 1 if seat in outcome["winners"] and seat not in left else 0
            mine["win_rate"] = mine["wins"] / mine["games_played"]
            mine["score"] = bounded(mine["score"] + score)
        model["results"][f"{kind}/{at}/{game_id}"] = rows
        last = model["types"].get(kind)
        model["types"][kind] = {"last": max(last["last"], [at, game_id]) if last else [at, game_id]}
        if last is None or last["last"] < [at, game_id]:
            _rate(standings, kind, rows)
        else:  # arrived out of (finished at, game id) order: re-rate the type from its results in order
            for key in scan(self, standings, "standings", board(kind)):
                standings[key]["rating"] = _initial_rating()
            results = model["results"]
            for key in scan(self, results, "results", f"results/{kind}"):
                _rate(standings, kind, results[key])


def board(kind: str) -> str:
    """The index of a type's standings, best rating ordinal first."""
    return f"board/{kind}"


def _initial_rating() -> dict[str, float]:
    rating = MODEL.rating()
    return {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()}


def _newcomer(name: str) -> dict[str, Any]:
    return {"name": name, "games_played": 0, "wins": 0, "win_rate": 0.0, "score": 0, "rating": _initial_rating()}


def _rate(standings: Any, kind: str, rows: list[list[Any]]) -> None:
    """One Plackett-Luce update for a finished game (``rows``: [player, score, rank] by seat)."""
    if len(rows) < 2:
        return
    mine = [standings[f"{kind}/{p}"] for p, _, _ in rows]
    teams = [[MODEL.rating(mu=m["rating"]["mu"], sigma=m["rating"]["sigma"])] for m in mine]
    rated = MODEL.rate(teams, ranks=[rank for _, _, rank in rows])
    for standing, (rating,) in zip(mine, rated, strict=True):
        standing["rating"] = {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal()}


def row(key: str, standing: dict[str, Any], rank: int) -> dict[str, Any]:
    """A standing as the scoreboard shows it (``key``: ``<type>/<player>``)."""
    return {"player_id": key.split("/", 1)[1], **standing, "rank": rank}


def table(model: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The players of ``kind`` ranked by rating ordinal (best first), with their standing."""
    standings = model["standings"]
    return [row(key, standings[key], place)
            for place, key in enumerate(scan(SCOREBOARD, standings, "standings", board(kind)), start=1)]


SCOREBOARD = Scoreboard()
