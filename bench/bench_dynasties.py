"""Dynasties rules throughput: random full games (random legal commands), rules only.

For 3 and 6 seats, plays whole games for about ``--seconds`` each (setup, then
``to_move`` / ``legal_commands`` / ``play`` (``decide`` and ``evolve`` at once, on the
one state) until Game Over; no service,
no store, no JSON) and prints games, commands and events per second.

    .venv/bin/python bench/bench_dynasties.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games.dynasties import RULES  # noqa: E402
from domain.kernel.rng import Rng  # noqa: E402


def play_one(seed: int, seats: int, options: dict) -> tuple[int, int]:
    """One random game to Game Over; returns (commands, events)."""
    choose = random.Random(seed)
    events = RULES.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = RULES.evolve(state, event)
    count, commands = len(events), 0
    while state.phase != "game_over":
        seat = choose.choice(RULES.to_move(state))
        command = choose.choice(RULES.legal_commands(state, seat))
        events, state = RULES.play(state, seat, command, Rng(seed, count))
        count += len(events)
        commands += 1
    return commands, count


def bench(seats: int, seconds: float) -> dict[str, float]:
    options = RULES.check_options({})
    games = commands = events = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done_commands, done_events = play_one(games, seats, options)
        games += 1
        commands += done_commands
        events += done_events
    return {"seats": seats, "games": games, "seconds": elapsed, "games_per_s": games / elapsed,
            "commands_per_s": commands / elapsed, "events_per_s": events / elapsed,
            "events_per_game": events / games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per seat count (default 10)")
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 6], help="seat counts (default 3 6)")
    args = parser.parse_args()
    print(f"{'seats':>5} {'games':>7} {'games/s':>9} {'commands/s':>11} {'events/s':>10} {'events/game':>12}")
    for seats in args.seats:
        row = bench(seats, args.seconds)
        print(f"{row['seats']:>5} {row['games']:>7} {row['games_per_s']:>9.1f} {row['commands_per_s']:>11.0f} "
              f"{row['events_per_s']:>10.0f} {row['events_per_game']:>12.1f}")


if __name__ == "__main__":
    main()
