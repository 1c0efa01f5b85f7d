"""Settings from the environment (or the CLI): where events live and how projections run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

#: the lanes of background work on RQ, each a queue of its own with workers of its own, in the
#: order a worker that serves several takes them: a timeout is due at a time, a bot is awaited
#: by people, a webhook by a machine, a read model by nobody in particular
LANES = ("clocks", "bots", "webhooks", "projections")


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_keys(text: str) -> tuple[str, ...]:
    """A comma-separated list (signing keys, allowed webhook hosts), blanks dropped."""
    return tuple(k.strip() for k in text.split(",") if k.strip())


def seconds(text: str, default: float) -> float:
    """A duration setting: seconds (``90``, ``0.5``) or a number with a unit (``45s``, ``30m``,
    ``12h``, ``7d``); empty: ``default``."""
    text = text.strip().lower()
    if not text:
        return default
    unit = _UNITS.get(text[-1])
    try:
        value = float(text[:-1]) * unit if unit else float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a duration: give seconds, or a number with s, m, h or d") from None
    if value < 0:
        raise ValueError(f"{text!r}: a duration cannot be negative")
    return value


@dataclass(frozen=True)
class Config:
    #: sqlite:///PATH (default), redis://HOST:PORT/DB, redis-cluster://HOST:PORT[,HOST:PORT...]
    #: (a Redis Cluster: set queue_url to a standalone Redis for RQ), or memory://
    store_url: str = "sqlite:///./data/events.db"
    #: take a snapshot every N events of a game (0: never)
    snapshot_every: int = 100
    #: "inline" runs projections in the web process after each append; "rq" enqueues jobs
    projections: str = "inline"
    #: Redis key prefix (lets several deployments or tests share one Redis)
    redis_prefix: str = "dyn"
    redis_partitions: int = 16
    #: RQ mode: the Redis that holds the job queues (default: the store's URL; behind Sentinel:
    #: ``redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]``), and the name the
    #: queues of the lanes start with: ``<queue_name>-clocks``, ``-bots``, ``-webhooks`` and
    #: ``-projections`` (``lane_queue``; docs/operations.md "Lanes")
    queue_url: str = ""
    queue_name: str = "games"
    #: inline mode: who catches the projections up after appends: "thread", a background thread
    #: of each web process; "process", one projector process beside them (``service.running.projector``;
    #: ``serve`` on SQLite starts it), and the web processes only catch up on reads; "" (unset):
    #: "process" under ``serve`` on SQLite, else "thread"
    inline_projector: str = ""
    #: embedded store: who plays the bot seats, runs the turn clocks' timeouts and delivers the
    #: webhooks: "thread", threads of each web process; "process", one background process
    #: beside them (``service.running.background``; ``serve`` on SQLite starts it), and the web processes
    #: run none of it; "" (unset): "process" under ``serve`` on SQLite, else "thread"
    background: str = ""
    #: embedded store: processes that run the bots' searches (0: one per core); threads that
    #: deliver webhooks (one slow receiver holds one of them)
    bot_search_processes: int = 0
    webhook_threads: int = 8
    #: the niceness the bots' decisions run at (the embedded store's decision processes, a
    #: worker that serves the bots' lane alone): a search gives way to web requests, clocks and
    #: webhooks when the cores are busy (0: no change)
    bot_nice: int = 10
    #: and, where the system has it (Linux), under the idle scheduling policy (SCHED_IDLE): a
    #: search then runs only on a core nothing else wants, and a web request that wakes takes
    #: the core at once, where niceness alone only weighs the share (False: niceness only)
    bot_idle: bool = True
    #: the niceness of a worker that serves the projections' lane alone (the read models and the
    #: archive job: nobody waits on them): when the cores are busy it gives way to web requests,
    #: whose tail latency it otherwise shares; it catches up in the time they leave (0: no change)
    projection_nice: int = 5
    #: RQ mode: how the workers learn of appends. "tail": each worker process tails the log
    #: itself (blocking reads, in batches), and an append asks nothing of anyone; "jobs": each
    #: append enqueues catch-up jobs (``service.background.rq_projections``)
    projection_feed: str = "tail"
    #: RQ mode, feed "jobs": seconds an append's catch-up request waits, off the command's path, so that one
    #: request covers a burst of appends (0: request in the command's own thread)
    enqueue_delay: float = 0.002
    #: projection runner: events per log read, events applied between saves, seconds to
    #: pause after each save (throttles a rebuild), and the TTL of a worker's lock on a projection
    projection_batch: int = 1000
    projection_save_every: int = 5000
    projection_pause: float = 0.0
    projection_lock_ttl: float = 10.0
    #: RQ worker: seconds between its checks for a projection left behind by a lost job
    sweep_interval: float = 5.0
    #: live streams (SSE): seconds between polls of the store, between heartbeats, and before
    #: the server ends a stream (the client reconnects with Last-Event-ID)
    stream_poll: float = 0.2
    stream_heartbeat: float = 15.0
    stream_max_seconds: float = 300.0
    #: gunicorn's access log: "" (off, the default: it costs a tenth of a web worker's CPU),
    #: "-" (stdout) or a file path
    access_log: str = ""
    #: keys that sign exported logs: the first signs, every one verifies (rotation: put the new
    #: key first, keep the old after it). Empty: a random key kept in the store (service.streams.signing)
    signing_keys: tuple[str, ...] = ()
    #: limits and quotas (service.api.limits; docs/operations.md lists them). Rates are
    #: "N/second;M/minute" strings (empty: no such limit); counts of 0 mean no limit.
    limits_enabled: bool = True
    limits_storage: str = "memory://"
    limit_per_ip: str = "1000/second;30000/minute"
    limit_per_token: str = "300/second;10000/minute"
    limit_registrations_per_ip: str = "60/minute;1000/day"
    limit_streams_per_token: int = 10
    limit_streams_per_ip: int = 100
    limit_streams_per_process: int = 500
    limit_waiting_games_per_player: int = 20
    limit_bot_games_per_player: int = 10
    limit_webhooks_per_player: int = 20
    limit_webhooks_per_game: int = 5
    #: proxies in front of the server that append to X-Forwarded-For (0: use the peer address)
    proxy_hops: int = 0
    #: seconds the store may take to answer before a request fails with 503 (Redis socket timeout)
    store_timeout: float = 3.0
    #: SQLite durability: NORMAL (a killed process loses nothing; a power cut may lose the last
    #: commits) or FULL (each commit fsynced)
    sqlite_synchronous: str = "NORMAL"
    #: origins whose pages may call the API from a browser (CORS; "*": any). Empty: none
    cors_origins: tuple[str, ...] = ()
    #: webhooks (service.background.webhooks): networks (CIDR) or host names a webhook URL may reach besides
    #: public addresses (e.g. "127.0.0.1/32,hooks.internal"); attempts before a dead letter; the
    #: first retry's delay in seconds (doubling after each failure); the deadline of one
    #: delivery in seconds, connect, send and answer together (past it: a failed attempt)
    webhook_allow: tuple[str, ...] = ()
    webhook_max_attempts: int = 8
    webhook_backoff: float = 5.0
    webhook_timeout: float = 10.0
    #: seconds a webhook secret replaced by a rotation keeps signing deliveries beside the new one
    webhook_secret_grace: float = 86_400.0
    #: the bearer token of the server's operator (webhooks of every game's public events); empty: none
    operator_token: str = ""
    #: Redis durability: acknowledge a write that an answer depends on (appends, idempotency
    #: records and their replays, players and tokens, read-model checkpoints) only once this
    #: many replicas have it (WAIT; WAITAOF where Redis 7.2+ offers it), else answer 503.
    #: 0: off (a single Redis, or replication accepted as asynchronous)
    redis_wait_replicas: int = 0
    #: seconds a write waits for those replicas before the request answers 503 (keep it below
    #: store_timeout)
    redis_wait_timeout: float = 1.0
    #: bot seats: the least seconds a bot takes over a move, its thinking included (so that
    #: people can follow its moves; 0: as fast as it decides)
    bot_think_seconds: float = 0.3
    #: Redis store: the archive of finished games (``postgresql://...``; empty: no archiving, every
    #: game stays in Redis). Games finished longer than ``archive_after`` seconds ago move there
    #: (``service.running.archiving``, a job of the projections' lane run every ``archive_every`` seconds,
    #: pausing ``archive_pause`` seconds after each game). The embedded store keeps every game in
    #: its file and takes no archive
    archive_url: str = ""
    #: Redis store with an archive: the newest entries of each log partition that stay in Redis
    #: when the entries every reader has read go to the archive (``Archiver.compact``)
    log_kept: int = 200
    #: Redis store: the newest notices each player's feed keeps (``GET /players/me/events``); the
    #: oldest leave as new ones come. The embedded store keeps every notice in its file
    feed_kept: int = 100
    archive_after: float = 7 * 24 * 3600.0
    #: each run also lets Redis's log go up to what every reader has read, so the log holds about
    #: this many seconds of appends at its fullest (the hour's soak saw a 60 s interval add 3.5 MB
    #: to Redis just before a run: a sawtooth of a tenth of its memory)
    archive_every: float = 10.0
    archive_pause: float = 0.0

    def lane_queue(self, lane: str) -> str:
        """The RQ queue of a lane of background work (``service.lanes.LANES``)."""
        return f"{self.queue_name}-{lane}"

    @property
    def rq_url(self) -> str:
        if not self.queue_url and self.store_url.startswith(("redis-cluster://", "rediss-cluster://")):
            raise ValueError("RQ needs a standalone Redis beside a Redis Cluster store: set GAMES_QUEUE_URL "
                             "(redis://HOST:PORT/DB)")
        return self.queue_url or self.store_url

    @classmethod
    def from_env(cls, **overrides) -> Config:
        env = os.environ
        values: dict[str, Any] = {
            "store_url": env.get("GAMES_STORE", cls.store_url),
            "snapshot_every": int(env.get("GAMES_SNAPSHOT_EVERY", cls.snapshot_every)),
            "projections": env.get("GAMES_PROJECTIONS", ""),
            "redis_prefix": env.get("GAMES_REDIS_PREFIX", cls.redis_prefix),
            "redis_partitions": int(env.get("GAMES_REDIS_PARTITIONS", cls.redis_partitions)),
            "queue_url": env.get("GAMES_QUEUE_URL", cls.queue_url),
            "queue_name": env.get("GAMES_QUEUE", cls.queue_name),
            "projection_feed": env.get("GAMES_PROJECTION_FEED", cls.projection_feed),
            "inline_projector": env.get("GAMES_INLINE_PROJECTOR", cls.inline_projector),
            "background": env.get("GAMES_BACKGROUND", cls.background),
            "bot_search_processes": int(env.get("GAMES_BOT_SEARCH_PROCESSES", cls.bot_search_processes)),
            "webhook_threads": int(env.get("GAMES_WEBHOOK_THREADS", cls.webhook_threads)),
            "bot_nice": int(env.get("GAMES_BOT_NICE", cls.bot_nice)),
            "projection_nice": int(env.get("GAMES_PROJECTION_NICE", cls.projection_nice)),
            "bot_idle": env.get("GAMES_BOT_IDLE", "1" if cls.bot_idle else "0").lower() not in ("0", "false", "no", "off"),
            "enqueue_delay": float(env.get("GAMES_ENQUEUE_DELAY", cls.enqueue_delay)),
            "projection_batch": int(env.get("GAMES_PROJECTION_BATCH", cls.projection_batch)),
            "projection_save_every": int(env.get("GAMES_PROJECTION_SAVE_EVERY", cls.projection_save_every)),
            "projection_pause": float(env.get("GAMES_PROJECTION_PAUSE", cls.projection_pause)),
            "projection_lock_ttl": float(env.get("GAMES_PROJECTION_LOCK_TTL", cls.projection_lock_ttl)),
            "sweep_interval": float(env.get("GAMES_SWEEP_INTERVAL", cls.sweep_interval)),
            "stream_poll": float(env.get("GAMES_STREAM_POLL", cls.stream_poll)),
            "stream_heartbeat": float(env.get("GAMES_STREAM_HEARTBEAT", cls.stream_heartbeat)),
            "stream_max_seconds": float(env.get("GAMES_STREAM_MAX_SECONDS", cls.stream_max_seconds)),
            "access_log": env.get("GAMES_ACCESS_LOG", cls.access_log),
            "signing_keys": parse_keys(env.get("GAMES_SIGNING_KEYS", "")),
            "limits_enabled": env.get("GAMES_LIMITS", "on").lower() not in ("off", "0", "false", "no"),
            "limits_storage": env.get("GAMES_LIMITS_STORAGE", cls.limits_storage),
            "limit_per_ip": env.get("GAMES_LIMIT_PER_IP", cls.limit_per_ip),
            "limit_per_token": env.get("GAMES_LIMIT_PER_TOKEN", cls.limit_per_token),
            "limit_registrations_per_ip": env.get("GAMES_LIMIT_REGISTRATIONS_PER_IP", cls.limit_registrations_per_ip),
            "limit_streams_per_token": int(env.get("GAMES_LIMIT_STREAMS_PER_TOKEN", cls.limit_streams_per_token)),
            "limit_streams_per_ip": int(env.get("GAMES_LIMIT_STREAMS_PER_IP", cls.limit_streams_per_ip)),
            "limit_streams_per_process": int(env.get("GAMES_LIMIT_STREAMS_PER_PROCESS",
                                                     cls.limit_streams_per_process)),
            "limit_waiting_games_per_player": int(env.get("GAMES_LIMIT_WAITING_GAMES_PER_PLAYER",
                                                          cls.limit_waiting_games_per_player)),
            "limit_bot_games_per_player": int(env.get("GAMES_LIMIT_BOT_GAMES_PER_PLAYER",
                                                      cls.limit_bot_games_per_player)),
            "limit_webhooks_per_player": int(env.get("GAMES_LIMIT_WEBHOOKS_PER_PLAYER", cls.limit_webhooks_per_player)),
            "limit_webhooks_per_game": int(env.get("GAMES_LIMIT_WEBHOOKS_PER_GAME", cls.limit_webhooks_per_game)),
            "proxy_hops": int(env.get("GAMES_PROXY_HOPS", cls.proxy_hops)),
            "store_timeout": float(env.get("GAMES_STORE_TIMEOUT", cls.store_timeout)),
            "sqlite_synchronous": env.get("GAMES_SQLITE_SYNCHRONOUS", cls.sqlite_synchronous),
            "cors_origins": tuple(o.strip() for o in env.get("GAMES_CORS_ORIGINS", "").split(",") if o.strip()),
            "webhook_allow": parse_keys(env.get("GAMES_WEBHOOK_ALLOW", "")),
            "webhook_max_attempts": int(env.get("GAMES_WEBHOOK_MAX_ATTEMPTS", cls.webhook_max_attempts)),
            "webhook_backoff": float(env.get("GAMES_WEBHOOK_BACKOFF", cls.webhook_backoff)),
            "webhook_timeout": float(env.get("GAMES_WEBHOOK_TIMEOUT", cls.webhook_timeout)),
            "webhook_secret_grace": float(env.get("GAMES_WEBHOOK_SECRET_GRACE", cls.webhook_secret_grace)),
            "operator_token": env.get("GAMES_OPERATOR_TOKEN", cls.operator_token),
            "redis_wait_replicas": int(env.get("GAMES_REDIS_WAIT_REPLICAS", cls.redis_wait_replicas)),
            "redis_wait_timeout": float(env.get("GAMES_REDIS_WAIT_TIMEOUT", cls.redis_wait_timeout)),
            "bot_think_seconds": float(env.get("GAMES_BOT_THINK_SECONDS", cls.bot_think_seconds)),
            "archive_url": env.get("GAMES_ARCHIVE_URL", cls.archive_url),
            "feed_kept": int(env.get("GAMES_FEED_KEPT", cls.feed_kept)),
            "log_kept": int(env.get("GAMES_LOG_KEPT", cls.log_kept)),
            "archive_after": seconds(env.get("GAMES_ARCHIVE_AFTER", ""), cls.archive_after),
            "archive_every": seconds(env.get("GAMES_ARCHIVE_EVERY", ""), cls.archive_every),
            "archive_pause": seconds(env.get("GAMES_ARCHIVE_PAUSE", ""), cls.archive_pause),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if not values["projections"]:
            values["projections"] = "rq" if values["store_url"].startswith(("redis://", "rediss://", "redis-cluster://",
                                                                            "rediss-cluster://", "redis+sentinel://")) else "inline"
        return cls(**values)
