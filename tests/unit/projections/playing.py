"""Random games played through the real GameService, for projection tests and the benchmark.

Each seat picks among its legal commands with a seeded ``random.Random``; now and then a
seat takes its move back (``undo_rate``), which the service refuses when it may not.
"""

from __future__ import annotations

import random
from typing import Any

from domain.kernel import Command, RuleViolation
from service.play.services import GameService

MAX_COMMANDS = 5000


def new_players(service: GameService, count: int, prefix: str = "player") -> list[dict[str, Any]]:
    return [service.players.create(f"{prefix}-{i}") for i in range(count)]


def open_game(service: GameService, kind: str, players: list[dict[str, Any]], seats: int,
              options: dict[str, Any] | None = None) -> tuple[str, list[dict[str, Any]]]:
    """A started game with the first ``seats`` players seated (0: all of them); returns its id
    and the players by seat."""
    seats = seats or len(players)
    game = service.create_game(players[0], kind, options or {}, seats)
    for player in players[:seats]:
        service.join_game(game.id, player)
    table = service.load(game.id).table
    by_id = {p["id"]: p for p in players}
    return game.id, [by_id[table.players[s]] for s in range(seats)]


def play_moves(service: GameService, game_id: str, by_seat: list[dict[str, Any]], rng: random.Random,
               moves: int | None = None, undo_rate: float = 0.0) -> int:
    """Play ``moves`` random legal commands (None: to the end); returns how many were played."""
    played = 0
    while moves is None or played < moves:
        game = service.load(game_id)
        if game.over:
            break
        if played >= MAX_COMMANDS:
            raise AssertionError(f"game {game_id} did not end after {MAX_COMMANDS} commands")
        seat = rng.choice(game.rules.to_move(game.state))
        player = by_seat[seat]
        if undo_rate and rng.random() < undo_rate:
            try:
                service.undo(game_id, player)
                played += 1
                continue
            except RuleViolation:
                pass
        commands = service.legal_commands(game_id, player)["commands"]
        chosen = rng.choice(commands)
        service.submit_command(game_id, player, Command(chosen["type"], chosen["args"]))
        played += 1
    return played


def play_games(service: GameService, kind: str, count: int, seed: int = 0, *, players: int = 5,
               seats: tuple[int, ...] = (2, 3), undo_rate: float = 0.05,
               unfinished: int = 0) -> list[str]:
    """``count`` finished games among a pool of players, plus ``unfinished`` games left mid-way.

    Who sits at which game follows from ``seed`` alone. The moves are not fixed: each game
    deals from the server's own secret seed, drawn from system randomness, so the moves of
    game ``number`` come from a generator of their own (``seed:number``); sharing one
    generator would let one deal's length change every later game's seats."""
    seating = random.Random(seed)
    pool = new_players(service, players, prefix=f"s{seed}")
    ids = []
    for number in range(count + unfinished):
        chosen = seating.sample(pool, seating.choice(seats))
        game_id, by_seat = open_game(service, kind, chosen, len(chosen))
        play_moves(service, game_id, by_seat, random.Random(f"{seed}:{number}"),
                   moves=None if number < count else 5, undo_rate=undo_rate)
        ids.append(game_id)
    return ids
