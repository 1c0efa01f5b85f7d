"""``evolve`` dispatches by a ``match`` on the event type: its ``case`` labels, ``EVENT_TYPES``
and the event constructors of ``events.py`` must name the same types, and no label may be
unreachable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain.games.dynasties import events as events_module
from domain.games.dynasties.events import SETUP_STARTED
from domain.games.dynasties.evolve import EVENT_TYPES, evolve
from domain.kernel.events import Event

#: the sources themselves (where the engine is compiled, the modules are C extensions)
SOURCES = Path(__file__).resolve().parents[3] / "domain" / "games" / "dynasties"


def _case_labels() -> list[str]:
    tree = ast.parse((SOURCES / "evolve.py").read_text())
    (function,) = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "evolve"]
    (match,) = [node for node in ast.walk(function) if isinstance(node, ast.Match)]
    labels = []
    for case in match.cases:
        if isinstance(case.pattern, ast.MatchValue):
            assert isinstance(case.pattern.value, ast.Constant)
            labels.append(case.pattern.value.value)
    return labels


def _constructed_types() -> set[str]:
    """The type of every event ``events.py`` makes: the first argument of each ``Event(...)``."""
    tree = ast.parse((SOURCES / "events.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event":
            first = node.args[0]
            found.add(first.value if isinstance(first, ast.Constant) else getattr(events_module, first.id))
    return found


def test_the_match_and_event_types_name_the_same_types_once():
    labels = _case_labels()
    assert len(labels) == len(set(labels)), "a type is matched twice: the second case is never reached"
    assert EVENT_TYPES[0] == SETUP_STARTED
    assert sorted(labels) == sorted(EVENT_TYPES[1:])
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES))


def test_every_event_the_rules_make_has_a_case():
    assert _constructed_types() == set(EVENT_TYPES)


def test_an_unknown_type_is_refused_by_name():
    state = evolve(None, next(e for e in _setup_events() if e.type == SETUP_STARTED))
    with pytest.raises(ValueError, match="no event type 'Nonesuch'"):
        evolve(state, Event("Nonesuch", {}))


def _setup_events() -> list[Event]:
    from domain.games.dynasties import RULES
    from domain.kernel.rng import Rng
    return RULES.setup(3, RULES.check_options({}), Rng(1, 0))
