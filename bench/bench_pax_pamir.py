"""Pax Pamir rules throughput: random full games (random legal commands), rules only.

For 2 and 5 seats, plays whole games in this one process for about ``--seconds`` each:
setup, then ``to_move`` / ``legal_commands`` / ``play`` (``decide`` and ``evolve`` at once, on the
one state) until the game ends
(no service, no store, no JSON), and prints games, commands and events per second.
``--profile`` runs the same loop under cProfile and prints the costliest functions.

    .venv/bin/python bench/bench_pax_pamir.py [--seconds 10] [--seats 2 5] [--profile]

For comparison: the fastest public engine of this game (JavaScript) plays about 200-500
random games per second on a 2-core machine like ours.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games.pax_pamir import RULES  # noqa: E402
from domain.kernel.rng import Rng  # noqa: E402

#: A game that takes this many commands is reported as a runaway (random games take a few hundred).
MAX_COMMANDS = 20_000


def play_one(seed: int, seats: int, options) -> tuple[int, int]:
    """One random game to its end; returns (commands, events)."""
    choose = random.Random(seed)
    events = RULES.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = RULES.evolve(state, event)
    count, commands = len(events), 0
    while not RULES.is_over(state):
        if commands >= MAX_COMMANDS:
            raise RuntimeError(f"seed {seed}, {seats} seats: no end after {MAX_COMMANDS} commands")
        seat = choose.choice(RULES.to_move(state))
        command = choose.choice(RULES.legal_commands(state, seat))
        events, state = RULES.play(state, seat, command, Rng(seed, count))
        count += len(events)
        commands += 1
    return commands, count


def bench(seats: int, seconds: float, first_seed: int = 0) -> dict[str, float]:
    options = RULES.check_options({})
    games = commands = events = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done_commands, done_events = play_one(first_seed + games, seats, options)
        games += 1
        commands += done_commands
        events += done_events
    return {"seats": seats, "games": games, "seconds": elapsed, "games_per_s": games / elapsed,
            "commands_per_s": commands / elapsed, "events_per_s": events / elapsed,
            "commands_per_game": commands / games, "events_per_game": events / games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per seat count (default 10)")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 5], help="seat counts (default 2 5)")
    parser.add_argument("--profile", action="store_true", help="profile the loop and print the top functions")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    print(f"{'seats':>5} {'games':>7} {'games/s':>9} {'commands/s':>11} {'events/s':>10} "
          f"{'commands/game':>14} {'events/game':>12}")
    for seats in args.seats:
        if profiler is not None:
            profiler.enable()
        row = bench(seats, args.seconds)
        if profiler is not None:
            profiler.disable()
        print(f"{row['seats']:>5} {row['games']:>7} {row['games_per_s']:>9.1f} {row['commands_per_s']:>11.0f} "
              f"{row['events_per_s']:>10.0f} {row['commands_per_game']:>14.1f} {row['events_per_game']:>12.1f}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
