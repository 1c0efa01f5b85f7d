"""A replay: the game step by step, each standing event with the view right after it."""

from __future__ import annotations

from typing import Any

from domain.kernel.table import read_event
from service.adapters.store import Recorded
from service.envelopes import Viewer, is_platform, is_undo, public_event
from service.game import Game


def replay_steps(game: Game, records: list[Recorded], viewer: Viewer, after: int = 0,
                 limit: int = 50) -> dict[str, Any]:
    """Up to ``limit`` steps after version ``after`` of ``game`` (whose stream is
    ``records``), as ``viewer`` may see them; events taken back by an undo, and the undos
    themselves, are left out."""
    rules, state = game.rules, None
    steps: list[dict[str, Any]] = []
    for record in records:
        if record.version in game.undone or is_undo(record.event):
            continue
        if not is_platform(record.event):  # platform events change no view
            state = rules.evolve(state, read_event(record.event, rules.upcasters))
        if record.version > after:
            view = rules.view(state, viewer) if state is not None else None
            steps.append({"event": public_event(record, viewer, rules.upcasters), "view": view})
            if len(steps) == limit:
                break
    last = steps[-1]["event"]["version"] if steps else None
    return {"version": game.version, "steps": steps,
            "next_after": last if last is not None and last < game.version else None}
