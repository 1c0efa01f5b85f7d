"""Dynasties: Nobles of four lineages, Tributes, Families and a Legacy (a card game after
Three-Dragon Ante). The rules are in ``docs/rules/dynasties.md``; the implementation
rulebook with its ruling numbers (R1-R60) is ``shared/rules/dynasties/rulings.md``.

``RULES`` is what the platform registers: it satisfies ``domain.kernel.rules.GameRules``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.games.dynasties import rules as _rules
from domain.games.dynasties.evolve import EVENT_TYPES
from domain.games.dynasties.evolve import evolve as _evolve
from domain.games.dynasties.options import MAX_SEATS, MIN_SEATS, OPTIONS
from domain.games.dynasties.options import check_options as _check_options
from domain.games.dynasties.state import DynastiesState, copy_state
from domain.games.dynasties.view import view as _view
from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import CommandSpec, Outcome


class DynastiesRules:
    kind = "dynasties"
    title = "Dynasties"
    #: Bump when ``DynastiesState`` changes shape: the service keys pickled snapshots on it.
    rules_version = "1"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options = OPTIONS
    event_types = EVENT_TYPES
    commands = (
        CommandSpec("SubmitTribute", {"card": "card"}, "Give one card from your hand as your secret Tribute."),
        CommandSpec("PlaceNoble", {"card": "card"}, "Place a Noble from your hand into your Family."),
        CommandSpec("ChooseConclaveCards", {"cards": "cards"},
                    "After a Conclave, take up to the allowed number of cards from the Tribute Zone."),
        CommandSpec("RetireNobles", {"cards": "cards"},
                    "Retire exactly the Nobles over the hand limit to the Graveyard, face down."),
    )

    def check_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        return _check_options(given)

    def setup(self, seats: int, options: Mapping[str, Any], rng: Rng) -> list[Event]:
        return _rules.setup(seats, dict(options), rng)

    def evolve(self, state: DynastiesState | None, event: Event) -> DynastiesState:
        return _evolve(state, event)

    def decide(self, state: DynastiesState, seat: int, command: Command, rng: Rng) -> list[Event]:
        return _rules.decide(state, seat, command, rng)

    def legal_commands(self, state: DynastiesState, seat: int) -> list[Command]:
        return _rules.legal_commands(state, seat)

    def to_move(self, state: DynastiesState) -> list[int]:
        return _rules.to_move(state)

    def view(self, state: DynastiesState, viewer: int | None) -> dict[str, Any]:
        return _view(state, viewer)

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

    def copy(self, state: DynastiesState) -> DynastiesState:
        return copy_state(state)


RULES = DynastiesRules()

__all__ = ["RULES", "DynastiesRules", "DynastiesState"]
