"""How openapi.yaml is written, so that client generators get readable, typed code.

- ``ContractApi``: flask-smorest's ``Api`` whose error schema is our ``Problem`` (served
  as application/problem+json, the ``default`` answer of every operation) and which lists
  none of flask-smorest's own error and pagination schemas (this API uses neither).
- ``component_ref``: a ``Ref`` field (a value of a union built from the registry, such as
  ``GameCommand`` or ``GameView``) as a reference to that component;
- ``nullable_ref``: a nullable nested object is written ``allOf: [$ref], nullable: true``
  rather than apispec's ``anyOf`` with an anonymous object, which generators turn into an
  untyped map beside the real type.
- ``register_views``: the view of each hosted game type, and ``GameView``, their union on
  the ``game`` property every view carries.

Every operation names itself with an ``operationId`` (``@blp.doc(operationId=...)``);
``tests/api/test_contract.py`` checks that none is missing.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import yaml
from apispec import BasePlugin
from flask import Flask
from flask_smorest import Api

from domain.kernel import GameRules
from service.api import limits, links
from service.api.errors import PROBLEM
from service.api.schemas import ProblemSchema, Ref

#: the response every operation may give besides the ones it lists
DEFAULT_RESPONSE = "Problem"
_ANONYMOUS_NULL = {"type": "object", "nullable": True}


class ContractPlugin(BasePlugin):
    """What this API's contract adds to every operation and answer, as apispec writes them:

    * an error answer of flask-smorest (``ERROR_SCHEMA``, ``Problem``) is served as
      application/problem+json, not application/json (``response_helper``);
    * every operation may answer 429 and 503 with Retry-After (``limits.RETRY_ANSWERS``), and
      a create's answer links to the operations on what it created (``links.links_of``)
      (``operation_helper``, as each path is registered)."""

    def response_helper(self, response: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        content = response.get("content", {})
        if "application/json" in content and _is_problem(content["application/json"].get("schema")):
            response["content"] = {PROBLEM: content["application/json"]}
        return None

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            if method in ("get", "post", "put", "patch", "delete"):
                responses = operation.setdefault("responses", {})
                for status, answer in limits.RETRY_ANSWERS.items():
                    if status not in responses and int(status) not in responses:  # its own comes first
                        responses[status] = copy.deepcopy(answer)
                for status, found in links.links_of(path or "", method).items():
                    for key in (status, int(status)):  # an answer is keyed as its decorator gave its status
                        if key in responses:
                            responses[key]["links"] = found


def _is_problem(schema: Any) -> bool:
    return schema is ProblemSchema or isinstance(schema, ProblemSchema) \
        or (isinstance(schema, dict) and schema.get("$ref") == f"#/components/schemas/{DEFAULT_RESPONSE}")


class ContractApi(Api):
    """flask-smorest's ``Api`` with ``Problem`` as its error schema and answer (its public
    ``ERROR_SCHEMA`` and ``DEFAULT_ERROR_RESPONSE_NAME``), ``ContractPlugin`` among the spec's
    plugins (``spec_kwargs``' ``extra_plugins``), and the attribute functions below on its
    marshmallow converter."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = DEFAULT_RESPONSE

    def __init__(self, app: Flask) -> None:
        super().__init__(app, spec_kwargs={"extra_plugins": [ContractPlugin()]})
        self.ma_plugin.converter.add_attribute_function(component_ref)
        self.ma_plugin.converter.add_attribute_function(nullable_ref)
        # pages here are in the body (limit/offset, after/next_after), never in X-Pagination:
        # the schema flask-smorest registers for that header is not this API's
        self.spec.components.schemas.pop("PaginationMetadata", None)
        self.spec.components.response(DEFAULT_RESPONSE, {
            "description": "an error, as application/problem+json: see `code` and /problems/{code}",
            "content": {PROBLEM: {"schema": ProblemSchema}},
        }, lazy=True)


def nullable_ref(self: Any, field: Any, ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a nullable ``Nested`` as ``allOf: [$ref], nullable: true``."""
    any_of = ret.get("anyOf")
    if field.allow_none and any_of and _ANONYMOUS_NULL in any_of:
        del ret["anyOf"]
        return {"allOf": [schema for schema in any_of if schema != _ANONYMOUS_NULL], "nullable": True}
    return {}


def component_ref(self: Any, field: Any, ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a ``Ref`` field as a reference to its component."""
    if not isinstance(field, Ref):
        return {}
    ref = {"$ref": f"#/components/schemas/{field.component}"}
    # beside a description or nullable a $ref needs a wrapper; not allOf, which generators
    # read as inheriting from the union (openapi-typescript then drops its discriminator)
    return {"oneOf": [ref]} if ret else ref


def view_schema_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_")) + "View"


def register_views(spec: Any, registry: Mapping[str, GameRules]) -> None:
    """One schema per game type's view, and their union ``GameView`` on ``game``."""
    mapping = {}
    for kind, rules in registry.items():
        name = view_schema_name(kind)
        spec.components.schema(name, {
            "type": "object",
            "description": f"What a seat sees of a game of {rules.title}: the public table, its own hidden "
                           f"cards, and everything once the game is over (the game's rules document the rest).",
            "properties": {"game": {"type": "string", "enum": [kind], "description": "the game type"}},
            "required": ["game"],
            "additionalProperties": True,
        })
        mapping[kind] = f"#/components/schemas/{name}"
    spec.components.schema("GameView", {
        "description": "A game's view for one seat; `game` says which game's view it is.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "game", "mapping": mapping},
    })


def spec_yaml(app: Flask) -> str:
    """The contract as the app generates it (openapi.yaml at the root must equal it)."""
    return yaml.safe_dump(app.extensions["api"].spec.to_dict(), sort_keys=False, allow_unicode=True)


def new_game_schema_name(kind: str) -> str:
    return "New" + "".join(part.capitalize() for part in kind.split("_")) + "Game"


def _option_schema(option: Mapping[str, Any]) -> dict[str, Any]:
    """One game option as JSON Schema, from what ``GET /game-types`` says of it."""
    kind = option["type"]
    schema: dict[str, Any]
    if kind == "bool":
        schema = {"type": "boolean"}
    elif kind == "int":
        schema = {"type": "integer", **{key: option[key] for key in ("minimum", "maximum") if key in option}}
    elif kind == "choice":
        schema = {"type": "string", "enum": list(option["choices"])}
    else:  # an object: its form (a Pax Pamir deal: the deck for the seat count is the game's to check)
        schema = copy.deepcopy(option.get("shape") or {"type": "object", "additionalProperties": True})
    schema["description"] = option["description"]
    if option["nullable"]:
        schema["nullable"] = True
        if "enum" in schema:  # OpenAPI 3.0.3: a nullable enum lists null
            schema["enum"].append(None)
    return schema


def register_new_games(spec: Any, game_types: list[dict[str, Any]]) -> None:
    """``NewGame`` (POST /games) as the union on ``type`` of each hosted game's own: its seat
    range, its options (each typed and bounded, no other name) and its bot kinds and levels
    (for its bot seats and its stand-in).
    What only goes together (options that depend on each other or on the seat count, a bot's
    seat inside the table and each seat once) is the game's to check: a 422 names it."""
    schemas = spec.components.schemas
    common = copy.deepcopy(schemas["NewGame"]["properties"])
    del schemas["BotSeat"]  # each game's bot seats instead, below
    del schemas["StandIn"]  # and each game's stand-ins
    mapping = {}
    for game_type in game_types:
        kind, seats = game_type["type"], (game_type["min_seats"], game_type["max_seats"])
        bots = {}  # bot kind -> the reference of its seat's schema
        stand_ins = {}  # bot kind -> the reference of its stand-in's schema
        for bot in game_type["bots"]:
            stand_in_name = f"{view_schema_name(kind)[:-len('View')]}{bot['kind'].capitalize()}StandIn"
            schemas[stand_in_name] = {"type": "object", "properties": {
                "kind": {"type": "string", "enum": [bot["kind"]], "description": bot["description"]},
                "level": {"type": "string", "enum": [*bot["levels"], None], "nullable": True,
                          "description": f"one of the kind's levels (default: {bot['default_level']})"},
            }, "required": ["kind"], "additionalProperties": False}
            stand_ins[bot["kind"]] = f"#/components/schemas/{stand_in_name}"
            bot_name = f"{view_schema_name(kind)[:-len('View')]}{bot['kind'].capitalize()}Bot"
            schemas[bot_name] = {"type": "object", "properties": {
                "kind": {"type": "string", "enum": [bot["kind"]], "description": bot["description"]},
                "level": {"type": "string", "enum": [*bot["levels"], None], "nullable": True,
                          "description": f"one of the kind's levels (default: {bot['default_level']})"},
                "seat": {"type": "integer", "minimum": 0, "maximum": seats[1] - 1, "nullable": True,
                         "description": "the seat, below the game's seat count (default: the last seat still open)"},
            }, "required": ["kind"], "additionalProperties": False}
            bots[bot["kind"]] = f"#/components/schemas/{bot_name}"
        name = new_game_schema_name(kind)
        schemas[name] = {
            "type": "object",
            "description": f"A new game of {game_type['title']} (GET /game-types lists its options and bots).",
            "properties": {
                "type": {"type": "string", "enum": [kind], "description": "the game type"},
                "private": copy.deepcopy(common["private"]),
                "seats": {"type": "integer", "minimum": seats[0], "maximum": seats[1],
                          "description": f"{seats[0]} to {seats[1]} (the options may narrow it)"},
                "options": {"type": "object", "properties": {
                    option["name"]: _option_schema(option) for option in game_type["options"]},
                    "additionalProperties": False, "description": "absent: each option's default"},
                "bots": {**common["bots"], "maxItems": seats[1] - 1, "items": {
                    "oneOf": [{"$ref": ref} for ref in bots.values()],
                    "discriminator": {"propertyName": "kind", "mapping": bots}}},
                "stand_in": {"description": common["stand_in"]["description"], "nullable": True,
                             "oneOf": [{"$ref": ref} for ref in stand_ins.values()],
                             "discriminator": {"propertyName": "kind", "mapping": stand_ins}},
            },
            "required": ["type", "seats"],
            "additionalProperties": False,
        }
        mapping[kind] = f"#/components/schemas/{name}"
    schemas["NewGame"] = {
        "description": "A new game; `type` says which game, and so its seats, options and bots.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def register_new_webhooks(spec: Any, one_game: str) -> None:
    """``NewWebhook`` (POST /webhooks) as the union on ``scope`` of a one-game subscription,
    whose ``game_id`` is required, and the others, which ignore it."""
    schemas = spec.components.schemas
    common = schemas["NewWebhook"]
    others = [scope for scope in common["properties"]["scope"]["enum"] if scope != one_game]
    variants = {
        "NewGameWebhook": ([one_game], {"game_id": {**common["properties"]["game_id"], "nullable": False,
                                                    "description": "the game whose events are sent"}}, ["game_id"]),
        "NewWideWebhook": (others, {"game_id": {**common["properties"]["game_id"],
                                                "description": "ignored: only the scope game names one"}}, []),
    }
    mapping = {}
    for name, (scopes, game_id, required) in variants.items():
        properties = copy.deepcopy(common["properties"])
        properties["scope"]["enum"] = scopes
        properties.update(game_id)
        if not game_id["game_id"].get("nullable"):
            properties["game_id"].pop("default", None)
        schemas[name] = {**copy.deepcopy(common), "properties": properties,
                         "required": [*common["required"], *required]}
        mapping.update({scope: f"#/components/schemas/{name}" for scope in scopes})
    schemas["NewWebhook"] = {
        "description": "A subscription; `scope` says which games, and whether `game_id` names one.",
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in variants],
        "discriminator": {"propertyName": "scope", "mapping": mapping},
    }
