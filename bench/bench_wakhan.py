"""Wakhan's results (rules.md section 20): whole games of 1 and 2 humans against her, rules
only (no service), with the humans played by a bot kind; her win rate with a 95% interval,
the victory points, how games end, and what her turn costs.

    .venv/bin/python bench/bench_wakhan.py [--games 200] [--humans 1 2] [--kinds random greedy mcts@hard]
        [--out bench/results/wakhan.jsonl] [--processes 2]

A kind may name its level (``mcts@normal``). With ``--out`` each game is appended to a JSONL
file as it ends (its seed, seat count, kind, winners and points), and games already there are
not played again: the table is made from every game in the file for what was asked.

``random`` picks uniformly among the legal commands (issue 21's random kind). The other
kinds (``greedy``, ``mcts``) are the bots of ``domain.kernel.bots`` (issue 21 item 2); where
that module is not in this checkout, the kind's row says so. A command that ends a human's
turn runs her whole turn inside it: its time is reported apart from the others'.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games.pax_pamir import RULES  # noqa: E402
from domain.kernel.commands import Command  # noqa: E402
from domain.kernel.rng import Rng  # noqa: E402

MAX_COMMANDS = 20_000
Chooser = Callable[[Any, int, random.Random], Command]


def random_kind(state: Any, seat: int, rng: random.Random) -> Command:
    return rng.choice(RULES.legal_commands(state, seat))


def bot_kind(name: str) -> Chooser | str:
    """A bot kind of ``domain.kernel.bots`` (``kind`` or ``kind@level``), shown only its
    seat's view and events (as the arena does); or why it cannot be had here."""
    try:
        from domain.kernel.arena import seen  # type: ignore[import-not-found]
        from domain.kernel.bots import bot_kinds  # type: ignore[import-not-found]
    except ImportError:
        return "domain.kernel.bots is not in this checkout (issue 21 item 2)"
    kind, _, level = name.partition("@")
    bot = bot_kinds(RULES)[kind].bot(level or None)
    stream: list[Any] = []

    def choose(state: Any, seat: int, rng: random.Random) -> Command:
        return bot(RULES, seen(RULES, state, stream, seat), rng, None)
    choose.stream = stream  # type: ignore[attr-defined]
    return choose


def play(seed: int, humans: int, options: Any, choose: Chooser) -> dict[str, Any]:
    rng = random.Random(f"humans:{seed}")
    events = RULES.setup(humans, options, Rng(seed, 0))
    stream = getattr(choose, "stream", [])
    stream[:] = events
    state = None
    for event in events:
        state = RULES.evolve(state, event)
    her_turns: list[float] = []
    others: list[float] = []
    for _ in range(MAX_COMMANDS):
        if RULES.is_over(state):
            break
        seat = rng.choice(RULES.to_move(state))
        command = choose(state, seat, rng)
        started = time.perf_counter()
        new = RULES.decide(state, seat, command, Rng(seed, len(stream)))
        spent = time.perf_counter() - started
        (her_turns if any(e.type == "WakhanCardDrawn" for e in new) else others).append(spent)
        for event in new:
            state = RULES.evolve(state, event)
        stream.extend(new)
    else:
        raise RuntimeError(f"seed {seed}: no end after {MAX_COMMANDS} commands")
    outcome = RULES.outcome(state)
    assert outcome is not None
    return {"winners": list(outcome.winners), "vp": [outcome.scores[s] for s in range(humans + 1)],
            "reason": outcome.details["reason"], "her_turns": her_turns, "others": others}


def one_game(job: tuple[int, int, dict[str, Any], str]) -> dict[str, Any]:
    seed, humans, given, kind = job
    choose = random_kind if kind == "random" else bot_kind(kind)
    assert not isinstance(choose, str), choose
    row = play(seed, humans, RULES.check_options(given), choose)
    return {"seed": seed, "humans": humans, "kind": kind, "options": given, **row}


def read_rows(path: Path | None) -> dict[tuple[int, int, str, str], dict[str, Any]]:
    found: dict[tuple[int, int, str, str], dict[str, Any]] = {}
    if path is not None and path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                found.setdefault((row["seed"], row["humans"], row["kind"], json.dumps(row["options"], sort_keys=True)),
                                 row)
    return found


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if not games:
        return 0.0, 0.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def ms(values: list[float], q: float | None = None) -> float:
    if not values:
        return float("nan")
    if q is None:
        return 1000 * statistics.fmean(values)
    return 1000 * sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--humans", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--kinds", nargs="+", default=["random", "greedy"])
    parser.add_argument("--variants", action="store_true", help="all three of her variants on")
    parser.add_argument("--out", type=Path, help="append each game to this JSONL file; skip the games there")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + games - 1")
    args = parser.parse_args()
    given: dict[str, Any] = {"wakhan": True}
    if args.variants:
        given.update(wakhan_steadfast_loyalty=True, wakhan_savvy_purchasing=True, wakhan_spy_movement=True)
    pool = multiprocessing.Pool(args.processes) if args.processes > 1 else None
    print(f"{'humans':>6} {'kind':>7} {'games':>6} {'her wins':>9} {'95% interval':>14} {'her VP':>7} "
          f"{'human VP':>9} {'by lead':>8} {'her turn ms':>12} {'p95':>6} {'other ms':>9} {'s':>6}")
    for humans in args.humans:
        for kind in args.kinds:
            choose = random_kind if kind == "random" else bot_kind(kind)
            if isinstance(choose, str):
                print(f"{humans:>6} {kind:>7}  not run: {choose}")
                continue
            started = time.perf_counter()
            done = read_rows(args.out)
            mine = json.dumps(given, sort_keys=True)
            seeds = range(args.first_seed, args.first_seed + args.games)
            results = [done[(seed, humans, kind, mine)] for seed in seeds if (seed, humans, kind, mine) in done]
            jobs = [(seed, humans, given, kind) for seed in seeds if (seed, humans, kind, mine) not in done]
            for row in (pool.imap_unordered(one_game, jobs) if pool else map(one_game, jobs)):
                if args.out is not None:
                    with args.out.open("a") as out:
                        fcntl.flock(out, fcntl.LOCK_EX)
                        out.write(json.dumps(row) + "\n")
                        fcntl.flock(out, fcntl.LOCK_UN)
                results.append(row)
                print(f"  {humans} {kind}: {len(results)}/{args.games}, she won "
                      f"{sum(1 / len(r['winners']) for r in results if humans in r['winners']):.1f}",
                      file=sys.stderr, flush=True)
            elapsed = time.perf_counter() - started
            wakhan = humans
            wins = sum(1 / len(r["winners"]) for r in results if wakhan in r["winners"])  # a shared win counts its share
            low, high = wilson(wins, len(results))
            her_vp = statistics.fmean(r["vp"][wakhan] for r in results)
            human_vp = statistics.fmean(v for r in results for v in r["vp"][:wakhan])
            reasons = Counter(r["reason"] for r in results)
            turns = [t for r in results for t in r["her_turns"]]
            others = [t for r in results for t in r["others"]]
            print(f"{humans:>6} {kind:>7} {len(results):>6} {wins / len(results):>9.1%} "
                  f"{f'{low:.1%}-{high:.1%}':>14} {her_vp:>7.2f} {human_vp:>9.2f} "
                  f"{reasons['victory_point_lead'] / len(results):>8.0%} {ms(turns):>12.2f} {ms(turns, 0.95):>6.1f} "
                  f"{ms(others):>9.3f} {elapsed:>6.1f}", flush=True)
    if pool:
        pool.close()


if __name__ == "__main__":
    main()
