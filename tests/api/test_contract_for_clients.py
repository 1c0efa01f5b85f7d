"""The contract as client generators read it: every operation named, every component
used and resolvable, every nullable object typed, every error a Problem."""

from __future__ import annotations

import re

import yaml

from service.api.app import committed_spec_path


def _spec() -> dict:
    return yaml.safe_load(committed_spec_path().read_text())


def _operations(spec):
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method != "parameters":
                yield f"{method.upper()} {path}", operation


def _refs(node) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def test_every_operation_has_a_short_unique_operation_id():
    ids = {name: operation.get("operationId") for name, operation in _operations(_spec())}
    assert all(ids.values()), [name for name, op_id in ids.items() if not op_id]
    assert len(set(ids.values())) == len(ids), "operationIds must be unique"
    for name, op_id in ids.items():
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", op_id) and len(op_id) <= 20, f"{name}: {op_id}"
    assert ids["GET /games/{game_id}/legal-commands"] == "getLegalCommands"
    assert ids["POST /games/{game_id}/commands"] == "submitCommand"


def test_every_component_is_used_and_every_reference_resolves():
    spec = _spec()
    components = {f"#/components/{kind}/{name}" for kind, named in spec["components"].items()
                  if kind != "securitySchemes" for name in named}
    reached, todo = set(), _refs(spec["paths"])
    while todo:
        ref = todo.pop()
        assert ref in components, f"{ref} is referred to but not defined"
        if ref not in reached:
            reached.add(ref)
            _, _, kind, name = ref.split("/")
            todo |= _refs(spec["components"][kind][name])
    assert components == reached, f"unused components: {sorted(components - reached)}"
    assert "Error" not in spec["components"]["schemas"] and "PaginationMetadata" not in spec["components"]["schemas"]


def test_no_response_field_is_an_anonymous_map_beside_its_type():
    """A nullable object is `allOf`/`oneOf` of its one type with nullable, never `anyOf` with
    an untyped object (which generators turn into a second, anonymous type)."""
    text = committed_spec_path().read_text()
    assert "anyOf" not in text
    schemas = _spec()["components"]["schemas"]
    assert schemas["Game"]["properties"]["outcome"] == {"allOf": [{"$ref": "#/components/schemas/Outcome"}],
                                                        "nullable": True}
    assert schemas["State"]["properties"]["view"]["oneOf"] == [{"$ref": "#/components/schemas/GameView"}]
    assert schemas["GameView"]["discriminator"]["propertyName"] == "game"
    assert schemas["LegalCommands"]["properties"]["commands"]["items"] == {"$ref": "#/components/schemas/GameCommand"}


def test_every_error_answer_is_a_problem():
    for name, operation in _operations(_spec()):
        assert operation["responses"]["default"] == {"$ref": "#/components/responses/Problem"}, name
        for status, response in operation["responses"].items():
            if status != "default" and int(status) >= 400:
                content = response.get("content") or _spec()["components"]["responses"][
                    response["$ref"].split("/")[-1]]["content"]
                assert list(content) == ["application/problem+json"], f"{name} {status}"


def test_docs_api_md_names_every_operation():
    text = (committed_spec_path().parent / "docs" / "api.md").read_text()
    missing = [op["operationId"] for _, op in _operations(_spec()) if f"`{op['operationId']}`" not in text]
    assert not missing, f"docs/api.md does not list {missing}"
