"""Rules engine work counted in instructions (valgrind's callgrind), this checkout beside another tree.

The same seeded random games as ``bench_pax_pamir.py`` and ``bench_dynasties.py`` (``to_move``,
``legal_commands``, ``play`` until the end), a fixed number per case, run under callgrind
once with the games and once without: the difference over the games is the instructions
one game costs, whatever else the machine is doing (on a shared box the CPU-time figures of
``bench_engine_pair.py`` move by 20% or more between rounds of the same code; instruction
counts move by well under 1%; the hash seed is fixed, as set and dict order move them).
Instructions are not time (cache misses and branches are not counted), so this complements
the pair bench rather than replacing it.

    .venv/bin/python bench/bench_engine_instructions.py /work/base [--pure] [--games 2] [--json FILE]

Needs ``valgrind``. A tree runs its compiled engine where ``build/engine`` holds one, unless
``--pure``. About a minute per case and tree on the pure engine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

#: (label, game, seats, games run)
CASES = (("pax_pamir 2 seats", "pax_pamir", 2, 2), ("pax_pamir 5 seats", "pax_pamir", 5, 1),
         ("dynasties 3 seats", "dynasties", 3, 6))

_GAMES = r"""
import random, sys
from domain.games import default_registry
from domain.kernel.rng import Rng
rules = default_registry()[sys.argv[1]]
seats, games = int(sys.argv[2]), int(sys.argv[3])
options = rules.check_options({})
for seed in range(games):
    choose = random.Random(seed)
    events = rules.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = rules.evolve(state, event)
    count = len(events)
    while not rules.is_over(state):
        seat = choose.choice(rules.to_move(state))
        command = choose.choice(rules.legal_commands(state, seat))
        events, state = rules.play(state, seat, command, Rng(seed, count))
        count += len(events)
"""


def instructions(tree: Path, game: str, seats: int, games: int, pure: bool) -> int:
    paths = [str(tree)] if pure or not (tree / "build" / "engine" / "domain").is_dir() \
        else [str(tree / "build" / "engine"), str(tree)]
    with tempfile.TemporaryDirectory() as work:
        script = Path(work) / "games.py"
        script.write_text(f"import sys; sys.path[:0] = {paths!r}\n" + _GAMES)
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                              str(script), game, str(seats), str(games)],
                             cwd=tree, capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": "0"}).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_game(tree: Path, game: str, seats: int, games: int, pure: bool) -> float:
    return (instructions(tree, game, seats, games, pure) - instructions(tree, game, seats, 0, pure)) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="tree B (the code before)")
    parser.add_argument("--pure", action="store_true", help="both trees on their Python sources")
    parser.add_argument("--games", type=int, help="games per case (default: 2, 1 and 6)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    trees = {"A": HERE, "B": args.other.resolve()}
    print(f"{'case':<20} {'A Minstr/game':>14} {'B Minstr/game':>14}   B/A (speed-up)")
    results = {}
    for label, game, seats, games in CASES:
        count = args.games or games
        figures = {name: per_game(tree, game, seats, count, args.pure) for name, tree in trees.items()}
        results[label] = {**figures, "games": count, "B/A": figures["B"] / figures["A"]}
        print(f"{label:<20} {figures['A'] / 1e6:>14.2f} {figures['B'] / 1e6:>14.2f}   {figures['B'] / figures['A']:.3f}",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps({"B": str(trees["B"]), "pure": args.pure, "cases": results}, indent=1))


if __name__ == "__main__":
    main()
