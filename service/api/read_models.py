"""Read-only resources served from projections: scoreboards, player histories, and the
projections' own checkpoints and lag. (``GET /games``, the lobby, lives with the games.)"""

from __future__ import annotations

from flask import current_app
from flask_smorest import Blueprint

from service.api import read_model_schemas as rs
from service.api.errors import problem_responses

scoreboards = Blueprint("scoreboards", __name__, url_prefix="/scoreboards",
                        description="Rankings per game type, with skill ratings")
histories = Blueprint("histories", __name__, url_prefix="/players", description="Each player's games and results")
projections = Blueprint("projections", __name__, url_prefix="/projections",
                        description="The read models' checkpoints and lag behind the event log")


def _service():
    return current_app.extensions["games"]


@scoreboards.route("/<string:game_type>", methods=["GET"])
@scoreboards.arguments(rs.PageQuerySchema(), location="query")
@scoreboards.response(200, rs.ScoreboardSchema)
@scoreboards.doc(operationId="getScoreboard")
@problem_responses(scoreboards, 404, 422)
def get_scoreboard(query, game_type):
    """Players of a game type ranked by skill rating (openskill ordinal), with games played,
    wins, win rate and the gold or points they won. Only finished games count. Paged with
    limit and offset."""
    return _service().scoreboard(game_type, query["offset"], query["limit"])


@histories.route("/<string:player_id>/games", methods=["GET"])
@histories.arguments(rs.PageQuerySchema(), location="query")
@histories.response(200, rs.PlayerGamesSchema)
@histories.doc(operationId="listPlayerGames")
@problem_responses(histories, 404, 422)
def get_player_games(query, player_id):
    """The games a player sat at, latest activity first, with the seat, status and result.
    Paged with limit and offset."""
    return _service().games_of_player(player_id, query["offset"], query["limit"])


@projections.route("", methods=["GET"])
@projections.response(200, rs.ProjectionsSchema)
@projections.doc(operationId="getProjections")
def get_projections():
    """Each projection's checkpoint and log head per partition, and its lag in events."""
    return _service().projections_status()
