"""Small helpers for the event, ability, setup, cleanup and dominance tests: commands, and
tables changed further by events (a short deck, checks taken out of the deck)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.data.cards import DOMINANCE_CHECKS
from domain.kernel import Command, Event
from tests.helpers.scenario import Given, given


def cmd(verb: str, **args: Any) -> Command:
    return Command(verb, args)


def more(g: Given, *events: Event) -> Given:
    """The table ``g`` with more events on top of its history."""
    return given(RULES, *g.history, *events)


def deck_of(g: Given, cards: Iterable[int]) -> Given:
    """Only ``cards`` stay in the deck (in the order they already have); the rest go to the
    discard pile, so refills and final checks can be set up exactly."""
    keep = set(cards)
    return more(g, *(ev.card_moved(n, "deck", "discard") for n in g.state.deck if n not in keep))


def checks_out_of_deck(g: Given, keep: Iterable[int] = ()) -> Given:
    """The Dominance Checks still in the deck (but ``keep``) go to the discard pile."""
    kept = set(keep)
    return more(g, *(ev.card_moved(n, "deck", "discard") for n in g.state.deck
                     if n in DOMINANCE_CHECKS and n not in kept))


def prompt_text(g: Given, seat: int) -> str:
    asked = RULES.prompt(g.state, seat)
    assert asked is not None, f"seat {seat} is asked nothing"
    return asked.text


def verbs(g: Given, seat: int) -> set[str]:
    return {c.type for c in g.legal(seat)}


def args_of(g: Given, seat: int, verb: str) -> list[Any]:
    return [next(iter(c.args.values()), None) for c in g.legal(seat) if c.type == verb]
