"""A real server on a real port, over a real SQLite file, for tests that speak HTTP."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest
from flask import Flask
from werkzeug.serving import make_server

from service.api.app import create_app
from service.base.config import Config
from tests.helpers.http import PlayerClients


@dataclass
class LiveServer(PlayerClients):
    url: str
    app: Flask

    @property
    def games(self):
        return self.app.extensions["games"]



def serve(app: Flask):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture
def game_registry():
    """The games the live server hosts (None: the default registry). A test module that
    needs a test game overrides this fixture."""
    return None


@pytest.fixture
def live_server(tmp_path, game_registry):
    # streams end quickly here so a fuzzer that finds a real game id is not held open for minutes
    app = create_app(Config(store_url=f"sqlite:///{tmp_path}/events.db", projections="inline",
                            stream_max_seconds=0.1), registry=game_registry)
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()


@pytest.fixture
def live_server_on_redis(redis_url):
    """The same, with the events in a real Redis (projections caught up in-process)."""
    url, namespace = redis_url
    app = create_app(Config(store_url=url, redis_prefix=namespace, redis_partitions=4, projections="inline",
                            stream_max_seconds=0.1))
    server = serve(app)
    yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    server.shutdown()
