"""Seeded random games of both games, played in the domain, for the bots' tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.games import default_registry
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, fold

REGISTRY = default_registry()


class Played:
    """A game played from its setup, keeping every event."""

    def __init__(self, kind: str, seats: int, seed: int, options: dict[str, Any] | None = None):
        self.rules: GameRules[Any, Any] = REGISTRY[kind]
        self.events: list[Event] = self.rules.setup(seats, self.rules.check_options(options or {}),
                                                    Rng(f"setup:{seed}"))
        self.state = fold(self.rules, self.events)
        self.seed = seed

    @property
    def over(self) -> bool:
        return self.rules.outcome(self.state) is not None

    def play(self, seat: int, command: Any) -> None:
        for event in self.rules.decide(self.state, seat, command, Rng(f"play:{self.seed}", len(self.events))):
            self.events.append(event)
            self.state = self.rules.evolve(self.state, event)

    def seen_by(self, seat: int) -> list[dict[str, Any]]:
        return [redact(event, seat) for event in self.events]


def random_positions(kind: str, seats: int, seed: int, every: int, limit: int = 4000,
                     options: dict[str, Any] | None = None) -> Iterator[Played]:
    """A game played at random, yielded every ``every`` commands (the same object, moving on)."""
    chooser = random.Random(f"choose:{kind}:{seed}")
    game = Played(kind, seats, seed, options)
    played = 0
    while not game.over and played < limit:
        if played % every == 0:
            yield game
        seat = chooser.choice(game.rules.to_move(game.state))
        game.play(seat, chooser.choice(game.rules.legal_commands(game.state, seat)))
        played += 1
    yield game


def worlds_differing_in_one_hand(seeds: range, seats: int = 3) -> Iterator[tuple[Any, Any, int]]:
    """Pairs of Dynasties games (``tests.property.test_dynasties_no_leaks.play``'s worlds)
    that differ only in seat ``p``'s hidden cards: two cards p drew face down exchanged in
    the deck, the same moves replayed. Yields (A, B, p); seeds where the exchange makes
    another public game are left out."""
    from domain.kernel.errors import RuleViolation
    from tests.property.test_dynasties_no_leaks import StackedRng, play, secretly_drawn

    for seed in seeds:
        p = seed % seats
        a = play(seed, seats, {}, Rng(seed, 0))
        drawn = secretly_drawn(a[0], p)
        if len(drawn) < 2:
            continue
        order = list(a[0][1].secret["order"])
        i, j = order.index(drawn[0]), order.index(drawn[1])
        order[i], order[j] = order[j], order[i]
        try:
            b = play(seed, seats, {}, StackedRng(order, seed), script=a[1])
        except RuleViolation:
            continue  # p placed the first card before drawing the second: another public game
        if len(b[1]) == len(a[1]):
            yield a, b, p
