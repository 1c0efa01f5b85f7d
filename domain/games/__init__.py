"""Every game the server hosts, by its type name."""

from __future__ import annotations

from typing import Any

from domain.kernel.rules import GameRules


def default_registry() -> dict[str, GameRules[Any, Any]]:
    from domain.games.dynasties import RULES as DYNASTIES
    from domain.games.pax_pamir import RULES as PAX_PAMIR

    return {DYNASTIES.kind: DYNASTIES, PAX_PAMIR.kind: PAX_PAMIR}
