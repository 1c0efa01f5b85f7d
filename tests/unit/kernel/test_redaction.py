"""Redaction: the one function every reader goes through. A secret reaches exactly the
seats it is addressed to (and EVERYONE); everyone else learns only that it exists."""

from __future__ import annotations

import json

from domain.kernel.events import EVERYONE, Event, redact

DRAWN = Event("CardDrawn", {"seat": 1, "count": 1}, secret={"cards": ["c07"]}, secret_to=frozenset({1}))
SHUFFLED = Event("DeckShuffled", {"size": 3}, secret={"order": ["c1", "c2", "c3"]}, secret_to=frozenset())
PASSED = Event("Passed", {"seat": 0})


def test_the_seat_a_secret_is_addressed_to_sees_it():
    assert redact(DRAWN, 1) == {"type": "CardDrawn", "data": {"seat": 1, "count": 1}, "secret": {"cards": ["c07"]}}


def test_another_seat_and_a_spectator_learn_only_that_there_is_a_secret():
    for viewer in (0, 2, None):
        seen = redact(DRAWN, viewer)
        assert seen == {"type": "CardDrawn", "data": {"seat": 1, "count": 1}, "redacted": True}
        assert "c07" not in json.dumps(seen)


def test_everyone_sees_every_secret():
    assert redact(DRAWN, EVERYONE)["secret"] == {"cards": ["c07"]}
    assert redact(SHUFFLED, EVERYONE)["secret"] == {"order": ["c1", "c2", "c3"]}


def test_a_secret_addressed_to_nobody_is_hidden_from_every_seat():
    for viewer in (0, 1, 2, None):
        assert redact(SHUFFLED, viewer) == {"type": "DeckShuffled", "data": {"size": 3}, "redacted": True}


def test_a_secret_shared_by_two_seats_reaches_both_and_no_third():
    handed = Event("CardHandedOver", {"seat": 1, "to": 0}, secret={"card": "c05"}, secret_to=frozenset({0, 1}))
    assert [handed.visible_to(viewer) for viewer in (0, 1, 2, None, EVERYONE)] == [True, True, False, False, True]


def test_an_event_without_a_secret_is_the_same_for_everyone_and_says_nothing_is_redacted():
    for viewer in (0, None, EVERYONE):
        assert redact(PASSED, viewer) == {"type": "Passed", "data": {"seat": 0}}


def test_a_secret_survives_the_stored_json_with_its_audience():
    stored = json.loads(json.dumps(DRAWN.to_json()))
    assert stored == {"type": "CardDrawn", "data": {"seat": 1, "count": 1}, "secret": {"cards": ["c07"]},
                      "secret_to": [1]}
    assert Event.from_json(stored) == DRAWN
    assert redact(Event.from_json(stored), 0)["redacted"] is True
