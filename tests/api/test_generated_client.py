"""A client generated from the committed openapi.yaml plays a whole game of Dynasties.

openapi-python-client (a dev dependency) writes a Python package from the contract; the
test imports it and plays against a live server, reading legal commands and posting them
only through the generated, typed operations (``get_legal_commands``, ``submit_command``).
A contract that a generator cannot turn into working, readable code fails here.
"""

from __future__ import annotations

import importlib
import os
import random
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from service.api.app import committed_spec_path

PACKAGE = "generated_game_client"
MAX_COMMANDS = 3000
#: no formatting hooks: the generated code is imported, not read
CONFIG = "post_hooks: []\n"
#: operations whose body openapi-python-client cannot express (application/x-ndjson, text/plain)
UNSUPPORTED = {"importGame"}


@pytest.fixture(scope="module")
def client_package(tmp_path_factory):
    binary = (shutil.which("openapi-python-client", path=os.path.dirname(sys.executable))
              or shutil.which("openapi-python-client"))
    assert binary, "openapi-python-client is a dev dependency: pip install -e '.[dev]'"
    root = tmp_path_factory.mktemp("client")
    config = root / "config.yaml"
    config.write_text(CONFIG)
    result = subprocess.run([binary, "generate", "--path", str(committed_spec_path()), "--output-path",
                             str(root / PACKAGE), "--meta", "none", "--config", str(config)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_each_operation_is_a_function_named_after_its_operation_id(client_package):
    spec = yaml.safe_load(committed_spec_path().read_text())
    missing = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters" or operation["operationId"] in UNSUPPORTED:
                continue
            module = f"{PACKAGE}.api.{operation['tags'][0]}.{_snake(operation['operationId'])}"
            try:
                assert callable(importlib.import_module(module).sync_detailed)
            except ModuleNotFoundError:
                missing.append(f"{method.upper()} {path}: {module}")
    assert not missing, missing


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.mark.api
def test_the_generated_client_plays_a_whole_game(live_server, client_package):
    from generated_game_client import AuthenticatedClient, Client
    from generated_game_client.api.games import (
        create_game,
        get_game,
        get_legal_commands,
        get_state,
        join_game,
        submit_command,
    )
    from generated_game_client.api.players import create_player
    from generated_game_client.models import (
        CommandResult,
        DynastiesView,
        Game,
        GameStatus,
        Join,
        LegalCommands,
        NewDynastiesGame,
        NewDynastiesGameOptions,
        NewDynastiesGameType,
        NewPlayer,
        Outcome,
        PlayerWithToken,
        State,
    )

    rng = random.Random(7)
    anonymous = Client(base_url=live_server.url, raise_on_unexpected_status=True)
    seats = []
    for name in ("Ann", "Bob", "Cy"):
        player = create_player.sync(client=anonymous, body=NewPlayer(name=name))
        assert isinstance(player, PlayerWithToken)
        seats.append(AuthenticatedClient(base_url=live_server.url, token=player.token,
                                         raise_on_unexpected_status=True))
    # NewGame is the union on type of each game's own (its seats, options and bots typed)
    created = create_game.sync(client=seats[0], body=NewDynastiesGame(
        type_=NewDynastiesGameType.DYNASTIES, seats=3, options=NewDynastiesGameOptions(starting_gold=12)))
    assert isinstance(created, Game) and created.status == GameStatus.WAITING
    for client in seats:
        assert join_game.sync(created.id, client=client, body=Join()).seat is not None

    commands = 0
    game = get_game.sync(created.id, client=anonymous)
    while game.status != GameStatus.FINISHED and commands < MAX_COMMANDS:
        assert game.to_move, "an active game always waits for someone"
        seat = rng.choice(game.to_move)
        legal = get_legal_commands.sync(created.id, client=seats[seat])
        assert isinstance(legal, LegalCommands) and legal.commands, legal
        result = submit_command.sync(created.id, client=seats[seat], body=rng.choice(legal.commands))
        assert isinstance(result, CommandResult), result
        commands += 1
        game = get_game.sync(created.id, client=anonymous)

    assert game.status == GameStatus.FINISHED, f"no Game Over after {commands} commands"
    assert isinstance(game.outcome, Outcome) and game.outcome.winners
    assert set(game.outcome.scores.to_dict()) == {"0", "1", "2"}
    state = get_state.sync(created.id, client=seats[0])
    assert isinstance(state, State) and isinstance(state.view, DynastiesView)
    assert state.view.game.value == "dynasties" and state.view["revealed"]["hands"]
    # the ETag comes back as If-None-Match through the generated operation
    first = get_state.sync_detailed(created.id, client=seats[0])
    again = get_state.sync_detailed(created.id, client=seats[0], if_none_match=first.headers["ETag"])
    assert first.status_code == 200 and again.status_code == 304
