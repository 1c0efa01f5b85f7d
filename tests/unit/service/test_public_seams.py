"""service/ uses Flask, Werkzeug and flask-smorest (and apispec and webargs, whose objects
flask-smorest hands out) through their public names only (issue 39).

A private name of theirs (one starting with ``_``, not a dunder) is one their own sources
define: a function, class, module, assignment, attribute set, or attribute named by a string
to ``getattr``/``setattr``. In every module of service/ this test looks for such a name

* read or written as an attribute of anything but ``self``/``cls`` (``view._apidoc``,
  ``request._cached_json``), unless service/ makes that name its own (a def, a class, a
  module-level name, an attribute of ``self``/``cls``) and the object is not one of theirs;
* read or written on ``self``/``cls`` in a class that derives from one of theirs, or defined
  there as a method (an override of their private method);
* named by a string to ``getattr``, ``setattr``, ``hasattr`` or ``delattr``;
* imported from their modules, or one of their private modules imported (``werkzeug._internal``).

and fails naming each file:line. A new upgrade of the libraries that adds a private name
service/ happens to use makes it fail too: that is the point.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SERVICE = ROOT / "service"
#: Flask, Werkzeug, flask-smorest, and the two libraries whose objects flask-smorest hands out
#: (``api.spec`` is apispec's ``APISpec``; its argument parser is webargs')
LIBRARIES = ("flask", "werkzeug", "flask_smorest", "apispec", "webargs")
NAMING_BUILTINS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def defined_names(tree: ast.AST, *, own: bool = False) -> Iterator[str]:
    """Every name a module defines or sets: defs, classes, assigned names and attributes,
    imported aliases, and attribute names given as strings to ``setattr``/``getattr``.
    ``own``: only the names it makes its own (an attribute set on ``self`` or ``cls``, not one
    set on another object or named by a string)."""
    for node in ast.walk(tree):
        if own and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                yield node.attr
            continue
        if own and isinstance(node, ast.Call):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            yield node.attr
        elif isinstance(node, ast.alias):
            yield node.asname or node.name.split(".")[0]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMING_BUILTINS \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            yield node.args[1].value


def library_files(library: str) -> list[Path]:
    spec = importlib.util.find_spec(library)
    assert spec is not None and spec.submodule_search_locations, library
    return sorted(path for location in spec.submodule_search_locations for path in Path(location).rglob("*.py"))


@cache
def library_private_names() -> frozenset[str]:
    names: set[str] = set()
    for library in LIBRARIES:
        for path in library_files(library):
            names.update(part for part in path.with_suffix("").parts if is_private(part))
            names.update(name for name in defined_names(ast.parse(path.read_text(encoding="utf-8")))
                         if is_private(name))
    return frozenset(names)


def service_files() -> list[Path]:
    return sorted(SERVICE.rglob("*.py"))


@cache
def service_private_names() -> frozenset[str]:
    return frozenset(name for path in service_files()
                     for name in defined_names(ast.parse(path.read_text(encoding="utf-8")), own=True)
                     if is_private(name))


def _is_library_module(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in LIBRARIES


class Finder(ast.NodeVisitor):
    """The uses of the libraries' private names in one module (see the module's docstring)."""

    def __init__(self, theirs: frozenset[str], ours: frozenset[str]) -> None:
        self.theirs = theirs
        self.ours = ours
        self.library_bound: set[str] = set()  # the names this module imports from the libraries
        self.found: list[tuple[int, str]] = []
        self.classes: list[bool] = []  # per enclosing class: does it derive from a class of theirs?

    def report(self, node: ast.AST, what: str) -> None:
        self.found.append((getattr(node, "lineno", 0), what))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if _is_library_module(alias.name):
                self.library_bound.add(alias.asname or alias.name.split(".")[0])
                if any(is_private(part) for part in alias.name.split(".")):
                    self.report(node, f"imports their private module {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not _is_library_module(node.module):
            return
        module = node.module or ""
        if any(is_private(part) for part in module.split(".")):
            self.report(node, f"imports from their private module {module}")
        for alias in node.names:
            self.library_bound.add(alias.asname or alias.name)
            if is_private(alias.name):
                self.report(node, f"imports their private {module}.{alias.name}")

    def _from_library(self, base: ast.expr) -> bool:
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Subscript):
            return self._from_library(base.value)
        return isinstance(base, ast.Name) and base.id in self.library_bound

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        derives = any(self._from_library(base) for base in node.bases)
        if derives:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in self.theirs:
                    self.report(item, f"class {node.name} overrides their private {item.name}")
        self.classes.append(derives)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        if is_private(name) and name in self.theirs:
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if on_self:
                if self.classes and self.classes[-1]:
                    self.report(node, f"{node.value.id}.{name}: their private attribute, in a subclass of theirs")
            elif name not in self.ours or self._from_library(node.value):
                self.report(node, f".{name}: their private attribute")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in NAMING_BUILTINS and len(node.args) > 1:
            named = node.args[1]
            if isinstance(named, ast.Constant) and isinstance(named.value, str) and is_private(named.value) \
                    and named.value in self.theirs:
                self.report(node, f'{node.func.id}(..., "{named.value}"): their private attribute')
        self.generic_visit(node)


def uses(source: str, theirs: frozenset[str], ours: frozenset[str]) -> list[tuple[int, str]]:
    finder = Finder(theirs, ours)
    finder.visit(ast.parse(source))
    return finder.found


def findings(paths: Iterable[Path]) -> list[str]:
    theirs, ours = library_private_names(), service_private_names()
    return [f"{path.relative_to(ROOT)}:{line}: {what}"
            for path in paths for line, what in uses(path.read_text(encoding="utf-8"), theirs, ours)]


def test_service_uses_no_private_name_of_flask_werkzeug_or_flask_smorest():
    found = findings(service_files())
    assert not found, "private names of Flask, Werkzeug or flask-smorest used in service/:\n" + "\n".join(found)


def test_the_libraries_private_names_are_found():
    """The names the search looks for include the ones service/ once used."""
    theirs = library_private_names()
    assert {"_apidoc", "_cached_json", "_find_error_handler", "_get_current_object", "_paths",
            "_register_responses"} <= theirs
    assert "_sync" not in theirs or "_sync" in service_private_names()


def test_each_kind_of_use_is_reported():
    theirs = frozenset({"_apidoc", "_cached_json", "_find_error_handler", "_internal", "_paths", "_prepare"})
    source = '''
import werkzeug._internal
from flask import _cv_request
from flask_smorest import Api
from flask import Flask
from somewhere import Mine

view._apidoc = documented._apidoc
request._cached_json = (1, 1)
getattr(view, "_apidoc", {})
api.spec._paths["/x"] = {}

class Smorest(Api):
    def _prepare(self): ...
    def public(self):
        return self._paths

class App(Flask):
    def handler(self, exc):
        return Flask._find_error_handler(self, exc, ())

class Own(Mine):
    def _prepare(self):
        return self._paths  # a name of its own in a class of ours: not theirs
'''
    found = uses(source, theirs, frozenset({"_paths"}))
    lines = sorted(line for line, _ in found)
    assert lines == [2, 3, 8, 8, 9, 10, 14, 16, 20], found
    assert uses("self._apidoc = 1\nthing._mine = 2\n", theirs, frozenset()) == []
