"""Wakhan's pragmatic loyalty (rules.md section 20).

She counts as loyal to all three coalitions (prizes and patriots of any coalition are hers
to keep, she never changes loyalty, she scores at every successful check). Her *pragmatic*
loyalty only colours the blocks she places, moves and fights with: the first coalition in
her AI card's pragmatic order that no human holds; with the variant Steadfast Pragmatic
Loyalty, of the coalitions no human holds, the one with the most blocks in play (ties: the
card's order). It is read again whenever she draws an AI card and whenever a human's
loyalty changes.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Coalition
from domain.games.pax_pamir.state import PaxState, is_wakhan
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play, Procedure
from domain.games.pax_pamir.wakhan.card import drawn
from domain.kernel.steps import Frame


def free_coalitions(s: PaxState) -> list[Coalition]:
    """The coalitions no human holds, in the drawn AI card's pragmatic order."""
    held = {player.loyalty for seat, player in enumerate(s.players) if not is_wakhan(s, seat)}
    return [coalition for coalition in drawn(s).coalitions if coalition not in held]


def pragmatic_loyalty(s: PaxState) -> tuple[Coalition, str]:
    """Her pragmatic loyalty now, and the rule that gave it."""
    free = free_coalitions(s)
    assert free, "at most two humans hold at most two of the three coalitions"
    if s.options.wakhan_steadfast_loyalty:
        best = max(free, key=lambda c: (q.blocks_in_play(s, c), -free.index(c)))
        return best, "Steadfast Pragmatic Loyalty: of the coalitions no human holds, the most blocks in play"
    return free[0], "pragmatic loyalty: the first coalition of the AI card's order that no human holds"


def set_pragmatic_loyalty(t: Play, seat: int) -> None:
    coalition, rule = pragmatic_loyalty(t.state)
    if t.state.players[seat].loyalty != coalition:
        number = t.state.wakhan.card if t.state.wakhan else None
        t.emit(ev.wakhan_loyalty_set(seat, coalition.value, f"AI card {number}: {rule}"))


@mypyc_attr(allow_interpreted_subclasses=True)
class WakhanLoyalty(Procedure):
    """Her pragmatic loyalty read again (a human's loyalty changed)."""

    name = names.WAKHAN_LOYALTY
    stages = ("reconsider",)

    def reconsider(self, t: Play, frame: Frame) -> None:
        if t.state.players[frame.owner_seat].loyalty is not None:  # she has drawn her first card
            set_pragmatic_loyalty(t, frame.owner_seat)
