"""Upcasting: an event stored under an old schema version is brought up to date when it
is read, one step at a time; it is never rewritten. Each game has its own namespace (its
``upcasters`` table), so an upcaster of one game never touches another game's events."""

from __future__ import annotations

from typing import Any

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.games.pax_pamir import RULES as PAX
from domain.kernel import table
from domain.kernel.events import Event
from domain.kernel.table import PLATFORM_UPCASTERS, read_event
from domain.kernel.upcasting import Upcasters


def _named(body: dict[str, Any]) -> dict[str, Any]:
    data = dict(body["data"])
    data["amount"] = data.pop("n")
    body["data"] = data
    return body


def _with_reason(body: dict[str, Any]) -> dict[str, Any]:
    body["data"] = {**body["data"], "reason": "unknown"}
    return body


TWO_STEPS = Upcasters("test", steps={("RupeesPaid", 1): _named, ("RupeesPaid", 2): _with_reason})


def test_a_step_is_applied_when_the_event_is_read_with_its_games_table():
    assert TWO_STEPS.current_version("RupeesPaid") == 3
    assert read_event({"type": "RupeesPaid", "data": {"seat": 1, "n": 3}}, TWO_STEPS) == Event(
        "RupeesPaid", {"seat": 1, "amount": 3, "reason": "unknown"})


def test_steps_apply_in_order_from_the_stored_version_to_the_current_one():
    assert TWO_STEPS.upcast({"type": "RupeesPaid", "data": {"n": 3}}) == {
        "type": "RupeesPaid", "data": {"amount": 3, "reason": "unknown"}, "v": 3}
    assert TWO_STEPS.upcast({"type": "RupeesPaid", "v": 2, "data": {"amount": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}


def test_an_event_at_the_current_version_or_of_another_type_or_source_is_untouched():
    current = {"type": "RupeesPaid", "v": 3, "data": {"amount": 1, "reason": "tax"}}
    assert TWO_STEPS.upcast(dict(current)) == current
    assert TWO_STEPS.upcast({"type": "RupeesTaken", "data": {"n": 1}}) == {"type": "RupeesTaken", "data": {"n": 1}}
    platform = {"type": "RupeesPaid", "source": "platform", "data": {"n": 1}}
    assert read_event(dict(platform), TWO_STEPS).data == {"n": 1}, "a platform event is read with the platform's"


def test_upcasting_does_not_change_the_stored_body():
    stored = {"type": "RupeesPaid", "data": {"n": 3}}
    read_event(stored, TWO_STEPS)
    assert stored == {"type": "RupeesPaid", "data": {"n": 3}}


def test_a_version_1_seat_taken_event_reads_as_version_2_with_the_id_as_its_name():
    assert PLATFORM_UPCASTERS.current_version(table.SEAT_TAKEN) == 2
    stored = {"type": "SeatTaken", "source": "platform", "data": {"seat": 0, "player": "ab12"}}
    assert read_event(stored).data == {"seat": 0, "player_id": "ab12", "name": "ab12"}


# -- one namespace per game ---------------------------------------------------------------------

def test_an_upcaster_of_one_games_turn_started_never_touches_the_other_games():
    """Both games define ``TurnStarted``; a Pax Pamir step for it leaves Dynasties' alone."""
    pax = Upcasters("pax_pamir", steps={("TurnStarted", 1): _with_reason}, renames=PAX.upcasters.renames)
    pax_turn = {"type": "TurnStarted", "source": "game", "data": {"seat": 0, "actions": 2}}
    dynasties_turn = {"type": "TurnStarted", "source": "game",
                      "data": {"turn": 1, "leader": 0, "tie_break": False, "order": [0, 1]}}
    assert read_event(dict(pax_turn), pax).data == {"seat": 0, "actions": 2, "reason": "unknown"}
    assert read_event(dict(dynasties_turn), DYNASTIES.upcasters).data == dynasties_turn["data"]
    assert DYNASTIES.upcasters.current_version("TurnStarted") == 1
    assert PAX.upcasters.namespace == "pax_pamir" and DYNASTIES.upcasters.namespace == "dynasties"


def test_each_game_has_its_own_table_and_neither_is_the_platforms():
    assert PAX.upcasters is not DYNASTIES.upcasters
    assert PLATFORM_UPCASTERS.current_version(table.SEAT_TAKEN) == 2
    assert PAX.upcasters.current_version(table.SEAT_TAKEN) == 1 == DYNASTIES.upcasters.current_version(
        table.SEAT_TAKEN)


# -- renamed types -------------------------------------------------------------------------------
def test_a_renamed_type_reads_as_its_new_name_at_version_1_and_the_stored_body_is_untouched():
    renames = Upcasters("test", renames={"RupeesGiven": "RupeesPaid"})
    stored = {"type": "RupeesGiven", "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}
    assert renames.upcast(stored) == {"type": "RupeesPaid", "v": 1, "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}
    assert read_event(stored, renames) == Event("RupeesPaid", {"n": 3})
    assert stored == {"type": "RupeesGiven", "data": {"n": 3}, "at": "2025-01-01T00:00:00.000Z"}


def test_a_renamed_type_runs_its_own_steps_first_then_the_new_types_steps():
    def _old_named(body: dict[str, Any]) -> dict[str, Any]:
        body["data"] = {"n": body["data"]["count"]}
        return body

    history = Upcasters("test", steps={("RupeesGiven", 1): _old_named, **TWO_STEPS.steps},
                        renames={"RupeesGiven": "RupeesPaid"})
    assert history.upcast({"type": "RupeesGiven", "data": {"count": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}
    assert history.upcast({"type": "RupeesGiven", "v": 2, "data": {"n": 3}}) == {
        "type": "RupeesPaid", "v": 3, "data": {"amount": 3, "reason": "unknown"}}


def test_a_rename_in_a_circle_is_refused():
    with pytest.raises(ValueError, match="circle"):
        Upcasters("test", renames={"RupeesGiven": "RupeesPaid", "RupeesPaid": "RupeesGiven"})
    chained = Upcasters("test", renames={"RupeesGiven": "RupeesPaid", "RupeesPaid": "RupeesSpent"})
    assert chained.upcast({"type": "RupeesGiven", "data": {}}) == {"type": "RupeesSpent", "v": 1, "data": {}}


@pytest.mark.parametrize("rules", [DYNASTIES, PAX], ids=["dynasties", "pax_pamir"])
def test_a_games_own_game_started_event_reads_as_setup_started_and_the_platforms_is_untouched(rules):
    """Dynasties and Pax Pamir each stored their opening event as GameStarted, the platform's name."""
    old = {"type": "GameStarted", "source": "game", "data": {"options": {}, "seats": 2}}
    assert read_event(old, rules.upcasters).type == "SetupStarted"
    without_source = {k: v for k, v in old.items() if k != "source"}  # no source: a game event
    assert read_event(without_source, rules.upcasters).type == "SetupStarted"
    platform = {"type": "GameStarted", "source": "platform", "v": 1, "data": {"players": ["a", "b"]}}
    assert read_event(platform, rules.upcasters).type == "GameStarted"
