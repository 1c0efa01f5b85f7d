"""What makes a soak window's slowest requests (issue 38): reads ``bench/soak.py --requests-log``.

The soak's rows give each 5-minute window's p99; this lines every request up with what the
machine did in the same second (``<log>.cpu.csv``, written beside the log: the share of the
CPU the machine's processes used, the share the hypervisor took, "steal", and the speed probe's
milliseconds for its fixed work) and prints:

- each window: POST and GET p50 / p99, the machine's busy and steal shares, the worst second's
  steal, the probe's median (logs from before the probe show "-"), and what the window's slowest 1% were (route and game type);
- the slow requests by the steal of their second: the share of requests over ``--slow-ms``
  in seconds with little steal and in seconds with more;
- how many slow requests overlap another slow one (a stall of the machine, or of a process,
  slows every request in flight; a costly request is slow on its own).

    .venv/bin/python bench/soak_tail.py /tmp/requests.csv [--window 300] [--slow-ms 20] [--skip 900]

``--skip`` leaves out the first seconds, as the soak's bars do (its last 45 minutes).
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter, defaultdict
from pathlib import Path

import soak  # bench/, beside this script

STEAL_BANDS = ((0.0, 0.01), (0.01, 0.03), (0.03, 0.06), (0.06, 0.10), (0.10, 1.01))


def quantile(values: list[float], q: float) -> float:
    """``soak.quantile``, NaN for no values (a table cell of its own)."""
    found = soak.quantile(values, q)
    return float("nan") if found is None else found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--window", type=float, default=300, help="seconds a window")
    parser.add_argument("--slow-ms", type=float, default=20)
    parser.add_argument("--skip", type=float, default=0, help="leave out the first seconds")
    args = parser.parse_args()

    with open(args.log) as f:
        requests = [r for r in csv.DictReader(f) if float(r["start_s"]) >= args.skip]
    for r in requests:
        r["start_s"], r["ms"] = float(r["start_s"]), float(r["ms"])
    with open(args.log.with_suffix(".cpu.csv")) as f:
        rows = list(csv.DictReader(f))
    seconds = [(float(r["time"]), float(r["busy"]), float(r["steal"])) for r in rows]
    probes = {float(r["time"]): float(r["probe_ms"]) for r in rows if r.get("probe_ms")}
    began = seconds[0][0] - 1.0  # the sampler starts with the load, and reports each second at its end
    cpu = {int(t - began): (busy, steal) for t, busy, steal in seconds}
    probe = {int(t - began): ms for t, ms in probes.items()}

    windows: dict[int, list[dict]] = defaultdict(list)
    for r in requests:
        windows[int(r["start_s"] // args.window)].append(r)
    print("| window (min) | POST p50 / p99 ms | GET p50 / p99 ms | machine busy / steal % | worst second's steal % "
          "| probe ms | the slowest 1%: route, game type (share of their kind) |")
    print("|---|---|---|---|---|---|---|")
    for w in sorted(windows):
        rs = windows[w]
        posts = [r["ms"] for r in rs if r["method"] == "POST"]
        gets = [r["ms"] for r in rs if r["method"] == "GET"]
        bar = {"POST": quantile(posts, 0.99), "GET": quantile(gets, 0.99)}
        kinds = Counter((r["method"], r["route"], r["kind"]) for r in rs)
        slowest = Counter((r["method"], r["route"], r["kind"]) for r in rs if r["ms"] >= bar[r["method"]])
        first, last = int(w * args.window), int((w + 1) * args.window)
        here = [cpu[s] for s in range(first, last) if s in cpu]
        busy = sum(b for b, _ in here) / len(here) if here else float("nan")
        steal = sum(s for _, s in here) / len(here) if here else float("nan")
        worst = max((s for _, s in here), default=float("nan"))
        timed = [probe[s] for s in range(first, last) if s in probe]
        speed = f"{quantile(timed, 0.5):.2f}" if timed else "-"
        what = ", ".join(f"{m} {route} {kind} {n} ({n / kinds[(m, route, kind)]:.1%})"
                         for (m, route, kind), n in slowest.most_common(3))
        print(f"| {first / 60:.0f}-{last / 60:.0f} | {quantile(posts, 0.5):.1f} / {bar['POST']:.1f} | "
              f"{quantile(gets, 0.5):.1f} / {bar['GET']:.1f} | {busy:.0%} / {steal:.1%} | {worst:.0%} | {speed} | {what} |")

    print(f"\nRequests over {args.slow_ms:g} ms by the steal of their second (the larger of it and the next):")
    print(f"| steal | seconds | requests | over {args.slow_ms:g} ms |")
    print("|---|---|---|---|")
    by_second: dict[int, list[float]] = defaultdict(list)
    for r in requests:
        by_second[int(r["start_s"])].append(r["ms"])
    for low, high in STEAL_BANDS:
        picked = [times for second, times in by_second.items()
                  if second in cpu and low <= max(cpu[second][1], cpu.get(second + 1, (0, 0))[1]) < high]
        count = sum(len(times) for times in picked)
        slow = sum(1 for times in picked for ms in times if ms > args.slow_ms)
        if count:
            print(f"| {low:.0%}-{min(high, 1):.0%} | {len(picked)} | {count} | {slow / count:.2%} |")

    slow_spans = sorted((r["start_s"], r["start_s"] + r["ms"] / 1000) for r in requests if r["ms"] > args.slow_ms)
    overlapping = sum(1 for i, (a, b) in enumerate(slow_spans)
                      if any(j != i and slow_spans[j][0] < b and slow_spans[j][1] > a
                             for j in range(max(0, i - 50), min(len(slow_spans), i + 50))))
    print(f"\n{overlapping} of {len(slow_spans)} requests over {args.slow_ms:g} ms overlap another one over it.")


if __name__ == "__main__":
    main()
