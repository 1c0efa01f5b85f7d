"""Each game's commands as schemas: one per command type, and their union on ``type``.

The same schemas check a posted command and write the contract, so a client generated
from openapi.yaml is typed per command.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from domain.kernel import Command, GameRules
from domain.kernel.prompt import Arg
from service.base.errors import Unprocessable

#: Bounds on any one argument value; the game's prompt says which values are allowed now.
TEXT_MIN, TEXT_MAX = 1, 64
NUMBER_MIN, NUMBER_MAX = -(2**31), 2**31 - 1
TEXT_LENGTH = validate.Length(min=TEXT_MIN, max=TEXT_MAX)
NUMBER_RANGE = validate.Range(min=NUMBER_MIN, max=NUMBER_MAX)
MAX_LIST = 120


def _value_field(arg: Arg, required: bool = False) -> fields.Field:
    metadata = {"description": arg.kind.description, "x-kind": arg.kind.name}
    if arg.kind.json_type == "integer":
        return fields.Integer(strict=True, validate=NUMBER_RANGE, metadata=metadata, required=required)
    pattern = arg.kind.pattern
    if pattern is None:
        return fields.String(validate=TEXT_LENGTH, metadata=metadata, required=required)
    # a free-form value (a hash): its strict shape is in the contract, and the rules check it again
    shape = validate.Regexp(f"^(?:{pattern})$", error=f"must be {arg.kind.description}")
    return fields.String(validate=[TEXT_LENGTH, shape], metadata=metadata, required=required)


def arg_field(arg: Arg) -> fields.Field:
    """The marshmallow field of one command argument, from its kind (a value or a list)."""
    if arg.many:
        return fields.List(_value_field(arg), required=True, validate=validate.Length(max=MAX_LIST),
                           metadata={"description": f"a list: {arg.kind.description}", "x-kind": arg.kind.name})
    return _value_field(arg, required=True)


#: a check that a value is certainly valid (False: let the schema decide, and name the error)
Check = Callable[[Any], bool]


def _value_check(arg: Arg) -> Check:
    """What ``_value_field`` accepts, for the values it gives back unchanged: an integer as
    JSON gives it (not a bool, nor a float or a string marshmallow would convert), a string."""
    if arg.kind.json_type == "integer":
        return lambda value: type(value) is int and NUMBER_MIN <= value <= NUMBER_MAX
    if arg.kind.pattern is None:
        return lambda value: type(value) is str and TEXT_MIN <= len(value) <= TEXT_MAX
    shape = re.compile(f"^(?:{arg.kind.pattern})$")  # as validate.Regexp matches it
    return lambda value: type(value) is str and TEXT_MIN <= len(value) <= TEXT_MAX and shape.match(value) is not None


def _args_check(arg: Arg | None) -> Check:
    """What the strict args schema of ``arg`` accepts, as ``_value_check`` does."""
    if arg is None:
        return lambda args: type(args) is dict and not args
    name, value = arg.name, _value_check(arg)
    if not arg.many:
        return lambda args: type(args) is dict and len(args) == 1 and name in args and value(args[name])
    return lambda args: (type(args) is dict and len(args) == 1 and type(args.get(name)) is list
                         and len(args[name]) <= MAX_LIST and all(value(item) for item in args[name]))


_COMMAND_KEYS = frozenset({"type", "args", "expected_version"})
VERSION_MAX = 2**31 - 1
_VERSION_RANGE = validate.Range(min=0, max=VERSION_MAX)


def _strict(name: str, spec: dict[str, fields.Field]) -> type[Schema]:
    schema = Schema.from_dict(spec, name=name)
    schema.Meta.unknown = RAISE
    return schema


def command_schemas(registry: Mapping[str, GameRules]) -> dict[str, type[Schema]]:
    """``{command type: schema}`` for every command of every game.

    A posted command is parsed before its game is loaded, so a command type means one
    shape across every game the server hosts: two games may share a type only with the
    same argument."""
    out: dict[str, type[Schema]] = {}
    shapes: dict[str, tuple[str, Any]] = {}
    for rules in registry.values():
        for spec in rules.commands:
            shape = spec.arg.to_json() if spec.arg else None
            if spec.type in shapes and shapes[spec.type][1] != shape:
                raise ValueError(f"{rules.kind} and {shapes[spec.type][0]} both have a command {spec.type!r} "
                                 f"with different arguments; command types are global to the server")
            shapes[spec.type] = (rules.kind, shape)
            args = _strict(f"{spec.type}Args", {spec.arg.name: arg_field(spec.arg)} if spec.arg else {})
            out[spec.type] = _strict(f"{spec.type}Command", {
                "type": fields.String(required=True, validate=validate.OneOf([spec.type]),
                                      metadata={"description": spec.description}),
                "args": fields.Nested(args, required=True),
                "expected_version": fields.Integer(allow_none=True, strict=True, validate=_VERSION_RANGE, metadata={
                    "description": "refuse with 409 unless the game is at this version"}),
            })
            out[spec.type].certainly_valid_args = staticmethod(_args_check(spec.arg))  # type: ignore[attr-defined]
    return out


def register_in_spec(spec, schemas: dict[str, type[Schema]]) -> None:
    """Add each command schema and their union ``GameCommand`` to the spec."""
    mapping = {}
    for command_type, schema in schemas.items():
        name = f"{command_type}Command"
        spec.components.schema(name, schema=schema)
        mapping[command_type] = f"#/components/schemas/{name}"
    spec.components.schema("GameCommand", {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    })


def parse_command(body: Any, schemas: dict[str, type[Schema]]) -> tuple[Command, int | None]:
    """A posted body as a Command of some hosted game, or a readable 422.

    Whether the game at hand has this command is the command handler's to say
    (``GameService.submit_command``), so parsing needs no game loaded.
    """
    if not isinstance(body, dict):
        raise Unprocessable("the body must be a JSON object {type, args, expected_version?}", code="invalid_input")
    command_type = body.get("type")
    if not isinstance(command_type, str) or command_type not in schemas:
        raise Unprocessable(f"unknown command type {command_type!r}; commands are: {', '.join(schemas)}",
                            code="invalid_input")
    schema = schemas[command_type]
    # The common case, a command exactly as the legal-commands answer lists it, is checked
    # by hand against the same shape; anything else (or anything marshmallow would convert)
    # goes through the schema, which accepts it the same way or names what is wrong.
    expected = body.get("expected_version")
    if (body.keys() <= _COMMAND_KEYS and "args" in body and schema.certainly_valid_args(body["args"])  # type: ignore[attr-defined]
            and (expected is None or (type(expected) is int and 0 <= expected <= VERSION_MAX))):
        return Command(command_type, {name: list(value) if type(value) is list else value
                                      for name, value in body["args"].items()}), expected
    loaded = _instance(schema).load(body)  # a ValidationError becomes a 422 naming the field
    return Command(loaded["type"], dict(loaded["args"])), loaded.get("expected_version")


#: one instance per command schema: building a marshmallow schema (its fields, and the
#: nested args schema on first use) cost more than loading a command with it; a load keeps
#: no state on the instance
_INSTANCES: dict[type[Schema], Schema] = {}


def _instance(schema: type[Schema]) -> Schema:
    found = _INSTANCES.get(schema)
    if found is None:
        found = _INSTANCES[schema] = schema()
    return found
