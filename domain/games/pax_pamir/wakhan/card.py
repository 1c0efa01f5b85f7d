"""What Wakhan's AI cards say right now (rules.md section 20): the card just drawn, read on
its front, and the back of the new top card of her AI deck, which the arrows point into."""

from __future__ import annotations

from domain.games.pax_pamir.data.board import MARKET_ROWS, Coalition, Region
from domain.games.pax_pamir.state import PaxState, Wakhan
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS, TOP, AiCard

#: Before her first draw (never read by a rule: she draws first thing in her turn).
_NO_CARD = AiCard(0, ("radicalize",), tuple(c.value for c in Coalition), tuple(r.value for r in Region),
                  0, 0, (0, 1, 2, 3, 4, 5), (TOP, "bottom"))


def her(s: PaxState) -> Wakhan:
    assert s.wakhan is not None, "a Wakhan rule read in a game without her"
    return s.wakhan


def drawn(s: PaxState) -> AiCard:
    """The AI card face up on her discard pile."""
    number = her(s).card
    return AI_CARDS[number] if number is not None else _NO_CARD


def arrow_row(s: PaxState) -> str:
    """``top`` or ``bottom``: the row arrow of the drawn card into the next card's back."""
    back = her(s).next_back
    rows = back["rows"] if back else list(_NO_CARD.back_rows)
    return str(rows[drawn(s).row_arrow])


def arrow_column(s: PaxState) -> int:
    back = her(s).next_back
    columns = back["columns"] if back else list(_NO_CARD.back_columns)
    return int(columns[drawn(s).column_arrow])


def arrow_market_row(s: PaxState) -> int:
    return 0 if arrow_row(s) == TOP else MARKET_ROWS - 1


def region_order(s: PaxState) -> tuple[Region, ...]:
    return drawn(s).regions


def row_arrow_pick(s: PaxState, seats: list[int]) -> int:
    """Section 20: the row arrow picks between players: top the player to her left (who plays
    just before her, then on backwards round the table), bottom the one to her right (who
    plays just after her, then on forwards), as BGA reads it."""
    me, table = her(s).seat, s.seats
    if arrow_row(s) == TOP:
        return min(seats, key=lambda seat: (me - seat) % table)
    return min(seats, key=lambda seat: (seat - me) % table)


def why(s: PaxState, rule: str) -> str:
    """A decision's reason, naming the AI card it was read from."""
    number = her(s).card
    return f"AI card {number}: {rule}" if number is not None else rule
