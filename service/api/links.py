"""OpenAPI links between operations: which response feeds which request.

They tell a client (and a stateful fuzzer: schemathesis follows them) that the id a create
returns is the ``game_id`` or ``player_id`` of the operations on that resource.
"""

from __future__ import annotations

GAME_OPERATIONS = [
    ("GetGame", "/games/{game_id}", "get"), ("JoinGame", "/games/{game_id}/join", "post"),
    ("GetState", "/games/{game_id}/state", "get"), ("GetLegalCommands", "/games/{game_id}/legal-commands", "get"),
    ("PostCommand", "/games/{game_id}/commands", "post"), ("Undo", "/games/{game_id}/undo", "post"),
    ("GetEvents", "/games/{game_id}/events", "get"), ("GetReplay", "/games/{game_id}/replay", "get"),
    ("Export", "/games/{game_id}/export", "get"), ("ConsentToExport", "/games/{game_id}/export-consent", "post"),
    ("WithdrawExportConsent", "/games/{game_id}/export-consent", "delete"),
]
PLAYER_OPERATIONS = [("GetPlayer", "/players/{player_id}", "get"), ("GetPlayerGames", "/players/{player_id}/games", "get")]


def _ref(path: str, method: str) -> str:
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method


#: the answers that name what they created: (path, method, status) -> the operations on it,
#: the parameter they take and where in the answer it is
SOURCES = {
    ("/games", "post", "201"): (GAME_OPERATIONS, "game_id", "$response.body#/id"),
    ("/games/import", "post", "201"): (GAME_OPERATIONS, "game_id", "$response.body#/id"),
    ("/games/{game_id}/join", "post", "200"): (GAME_OPERATIONS, "game_id", "$response.body#/game/id"),
    ("/players", "post", "201"): (PLAYER_OPERATIONS, "player_id", "$response.body#/id"),
}


def links_of(path: str, method: str) -> dict[str, dict]:
    """The links of the operation ``method`` on ``path``, by the status of its answer
    (``tests/api/test_contract.py`` checks that every ``operationRef`` names an operation)."""
    return {status: {name: {"operationRef": _ref(target, verb), "parameters": {parameter: expression}}
                     for name, target, verb in targets}
            for (source, verb_of_source, status), (targets, parameter, expression) in SOURCES.items()
            if source == path and verb_of_source == method}
