"""Pax Pamir (second edition) for 2 to 5 players. The engine specification is
``shared/rules/paxpamir/rules.md`` (rule ids such as R-PUR-3); the rules as played here,
with every decision taken where the rulebook is silent, are in ``docs/rules/pax_pamir.md``.

``RULES`` is what the platform registers. Each rulebook procedure is a kernel step in
``steps/``; this class only says where Pax Pamir keeps things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import bots as _bots
from domain.games.pax_pamir.catalogue import CATALOGUE
from domain.games.pax_pamir.data.board import MAX_SEATS, MIN_SEATS, Suit
from domain.games.pax_pamir.events import UPCASTERS
from domain.games.pax_pamir.evolve import evolve
from domain.games.pax_pamir.options import WAKHAN_HUMAN_SEATS, PaxOptions
from domain.games.pax_pamir.queries import stars
from domain.games.pax_pamir.state import PaxState, copy_state
from domain.games.pax_pamir.steps import (
    actions,
    battle,
    betray,
    bribes,
    build,
    cleanup,
    common,
    court,
    dominance,
    event_cards,
    gift,
    move,
    setup,
    tax,
    turn,
)
from domain.games.pax_pamir.view import view as _view
from domain.games.pax_pamir.wakhan import STEPS as WAKHAN_STEPS
from domain.games.pax_pamir.wakhan import VERBS as WAKHAN_VERBS
from domain.games.pax_pamir.wakhan import take_her_decision
from domain.kernel.endings import best_of_the_others
from domain.kernel.engine import StepRules
from domain.kernel.events import Event, Viewer
from domain.kernel.rng import Rng
from domain.kernel.rules import Outcome
from domain.kernel.steps import RUNAWAY_LIMIT, Flow, Frame, RunawayGame, Step, step_table

#: one human plays against Wakhan (section 20)
MIN_HUMAN_SEATS = min(WAKHAN_HUMAN_SEATS)

#: The rulebook's table of contents; the verbs are listed in this order (``legal_commands`` too).
MODULES = (common, setup, turn, actions, tax, gift, build, move, betray, battle, bribes, court, cleanup, dominance,
           event_cards)


@mypyc_attr(allow_interpreted_subclasses=True)
class PaxPamirRules(StepRules[PaxState]):
    kind = "pax_pamir"
    title = "Pax Pamir (2nd edition)"
    #: what the server plays for a seat whose turn clock ran out, when the seat may (a pass);
    #: otherwise the seat forfeits (docs/rules/pax_pamir.md, "Turn clocks")
    timeout_defaults = ("EndTurn", "StopAction", "NextWakhanAction")
    #: 2: procedures record their stage only when a sub-step needs it, and the limit discards and the
    #: start of a turn are entered only when they have something to ask (fewer frame events; same game);
    #: 3: cleanup shifts and refills the market itself, entering Refill only after Instability (same game);
    #: 4: a frame is a native object where the engine is compiled, pickled as a call of its class (the
    #: same game and events: a snapshot pickled under 3 is not loaded, the game is folded again);
    #: 5: a command records how it changed the frame stack once, as it ends (``StepsChanged``), where
    #: each step entered, left or updated was an event (same game; streams of before fold as they did)
    rules_version = "5"
    min_seats = MIN_HUMAN_SEATS

    @property
    def default_seats(self) -> int:
        """R-SET: two players; one human seat is for a game against Wakhan (an option)."""
        return MIN_SEATS
    max_seats = MAX_SEATS
    options_type = PaxOptions
    options = PaxOptions.specs()
    upcasters = UPCASTERS
    verbs = (*(verb for module in MODULES for verb in getattr(module, "VERBS", ())), *WAKHAN_VERBS)
    steps = step_table(*(step for module in MODULES for step in getattr(module, "STEPS", ())), *WAKHAN_STEPS)
    #: Section 23 item 9: undo stops where the seat owing the next decision changes.
    barrier_on_handover = True
    #: what is printed on every card, served at GET /game-types/pax_pamir/cards (``catalogue``)
    card_catalogue: dict[str, Any] = CATALOGUE

    def check_options(self, given: Mapping[str, Any] | None) -> PaxOptions:
        return PaxOptions.check(given)

    def setup(self, seats: int, options: PaxOptions, rng: Rng) -> list[Event]:
        """``seats`` are the human seats; Wakhan (an option) sits in one more (section 20)."""
        flow = self.begin_setup(seats, options, rng)
        setup.setup(flow, options.table_seats(seats), options)
        self.run_until_input(flow)
        return flow.events

    def run_until_input(self, flow: Flow[PaxState]) -> None:
        """Automatic steps until a seat must answer; a question for Wakhan is answered by
        her rules at once, so only humans are ever waited for (section 20)."""
        for _ in range(RUNAWAY_LIMIT):
            super().run_until_input(flow)
            if flow.state.wakhan is None or not take_her_decision(self, flow):  # (most games have no Wakhan)
                return
        raise RunawayGame(f"more than {RUNAWAY_LIMIT} decisions of Wakhan in one command")

    def apply(self, state: PaxState | None, event: Event) -> PaxState:
        """Its own events (a method, not ``staticmethod(evolve)``: the kernel calls the
        method in the class's table, which a static method does not take)."""
        return evolve(state, event)

    def is_over(self, state: PaxState) -> bool:
        return state.outcome is not None

    def frames(self, state: PaxState) -> list[Frame]:
        return state.frames

    def seat_count(self, state: PaxState) -> int:
        return state.seats  # (the default's, compiled: it is asked several times a command)

    def current(self, state: PaxState) -> tuple[Frame, Step[PaxState]] | None:
        """The default's, reading the stack at once (asked several times a command)."""
        frames = state.frames
        if not frames:
            return None
        top = frames[-1]
        last = self._last_playing  # (``playing``'s last answer, read here: one call less, where
        if last is not None and last[0] is top:  # the sources run as Python, at every look)
            return last
        return self.playing(top)

    def view(self, state: PaxState, viewer: Viewer) -> dict[str, Any]:
        return _view(state, viewer, self.to_move(state))

    def outcome(self, state: PaxState) -> Outcome | None:
        ended = state.outcome
        if ended is None:
            return None
        return Outcome(winners=tuple(ended["winners"]), scores=dict(enumerate(ended["vp"])),
                       details={"reason": ended["reason"], "rupees": [p.rupees for p in state.players],
                                "military_stars": [stars(state, seat, Suit.MILITARY) for seat in range(state.seats)]})

    def resigned(self, state: PaxState, seat: int) -> Outcome:
        """A seat resigns (docs/rules/pax_pamir.md, "Resigning"): the game ends at once; of the
        other seats (Wakhan included), the end-of-game order decides (R-END-2: most victory
        points, then military stars, then rupees; ties share the win)."""
        def standing(other: int) -> tuple[int, int, int]:
            return state.players[other].vp, stars(state, other, Suit.MILITARY), state.players[other].rupees
        return best_of_the_others(state.seats, seat, standing, {s: p.vp for s, p in enumerate(state.players)})

    def copy(self, state: PaxState) -> PaxState:
        return copy_state(state)

    # -- what computer opponents need (``domain.kernel.bots``) ------------------------------
    score_scale = _bots.SCORE_SCALE
    greedy_plies = _bots.GREEDY_PLIES
    face_down_verbs: frozenset[str] = frozenset()
    #: bot kinds of this game's own (name -> ``BotKind``): its ``mcts`` (``_bots.MCTS``)
    bot_kinds: dict[str, Any] = {"mcts": _bots.MCTS}

    def sampler(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int) -> Any:
        """A full state consistent with what ``seat`` has seen, drawn at random (``bots``)."""
        return _bots.sampler(view, events, seat, self.evolve)

    def scores(self, state: PaxState) -> list[float]:
        return _bots.scores(state)

    def turn_begins(self, event: Event) -> int | None:
        return _bots.turn_begins(event)


RULES = PaxPamirRules()

__all__ = ["RULES", "PaxPamirRules", "PaxState"]
