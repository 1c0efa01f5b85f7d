"""Bot strength and speed: win rates of each kind against each other, and time per decision.

A pairing ``A-B`` plays ``--games`` games in which one seat is kind A and every other seat
kind B; A's seat moves round the table from game to game (seat ``game % seats``), and the
game seeds are the same for every pairing. If A were no stronger than B it would win
``1/seats`` of the games (shared wins count as a fraction); A beats B when the 95% Wilson
interval of its win rate lies above that. Bots see only their seat's view and redacted
events (``domain.kernel.arena``); decisions are timed with ``time.perf_counter``.

    .venv/bin/python bench/bench_bots.py                       # the issue's table, >= 200 games each
    .venv/bin/python bench/bench_bots.py --games 40 --only dynasties:3 --pairings greedy-random
    .venv/bin/python bench/bench_bots.py --processes 2 --json bench/bots.json
    nice .venv/bin/python bench/bench_bots.py --only pax_pamir:2 --only pax_pamir:4 --pairings mcts-greedy \
        --out /tmp/bots.jsonl --resume                        # resumable: run it again to go on

With ``--out``, each game is appended to a JSONL file as it ends (one line, under a file
lock, so several runs may share the file); ``--resume`` skips the games already there, and
the table is made from every game in the file for the configurations and pairings asked
(a game played twice by two runs counts once). Decision times: mean, p95, p99 and max.

Configurations: Dynasties at 3 seats (``dynasties:3-sealed``: with commit-reveal Tributes,
R17a), Pax Pamir at 2 and 4 seats. Pairings: ``greedy-random``, ``mcts-greedy`` and
``mcts-random`` (``mcts`` at its default level, or ``--mcts-level``); a side may name its
level, ``mcts@hard-mcts@normal``; a game kind such as Wakhan joins with
``--pairings wakhan-random``. Games against Wakhan as a seat of the rules (the option
``wakhan``) are ``bench/bench_wakhan.py``'s.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games import default_registry  # noqa: E402
from domain.kernel.arena import play_match  # noqa: E402
from domain.kernel.bots import bot_kinds  # noqa: E402

CONFIGS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "dynasties:3": ("dynasties", 3, {}), "dynasties:3-sealed": ("dynasties", 3, {"commit_reveal_tributes": True}),
    "pax_pamir:2": ("pax_pamir", 2, {}), "pax_pamir:4": ("pax_pamir", 4, {})}
PAIRINGS = ("greedy-random", "mcts-greedy", "mcts-random")


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def side(name: str, level: str | None) -> tuple[str, str | None]:
    """A pairing's side, ``kind`` or ``kind@level``: its kind and level (``level`` for a bare mcts)."""
    kind, _, named = name.partition("@")
    return kind, named or (level if kind == "mcts" else None)


def one_game(job: tuple[str, str, str, str | None, int]) -> dict[str, Any]:
    config, first, second, level, game = job
    kind, seats, options = CONFIGS[config]
    rules = default_registry()[kind]
    kinds = bot_kinds(rules)
    seat_a = game % seats
    lineup = [first if seat == seat_a else second for seat in range(seats)]
    bots = [kinds[side(name, level)[0]].bot(side(name, level)[1]) for name in lineup]
    match = play_match(rules, seats, bots, seed=f"bench:{game}", options=options, clock=time.perf_counter)
    winners = match.outcome.winners if match.outcome else ()
    share = 1 / len(winners) if winners else 0.0
    return {"game": game, "a_share": share if seat_a in winners else 0.0, "decisions": match.decisions,
            "ended": match.outcome is not None,
            "times": {name: [round(t, 5) for seat, times in enumerate(match.seconds) if lineup[seat] == name
                             for t in times] for name in set(lineup)}}


def _key(config: str, pairing: str, level: str | None, game: int) -> tuple[str, str, str, int]:
    return config, pairing, level or "default", game


