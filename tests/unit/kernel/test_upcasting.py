"""Upcasting: an event stored under an old schema version is brought up to date when it
is read (by ``Event.from_json``), one registered step at a time; it is never rewritten."""

from __future__ import annotations

from typing import Any

import pytest

import domain.games.dynasties.events  # noqa: F401  (registers its renames before the registry is copied)
import domain.games.pax_pamir.events  # noqa: F401
from domain.kernel import table, upcasting
from domain.kernel.events import Event
from domain.kernel.upcasting import current_version, renamed, upcast, upcaster


@pytest.fixture(autouse=True)
def own_registry(monkeypatch):
    """Upcasters registered here vanish after each test."""
    monkeypatch.setattr(upcasting, "_STEPS", dict(upcasting._STEPS))
    monkeypatch.setattr(upcasting, "CURRENT", dict(upcasting.CURRENT))
    monkeypatch.setattr(upcasting, "_RENAMED", dict(upcasting._RENAMED))


def register_two_steps() -> None:
    @upcaster("game", "RupeesPaid", from_version=1)
    def _named(body: dict[str, Any]) -> dict[str, Any]:
        data = dict(body["data"])
        data["amount"] = data.pop("n")
        body["data"] = data
        return body

    @upcaster("game", "RupeesPaid", from_version=2)
    def _with_reason(body: dict[str, Any]) -> dict[str, Any]:
        body["data"] = {**body["data"], "reason": "unknown"}
        return body


def test_a_registered_upcaster_is_applied_by_event_from_json():
    @upcaster("game", "RupeesPaid", from_version=1)
    def _named(body: dict[str, Any]) -> dict[str, Any]:
        data = dict(body["data"])
        data["amount"] = data.pop("n")
        body["data"] = data
        return body

    assert current_version("game", "RupeesPaid") == 2
    assert Event.from_json({"type": "RupeesPaid", "data": {"seat": 1, "n": 3}}) == Event(
        "RupeesPaid", {"seat": 1, "amount": 3})


def test_steps_apply_in_order_from_the_stored_version_to_the_current_one():
    register_two_steps()
    assert current_version("game", "RupeesPaid") == 3
    assert upcast({"type": "RupeesPaid", "data": {"n": 3}}) == {
        "type": "RupeesPaid", "data": {"amount": 3, "reason": "unknown"}, "v": 3}
    assert upcast({"type": "RupeesPaid", "v": 2, "data": {"amount": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}


def test_an_event_at_the_current_version_or_of_another_type_or_source_is_untouched():
    register_two_steps()
    current = {"type": "RupeesPaid", "v": 3, "data": {"amount": 1, "reason": "tax"}}
    assert upcast(dict(current)) == current
    assert upcast({"type": "RupeesTaken", "data": {"n": 1}}) == {"type": "RupeesTaken", "data": {"n": 1}}
    platform = {"type": "RupeesPaid", "source": "platform", "data": {"n": 1}}
    assert upcast(dict(platform)) == platform


def test_upcasting_does_not_change_the_stored_body():
    register_two_steps()
    stored = {"type": "RupeesPaid", "data": {"n": 3}}
    Event.from_json(stored)
    assert stored == {"type": "RupeesPaid", "data": {"n": 3}}


def test_a_version_1_seat_taken_event_reads_as_version_2_with_the_id_as_its_name():
    assert current_version(table.PLATFORM, table.SEAT_TAKEN) == 2
    stored = {"type": "SeatTaken", "source": "platform", "data": {"seat": 0, "player": "ab12"}}
    assert Event.from_json(stored).data == {"seat": 0, "player_id": "ab12", "name": "ab12"}


# -- renamed types -------------------------------------------------------------------------------
def test_a_renamed_type_reads_as_its_new_name_at_version_1_and_the_stored_body_is_untouched():
    renamed("game", "RupeesGiven", "RupeesPaid")
    stored = {"type": "RupeesGiven", "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}
    assert upcast(stored) == {"type": "RupeesPaid", "v": 1, "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}
    assert Event.from_json(stored) == Event("RupeesPaid", {"n": 3})
    assert stored == {"type": "RupeesGiven", "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}


def test_a_renamed_type_runs_its_own_steps_first_then_the_new_types_steps():
    @upcaster("game", "RupeesGiven", from_version=1)
    def _old_named(body: dict[str, Any]) -> dict[str, Any]:
        body["data"] = {"n": body["data"]["count"]}
        return body

    renamed("game", "RupeesGiven", "RupeesPaid")
    register_two_steps()
    assert upcast({"type": "RupeesGiven", "data": {"count": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}
    assert upcast({"type": "RupeesGiven", "v": 2, "data": {"n": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}


def test_a_rename_is_per_source_and_may_be_registered_twice_but_never_to_two_names_or_in_a_circle():
    renamed("game", "RupeesGiven", "RupeesPaid")
    renamed("game", "RupeesGiven", "RupeesPaid")  # two games sharing one rename: harmless
    platform = {"type": "RupeesGiven", "source": "platform", "data": {}}
    assert upcast(dict(platform)) == platform
    with pytest.raises(ValueError, match="already renamed"):
        renamed("game", "RupeesGiven", "RupeesTaken")
    renamed("game", "RupeesPaid", "RupeesSpent")
    with pytest.raises(ValueError, match="circle"):
        renamed("game", "RupeesSpent", "RupeesGiven")
    assert upcast({"type": "RupeesGiven", "data": {}}) == {"type": "RupeesSpent", "v": 1, "data": {}}


def test_a_games_own_game_started_event_reads_as_setup_started_and_the_platforms_is_untouched():
    """Dynasties and Pax Pamir each stored their opening event as GameStarted, the platform's name."""
    old = {"type": "GameStarted", "source": "game", "data": {"options": {}, "seats": 2}}
    assert Event.from_json(old).type == "SetupStarted"
    without_source = {k: v for k, v in old.items() if k != "source"}  # no source: a game event
    assert Event.from_json(without_source).type == "SetupStarted"
    platform = {"type": "GameStarted", "source": "platform", "v": 1, "data": {"players": ["a", "b"]}}
    assert Event.from_json(platform).type == "GameStarted"
