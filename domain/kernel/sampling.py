"""Hidden information sampled, not read: the tools a game's sampler is built from.

A seat knows its own view and the events as it was shown them (``redact(event, seat)``).
A game's sampler folds those events with the game's own ``evolve`` into a *skeleton*:
a full state in which every card the seat has not seen is a **token**, a placeholder
that stands for one unknown card and moves about like a card (shuffled into the deck,
drawn into a hand, given as a face-down Tribute). A secret the seat was not shown is
*filled* from the skeleton (the card drawn is whatever token is on top of the deck).

When a later public event names a card (a Noble placed, a Tribute revealed, a card
dealt face up), the skeleton is made to agree with it before the event is applied
(``Places.make``): a token in the right place becomes that card, or a guessed card
changes places with it. At the end, ``deal_tokens`` turns the tokens into the cards the
seat has not seen, at random: each draw is one full state consistent with everything the
seat has seen, and nothing in it comes from the real hidden facts, which the sampler is
never given.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from domain.kernel.events import Event

S = TypeVar("S")
C = TypeVar("C", bound=Hashable)
Card = Hashable


class SampleInconsistent(Exception):  # noqa: N818 (a fact about the events, not an error class)
    """The events a sampler was given contradict each other: they are not one seat's record
    of one game (a programming error, or a record that was tampered with)."""


@dataclass(frozen=True)
class Token:
    """An unknown card, numbered in the order the skeleton made it."""

    number: int

    def __repr__(self) -> str:
        return f"?{self.number}"


def is_token(card: object) -> bool:
    return isinstance(card, Token)


def seen_event(raw: dict[str, Any]) -> Event:
    """A redacted event (as a reader receives it) as an ``Event``: its secret when the reader
    was shown it, none when it was ``redacted``."""
    secret = None if raw.get("redacted") else raw.get("secret")
    return Event(raw["type"], dict(raw.get("data") or {}), secret=secret)


class Places(Generic[S]):
    """The card places of a skeleton state: ``places(state)`` lists them as ``(name, list)``,
    each a list the state holds (a hand, the deck; a list of per-seat slots such as the
    face-down Tributes, where ``None`` is an empty slot). ``guessed(name)`` says whether a
    place's contents are the sampler's guess (another seat's hand, the deck) rather than
    something the seat saw."""

    def __init__(self, places: Callable[[S], Iterable[tuple[str, list[Any]]]],
                 guessed: Callable[[str], bool]):
        self._places = places
        self._guessed = guessed
        self._made = 0

    def token(self) -> Token:
        self._made += 1
        return Token(self._made)

    def tokens(self, count: int) -> list[Token]:
        return [self.token() for _ in range(count)]

    def locate(self, state: S, card: Card) -> tuple[str, list[Any], int] | None:
        for name, place in self._places(state):
            for index, held in enumerate(place):
                if held == card:
                    return name, place, index
        return None

    def make(self, state: S, card: Card, name: str, place: list[Any], index: int | None = None) -> None:
        """Make ``place`` hold ``card`` (at ``index``; anywhere in it when None), as a public
        event says it does, changing only what was guessed."""
        if index is None:
            if card in place:
                return
            slots = [i for i, held in enumerate(place) if is_token(held)] or list(range(len(place)))
            if not slots:
                raise SampleInconsistent(f"{card} is said to be in {name}, which holds nothing")
            index = slots[0]
        held = place[index]
        if held == card:
            return
        if not is_token(held) and not self._guessed(name):
            raise SampleInconsistent(f"{card} is said to be in {name}, which was seen to hold {held}")
        found = self.locate(state, card)
        if found is not None:  # a guessed card goes where ``card`` was guessed to be
            other_name, other, other_index = found
            if not self._guessed(other_name):
                raise SampleInconsistent(f"{card} is said to be in {name} but was seen in {other_name}")
            other[other_index], place[index] = held, card
            return
        if not is_token(held):  # the guess ``held`` takes the place of some unknown card
            swap = self._any_token(state)
            if swap is None:
                raise SampleInconsistent(f"no unknown card is left to be {card}")
            swap[0][swap[1]] = held
        place[index] = card

    def _any_token(self, state: S) -> tuple[list[Any], int] | None:
        for _, place in self._places(state):
            for index, held in enumerate(place):
                if is_token(held):
                    return place, index
        return None

    def held_tokens(self, state: S) -> Iterator[tuple[str, list[Any], int]]:
        for name, place in self._places(state):
            for index, held in enumerate(place):
                if is_token(held):
                    yield name, place, index

    def known(self, state: S) -> set[Card]:
        return {held for _, place in self._places(state) for held in place
                if held is not None and not is_token(held)}


def unseen(every_card: Sequence[C], known: set[Any]) -> list[C]:
    """The cards not placed anywhere the skeleton knows, in a fixed order."""
    return [card for card in every_card if card not in known]


def deal_tokens(slots: list[tuple[list[Any], int]], cards: list[Card], shuffle: Callable[[list[Any]], Any]) -> None:
    """Every token slot gets one of ``cards``, at random (``shuffle`` shuffles in place)."""
    if len(slots) != len(cards):
        raise SampleInconsistent(f"{len(slots)} unknown cards but {len(cards)} unseen cards")
    cards = list(cards)
    shuffle(cards)
    for (place, index), card in zip(slots, cards, strict=True):
        place[index] = card
