"""Fair play anyone can check: the seed commitment and its reveal.

At creation a game publishes ``seed_commitment = sha256(salt || seed)`` (the bytes of two
random 128-bit values, written in hex), so the server is bound to one seed before any
card is dealt. Every random outcome of the game is drawn from that seed and the stream
version (``Table.rng``): nothing else feeds the ``Rng``, and the published hash never
does. When the game ends, the append that ends it also stores ``SeedRevealed`` with the
seed and the salt, so anyone holding the game's events can recompute the commitment and
every shuffle, deal and draw (``python -m service verify-fairness FILE``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.kernel.events import Event

SEED_REVEALED = "SeedRevealed"

#: the least entropy of the seed and of the salt, in bits (both are hex strings)
SECRET_BITS = 128


def seed_commitment(salt: str, seed: str) -> str:
    """``sha256(salt || seed)`` over the raw bytes of the two hex strings, in hex."""
    return hashlib.sha256(bytes.fromhex(salt) + bytes.fromhex(seed)).hexdigest()


def seed_revealed(seed: str, salt: str) -> Event:
    """The end of a game: the seed it was played with, and the salt of its commitment."""
    return Event(SEED_REVEALED, {"seed": seed, "salt": salt})


def check_reveal(commitment: str | None, revealed: dict[str, Any]) -> str | None:
    """Why a revealed seed and salt do not open ``commitment`` (None: they do)."""
    seed, salt = revealed.get("seed"), revealed.get("salt")
    for name, value in (("seed", seed), ("salt", salt)):
        if not isinstance(value, str) or len(value) * 4 < SECRET_BITS:
            return f"the revealed {name} is not a hex string of at least {SECRET_BITS} bits"
        try:
            bytes.fromhex(value)
        except ValueError:
            return f"the revealed {name} is not hexadecimal"
    assert isinstance(seed, str) and isinstance(salt, str)
    if not isinstance(commitment, str):
        return "the game published no seed commitment"
    if seed_commitment(salt, seed) != commitment:
        return "sha256(salt || seed) of the revealed values differs from the commitment published at creation"
    return None
