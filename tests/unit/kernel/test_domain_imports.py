"""The domain imports the standard library, itself and mypy_extensions (compiler marks), nothing else.

import-linter's contract forbids the frameworks by name; this checks the other way round, so a
new third-party import in ``domain/`` (a YAML parser, a JSON library) fails here even when no
contract names it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[3] / "domain"
ALLOWED = {"domain", "mypy_extensions", "__future__"}


def imported_roots(source: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source.read_text(), str(source))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_domain_imports_only_the_standard_library_itself_and_mypy_extensions():
    sources = sorted(DOMAIN.rglob("*.py"))
    assert len(sources) > 40, "the domain's sources were not found"
    outside = {str(source.relative_to(DOMAIN.parent)): sorted(roots)
               for source in sources
               if (roots := imported_roots(source) - ALLOWED - sys.stdlib_module_names)}
    assert outside == {}


def test_the_check_sees_a_third_party_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import json\nfrom yaml import safe_load\nfrom . import sibling\n")
    assert imported_roots(module) - ALLOWED - sys.stdlib_module_names == {"yaml"}
