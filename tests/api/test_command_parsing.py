"""``parse_command`` checks the common command by hand and leaves everything else to the
command's marshmallow schema: both ways must accept the same bodies, give the same command,
and refuse the same bodies with the schema's own reasons."""

from __future__ import annotations

import random

import pytest
from marshmallow import ValidationError

from domain.games import default_registry
from service.adapters.memory_store import MemoryStore
from service.api.commands import _instance, command_schemas, parse_command
from service.base.errors import Unprocessable
from service.play.services import GameService
from tests.helpers.play import start_game

REGISTRY = default_registry()
SCHEMAS = command_schemas(REGISTRY)


def by_schema(body):
    """What the schema alone makes of ``body``: ("ok", type, args, expected) or ("refused", errors)."""
    try:
        loaded = _instance(SCHEMAS[body["type"]]).load(body)
    except ValidationError as error:
        return ("refused", error.messages)
    return ("ok", loaded["type"], dict(loaded["args"]), loaded.get("expected_version"))


def by_parse(body):
    try:
        command, expected = parse_command(body, SCHEMAS)
    except ValidationError as error:
        return ("refused", error.messages)
    return ("ok", command.type, command.args, expected)


def legal_bodies(rng: random.Random, games: int = 2):
    """Commands as the legal-commands answers list them, from random games of every hosted game."""
    service = GameService(MemoryStore(), REGISTRY)
    for kind in sorted(REGISTRY):
        for _ in range(games):
            game_id, players = start_game(service, kind, 3)
            for _ in range(40):
                game = service.load(game_id)
                if game.over:
                    break
                seat = rng.choice(game.rules.to_move(game.state))
                commands = game.rules.legal_commands(game.state, seat)
                for command in commands[:15]:
                    yield command.to_json()
                service.submit_command(game_id, players[seat], rng.choice(commands))


def list_bodies():
    """A body for each command that takes a list (rare in play: few random games reach one)."""
    for rules in REGISTRY.values():
        for spec in rules.commands:
            if spec.arg is not None and spec.arg.many and spec.arg.kind.pattern is None:
                values = [3, 4] if spec.arg.kind.json_type == "integer" else ["noble-1", "noble-2"]
                yield {"type": spec.type, "args": {spec.arg.name: values}}


def variants(body, rng: random.Random):
    """``body`` and near misses of it: the values marshmallow converts or refuses."""
    yield body
    yield {**body, "expected_version": rng.choice([0, 7, 2**31 - 1, 2**31, -1, None, True, "3", 3.0, 2.5])}
    yield {**body, "extra": 1}
    yield {k: v for k, v in body.items() if k != "args"}
    yield {**body, "args": None}
    yield {**body, "args": [1]}
    args = body.get("args") or {}
    yield {**body, "args": {**args, "unknown": "x"}}
    for name, value in args.items():
        for other in (True, 1.0, "1", "", "x" * 65, "x" * 64, -(2**31) - 1, 2**31 - 1, None, [], {}, "a\n",
                      [value] if not isinstance(value, list) else value * 200,
                      (value * 121)[:120] if isinstance(value, list) else value,  # the longest list allowed
                      (value * 121)[:121] if isinstance(value, list) else value,  # one too many
                      value[:1] + [True] if isinstance(value, list) else value,
                      tuple(value) if isinstance(value, list) else value):
            yield {**body, "args": {**args, name: other}}


def test_the_hand_check_and_the_schema_agree_on_every_body():
    rng = random.Random(7)
    seen = 0
    for body in [*legal_bodies(rng), *list_bodies()]:
        for variant in variants(body, rng):
            assert by_parse(variant) == by_schema(variant), variant
            seen += 1
    assert seen > 500, "too few bodies were compared"


def test_a_legal_command_is_accepted_both_ways():
    body = next(legal_bodies(random.Random(1)))
    assert by_parse(body)[0] == "ok" == by_schema(body)[0]


def test_the_refusal_names_the_field():
    body = next(legal_bodies(random.Random(1)))
    with pytest.raises(ValidationError) as refused:
        parse_command({**body, "expected_version": -1}, SCHEMAS)
    assert "expected_version" in refused.value.messages
    with pytest.raises(Unprocessable):
        parse_command({"type": "no such command", "args": {}}, SCHEMAS)
