"""A game as the service holds it, and who a reader of it counts as.

``audience`` is the one place that decides what a request may see: every endpoint that
shows a view or events (state, legal commands, events, replays, the live stream, a
command's answer, exports) asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.kernel import Command, GameRules
from domain.kernel.clocks import forfeit_outcome
from domain.kernel.events import EVERYONE
from domain.kernel.prompt import Prompt
from domain.kernel.rules import Outcome
from domain.kernel.table import Table, game_started
from service.streams.envelopes import GAME_SOURCE, NewEvent, Viewer


@dataclass
class Game:
    """A game folded up to ``version``: the platform's table and the game's own state."""

    id: str
    version: int
    table: Table
    rules: GameRules
    state: Any = None
    undone: frozenset[int] = frozenset()
    #: for a game that came in through ``POST /games/import``: ``{ranked, from, signature}``
    imported: dict[str, Any] | None = None
    #: a fingerprint of the stored event at ``version`` (``service.adapters.codec.digest``; "":
    #: unknown), by which a cached copy tells whether the store still holds what it folded
    head: str = ""
    #: the prompts asked of this game so far, per seat: the rules build a prompt afresh on
    #: every call, and a cached game is asked again and again (a ``Game`` is never changed
    #: after it is made: the loader makes a new one per version)
    _prompts: dict[int, Prompt | None] = field(default_factory=dict, repr=False, compare=False)
    #: ``public_facts`` once asked (the rules' outcome and whose move, asked again and again
    #: of a cached game, and several times of each append's: ``over``, the envelope's
    #: ``after``, the answer's ``to_move``)
    _facts: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def prompt(self, seat: int) -> Prompt | None:
        """The question put to ``seat`` now (None once over, or not its decision)."""
        if seat not in self._prompts:
            self._prompts[seat] = self.rules.prompt(self.state, seat) if self.state is not None else None
        return self._prompts[seat]

    def legal_commands(self, seat: int) -> list[Command]:
        asked = self.prompt(seat)
        return asked.commands(self.rules.commands) if asked is not None else []

    @property
    def ranked(self) -> bool:
        """Does this game count for scoreboards and players' records? (an imported log only
        when this server signed it and it was not here already)"""
        return self.imported is None or bool(self.imported.get("ranked"))

    def outcome(self) -> Outcome | None:
        """How the game ended (the rules', or a forfeit on a turn clock), None while it runs."""
        if self.table.endings.outcome is not None:  # resigned, aborted or ended by agreement
            return self.table.endings.outcome
        if self.table.clocks.forfeited is not None:
            return forfeit_outcome(self.table.seats, self.table.clocks.forfeited)
        return self.rules.outcome(self.state) if self.state is not None else None

    @property
    def over(self) -> bool:
        return self.public_facts()["outcome"] is not None

    def sealed_to_its_player(self, seat: int) -> bool:
        """Does ``seat`` hold a choice only its present player can finish (a sealed Tribute that
        player has not revealed: ``rules.sealed_to_its_player``)? Then nobody else may take the
        seat now: neither a stand-in, nor its person back from a stand-in."""
        ruling = getattr(self.rules, "sealed_to_its_player", None)
        return bool(ruling is not None and self.state is not None and ruling(self.state, seat))

    def may_stand_in(self, seat: int) -> bool:
        """Does the game go on with a stand-in in ``seat`` if its person leaves it now?
        (``Table.may_stand_in``, and nothing of the seat's is sealed to its person)"""
        return self.table.may_stand_in(seat) and not self.sealed_to_its_player(seat)

    def seat_of(self, player: Mapping[str, Any] | None) -> int | None:
        return self.table.seat_of(player["id"]) if player else None

    def public_facts(self) -> dict[str, Any]:
        """What anyone may know of where the game stands: status, whose move, outcome (one
        dict for the life of this game, shared by every caller: read it, never change it)."""
        if self._facts is None:
            outcome = self.outcome()
            self._facts = {"status": "finished" if outcome else self.table.status,
                           "to_move": self.rules.to_move(self.state) if self.state is not None and not outcome else [],
                           "outcome": outcome.to_json() if outcome else None}
        return self._facts

    def summary(self) -> dict[str, Any]:
        table = self.table
        facts = self.public_facts()
        bots = table.bot_seats()
        return {
            "id": self.id,
            "type": table.game_type,
            "status": facts["status"],
            "options": table.public_options(),
            "seats": [
                {"seat": s, "player_id": table.players.get(s),
                 "name": table.names.get(table.players[s]) if s in table.players else None,
                 **({"bot": bots[s]} if s in bots else {}),
                 **({"stand_in_for": table.left[s]} if s in table.left else {})}
                for s in range(table.seats)
            ],
            "to_move": facts["to_move"],
            "version": self.version,
            "outcome": facts["outcome"],
            "ranked": self.ranked,
            **({"clocks": table.clocks.to_json(table.seats)} if table.has_clock else {}),
            "fairness": {"seed_commitment": table.seed_commitment, **(table.revealed or {"seed": None, "salt": None})},
            "private": table.private,
            "rematch_of": table.rematch_of,
            "endings": table.endings.to_json(),
            "stand_in": table.stand_in,
        }


def audience(game: Game, player: Mapping[str, Any] | None = None, *, seat: int | None = None,
             live: bool = False) -> Viewer:
    """Who a reader of ``game`` counts as: ``EVERYONE``, a seat, or None (a spectator).

    Everything is revealed to everyone in a game of open information, and once the game
    is over to anyone looking back at it (its events, a replay, a past version, an
    export). Otherwise a reader sees what their seat sees (``player``'s seat, or ``seat``
    when the caller already knows it). ``live``: the current view of a finished game
    stays the seat's own view, as during play (the game's view shows what the end
    revealed)."""
    if game.table.open_information or (game.over and not live):
        return EVERYONE
    return seat if seat is not None else game.seat_of(player)


def opening_events(game: Game, joined: dict[int, str]) -> list[NewEvent]:
    """The start of ``game`` once every seat is taken (``joined``: seat -> player): the seat
    order (shuffled when the game asks for it) and the game's setup, from the seed."""
    table = game.table
    rng = table.rng(game.version)
    players = [joined[s] for s in range(table.seats)]
    if table.options.get("seating") == "random":
        players = rng.shuffled(players)
    options = game.rules.options_type.from_json(table.game_options())
    return [NewEvent(game_started(players)),
            *(NewEvent(e, source=GAME_SOURCE, upcasters=game.rules.upcasters)
              for e in game.rules.setup(table.seats, options, rng))]
