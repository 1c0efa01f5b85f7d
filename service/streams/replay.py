"""A replay: the game step by step, each standing event with the view right after it."""

from __future__ import annotations

from typing import Any

from domain.kernel.table import read_event
from service.adapters.store import Recorded
from service.streams.envelopes import Viewer, is_platform, is_undo, public_event
from service.streams.game import Game

VIEWS_PER_PAGE = 200  # a page ends at its 200th view, whatever its limit (a view of a long game is big)


def replay_steps(game: Game, records: list[Recorded], viewer: Viewer, after: int = 0,
                 limit: int = 50, view_every: int = 1) -> dict[str, Any]:
    """Up to ``limit`` steps after version ``after`` of ``game`` (whose stream is
    ``records``), as ``viewer`` may see them; events taken back by an undo, and the undos
    themselves, are left out. A step carries its view when its version is a multiple of
    ``view_every``, and the game's last step always does; with ``view_every`` 0 no step does
    (a viewer that draws the table of one step at a time lists the steps first, cheaply). A page
    ends sooner at its ``VIEWS_PER_PAGE``-th view: ``next_after`` says where the next one starts."""
    rules, state = game.rules, None
    steps: list[dict[str, Any]] = []
    views = 0
    last_standing = max((r.version for r in records
                         if r.version not in game.undone and not is_undo(r.event)), default=0)
    for record in records:
        if record.version in game.undone or is_undo(record.event):
            continue
        if view_every and not is_platform(record.event):  # platform events change no view
            state = rules.evolve(state, read_event(record.event, rules.upcasters))
        if record.version > after:
            step: dict[str, Any] = {"event": public_event(record, viewer, rules.upcasters)}
            if view_every and (record.version % view_every == 0 or record.version == last_standing):
                step["view"] = rules.view(state, viewer) if state is not None else None
                views += 1
            steps.append(step)
            if len(steps) == limit or views == VIEWS_PER_PAGE:
                break
    last = steps[-1]["event"]["version"] if steps else None
    return {"version": game.version, "steps": steps,
            "next_after": last if last is not None and last < game.version else None}
