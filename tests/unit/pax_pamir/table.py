"""Mid-game Pax Pamir tables built from events, never by poking state.

``table(...)`` returns a ``Given`` (tests/helpers/scenario.py) whose history sets up a
game exactly as described: loyalties, rupees, courts, hands, prizes, gifts, the market,
pieces on the map and spies, the favored suit, then seat ``active``'s turn with
``actions`` left, waiting at its action menu. Cards not placed anywhere stay in the deck
(``deck`` puts chosen cards on top, in order). Use it as::

    g = table(courts={0: [KABUL_CARD]}, tribes={"kabul": {0: 1}})
    g.when(0, Command("Tax", {"card": 12})).then(expect("RupeesMoved", ...))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.data.cards import ALL_CARDS
from domain.games.pax_pamir.options import PaxOptions
from domain.kernel.events import Event
from domain.kernel.steps import step_entered
from tests.helpers.scenario import Given, given


def table(seats: int = 2, *, loyalties: Iterable[str] | None = None, rupees: Iterable[int] | None = None,
          courts: Mapping[int, list[int]] | None = None, hands: Mapping[int, list[int]] | None = None,
          prizes: Mapping[int, list[int]] | None = None, gifts: Mapping[int, list[int]] | None = None,
          market: Mapping[tuple[int, int], int] | None = None,
          market_rupees: Mapping[tuple[int, int], int] | None = None,
          armies: Mapping[str, Mapping[str, int]] | None = None, roads: Mapping[str, Mapping[str, int]] | None = None,
          tribes: Mapping[str, Mapping[int, int]] | None = None, spies: Mapping[int, Mapping[int, int]] | None = None,
          favored: str | None = None, effects: Mapping[str, int | None] | None = None,
          deck: Iterable[int] = (), active: int = 0, actions: int = 2, next_seat: int | None = None,
          options: Mapping[str, object] | None = None, at_menu: bool = True) -> Given:
    placed_cards = {n for cards in (courts or {}).values() for n in cards}
    placed_cards |= {n for cards in (hands or {}).values() for n in cards}
    placed_cards |= {n for cards in (prizes or {}).values() for n in cards}
    placed_cards |= set((market or {}).values())
    top = list(deck)
    rest = [n for n in sorted(ALL_CARDS) if n not in placed_cards and n not in top]
    history: list[Event] = [
        ev.setup_started(PaxOptions.check(options).to_json(), seats),
        ev.deck_built(sorted(placed_cards) + top + rest, []),
    ]
    for seat, coalition in enumerate(loyalties or ["afghan", "british", "russian", "afghan", "british"][:seats]):
        history.append(ev.loyalty_chosen(seat, coalition))
    for seat, amount in enumerate(rupees or [4] * seats):
        if amount:
            history.append(ev.rupees_moved(amount, "bank", f"seat:{seat}", "setup"))
    for (row, column), number in (market or {}).items():
        history.append(ev.card_moved(number, "deck", f"market:{row}:{column}"))
    for (row, column), amount in (market_rupees or {}).items():
        history.append(ev.rupees_moved(amount, "bank", f"market:{row}:{column}", "setup"))
    for place, cards_by_seat in (("court", courts), ("hand", hands), ("prizes", prizes)):
        for seat, cards in (cards_by_seat or {}).items():
            for number in cards:
                history.append(ev.card_moved(number, "deck", f"{place}:{seat}", side="right"))
    for seat, values in (gifts or {}).items():
        history += [ev.piece_moved("gift", seat, "supply", str(value)) for value in values]
    for kind, pieces in (("army", armies), ("road", roads)):
        for place, by_coalition in (pieces or {}).items():
            for coalition, count in by_coalition.items():
                history += [ev.piece_moved(kind, coalition, "supply", place) for _ in range(count)]
    for region, by_seat in (tribes or {}).items():
        for seat, count in by_seat.items():
            history += [ev.piece_moved("tribe", seat, "supply", region) for _ in range(count)]
    for number, by_seat in (spies or {}).items():
        for seat, count in by_seat.items():
            history += [ev.piece_moved("spy", seat, "supply", str(number)) for _ in range(count)]
    if favored:
        history.append(ev.favored_suit_changed(favored, "setup"))
    for effect, holder in (effects or {}).items():
        history.append(ev.effect_started(effect, holder))
    if at_menu:
        following = (active + 1) % seats if next_seat is None else next_seat
        history += [step_entered("turns", None, {"next": following}), ev.turn_started(active, actions),
                    step_entered("turn", active, {})]
    return given(RULES, *history)
