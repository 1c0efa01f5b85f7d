"""Rules throughput of two trees side by side, in one run: the engine's before/after figure.

Runs ``bench/bench_pax_pamir.py`` and ``bench/bench_dynasties.py`` of tree A and tree B in
turn (A B A B ...), each in its own process with the same Python, and prints the median
games per second of each and the median of the pairwise ratios A/B (pairing keeps the
ratio meaningful on a shared machine whose speed drifts).

    git archive <old commit> | tar -x -C /tmp/old     # the code before, once
    .venv/bin/python bench/bench_engine_pair.py /tmp/old [--rounds 3] [--seconds 5]

A tree runs its compiled engine where it has one: ``build/engine`` (``make compile``), or
modules built beside the sources (trees from before setup.py: ``tools/compile_domain.py``).
``--pure`` runs both trees on their sources. ``--json FILE`` writes every round's figures.

Tree A is this checkout. Each tree runs its own bench scripts, so a tree whose bench plays
through ``decide`` and ``evolve`` is measured that way; ``--loop-of-b`` also runs tree B's
bench scripts against tree A's code (the same loop on both sides). ``--cpu`` counts games per
second of the bench process's own CPU time (user + system, its start-up included) instead of
wall time: steadier on a machine that other work keeps busy.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CASES = (("bench_pax_pamir.py", ["--seats", "2"], 2), ("bench_pax_pamir.py", ["--seats", "5"], 5),
         ("bench_dynasties.py", [], 3))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def games_per_second(tree: Path, script_tree: Path, script: str, args: list[str], seats: int,
                     seconds: float, cpu: bool = False, pure: bool = False) -> float:
    """Runs ``script`` (from ``script_tree``) with ``tree`` first on the import path; games per
    second of wall time as the script reports it, or (``cpu``) of the process's CPU time."""
    # a tree's compiled engine: build/engine where `make compile` unpacks the package (this
    # layout), else beside the sources (the in-place builds of before)
    paths = [str(tree / "build" / "engine"), str(tree)] if (tree / "build" / "engine" / "domain").is_dir() \
        else [str(tree)]
    if pure:
        paths = [str(tree)]
    # the engine is imported before the bench script runs: the script puts its own tree's
    # sources first on the path, which would otherwise shadow build/engine (since the compiled
    # engine moved there, issue 35, this bench ran pure Python whatever was asked, until it said
    # which engine ran: it now refuses a run of the other one)
    code = (f"import sys, runpy; sys.path[:0] = {paths!r}; import domain.games.pax_pamir, "
            f"domain.games.dynasties; sys.argv = [{script!r}, '--seconds', "
            f"{str(seconds)!r}, *{args!r}]; runpy.run_path({str(script_tree / 'bench' / script)!r}, "
            "run_name='__main__'); print('engine', domain.engine() if hasattr(domain, 'engine') else "
            "('pure' if domain.games.pax_pamir.__file__.endswith('.py') else 'compiled'))")
    before = _children_cpu()
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, check=True).stdout
    spent = _children_cpu() - before
    wanted = "compiled" if len(paths) == 2 else "pure"
    ran = next((line.split()[1] for line in out.splitlines() if line.startswith("engine ")), "unknown")
    if ran != wanted:
        raise RuntimeError(f"{tree}: asked for its {wanted} engine, ran its {ran} one")
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == str(seats):
            return int(fields[1]) / spent if cpu else float(fields[2])
    raise RuntimeError(f"no row for {seats} seats in:\n{out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="tree B (the code before)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--loop-of-b", action="store_true", help="also run B's bench loop on A's code")
    parser.add_argument("--cpu", action="store_true", help="games per CPU second rather than per wall second")
    parser.add_argument("--pure", action="store_true",
                        help="both trees on their Python sources even where build/engine holds a compiled build")
    parser.add_argument("--json", type=Path, help="also write every round's figures here")
    args = parser.parse_args()
    other = args.other.resolve()
    sides = {"A": (HERE, HERE), "B": (other, other)}
    if args.loop_of_b:
        sides["A, B's loop"] = (HERE, other)
    print(f"{'bench':<28} " + " ".join(f"{name:>13}" for name in sides) + "   A/B (pairs)")
    results: dict[str, dict[str, list[float]]] = {}
    for script, extra, seats in CASES:
        runs: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, (tree, script_tree) in sides.items():
                runs[name].append(games_per_second(tree, script_tree, script, extra, seats, args.seconds, args.cpu,
                                                   args.pure))
        ratios = [a / b for a, b in zip(runs["A"], runs["B"], strict=True)]
        label = re.sub(r"\.py$", "", script).removeprefix("bench_") + f" {seats} seats"
        print(f"{label:<28} " + " ".join(f"{statistics.median(v):>13.1f}" for v in runs.values())
              + f"   {statistics.median(ratios):.2f} ({', '.join(f'{r:.2f}' for r in ratios)})", flush=True)
        results[label] = {**runs, "A/B": ratios}
    if args.json:
        args.json.write_text(json.dumps({"B": str(other), "pure": args.pure, "cpu": args.cpu,
                                         "seconds": args.seconds, "games_per_second": results}, indent=1))


if __name__ == "__main__":
    main()
