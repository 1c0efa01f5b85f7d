"""The speed rules of docs/adding-a-game.md ("What keeps the compiled engine fast"), checked
over the source of every module mypyc compiles (setup.py's ``INTERPRETED`` are left out), in
the bodies of functions and methods (what runs at import, once, is free to read well):

- ``enum-iteration``: ``for c in Coalition`` runs the enum's interpreted generator; iterate a
  tuple made once (``COALITIONS``);
- ``enum-call``: ``Region(name)`` runs ``Enum.__call__``; look the member up in a dict made
  once (``REGION_BY_ID``), or parse a client's value by its verb's ``Kind``;
- ``generator-builtin``: ``any(x for ...)``, ``sum(...)``, ``max(...)``, ``"".join(...)`` of a
  generator expression make a generator object and call a builtin through Python; write the
  loop over the list;
- ``typing-cast``: ``cast`` is a real call; annotate a local instead;
- ``dataclasses-replace``: reads the fields one by one, interpreted; make the copy by a method;
- ``closure-in-method``: a ``lambda`` or nested function in a method, which mypyc does not
  compile (use a module-level function and ``functools.partial``).

What the engine still does against these rules is listed in ``OWED``, by module and rule, as
a count that may only go down: a new breach fails, and so does a count left above what the
code does (lower it when you fix one), so the list is always the exact debt.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

GENERATOR_BUILTINS = {"any", "all", "sum", "max", "min", "sorted", "tuple", "list", "set", "frozenset", "dict",
                      "next", "enumerate", "zip", "map", "filter"}

#: (module, rule): how many times it breaks the rule now. Only ever lowered.
OWED: dict[tuple[str, str], int] = {
    ('domain/games/dynasties/__init__.py', 'closure-in-method'): 1,
    ('domain/games/dynasties/rules.py', 'generator-builtin'): 8,
    ('domain/games/pax_pamir/__init__.py', 'closure-in-method'): 1,
    ('domain/games/pax_pamir/data/board.py', 'enum-call'): 1,
    ('domain/games/pax_pamir/data/board.py', 'generator-builtin'): 1,
    ('domain/games/pax_pamir/data/cards.py', 'enum-call'): 5,
    ('domain/games/pax_pamir/options.py', 'generator-builtin'): 6,
    ('domain/games/pax_pamir/places.py', 'generator-builtin'): 1,
    ('domain/games/pax_pamir/queries.py', 'generator-builtin'): 5,
    ('domain/games/pax_pamir/steps/battle.py', 'generator-builtin'): 2,
    ('domain/games/pax_pamir/steps/dominance.py', 'generator-builtin'): 5,
    ('domain/games/pax_pamir/steps/event_cards.py', 'enum-call'): 2,
    ('domain/games/pax_pamir/steps/event_cards.py', 'enum-iteration'): 2,
    ('domain/games/pax_pamir/steps/setup.py', 'enum-iteration'): 1,
    ('domain/games/pax_pamir/steps/tax.py', 'generator-builtin'): 1,
    ('domain/games/pax_pamir/view.py', 'enum-iteration'): 2,
    ('domain/games/pax_pamir/view.py', 'generator-builtin'): 1,
    ('domain/games/pax_pamir/wakhan/__init__.py', 'generator-builtin'): 1,
    ('domain/games/pax_pamir/wakhan/actions.py', 'enum-call'): 1,
    ('domain/games/pax_pamir/wakhan/actions.py', 'enum-iteration'): 1,
    ('domain/games/pax_pamir/wakhan/actions.py', 'generator-builtin'): 9,
    ('domain/games/pax_pamir/wakhan/ai_cards.py', 'enum-call'): 2,
    ('domain/games/pax_pamir/wakhan/ai_cards.py', 'generator-builtin'): 2,
    ('domain/games/pax_pamir/wakhan/answers.py', 'enum-call'): 1,
    ('domain/games/pax_pamir/wakhan/answers.py', 'enum-iteration'): 1,
    ('domain/games/pax_pamir/wakhan/answers.py', 'generator-builtin'): 2,
    ('domain/games/pax_pamir/wakhan/priority.py', 'generator-builtin'): 2,
    ('domain/games/pax_pamir/wakhan/radicalize.py', 'generator-builtin'): 7,
    ('domain/kernel/endings.py', 'generator-builtin'): 3,
    ('domain/kernel/engine.py', 'generator-builtin'): 1,
    ('domain/kernel/engine.py', 'typing-cast'): 1,
    ('domain/kernel/invitations.py', 'dataclasses-replace'): 3,
    ('domain/kernel/prompt.py', 'generator-builtin'): 3,
    ('domain/kernel/steps.py', 'typing-cast'): 1,
    ('domain/kernel/table.py', 'dataclasses-replace'): 1,
}


def _interpreted() -> set[str]:
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["INTERPRETED"]:
            return set(ast.literal_eval(node.value))
    raise AssertionError("setup.py names no INTERPRETED")


def compiled_sources() -> list[Path]:
    interpreted = _interpreted()
    return [path for path in sorted((ROOT / "domain").rglob("*.py"))
            if path.relative_to(ROOT).as_posix() not in interpreted]


def _enum_names(trees: list[ast.Module]) -> set[str]:
    """The enum classes defined in ``domain/`` (their bases name an Enum)."""
    return {node.name for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any("Enum" in ast.unparse(base) for base in node.bases)}


def _breaches(tree: ast.Module, enums: set[str]) -> Counter[str]:
    found: Counter[str] = Counter()
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    seen: set[int] = set()
    for function in functions:
        for node in ast.walk(function):
            if id(node) in seen or node is function:
                continue
            seen.add(id(node))
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) \
                    and node.iter.id in enums:
                found["enum-iteration"] += 1
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if isinstance(func, ast.Name) and name in enums and node.args:
                found["enum-call"] += 1
            if any(isinstance(arg, ast.GeneratorExp) for arg in node.args) and (
                    (isinstance(func, ast.Name) and name in GENERATOR_BUILTINS) or name == "join"):
                found["generator-builtin"] += 1
            if name == "cast":
                found["typing-cast"] += 1
            if name == "replace" and (isinstance(func, ast.Name) or ast.unparse(func) == "dataclasses.replace"):
                found["dataclasses-replace"] += 1
    for klass in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for method in (node for node in klass.body if isinstance(node, ast.FunctionDef)):
            found["closure-in-method"] += sum(1 for node in ast.walk(method) if node is not method
                                              and isinstance(node, (ast.Lambda, ast.FunctionDef)))
    return found


def measure() -> dict[tuple[str, str], int]:
    sources = compiled_sources()
    trees = {path: ast.parse(path.read_text()) for path in sources}
    enums = _enum_names(list(trees.values()))
    return {(path.relative_to(ROOT).as_posix(), rule): count
            for path, tree in trees.items() for rule, count in sorted(_breaches(tree, enums).items()) if count}


def test_the_compiled_modules_keep_the_speed_rules_or_owe_no_more_than_listed():
    found = measure()
    new = {key: count for key, count in found.items() if count > OWED.get(key, 0)}
    paid = {key: count for key, count in OWED.items() if found.get(key, 0) < count}
    assert not new, (f"speed rules of docs/adding-a-game.md broken (module, rule): found/allowed "
                     f"{ {key: (count, OWED.get(key, 0)) for key, count in new.items()} }")
    assert not paid, f"fixed, well done: lower OWED to {  {key: found.get(key, 0) for key in paid} }"


def test_the_check_sees_each_kind_of_breach():
    source = '''
import enum
from dataclasses import replace
from typing import cast

class Colour(enum.Enum):
    RED = "red"

def hot(values, x):
    for c in Colour:
        pass
    Colour("red")
    total = sum(v for v in values) + any(v for v in values)
    ",".join(str(v) for v in values)
    replace(x, a=1)
    return cast(int, x)

class Step:
    def method(self):
        return sorted([1], key=lambda v: v)

TABLE = tuple(c for c in Colour)  # at import: allowed
'''
    found = _breaches(ast.parse(source), {"Colour"})
    assert found == {"enum-iteration": 1, "enum-call": 1, "generator-builtin": 3, "dataclasses-replace": 1,
                     "typing-cast": 1, "closure-in-method": 1}
