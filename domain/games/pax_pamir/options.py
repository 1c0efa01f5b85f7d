"""Game-creation options of Pax Pamir. The seat count (2-5) comes from the platform."""

from __future__ import annotations

from dataclasses import dataclass

from domain.kernel.rules import GameOptions, option


@dataclass(frozen=True)
class PaxOptions(GameOptions):
    open_hands: bool = option(False, "Every hand is shown to every seat (R-SET-6: hands are hidden otherwise).")
    first_chooser: str = option(
        "random", "Who chooses loyalty first: a random seat (R-SET-5), or seat 0 as in tournament play.",
        choices=("random", "seat_0"))
