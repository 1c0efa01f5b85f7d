"""Gift (R-GFT, rules.md section 10): a cylinder on an empty gift space, its value paid to
the market."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    ActionStep,
    Play,
    can_place,
    pay_action_cost,
    place_piece,
    seat_of,
)
from domain.kernel.prompt import AMOUNT, Arg, Prompt, Verb
from domain.kernel.steps import Frame, handles


def free_gift_spaces(s: PaxState, seat: int, rupees: int | None = None) -> list[int]:
    """R-GFT-1, R-GFT-2: every empty gift space, any order, a cylinder can reach; with
    ``rupees``, only those they pay for (a cylinder's reach is asked only when there is one)."""
    free = q.free_gift_spaces(s, seat)
    if rupees is not None:
        free = [value for value in free if value <= rupees]
    return free if free and can_place(s, seat, "gift") else []


#: the verbs of this module, each said once: declared here, handled and offered by name
PLACE_GIFT: Final = Verb("PlaceGift", "Gift: pay this gift space's value to the market and place a cylinder on it (R-GFT).",
                         Arg("value", AMOUNT), refusal="you are not giving a gift now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Gift(ActionStep):
    """R-GFT-1, R-GFT-2: an empty gift space you can afford; pay its value to the market
    (R-CST) and place a cylinder there (R-LIM)."""

    name = names.GIFT

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        values = free_gift_spaces(s, seat, s.players[seat].rupees)
        if not values:
            return None
        return Prompt(seat, "Gift: choose an empty gift space and pay its value to the market.").one_of(
            "PlaceGift", values)

    @handles(PLACE_GIFT)
    def place(self, t: Play, frame: Frame, seat: int, value: int) -> None:
        t.end()
        pay_action_cost(t, seat, value, "gift")
        place_piece(t, seat, "gift", str(value))


VERBS = (
    PLACE_GIFT,
)

STEPS = (Gift(),)
