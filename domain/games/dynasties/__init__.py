"""Dynasties: Nobles of four lineages, Tributes, Families and a Legacy (a card game after
Three-Dragon Ante). The rules are in ``docs/rules/dynasties.md``; the implementation
rulebook with its ruling numbers (R1-R60) is ``shared/rules/dynasties/rulings.md``.

``RULES`` is what the platform registers: it satisfies ``domain.kernel.rules.GameRules``.
Command handling (prompts, refusals, running automatic steps) is the kernel's
``StepRules``; this class only says where Dynasties keeps things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from domain.games.dynasties import bots as _bots
from domain.games.dynasties import rules as _rules
from domain.games.dynasties.events import UPCASTERS
from domain.games.dynasties.evolve import evolve as _evolve
from domain.games.dynasties.options import MAX_SEATS, MIN_SEATS, OPTIONS, DynastiesOptions
from domain.games.dynasties.state import OVER, DynastiesState, copy_state
from domain.games.dynasties.view import view as _view
from domain.kernel.endings import best_of_the_others
from domain.kernel.engine import StepRules
from domain.kernel.events import Event, Viewer
from domain.kernel.rng import Rng
from domain.kernel.rules import Outcome
from domain.kernel.steps import Frame, Step


@mypyc_attr(allow_interpreted_subclasses=True)
class DynastiesRules(StepRules[DynastiesState]):
    kind = "dynasties"
    title = "Dynasties"
    #: Bump when ``DynastiesState`` changes shape: the service keys pickled snapshots on it.
    rules_version = "5"  # 5: a Placement is a class, not a named tuple; 4: sealed Tributes (commit-reveal);
    # 3: the pending decision is a PendingDecision
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options = OPTIONS
    options_type = DynastiesOptions
    upcasters = UPCASTERS
    verbs = _rules.VERBS
    steps = _rules.STEPS

    def check_options(self, given: Mapping[str, Any] | None) -> DynastiesOptions:
        return DynastiesOptions.check(given)

    def setup(self, seats: int, options: DynastiesOptions, rng: Rng) -> list[Event]:
        flow = self.begin_setup(seats, options, rng)
        _rules.setup(flow, seats, options)
        self.run_until_input(flow)
        return flow.events

    def apply(self, state: DynastiesState | None, event: Event) -> DynastiesState:
        return _evolve(state, event)

    def frames(self, state: DynastiesState) -> list[Frame]:
        return _rules.frames(state)

    def __init__(self) -> None:
        super().__init__()
        #: each phase's frame and the step it plays (of this rules object's step table, which a
        #: test's subclass may replace): what ``current`` answers while no decision is pending
        self._phase_current: dict[str, tuple[Frame, Step[DynastiesState]]] = {
            name: (frame, self._step_of[name]) for name, frame in _rules.PHASE_FRAMES.items()}

    def current(self, state: DynastiesState) -> tuple[Frame, Step[DynastiesState]] | None:
        """The top of ``frames`` (the pending decision, else the phase) and its step, without
        the list: asked several times a command. No decision is pending during the setup, whose
        phase has no frame (None)."""
        pending = state.pending
        if pending is None:
            return self._phase_current.get(state.phase)
        return _rules.pending_frame(pending), self._step_of[pending.kind]

    def seat_count(self, state: DynastiesState) -> int:
        return state.seats  # (the default's, compiled: it is asked several times a command)

    def is_over(self, state: DynastiesState) -> bool:
        return state.phase == OVER

    def view(self, state: DynastiesState, viewer: Viewer) -> dict[str, Any]:
        return _view(state, viewer, self.to_move(state))

    def outcome(self, state: DynastiesState) -> Outcome | None:
        ended = state.outcome
        if ended is None:
            return None
        payouts = [gold + share for gold, share in zip(ended["treasuries"], ended["legacy_shares"], strict=True)]
        return Outcome(
            winners=tuple(ended["winners"]),
            scores={seat: gold for seat, gold in enumerate(ended["treasuries"])},
            details={
                "legacy": state.legacy,
                "legacy_shares": list(ended["legacy_shares"]),
                "legacy_remainder": ended["legacy_remainder"],
                "payouts": payouts,
                "leftover_stakes_split": list(ended["leftover_stakes_split"]),
                "rounds": state.round,
            },
        )

    def resigned(self, state: DynastiesState, seat: int) -> Outcome:
        """A seat resigns (docs/rules/dynasties.md, "Resigning"): the game ends at once; of
        the other seats, the richest treasury wins (ties share the win), as at a Conclusion."""
        return best_of_the_others(state.seats, seat, lambda s: state.treasury[s], dict(enumerate(state.treasury)))

    def sealed_to_its_player(self, state: DynastiesState, seat: int) -> bool:
        """R17a: has ``seat`` sealed a Tribute it has not revealed yet? Only who sealed it knows the
        salt that opens it, so neither a stand-in nor a person taking the seat back could reveal it
        (docs/rules/dynasties.md, "Seat takeover")."""
        return _rules.must_give_tribute(state, seat) and state.tribute_hash[seat] is not None

    def copy(self, state: DynastiesState) -> DynastiesState:
        return copy_state(state)

    # -- what computer opponents need (``domain.kernel.bots``) ------------------------------
    score_scale = _bots.SCORE_SCALE
    face_down_verbs: frozenset[str] = frozenset({'SubmitTribute'})
    #: bot kinds of this game's own, beside random, greedy and mcts (name -> ``BotKind``)
    bot_kinds: dict[str, Any] = {}

    def sampler(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int) -> Any:
        """A full state consistent with what ``seat`` has seen, drawn at random (``bots``)."""
        return _bots.sampler(view, events, seat)

    def scores(self, state: DynastiesState) -> list[float]:
        return _bots.scores(state)

    def turn_begins(self, event: Event) -> int | None:
        """None: no seat has a turn of its own (a turn of phase 3 is every seat's, each placing in
        order), so a searching bot's playouts keep to their depth."""
        return None

    def free_commands(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int,
                      key: str) -> list[Any]:
        """A bot's seal or reveal under commit-reveal (R17a), from its own secret ``key``."""
        return _bots.free_commands(view, events, seat, key)

    def free_meanings(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int,
                      key: str) -> dict[Any, Any]:
        """What each of a bot's seals stands for: the open Tribute of the card it seals."""
        return _bots.free_meanings(view, events, seat, key)

    def unsealed(self, state: DynastiesState) -> DynastiesState:
        """The same game with Tributes given openly (for a bot's search, ``bots``)."""
        return _bots.unsealed(state)


RULES = DynastiesRules()

__all__ = ["RULES", "DynastiesRules", "DynastiesState"]
