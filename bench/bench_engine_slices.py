"""Rules throughput of two trees in short alternating slices of the same games: the before/after
figure on a box whose speed moves from one second to the next.

``bench_engine_pair.py`` runs each tree for seconds at a time, one after the other. On a shared
box whose speed drifts within seconds (the box of history 54: the same build, run six times in a
row, played 330 to 490 games a second; two runs of it side by side, one a core, differed by up to
35%), the pairs of such runs scatter too widely to read a ratio of 1.5 from. Here each tree is a
child process of its own that plays, on request, a few whole games of its own bench script
(``play_one`` of ``bench_pax_pamir.py`` or ``bench_dynasties.py``: ``to_move``,
``legal_commands``, a random choice, ``play``) and answers the CPU time they took
(``time.process_time``). The parent hands both children the same games in blocks ordered
A B B A, each slice a fraction of a second, so both sides of a block meet the same machine; each
block's figure is B's CPU time over A's (A's speed-up on those games), and the case's figure is
the median over its blocks, with the quartiles.

    .venv/bin/python bench/bench_engine_slices.py /work/speed-before [--pure] [--seconds 60] [--only dynasties] [--json FILE]

A tree runs its compiled engine where ``build/engine`` holds one, unless ``--pure``; the child
says which engine it runs and a run of the other one is refused (as in ``bench_engine_pair.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
#: (label, bench script, seats)
CASES = (("pax_pamir 2 seats", "bench_pax_pamir.py", 2), ("pax_pamir 5 seats", "bench_pax_pamir.py", 5),
         ("dynasties 3 seats", "bench_dynasties.py", 3))
#: about how long the slower side's slice should take (seconds of CPU)
SLICE = 0.25

_CHILD = r"""
import runpy, sys, time
sys.path[:0] = PATHS
import domain.games.pax_pamir, domain.games.dynasties
engine = domain.engine() if hasattr(domain, "engine") else (
    "pure" if domain.games.pax_pamir.__file__.endswith(".py") else "compiled")
script = runpy.run_path(SCRIPT)  # (not as __main__: only its functions are wanted)
play_one, seats = script["play_one"], SEATS
rules = script["RULES"]
options = rules.check_options({})
print("engine", engine, flush=True)
for line in sys.stdin:
    first, count = map(int, line.split())
    start = time.process_time()
    for seed in range(first, first + count):
        play_one(seed, seats, options)
    print(time.process_time() - start, flush=True)
"""


def child(tree: Path, script: str, seats: int, pure: bool) -> subprocess.Popen[str]:
    """A process of ``tree`` that plays games of ``script`` on request; it has said which engine
    it runs, and it is the one asked for."""
    compiled = not pure and (tree / "build" / "engine" / "domain").is_dir()
    paths = [str(tree / "build" / "engine"), str(tree)] if compiled else [str(tree)]
    code = (_CHILD.replace("PATHS", repr(paths)).replace("SCRIPT", repr(str(tree / "bench" / script)))
            .replace("SEATS", str(seats)))
    process = subprocess.Popen([sys.executable, "-c", code], cwd=tree, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    ran = process.stdout.readline().split()
    wanted = "compiled" if compiled else "pure"
    if ran[-1:] != [wanted]:
        process.kill()
        raise RuntimeError(f"{tree}: asked for its {wanted} engine, ran {' '.join(ran) or 'nothing'}")
    return process


def played(process: subprocess.Popen[str], first: int, count: int) -> float:
    """The CPU seconds ``process`` took to play games ``first`` to ``first + count - 1``."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{first} {count}\n")
    process.stdin.flush()
    return float(process.stdout.readline())


def measure(a: Path, b: Path, script: str, seats: int, seconds: float, pure: bool) -> dict[str, Any]:
    """Blocks A B B A over the same games until ``seconds`` of wall time have passed."""
    sides = {"A": child(a, script, seats, pure), "B": child(b, script, seats, pure)}
    try:
        played(sides["A"], 10_000, 2)  # imports and first calls, outside the figures
        per_game = played(sides["B"], 10_000, 2) / 2
        count = max(1, round(SLICE / max(per_game, 1e-6)))
        ratios: list[float] = []
        totals = {"A": 0.0, "B": 0.0}
        seed = 0
        start = time.monotonic()
        while time.monotonic() - start < seconds or len(ratios) < 5:
            spent = {"A": 0.0, "B": 0.0}
            for name in ("A", "B", "B", "A"):  # each side plays the block's games twice, once each half
                spent[name] += played(sides[name], seed, count)
            ratios.append(spent["B"] / spent["A"])
            for name in spent:
                totals[name] += spent[name]
            seed += count
    finally:
        for process in sides.values():
            process.kill()
    quartiles = statistics.quantiles(ratios, n=4)
    return {"games_a_block": count, "blocks": len(ratios), "median": statistics.median(ratios),
            "quartiles": [quartiles[0], quartiles[2]], "overall": totals["B"] / totals["A"],
            "cpu_seconds": totals, "ratios": ratios}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="tree B (the code before)")
    parser.add_argument("--pure", action="store_true", help="both trees on their Python sources")
    parser.add_argument("--seconds", type=float, default=60.0, help="wall time per case (default 60)")
    parser.add_argument("--json", type=Path, help="also write every block's figures here")
    parser.add_argument("--only", default="", help="the cases whose label holds this text (default: all)")
    args = parser.parse_args()
    other = args.other.resolve()
    print(f"{'case':<20} {'blocks':>6} {'A/B median':>11} {'quartiles':>14} {'overall':>8}")
    results = {}
    for label, script, seats in CASES:
        if args.only not in label:
            continue
        row = measure(HERE, other, script, seats, args.seconds, args.pure)
        low, high = row["quartiles"]
        print(f"{label:<20} {row['blocks']:>6} {row['median']:>11.3f} {low:>6.3f}-{high:<7.3f} "
              f"{row['overall']:>8.3f}", flush=True)
        results[label] = row
    if args.json:
        args.json.write_text(json.dumps({"B": str(other), "pure": args.pure, "slice_seconds": SLICE,
                                         "speed_up_of_A": results}, indent=1))


if __name__ == "__main__":
    main()
