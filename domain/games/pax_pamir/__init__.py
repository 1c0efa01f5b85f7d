"""Pax Pamir (second edition) for 2 to 5 players. The engine specification is
``shared/rules/paxpamir/rules.md`` (rule ids such as R-PUR-3); the rules as played here,
with every decision taken where the rulebook is silent, are in ``docs/rules/pax_pamir.md``.

``RULES`` is what the platform registers. Each rulebook procedure is a kernel step in
``steps/``; this class only says where Pax Pamir keeps things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.games.pax_pamir import bots as _bots
from domain.games.pax_pamir.data.board import MAX_SEATS, MIN_SEATS, Suit
from domain.games.pax_pamir.evolve import EVENT_TYPES, evolve
from domain.games.pax_pamir.options import PaxOptions
from domain.games.pax_pamir.queries import stars
from domain.games.pax_pamir.state import PaxState, copy_state
from domain.games.pax_pamir.steps import (
    actions,
    bribes,
    cleanup,
    common,
    court,
    dominance,
    event_cards,
    setup,
    turn,
)
from domain.games.pax_pamir.view import view as _view
from domain.kernel.engine import StepRules
from domain.kernel.errors import InvalidOptions
from domain.kernel.events import Event, Viewer
from domain.kernel.rng import Rng
from domain.kernel.rules import Outcome
from domain.kernel.steps import step_table

MODULES = (common, setup, turn, actions, bribes, court, cleanup, dominance, event_cards)


class PaxPamirRules(StepRules[PaxState]):
    kind = "pax_pamir"
    title = "Pax Pamir (2nd edition)"
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options_type = PaxOptions
    options = PaxOptions.specs()
    event_types = EVENT_TYPES
    verbs = tuple(verb for module in MODULES for verb in getattr(module, "VERBS", ()))
    steps = step_table(*(step for module in MODULES for step in getattr(module, "STEPS", ())))
    #: Section 23 item 9: undo stops where the seat owing the next decision changes.
    barrier_on_handover = True

    def check_options(self, given: Mapping[str, Any] | None) -> PaxOptions:
        return PaxOptions.check(given)

    def setup(self, seats: int, options: PaxOptions, rng: Rng) -> list[Event]:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise InvalidOptions("players", f"Pax Pamir seats {MIN_SEATS} to {MAX_SEATS}, not {seats}")
        flow = self.begin_setup(rng)
        setup.setup(flow, seats, options)
        self.run_until_input(flow)
        return flow.events

    def apply(self, state: PaxState | None, event: Event) -> PaxState:
        return evolve(state, event)

    def is_over(self, state: PaxState) -> bool:
        return state.over

    def view(self, state: PaxState, viewer: Viewer) -> dict[str, Any]:
        return _view(state, viewer, self.to_move(state))

    def outcome(self, state: PaxState) -> Outcome | None:
        ended = state.outcome
        if ended is None:
            return None
        return Outcome(winners=tuple(ended["winners"]), scores=dict(enumerate(ended["vp"])),
                       details={"reason": ended["reason"], "rupees": [p.rupees for p in state.players],
                                "military_stars": [stars(state, seat, Suit.MILITARY) for seat in range(state.seats)]})

    def copy(self, state: PaxState) -> PaxState:
        return copy_state(state)

    # -- what computer opponents need (``domain.kernel.bots``) ------------------------------
    score_scale = _bots.SCORE_SCALE
    face_down_verbs: frozenset[str] = frozenset()
    #: bot kinds of this game's own, beside random, greedy and mcts (name -> ``BotKind``)
    bot_kinds: dict[str, Any] = {}

    def sampler(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int) -> Any:
        """A full state consistent with what ``seat`` has seen, drawn at random (``bots``)."""
        return _bots.sampler(view, events, seat, self.evolve)

    def scores(self, state: PaxState) -> list[float]:
        return _bots.scores(state)


RULES = PaxPamirRules()

__all__ = ["RULES", "PaxPamirRules", "PaxState"]
