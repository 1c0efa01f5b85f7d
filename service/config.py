"""Settings from the environment (or the CLI): where events live and how projections run."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    #: sqlite:///PATH (default), redis://HOST:PORT/DB, or memory://
    store_url: str = "sqlite:///./data/events.db"
    #: take a snapshot every N events of a game (0: never)
    snapshot_every: int = 100
    #: "inline" runs projections in the web process after each append; "rq" enqueues jobs
    projections: str = "inline"
    #: Redis key prefix (lets several deployments or tests share one Redis)
    redis_prefix: str = "dyn"
    redis_partitions: int = 16

    @classmethod
    def from_env(cls, **overrides) -> Config:
        env = os.environ
        values = {
            "store_url": env.get("GAMES_STORE", cls.store_url),
            "snapshot_every": int(env.get("GAMES_SNAPSHOT_EVERY", cls.snapshot_every)),
            "projections": env.get("GAMES_PROJECTIONS", ""),
            "redis_prefix": env.get("GAMES_REDIS_PREFIX", cls.redis_prefix),
            "redis_partitions": int(env.get("GAMES_REDIS_PARTITIONS", cls.redis_partitions)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if not values["projections"]:
            values["projections"] = "rq" if values["store_url"].startswith("redis://") else "inline"
        return cls(**values)
