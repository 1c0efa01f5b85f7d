"""Two runners of one read model: a save between another runner's two reads is no store gone back.

A catch-up reads the stored checkpoints, then the digest of the log entry at each (the
model's ``_tail`` rows), to notice a store that went back in time. Those are two reads: a
runner in another process (the projector, a web worker answering a read) may save in
between, leaving digests of later positions. That must count as "another runner saved
first" (reload and go on), not as a store gone back: that verdict drops the read model and
rebuilds it from position zero, which under load happened again and again (issue 19's
SQLite catch-ups that took minutes).
"""

from __future__ import annotations

import random

from domain.games.dynasties import RULES
from service.adapters.sqlite_store import SqliteStore
from service.background.projections_runner import TAIL, ProjectionRunner
from service.play.services import GameService
from tests.helpers.play import play_randomly, start_game


class SavesInBetween:
    """A store whose first read of a model's ``_tail`` rows lets ``meanwhile`` run first, and
    which counts the models it was asked to drop."""

    def __init__(self, store: SqliteStore, meanwhile):
        self._store = store
        self._meanwhile = meanwhile
        self.dropped: list[str] = []

    def get_rows(self, name, table, keys):
        if table == TAIL and self._meanwhile is not None:
            meanwhile, self._meanwhile = self._meanwhile, None
            meanwhile()
        return self._store.get_rows(name, table, keys)

    def delete_projection(self, name):
        self.dropped.append(name)
        return self._store.delete_projection(name)

    def __getattr__(self, attribute):
        return getattr(self._store, attribute)


def test_a_save_between_the_checkpoints_and_their_digests_is_no_store_gone_back(tmp_path):
    path = str(tmp_path / "events.db")
    service = GameService(SqliteStore(path), {"dynasties": RULES})
    game_id, players = start_game(service, "dynasties", 3)
    rng = random.Random(5)
    play_randomly(service, game_id, players, rng, max_commands=15)
    other = ProjectionRunner(SqliteStore(path))
    other.catch_up_all()  # the model and its digests stored at these checkpoints
    play_randomly(service, game_id, players, rng, max_commands=15)

    def other_runner_saves():  # between this runner's two reads, the other one moves on
        play_randomly(service, game_id, players, rng, max_commands=15)
        assert other.catch_up("lobby") > 0

    store = SavesInBetween(SqliteStore(path), other_runner_saves)
    runner = ProjectionRunner(store)
    runner.catch_up("lobby")

    assert store._meanwhile is None, "the other runner did not save in between"
    assert store.dropped == []
    assert runner.lag("lobby") == 0
    assert runner.model("lobby") == runner.replay("lobby")
