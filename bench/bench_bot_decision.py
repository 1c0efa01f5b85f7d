"""What one mcts decision costs, this checkout beside another tree in the same run.

The same positions (random play from fixed seeds: Pax Pamir at 2 seats, Dynasties at 3) are
handed to the mcts bot at a level (``normal``: 100 iterations, depth 16) without its time guard,
so every decision runs its whole budget; each tree runs in its own process, in turn (A B A
B ...), and the CPU seconds of its decisions (``time.process_time``) are reported: the median
per decision of each tree and the median of the pairwise ratios A/B.

    .venv/bin/python bench/bench_bot_decision.py /work/base [--rounds 3] [--positions 4] [--pure]

A tree runs its compiled engine where ``build/engine`` holds one (``make compile``), unless
``--pure``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

#: (game, seats, commands of random play before each position)
CASES = (("pax_pamir", 2, (10, 30, 50, 70)), ("dynasties", 3, (5, 15, 25, 35)))

_ONE_TREE = r"""
import json, random, sys, time
from domain.games import default_registry
from domain.kernel.arena import seen
from domain.kernel.bots import mcts_bot
from domain.kernel.rng import Rng
from domain.kernel.rules import fold

game, seats, marks, level = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
rules = default_registry()[game]
choose = random.Random(f"positions:{game}")
events = rules.setup(seats, rules.check_options({}), Rng("bench:bot-decision"))
state = fold(rules, events)
bot = mcts_bot(**level)
spent = []
for played in range(max(marks) + 1):
    if rules.outcome(state) is not None:
        break
    seat = choose.choice(rules.to_move(state))
    if played in marks:
        shown = seen(rules, state, events, seat, key=f"key:{seat}")
        started = time.process_time()
        bot(rules, shown, random.Random(played), None)
        spent.append(time.process_time() - started)
    command = choose.choice(rules.legal_commands(state, seat))
    for event in rules.decide(state, seat, command, Rng("bench:bot-decision", len(events))):
        events.append(event)
        state = rules.evolve(state, event)
print(json.dumps(spent))
"""


def decisions(tree: Path, game: str, seats: int, marks: tuple[int, ...], level: dict, pure: bool) -> list[float]:
    paths = [str(tree)] if pure or not (tree / "build" / "engine" / "domain").is_dir() \
        else [str(tree / "build" / "engine"), str(tree)]
    code = f"import sys; sys.path[:0] = {paths!r}\n" + _ONE_TREE
    out = subprocess.run([sys.executable, "-c", code, game, str(seats), json.dumps(list(marks)), json.dumps(level)],
                         cwd=tree, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="tree B (the code before)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=100, help="mcts iterations (normal: 100)")
    parser.add_argument("--depth", type=int, default=16, help="mcts playout depth (normal: 16)")
    parser.add_argument("--pure", action="store_true", help="both trees on their Python sources")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    level = {"iterations": args.iterations, "depth": args.depth}
    trees = {"A": HERE, "B": args.other.resolve()}
    print(f"{'case':<22} {'A s/decision':>13} {'B s/decision':>13}   A/B (rounds)")
    results = {}
    for game, seats, marks in CASES:
        per: dict[str, list[float]] = {name: [] for name in trees}
        ratios = []
        for _ in range(args.rounds):
            spent = {name: decisions(tree, game, seats, marks, level, args.pure) for name, tree in trees.items()}
            assert len(spent["A"]) == len(spent["B"]) == len(marks), "both trees decide at every position"
            totals = {name: sum(times) for name, times in spent.items()}
            for name in trees:
                per[name].append(totals[name] / len(marks))
            ratios.append(totals["A"] / totals["B"])
        label = f"{game} {seats} seats"
        results[label] = {"A": per["A"], "B": per["B"], "ratios": ratios}
        print(f"{label:<22} {statistics.median(per['A']):>13.3f} {statistics.median(per['B']):>13.3f}   "
              f"{statistics.median(ratios):.2f} ({', '.join(f'{r:.2f}' for r in ratios)})", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"level": level, "pure": args.pure, "cases": results}, indent=1))


if __name__ == "__main__":
    main()
