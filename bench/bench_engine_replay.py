"""The engine's own CPU time on the same recorded games, two trees side by side: the before/after
figure of issue 35 measured as its "public engine" comparison is (recorded games replayed).

``bench_engine_pair.py`` runs each tree's random-play bench for a fixed wall time: each side plays
other games (as many as fit), and the games per CPU-second it reports include the bench's own
loop, interpreted Python drawing each choice with ``random.choice``, which is the same on both
sides and so pulls every ratio towards 1 (Dynasties: about a quarter of the bench's
instructions). Here both trees run one driver over one set of games, recorded once, and only the
engine's calls are timed (``time.process_time`` around them, in the child process):

- ``replay``: ``play`` each recorded command in turn (what replaying a recorded game costs, as the
  issue's comparison with the public engine replays that engine's recorded games);
- ``offers``: before each command, ``to_move`` and ``legal_commands`` of the seat as well (what the
  random-play bench asks of the engine, without drawing the choice).

Each command is played with the ``Rng`` version it had when recorded (the trees may record a
command with more or fewer bookkeeping events, issue 35), and both sides must end each game as
recorded (its winners and scores): a tree that plays a recorded game otherwise is refused (one
that refused a recorded command would raise).

    .venv/bin/python bench/bench_engine_replay.py /work/speed-before [--rounds 5] [--games 40] [--pure] [--json FILE]

A tree runs its compiled engine where ``build/engine`` holds one (``make compile``), unless
``--pure``; the child says which engine ran and a run of the other one is refused.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

#: (label, game, seats, games recorded by default)
CASES = (("pax_pamir 2 seats", "pax_pamir", 2, 40), ("pax_pamir 5 seats", "pax_pamir", 5, 20),
         ("dynasties 3 seats", "dynasties", 3, 200))
MODES = ("replay", "offers")

#: Recording: seeded random games (the random-play benches' choices), each command with its seat
#: and the number of events before it (the command's ``Rng`` version).
_RECORD = r"""
import json, random, sys
from domain.games import default_registry
from domain.kernel.rng import Rng
game, seats, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules = default_registry()[game]
options = rules.check_options({})
out = []
for seed in range(games):
    choose = random.Random(seed)
    events = rules.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = rules.evolve(state, event)
    count, moves = len(events), []
    while not rules.is_over(state):
        seat = choose.choice(rules.to_move(state))
        command = choose.choice(rules.legal_commands(state, seat))
        moves.append([seat, command.to_json(), count])
        events, state = rules.play(state, seat, command, Rng(seed, count))
        count += len(events)
    ended = rules.outcome(state)
    out.append({"seed": seed, "moves": moves, "outcome": [list(ended.winners), sorted(ended.scores.items())]})
json.dump({"game": game, "seats": seats, "games": out}, sys.stdout)
"""

#: Replaying, in a tree's own process: the engine's calls timed, nothing else.
_REPLAY = r"""
import json, sys, time
recorded, mode = json.load(open(sys.argv[1])), sys.argv[2]
from domain.games import default_registry
from domain.kernel.commands import Command
from domain.kernel.rng import Rng
import domain.games.pax_pamir as _pax
engine = "pure" if _pax.__file__.endswith(".py") else "compiled"
rules = default_registry()[recorded["game"]]
seats = recorded["seats"]
options = rules.check_options({})
games = [(g["seed"], [(seat, Command(c["type"], c["args"]), count) for seat, c, count in g["moves"]])
         for g in recorded["games"]]
offers = mode == "offers"
spent = 0.0
outcomes = []
for seed, moves in games:
    start = time.process_time()
    events = rules.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = rules.evolve(state, event)
    for seat, command, version in moves:
        if offers:
            rules.to_move(state)
            rules.legal_commands(state, seat)
        events, state = rules.play(state, seat, command, Rng(seed, version))
    spent += time.process_time() - start
    ended = rules.outcome(state)
    outcomes.append(None if ended is None else [list(ended.winners), sorted(ended.scores.items())])
print(json.dumps({"engine": engine, "seconds": spent, "outcomes": outcomes}))
"""


def _paths(tree: Path, pure: bool) -> list[str]:
    compiled = (tree / "build" / "engine" / "domain").is_dir() and not pure
    return [str(tree / "build" / "engine"), str(tree)] if compiled else [str(tree)]


def _run(tree: Path, pure: bool, script: str, *args: str) -> str:
    code = f"import sys; sys.path[:0] = {_paths(tree, pure)!r}\n" + script
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{tree}: the run failed:\n{done.stderr[-3000:]}")
    return done.stdout


def record(tree: Path, game: str, seats: int, games: int, pure: bool, into: Path) -> dict:
    recorded = json.loads(_run(tree, pure, _RECORD, game, str(seats), str(games)))
    into.write_text(json.dumps(recorded))
    return recorded


def replay(tree: Path, recorded_file: Path, recorded: dict, mode: str, pure: bool) -> float:
    """Games per CPU-second of the engine's calls; refuses a run of the wrong engine or one that
    reached other events than the recording."""
    out = json.loads(_run(tree, pure, _REPLAY, str(recorded_file), mode).splitlines()[-1])
    wanted = "compiled" if len(_paths(tree, pure)) == 2 else "pure"
    if out["engine"] != wanted:
        raise RuntimeError(f"{tree}: asked for its {wanted} engine, ran its {out['engine']} one")
    expected = json.loads(json.dumps([g["outcome"] for g in recorded["games"]]))  # (as JSON reads it back)
    if out["outcomes"] != expected:
        raise RuntimeError(f"{tree} ends these games otherwise: {out['outcomes'][:3]}... against {expected[:3]}...")
    return len(expected) / out["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="tree B (the code before)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=float, default=1.0, help="scale the games recorded per case (default 1)")
    parser.add_argument("--pure", action="store_true", help="both trees on their Python sources")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--json", type=Path, help="also write every round's figures here")
    args = parser.parse_args()
    trees = {"A": HERE, "B": args.other.resolve()}
    print(f"{'case':<20} {'mode':<7} {'A games/cpu-s':>14} {'B games/cpu-s':>14}   A/B median (pairs)")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as work:
        for label, game, seats, games in CASES:
            recorded_file = Path(work) / f"{game}-{seats}.json"
            recorded = record(HERE, game, seats, max(1, round(games * args.games)), args.pure, recorded_file)
            for mode in args.modes:
                runs: dict[str, list[float]] = {"A": [], "B": []}
                order = list(trees.items())
                for round_number in range(args.rounds):
                    for name, tree in order if round_number % 2 == 0 else order[::-1]:  # A B, B A, ...
                        runs[name].append(replay(tree, recorded_file, recorded, mode, args.pure))
                ratios = [a / b for a, b in zip(runs["A"], runs["B"], strict=True)]
                print(f"{label:<20} {mode:<7} {statistics.median(runs['A']):>14.1f} "
                      f"{statistics.median(runs['B']):>14.1f}   {statistics.median(ratios):.3f} "
                      f"({', '.join(f'{r:.2f}' for r in ratios)})", flush=True)
                results[f"{label} {mode}"] = {**runs, "A/B": ratios, "games": len(recorded["games"])}
    if args.json:
        args.json.write_text(json.dumps({"B": str(trees["B"]), "pure": args.pure, "rounds": args.rounds,
                                         "games_per_cpu_second": results}, indent=1))


if __name__ == "__main__":
    main()
