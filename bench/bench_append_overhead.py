"""What issue 22 adds to every move, measured against a reference tree in one run.

Each round runs, in a fresh process per tree (``PYTHONPATH`` = that tree), the same
workload: a service as ``build_service`` wires it (SQLite file, projections in-process),
random legal Dynasties games played through ``submit_command`` (fixed seeds), and prints
commands per second of the process's CPU time (``process_time``: on a shared machine wall
time mostly measures the neighbours). This branch runs it twice: as is (its appends also check for a seed
reveal, turn clocks and webhook subscriptions) and with a turn clock on every game (each
move then also stops and starts clocks and schedules a timeout). The reference is another
checkout of the project (``git archive main | tar -x -C DIR``). Rounds alternate the
order; the median round is reported with the ratio to the reference.

    .venv/bin/python bench/bench_append_overhead.py --reference /tmp/ref-main [--rounds 5] [--games 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

WORKLOAD = r'''
import json, random, sys, tempfile, time
from service.wiring.bootstrap import build_service
from service.base.config import Config
games, clock = int(sys.argv[1]), sys.argv[2] == "clock"
path = tempfile.mkdtemp()
service = build_service(Config(store_url=f"sqlite:///{path}/events.db", projections="inline"))
options = {"starting_gold": 20, **({"clock_bank_seconds": 86400} if clock else {})}
commands, took = 0, 0.0
for n in range(games):
    players = [service.players.players.create(f"p{i}") for i in range(3)]
    game = service.create_game(players[0], "dynasties", options, 3)
    for player in players:
        service.join_game(game.id, player)
    table = service.load(game.id).table
    by_id = {p["id"]: p for p in players}
    seated = [by_id[table.players[s]] for s in range(3)]
    rng = random.Random(n)
    while True:
        current = service.load(game.id)
        if current.over:
            break
        seat = rng.choice(current.rules.to_move(current.state))
        command = rng.choice(current.rules.legal_commands(current.state, seat))
        started = time.process_time()
        service.submit_command(game.id, seated[seat], command)
        took += time.process_time() - started
        commands += 1
print(json.dumps({"commands": commands, "seconds": took}))
'''


def run(tree: Path, games: int, clock: bool) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree), "GAMES_LIMITS": "off"}
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([sys.executable, "-c", WORKLOAD, str(games), "clock" if clock else "plain"],
                             cwd=cwd, env=env, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["commands"] / result["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, type=Path, help="another checkout of the project")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    targets = [("reference", args.reference, False), ("branch", HERE, False), ("branch+clock", HERE, True)]
    rows: dict[str, list[float]] = {name: [] for name, _, _ in targets}
    for round_ in range(args.rounds):
        order = targets[round_ % 3:] + targets[:round_ % 3]
        for name, tree, clock in order:
            rows[name].append(run(tree, args.games, clock))
        print(f"round {round_ + 1}: " + ", ".join(f"{n} {rows[n][-1]:,.0f}/s" for n, _, _ in targets), flush=True)
    reference = statistics.median(rows["reference"])
    for name, _, _ in targets:
        median = statistics.median(rows[name])
        print(f"{name:<13} {median:8,.0f} commands/s (median of {args.rounds})   ratio {median / reference:.3f}")


if __name__ == "__main__":
    main()
