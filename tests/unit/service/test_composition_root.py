"""The composition root builds every collaborator and gives it at construction (issue 39):
building the service, for each shape a deployment takes, sets no attribute of any object of
``service`` after that object's ``__init__`` returned (no wiring by assignment afterwards)."""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import service
from service.base.config import Config
from service.wiring.bootstrap import build_service

SKIPPED_MODULES = ("service.__main__", "service.running.wsgi", "service.running.gunicorn_worker")


def service_classes() -> Iterator[type]:
    """Every class defined in a module of the ``service`` package."""
    seen: set[type] = set()
    for info in pkgutil.walk_packages(service.__path__, "service."):
        if info.name.startswith(SKIPPED_MODULES):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or cls in seen:
                continue
            if issubclass(cls, (BaseException, enum.Enum, type)) or getattr(cls, "_is_protocol", False):
                continue
            seen.add(cls)
            yield cls


class Watch:
    """Which objects of ``service`` finished their ``__init__``, and every attribute the
    building thread set on one of them afterwards: ``late``, as (class, attribute). The
    threads the service starts (projections, bots, clocks) keep their own state as they work:
    that is running, not wiring, and how far they got when the build returns is a race."""

    def __init__(self) -> None:
        self.builder = threading.get_ident()
        self.depth: dict[int, int] = {}
        self.built: set[int] = set()
        self.kept: list[Any] = []  # the objects watched live on: their ids stay theirs
        self.late: list[tuple[str, str]] = []

    def init(self, original: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(original)
        def watched(obj: Any, *args: Any, **kwargs: Any) -> None:
            key = id(obj)
            self.depth[key] = self.depth.get(key, 0) + 1
            try:
                original(obj, *args, **kwargs)
            finally:
                self.depth[key] -= 1
                if not self.depth[key]:  # the outermost __init__ (a subclass's) returned
                    self.built.add(key)
                    self.kept.append(obj)
        return watched

    def setattr(self, original: Callable[[Any, str, Any], None]) -> Callable[[Any, str, Any], None]:
        def watched(obj: Any, name: str, value: Any) -> None:
            if id(obj) in self.built and threading.get_ident() == self.builder:
                self.late.append((type(obj).__qualname__, name))
            original(obj, name, value)
        return watched


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Watch:
    watched = Watch()
    for cls in service_classes():
        monkeypatch.setattr(cls, "__init__", watched.init(cls.__init__))
        monkeypatch.setattr(cls, "__setattr__", watched.setattr(cls.__setattr__))
    return watched


def sqlite(tmp_path: Any) -> str:
    return f"sqlite:///{tmp_path / 'events.db'}"


SHAPES: dict[str, Callable[[Any, tuple[str, str]], Config]] = {
    "embedded, background threads": lambda tmp, redis: Config(store_url=sqlite(tmp), projections="inline",
                                                               background="thread"),
    "embedded, background process": lambda tmp, redis: Config(store_url=sqlite(tmp), projections="inline",
                                                               background="process"),
    "embedded, projector process": lambda tmp, redis: Config(store_url=sqlite(tmp), projections="inline",
                                                              inline_projector="process", background="process"),
    "redis, rq lanes, feed tail": lambda tmp, redis: Config(store_url=redis[0], projections="rq",
                                                            redis_prefix=redis[1], queue_name=f"{redis[1]}-q",
                                                            projection_feed="tail"),
    "redis, rq lanes, feed jobs": lambda tmp, redis: Config(store_url=redis[0], projections="rq",
                                                            redis_prefix=redis[1], queue_name=f"{redis[1]}-q",
                                                            projection_feed="jobs"),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_built_service_is_wired_at_construction_only(shape: str, tmp_path: Any, redis_url: tuple[str, str],
                                                         watch: Watch) -> None:
    games = build_service(SHAPES[shape](tmp_path, redis_url))
    assert watch.late == [], f"set after construction in {shape}: {sorted(set(watch.late))}"
    assert id(games) in watch.built and id(games.appender) in watch.built  # the watch saw them built


def test_the_watch_sees_an_attribute_set_after_construction(tmp_path: Any, watch: Watch) -> None:
    """The test above can fail: a collaborator assigned to a built service is seen."""
    games = build_service(Config(store_url=sqlite(tmp_path), projections="inline", background="process"))
    games.job_queue = None
    assert watch.late == [("GameService", "job_queue")]
