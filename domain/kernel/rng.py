"""The only source of randomness the rules ever see.

An ``Rng`` is seeded from the game's secret seed and the stream version, and is handed
only to ``setup`` and ``decide``. Whatever it produces is written into events, so a fold
never draws and a replay is exact forever.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class Rng:
    def __init__(self, seed: str | int, version: int = 0):
        digest = hashlib.sha256(f"{seed}:{version}".encode()).digest()
        self._random = random.Random(int.from_bytes(digest[:16], "big"))

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self._random.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        return self._random.choice(list(items))

    def randint(self, low: int, high: int) -> int:
        return self._random.randint(low, high)
