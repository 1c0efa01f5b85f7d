"""The archive's settings: durations with units, and the embedded store refusing an archive."""

from __future__ import annotations

import pytest

from service.base.config import Config, seconds
from service.wiring.stores import open_store


def test_a_duration_is_seconds_or_a_number_with_a_unit():
    assert seconds("90", 1) == 90
    assert seconds("45s", 1) == 45
    assert seconds("30m", 1) == 1800
    assert seconds("12h", 1) == 43200
    assert seconds("7d", 1) == 604800
    assert seconds("", 5) == 5


@pytest.mark.parametrize("text", ["soon", "7w", "-1d", "d"])
def test_a_duration_that_is_not_one_is_refused_with_the_reason(text):
    with pytest.raises(ValueError, match="duration"):
        seconds(text, 1)


def test_the_retention_period_defaults_to_seven_days(monkeypatch):
    monkeypatch.delenv("GAMES_ARCHIVE_AFTER", raising=False)
    assert Config.from_env().archive_after == 7 * 86400
    monkeypatch.setenv("GAMES_ARCHIVE_AFTER", "2d")
    assert Config.from_env().archive_after == 2 * 86400


def test_the_embedded_store_keeps_every_game_and_refuses_an_archive(tmp_path):
    config = Config(store_url=f"sqlite:///{tmp_path}/events.db", archive_url="postgresql://nowhere/db")
    with pytest.raises(ValueError, match="embedded store keeps every game"):
        open_store(config)
