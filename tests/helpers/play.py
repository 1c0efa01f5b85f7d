"""Driving games through the service as random players would (for property tests and benches)."""

from __future__ import annotations

import random
from typing import Any

from domain.kernel import RuleViolation
from service.play.services import GameService


def start_game(service: GameService, kind: str, seats: int, options: dict[str, Any] | None = None):
    players = [service.players.create(f"player-{i}") for i in range(seats)]
    game = service.create_game(players[0], kind, options or {}, seats)
    for player in players:
        service.join_game(game.id, player)
    seated = service.load(game.id)
    return game.id, sorted(players, key=seated.seat_of)  # players[s] sits at seat s, after any random seating


def play_randomly(service: GameService, game_id: str, players: list[dict], rng: random.Random,
                  max_commands: int = 20_000, undo_chance: float = 0.0, until_version: int | None = None,
                  after_each=None) -> int:
    """Random legal commands (and, with ``undo_chance``, random undo attempts) until the game
    ends, ``until_version`` is reached, or ``max_commands``. Returns the commands posted."""
    posted = 0
    while posted < max_commands:
        game = service.load(game_id)
        if game.over or (until_version is not None and game.version >= until_version):
            break
        seat = rng.choice(game.rules.to_move(game.state))
        if undo_chance and rng.random() < undo_chance:
            try:
                service.undo(game_id, players[rng.randrange(len(players))])
            except RuleViolation:
                pass
        else:
            command = rng.choice(game.rules.legal_commands(game.state, seat))
            service.submit_command(game_id, players[seat], command)
        posted += 1
        if after_each is not None:
            after_each()
    return posted


def unfinished_game(service: GameService, kind: str, seats: int, options: dict[str, Any] | None, seed: int,
                    commands: int, undo_chance: float = 0.0, deals: int = 20):
    """A game of ``kind`` after ``commands`` random commands that has not ended; returns its id and
    the players by seat. The deal comes from the server's secret seed (system randomness), so a
    deal that happens to end that soon is set aside for a fresh one (commands from ``seed + n``
    for the n-th deal): a test that looks at a game still running gets one on every draw."""
    for attempt in range(deals):
        game_id, players = start_game(service, kind, seats, options)
        play_randomly(service, game_id, players, random.Random(seed + attempt), max_commands=commands,
                      undo_chance=undo_chance)
        if not service.load(game_id).over:
            return game_id, players
    raise AssertionError(f"{deals} deals in a row of {kind} ended within {commands} commands")
