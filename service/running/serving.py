"""The HTTP servers ``python -m service serve`` can run the app under, in one place.

``gevent``   gunicorn with the gevent worker class (service.running.gunicorn_worker.ProblemGeventWorker):
             a request or a live stream costs a greenlet; the worker gives every request a turn,
             writes gunicorn's own errors as problem+json and freezes the loaded app out of the
             collector's sight.
``gthread``  gunicorn with its threaded worker class (a thread per request in flight, a
             stream holds a thread), with the same problem+json errors and ``gc.freeze``.
``granian``  granian (Rust, hyper) with its WSGI interface: a pool of Python threads per
             worker process runs the app, a stream holds one of them.

bench/bench_side_by_side.py ``--server`` serves the project and its bare ceiling app with
the same one, under the same settings (:func:`run`). docs/operations.md says what was
measured and which one ships.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

SERVERS = ("gevent", "gthread", "granian")

#: the server ``serve`` runs when none is named (docs/operations.md: why)
DEFAULT_SERVER = "gevent"
#: seconds an idle keep-alive connection stays open: longer than a client's (or nginx's: 60 s)
#: pause between two requests, so that a connection is not closed just as the client reuses
#: it (gunicorn's 2 s reset one GET in a hundred of the soak's players, polling every few seconds)
KEEPALIVE_SECONDS = 75

WsgiApp = Callable[..., Any]


def gunicorn_settings(host: str, port: int, workers: int = 2, connections: int = 1000,
                      access_log: str | None = None, server: str = "gevent") -> dict[str, Any]:
    """gunicorn's settings for the ``gevent`` and ``gthread`` servers. The access log is off
    unless ``access_log`` names a file or ``-`` (stdout)."""
    settings: dict[str, Any] = {
        "bind": f"{host}:{port}",
        "workers": workers,
        "timeout": 60,
        "graceful_timeout": 10,
        "keepalive": KEEPALIVE_SECONDS,
        "accesslog": access_log or None,
    }
    if server == "gevent":
        settings |= {"worker_class": "service.running.gunicorn_worker.ProblemGeventWorker", "worker_connections": connections}
    else:
        settings |= {"worker_class": "service.running.gunicorn_worker.ProblemThreadWorker", "threads": connections,
                     "worker_connections": connections}
    return settings


def run(server: str, load: Callable[[], WsgiApp], host: str, port: int, workers: int = 2,
        connections: int = 1000, access_log: str | None = None) -> None:
    """Serve the app ``load`` builds (called once in each worker process) until stopped.
    ``connections``: open connections per worker (gevent), threads per worker (gthread,
    granian)."""
    if server in ("gevent", "gthread"):
        _gunicorn(server, load, gunicorn_settings(host, port, workers, connections, access_log, server))
    elif server == "granian":
        _granian(load, host, port, workers, connections, access_log)
    else:
        raise ValueError(f"no server named {server!r}; servers: {', '.join(SERVERS)}")


def _gunicorn(server: str, load: Callable[[], WsgiApp], settings: dict[str, Any]) -> None:
    from gunicorn.app.base import BaseApplication

    class Server(BaseApplication):
        """gunicorn; each worker builds the app itself (not preloaded: under gevent, after
        gevent has patched the standard library)."""

        def load_config(self) -> None:
            for key, value in settings.items():
                self.cfg.set(key, value)
            if "control_socket_disable" in self.cfg.settings:
                # gunicorn 25.1+ opens a control socket, unused here, at a path that is one per
                # user by default ($HOME/.gunicorn/gunicorn.ctl): every server started on the
                # machine would take it over from the last and remove it as it stops
                self.cfg.set("control_socket_disable", True)

        def load(self) -> WsgiApp:
            return load()

    Server().run()


def _granian(load: Callable[[], WsgiApp], host: str, port: int, workers: int, threads: int,
             access_log: str | None) -> None:
    from granian import Granian
    from granian.constants import Interfaces

    def loaded(*_: object) -> WsgiApp:
        app = load()
        gc.freeze()  # as the gunicorn workers do: full collections would walk the loaded app
        return app

    Granian("service.running.wsgi:app", address=host, port=port, interface=Interfaces.WSGI, workers=workers,
            blocking_threads=threads, backpressure=threads, log_access=bool(access_log),
            # a worker that dies is replaced, as gunicorn's master does (granian would stop)
            respawn_failed_workers=True, respawn_interval=1.0,
            workers_kill_timeout=10).serve(target_loader=loaded, wrap_loader=False)
