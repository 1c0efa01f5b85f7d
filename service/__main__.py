"""The command line: ``python -m service serve | worker | rebuild | lag``.

serve    the HTTP API, under the server ``--server`` names (service.running.serving: gunicorn with
         gevent by default, where a live stream costs a greenlet, not a worker).
worker   an RQ worker that keeps the projections current (Redis deployments).
rebuild  drop read models and build them again from the start of the log, with a progress bar.
lag      each projection's checkpoint, log head and lag.
project  the SQLite projector: tails the log and keeps the projections current (``serve``
         on SQLite runs one beside its web workers).
verify FILE --key PUBKEY   check an export's Ed25519 signature offline (no server).
verify-fairness FILE   recompute every random outcome of a finished game's export from its
         revealed seed (no server, no store needed).

Every command takes ``--store URL`` (else ``GAMES_STORE``, else ``sqlite:///./data/events.db``);
the other settings come from the environment (see ``service.base.config``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable

from service.base.config import LANES, Config
from service.running.serving import DEFAULT_SERVER, SERVERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=None,
                       help="gunicorn worker processes (default 2; 1 with a memory:// store, which allows no more)")
    serve.add_argument("--connections", type=int, default=1000,
                       help="open connections (live streams included) per gevent worker, threads per "
                            "gthread or granian worker (default 1000)")
    serve.add_argument("--server", choices=SERVERS, default=os.environ.get("GAMES_SERVER") or DEFAULT_SERVER,
                       help=f"the HTTP server (else GAMES_SERVER, else {DEFAULT_SERVER}; service.running.serving)")
    _store_argument(serve)

    worker = commands.add_parser("worker", help="run an RQ worker for lanes of background work (Redis)")
    _store_argument(worker)
    worker.add_argument("--queue", help="the name the lanes' queues start with (else GAMES_QUEUE, else 'games')")
    worker.add_argument("--lanes", default=",".join(LANES),
                        help=f"the lanes it serves, comma-separated, from {', '.join(LANES)} (default: all; "
                             "a deployment runs one worker per lane: docs/operations.md)")
    worker.add_argument("--processes", type=int, default=1,
                        help="worker processes for these lanes, each restarted when it ends (default 1)")
    worker.add_argument("--burst", action="store_true", help="stop once the queue is empty")
    worker.add_argument("--no-scheduler", action="store_true",
                        help="do not run RQ's scheduler (it re-enqueues retries after their backoff)")

    rebuild = commands.add_parser("rebuild", help="drop read models and rebuild them from the log")
    rebuild.add_argument("projection", nargs="?", help="one projection (default: every one)")
    _store_argument(rebuild)
    rebuild.add_argument("--queue", help="queue name, with --via-worker")
    rebuild.add_argument("--via-worker", action="store_true",
                         help="enqueue rebuild jobs for the RQ workers and follow their progress")

    lag = commands.add_parser("lag", help="show each projection's checkpoint and lag")
    _store_argument(lag)

    archive = commands.add_parser("archive", help="move games finished longer than GAMES_ARCHIVE_AFTER ago "
                                                  "from Redis to GAMES_ARCHIVE_URL, now, in this process "
                                                  "(the projections' lane does it every GAMES_ARCHIVE_EVERY)")
    _store_argument(archive)
    archive.add_argument("--budget", type=float, default=3600.0, help="seconds to work at most (default 3600)")

    background = commands.add_parser("background", help="play the bot seats, run the turn clocks and deliver "
                                                         "the webhooks of an embedded store (serve starts one; "
                                                         "service.running.background)")
    _store_argument(background)

    project = commands.add_parser("project", help="catch the projections up as appends come (SQLite: serve "
                                                  "starts one; service.running.projector)")
    _store_argument(project)

    fairness = commands.add_parser("verify-fairness", help="check a finished game's export against its seed")
    fairness.add_argument("file", help="a game's export (JSON Lines), '-' for standard input")

    verify = commands.add_parser("verify", help="check an export's signature offline with a public key")
    verify.add_argument("file", help="a game's export (JSON Lines), '-' for standard input")
    verify.add_argument("--key", action="append", required=True, metavar="PUBKEY",
                        help="a public key as GET /signing-keys lists it (base64), or a PEM file; repeatable")

    args = parser.parse_args(argv)
    if args.command == "verify-fairness":
        return _verify_fairness(args.file)
    if args.command == "verify":
        return _verify_signature(args.file, args.key)
    config = Config.from_env(store_url=args.store, queue_name=getattr(args, "queue", None))
    return {"serve": _serve, "worker": _worker, "rebuild": _rebuild, "lag": _lag,
            "project": _project, "background": _background, "archive": _archive}[args.command](config, args)


def _store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", help="sqlite:///PATH, redis://HOST:PORT/DB or memory:// (else GAMES_STORE)")


# -- serve -------------------------------------------------------------------------------
def _serve(config: Config, args: argparse.Namespace) -> int:
    from service.running.serving import run

    if config.store_url.startswith("memory:"):
        # a memory store lives in one process: a second worker would hold another store, and a
        # token registered on one would be unknown to the other
        if args.workers is not None and args.workers > 1:
            print("a memory:// store is served by one worker only: use --workers 1, or a sqlite:/// or "
                  "redis:// store for more", file=sys.stderr)
            return 2
        args.workers = 1
    elif args.workers is None:
        args.workers = 2
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    from domain import engine

    print(f"The rules engine is {'compiled (mypyc)' if engine() == 'compiled' else 'pure Python'}", flush=True)
    print(f"Open http://{shown}:{args.port}/ in a browser to play (the API's contract: /docs)", flush=True)
    if config.projections == "inline" and config.store_url.startswith("sqlite:") and not config.inline_projector:
        config = dataclasses.replace(config, inline_projector="process")  # service.running.projector
    if config.projections == "inline" and config.store_url.startswith("sqlite:") and not config.background:
        config = dataclasses.replace(config, background="process")  # service.running.background

    def load() -> Callable[..., object]:
        from service.api.app import create_app

        return create_app(config)

    from service.running.supervision import Supervised

    children = []
    child_env = {**os.environ, "GAMES_STORE": config.store_url, "GAMES_PROJECTIONS": "inline"}
    if config.inline_projector == "process":  # one projector beside the web workers, kept running
        children.append(Supervised(child_env))
    if config.background == "process":  # and one process for the bots, clocks and webhooks
        children.append(Supervised({**child_env, "GAMES_INLINE_PROJECTOR": config.inline_projector},
                                         [sys.executable, "-m", "service", "background"], name="background"))
    for child in children:
        child.start()
    try:
        run(args.server, load, args.host, args.port, args.workers, args.connections, config.access_log)
    finally:
        for child in children:
            child.stop()
    return 0


# -- background (the embedded store's bots, clocks and webhooks) ---------------------------
def _background(config: Config, args: argparse.Namespace) -> int:
    from service.running.background import run_background

    run_background(config)
    return 0


# -- project (the SQLite projector) -------------------------------------------------------
def _project(config: Config, args: argparse.Namespace) -> int:
    from service.running.projector import run_projector

    run_projector(config)
    return 0


# -- worker ------------------------------------------------------------------------------
def _worker(config: Config, args: argparse.Namespace) -> int:
    from service.running.worker import run_worker

    lanes = tuple(lane.strip() for lane in args.lanes.split(",") if lane.strip())
    unknown = [lane for lane in lanes if lane not in LANES]
    if unknown or not lanes:
        print(f"--lanes: no lane named {unknown[0] if unknown else '(none)'!r}; lanes: {', '.join(LANES)}",
              file=sys.stderr)
        return 2
    if args.processes < 1:
        print("--processes must be at least 1", file=sys.stderr)
        return 2
    if args.processes == 1:
        run_worker(config, lanes=lanes, burst=args.burst, with_scheduler=not args.no_scheduler)
        return 0
    return _worker_processes(config, args, lanes)


def _worker_processes(config: Config, args: argparse.Namespace, lanes: tuple[str, ...]) -> int:
    """``--processes N``: N workers of the same lanes, each kept running (restarted when it ends)."""
    import signal
    import threading

    from service.running.supervision import Supervised

    command = [sys.executable, "-m", "service", "worker", "--lanes", ",".join(lanes), "--queue", config.queue_name,
               *(["--store", args.store] if args.store else []), *(["--no-scheduler"] if args.no_scheduler else [])]
    children = [Supervised(dict(os.environ), command, name=f"worker {number} of {','.join(lanes)}")
                for number in range(args.processes)]
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    for child in children:
        child.start()
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for child in children:
            child.stop()
    return 0


# -- rebuild -----------------------------------------------------------------------------
def _rebuild(config: Config, args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from service.background.projections_runner import ProjectionRunner
    from service.wiring.stores import open_store

    runner = ProjectionRunner(open_store(config), batch_size=config.projection_batch,
                              save_every=config.projection_save_every, pause=config.projection_pause)
    names = [args.projection] if args.projection else runner.names
    unknown = [n for n in names if n not in runner.names]
    if unknown:
        print(f"no projection named {unknown[0]!r}; projections: {', '.join(runner.names)}", file=sys.stderr)
        return 2
    if args.via_worker:
        return _rebuild_via_worker(config, names)
    for name in names:
        with tqdm(desc=f"rebuild {name}", unit="event", unit_scale=True, dynamic_ncols=True) as bar:
            def progress(done: int, total: int, bar=bar) -> None:
                bar.total = total
                bar.update(done - bar.n)

            started = time.perf_counter()
            if config.projections == "rq":  # take the workers' lock, so they wait instead of racing
                from service.background.rq_projections import RqProjections
                from service.running.worker import locked

                queue = RqProjections.from_config(config, runner.names)

                def work(beat: Callable[[], None], name: str = name) -> int:
                    return runner.rebuild(name, progress, beat)

                applied = locked(queue, runner, name, config.projection_lock_ttl, work, required=True)
            else:
                applied = runner.rebuild(name, progress)
        took = time.perf_counter() - started
        print(f"{name}: {applied} events in {took:.2f} s ({applied / took if took else 0:,.0f} events/s)")
    return 0


def _rebuild_via_worker(config: Config, names: list[str]) -> int:
    from tqdm import tqdm

    from service.background.rq_projections import RqProjections
    from service.running.worker import job_progress

    queue = RqProjections.from_config(config, names)
    for name in names:
        job = queue.enqueue_rebuild(name)
        with tqdm(desc=f"rebuild {name} (job {job.id})", unit="event", unit_scale=True) as bar:
            while True:
                done = job_progress(job)
                bar.total = done["total"] or None
                bar.update(done["done"] - bar.n)
                status = job.get_status()
                if status in ("finished", "failed", "stopped", "canceled"):
                    break
                time.sleep(0.5)
        if status != "finished":
            print(f"{name}: the rebuild job ended {status}; see RQ's failed job registry", file=sys.stderr)
            return 1
        print(f"{name}: rebuilt ({job.return_value()} events)")
    return 0


# -- lag ---------------------------------------------------------------------------------
def _lag(config: Config, args: argparse.Namespace) -> int:
    from service.background.projections_runner import ProjectionRunner
    from service.wiring.stores import open_store

    runner = ProjectionRunner(open_store(config))
    for status in runner.status_all():
        behind = ", ".join(f"p{r['partition']}: {r['checkpoint']}/{r['head']}" for r in status["partitions"]
                           if r["head"] or r["checkpoint"])
        ahead = f"   AHEAD of the log by {status['ahead']}: rebuild it" if status["ahead"] else ""
        print(f"{status['name']:<12} lag {status['lag']:>8}   {behind}{ahead}")
    return 0


# -- archive -----------------------------------------------------------------------------
def _archive(config: Config, args: argparse.Namespace) -> int:
    from service.background import job_runtime
    from service.running.archiving import archiver_for
    from service.wiring.bootstrap import build_service

    if not config.archive_url:
        print("GAMES_ARCHIVE_URL is not set: nothing to archive to (the embedded store keeps every game)",
              file=sys.stderr)
        return 1
    job_runtime.log_to_stderr()
    counts = archiver_for(build_service(config), config).run(budget=args.budget)
    print(" ".join(f"{name}={value}" for name, value in counts.items()))
    return 0 if not counts.get("busy") else 1


# -- verify-fairness ---------------------------------------------------------------------
def _read_file(path: str) -> str | None:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return None


def _verify_signature(path: str, keys: list[str]) -> int:
    """0: signed by one of ``keys`` and unchanged since; 1: why not; 2: unusable input."""
    from service.streams.signing import VALID, Verifier, parse_public_key

    publics = []
    for key in keys:
        text = key
        if not key.strip().startswith("-----BEGIN") and os.path.isfile(key):
            text = _read_file(key) or ""
        try:
            publics.append(parse_public_key(text))
        except ValueError as exc:
            print(f"--key {key[:60]}: {exc}", file=sys.stderr)
            return 2
    log = _read_file(path)
    if log is None:
        return 2
    verdict, reason = Verifier(publics).check(log)
    if verdict != VALID:
        print(f"NOT VERIFIED ({verdict}): {reason}", file=sys.stderr)
        return 1
    print(f"valid: {reason}; the file is unchanged since it was signed")
    return 0


def _verify_fairness(path: str) -> int:
    """0: every random outcome recomputed from the revealed seed; 1: the reason it is not."""
    from domain.games import default_registry
    from service.play.fairness import Unfair, verify_fairness

    text = _read_file(path)
    if text is None:
        return 2
    try:
        verdict = verify_fairness(text, default_registry())
    except Unfair as unfair:
        print(f"NOT VERIFIED: {unfair}", file=sys.stderr)
        return 1
    print(verdict.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