def read_results(path: Path | None) -> dict[tuple[str, str, str, int], dict[str, Any]]:
    """The games already in the JSONL file (the first of any game played twice)."""
    found: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    if path is None or not path.exists():
        return found
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            found.setdefault(_key(row["config"], row["pairing"], row["level"], row["game"]), row)
    return found


def append_result(path: Path, row: dict[str, Any]) -> None:
    with path.open("a") as out:
        fcntl.flock(out, fcntl.LOCK_EX)
        out.write(json.dumps(row) + "\n")
        out.flush()
        fcntl.flock(out, fcntl.LOCK_UN)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def run_pairing(config: str, pairing: str, games: int, level: str | None, pool: Any,
                out: Path | None = None, resume: bool = False) -> dict[str, Any]:
    first, second = pairing.split("-")
    seats = CONFIGS[config][1]
    done = read_results(out) if resume else {}
    jobs = [(config, first, second, level, game) for game in range(games)
            if _key(config, pairing, level, game) not in done]
    started = time.perf_counter()
    results = [row for key, row in done.items() if key[:3] == _key(config, pairing, level, 0)[:3]]
    for result in (pool.imap_unordered(one_game, jobs) if pool else map(one_game, jobs)):
        row = {"config": config, "pairing": pairing, "level": level or "default", **result}
        if out is not None:
            append_result(out, row)
        results.append(row)  # a running tally on stderr, for long runs
        print(f"  {config} {pairing}: {len(results)}/{games} games, {first} won "
              f"{sum(r['a_share'] for r in results):.1f}", file=sys.stderr, flush=True)
    played = len(results)
    wins = sum(r["a_share"] for r in results)
    low, high = wilson(wins, played)
    times: dict[str, list[float]] = {}
    for r in results:
        for name, values in r["times"].items():
            times.setdefault(name, []).extend(values)
    baseline = 1 / seats
    return {
        "config": config, "pairing": pairing, "games": played, "a": first, "b": second,
        "a_wins": round(wins, 2), "a_rate": round(wins / played, 3) if played else 0.0,
        "baseline": round(baseline, 3),
        "wilson95": [round(low, 3), round(high, 3)], "a_beats_b": low > baseline,
        "unfinished": sum(1 for r in results if not r["ended"]),
        "decision_ms": {name: {"mean": round(1000 * statistics.fmean(v), 2),
                               "p95": round(1000 * _percentile(v, 0.95), 2),
                               "p99": round(1000 * _percentile(v, 0.99), 2),
                               "max": round(1000 * max(v), 2), "count": len(v)} for name, v in times.items() if v},
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--only", action="append", choices=sorted(CONFIGS), help="a configuration (repeatable)")
    parser.add_argument("--pairings", default=",".join(PAIRINGS))
    parser.add_argument("--mcts-level", default=None, help="a named level of mcts (default: its default)")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--out", type=Path, help="append each game to this JSONL file as it ends")
    parser.add_argument("--resume", action="store_true", help="skip the games already in --out")
    args = parser.parse_args()
    pool = multiprocessing.Pool(args.processes) if args.processes > 1 else None
    out = []
    for name in args.only or list(CONFIGS):
        for pairing in args.pairings.split(","):
            row = run_pairing(name, pairing, args.games, args.mcts_level, pool, args.out, args.resume)
            out.append(row)
            times = "; ".join(f"{k} {v['mean']} ms mean, {v['p95']} p95, {v['p99']} p99, {v['max']} max"
                              for k, v in sorted(row["decision_ms"].items()))
            print(f"{row['config']:12} {pairing:14} {row['games']} games: {row['a']} wins {row['a_rate']:.3f} "
                  f"(95% {row['wilson95'][0]:.3f}-{row['wilson95'][1]:.3f}, even {row['baseline']:.3f}) "
                  f"{'BEATS' if row['a_beats_b'] else 'not shown to beat'} {row['b']}; "
                  f"{times}; {row['seconds']} s", flush=True)
            if args.json:
                args.json.write_text(json.dumps(out, indent=1))
    if pool:
        pool.close()


if __name__ == "__main__":
    main()
