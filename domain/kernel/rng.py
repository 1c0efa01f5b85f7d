"""The only source of randomness the rules ever see.

An ``Rng`` is seeded from the game's secret seed and the stream version, and is handed
only to ``setup`` and ``decide``. Whatever it produces is written into events, so a fold
never draws and a replay is exact forever.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from mypy_extensions import mypyc_attr

T = TypeVar("T")


@mypyc_attr(allow_interpreted_subclasses=True)
class Rng:
    """Compiled with the engine (one is made for every command), as a native class that a
    test may still subclass in plain Python (a stacked deck)."""

    def __init__(self, seed: str | int, version: int = 0):
        self._seed = seed
        self._version = version
        self._generator: random.Random | None = None

    @property
    def _random(self) -> random.Random:
        """Seeded on first use (its key written out then too): most commands draw nothing, and
        seeding costs more than a whole command of some games."""
        if self._generator is None:
            digest = hashlib.sha256(f"{self._seed}:{self._version}".encode()).digest()
            self._generator = random.Random(int.from_bytes(digest[:16], "big"))
        return self._generator

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """``items`` in the order ``random.Random.shuffle`` puts them, by its very steps
        (Fisher-Yates from the last place, each index drawn below its bound from
        ``getrandbits``), written here so that the compiled engine runs them as C: the standard
        library's are Python (Dynasties' deal: 1.5% of a game's instructions saved).
        ``tests/unit/kernel/test_rng.py``
        checks that both give the same order and leave the generator in the same state."""
        out = list(items)
        bits_of = self._random.getrandbits  # (looked up once, not once a card)
        for last in range(len(out) - 1, 0, -1):
            other = _below(bits_of, last + 1)
            out[last], out[other] = out[other], out[last]
        return out

    def choice(self, items: Sequence[T]) -> T:
        return self._random.choice(list(items))

    def randint(self, low: int, high: int) -> int:
        return self._random.randint(low, high)


def _below(getrandbits: Callable[[int], int], bound: int) -> int:
    """A number in ``0 .. bound - 1``, drawn as ``random.Random._randbelow`` draws it: ``getrandbits``
    of the bound's bit length, again until it falls below the bound."""
    bits = bound.bit_length()
    drawn = getrandbits(bits)
    while drawn >= bound:
        drawn = getrandbits(bits)
    return drawn
