"""Every game the server hosts, by its type name."""

from __future__ import annotations

from domain.kernel.rules import GameRules


def default_registry() -> dict[str, GameRules]:
    from domain.games.dynasties import RULES as DYNASTIES

    return {DYNASTIES.kind: DYNASTIES}
