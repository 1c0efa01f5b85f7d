"""Both games' ``evolve`` dispatch by a ``match`` on the event type, the one list of each
game's types: its ``case`` labels and the types the game's event constructors make must be the
same, no label may be matched twice, and an unknown type is refused by name."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from domain.games import default_registry
from domain.kernel.events import Event
from domain.kernel.rng import Rng

#: the sources themselves (where the engine is compiled, the modules are C extensions)
GAMES = Path(__file__).resolve().parents[3] / "domain" / "games"
KINDS = ["dynasties", "pax_pamir"]


def _case_labels(kind: str) -> list[str]:
    tree = ast.parse((GAMES / kind / "evolve.py").read_text())
    (function,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "evolve"]
    (match,) = [node for node in ast.walk(function) if isinstance(node, ast.Match)]
    labels = []
    for case in match.cases:
        if isinstance(case.pattern, ast.MatchValue):
            assert isinstance(case.pattern.value, ast.Constant)
            labels.append(case.pattern.value.value)
    return labels


def _constructed_types(kind: str) -> set[str]:
    """The type of every event the game's ``events.py`` makes: the first argument of each ``Event(...)``."""
    events_module = importlib.import_module(f"domain.games.{kind}.events")
    tree = ast.parse((GAMES / kind / "events.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event":
            first = node.args[0]
            found.add(first.value if isinstance(first, ast.Constant) else getattr(events_module, first.id))
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_the_match_names_every_type_the_rules_make_once(kind):
    labels = _case_labels(kind)
    setup_started = importlib.import_module(f"domain.games.{kind}.events").SETUP_STARTED
    assert len(labels) == len(set(labels)), "a type is matched twice: the second case is never reached"
    assert setup_started not in labels, "the first event makes the state: evolve handles it before the match"
    assert set(labels) | {setup_started} == _constructed_types(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_type_is_refused_by_name(kind):
    rules = default_registry()[kind]
    state = rules.evolve(None, rules.setup(2, rules.check_options({}), Rng(1, 0))[0])
    with pytest.raises(ValueError, match="no event type 'Nonesuch'"):
        rules.evolve(state, Event("Nonesuch", {}))
