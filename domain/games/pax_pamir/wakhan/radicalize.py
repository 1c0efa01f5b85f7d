"""Radicalize, Wakhan's only core action (rules.md section 20): one action that buys a
market card and plays it at once. Which card:

1. a specific instruction of the AI card (``radicalize_top_political`` ...): the best card
   it names, ties to the cheapest card and then the highest number;
2. else (plain ``radicalize``), with a Dominance Check in the market: the check if it gives
   her the most points, else among every court card she can buy: the cheapest patriot of the
   dominant coalition, else the cards with the most army and road icons (none having any:
   all of them), the cheapest, then the highest number; with no dominant coalition, the same
   with spy and tribe icons. The arrows are never used then: with no court card to buy, the
   action is skipped;
3. else the arrows: the row and column the AI cards point at; an invalid card there (an empty
   slot, not affordable, marked this turn, a check, Public Withdrawal) sends her left along
   the row, then along the other row from the same column.

The Savvy Purchasing variant changes only the arrows' pick (a cheaper card of the same suit
and at least its rank) and, with a check in the market and no dominant coalition, the pick
when no card carries a spy or tribe icon (the card that nets her the most rupees). Positions
in her reasons are counted from 1: row 1 is the top row, column 1 the leftmost.

Ambition (her turn, before every action she tries): a Dominance Check in the market that
would give her the most points of that check, or the win, is bought first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import MARKET_ROWS, Suit
from domain.games.pax_pamir.data.cards import (
    COURT_CARDS,
    PUBLIC_WITHDRAWAL,
    CardAction,
    ImpactIcon,
    is_court_card,
    is_dominance_check,
)
from domain.games.pax_pamir.state import PaxState, copy_state
from domain.games.pax_pamir.steps.dominance import WINNING_LEAD, check_scores
from domain.games.pax_pamir.steps.turn import purchase_cost
from domain.games.pax_pamir.wakhan.card import arrow_column, arrow_market_row
from domain.games.pax_pamir.wakhan.priority import dominant, spies_in_play

#: a Radicalize instruction applies only below this purse
POOR: Final = 2


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Pick:
    card: int
    rule: str


def buyable(s: PaxState, seat: int) -> dict[int, int]:
    """Market card -> cost, for every card she may buy now (R-PUR-1)."""
    rupees = s.players[seat].rupees
    found = {}
    for row, column, number in q.market_slots(s):
        cost = purchase_cost(s, seat, number, column)
        if number != PUBLIC_WITHDRAWAL and (row, column) not in s.marked and cost <= rupees:
            found[number] = cost
    return found


#: rupees a leverage icon brings when the card is played (R-IMP)
LEVERAGE_RUPEES: Final = 2


def net_rupees(s: PaxState, seat: int, number: int, cost: int) -> int:
    """What buying and playing ``number`` nets her: the rupees on it, less its cost, plus 2
    for a leverage icon (as BGA counts it)."""
    row, column = next((r, c) for r, c, n in q.market_slots(s) if n == number)
    return s.market_rupees[row][column] - cost + LEVERAGE_RUPEES * icons(number, ImpactIcon.LEVERAGE)


def most_net_rupees(s: PaxState, seat: int, cards: dict[int, int]) -> int | None:
    """The card of ``cards`` that nets her the most rupees, then the cheapest, then the highest number."""
    return max(cards, key=lambda n: (net_rupees(s, seat, n, cards[n]), -cards[n], n), default=None)


def icons(number: int, *kinds: ImpactIcon) -> int:
    return sum(1 for icon in COURT_CARDS[number].impact_icons if icon in kinds)


def best(s: PaxState, seat: int, cards: dict[int, int], score: Callable[[int], int]) -> int | None:
    """The highest ``score``, then the cheapest, then the highest number."""
    if not cards:
        return None
    return max(cards, key=lambda number: (score(number), -cards[number], number))


def savvy(s: PaxState, seat: int, chosen: Pick | None) -> Pick | None:
    """Savvy Purchasing (the variant as BGA plays it), for the arrows' pick only: a court card
    they chose gives way to a cheaper one of the same suit and at least its rank: the
    cheapest, then the leftmost, then the one in the row her arrow points at."""
    if chosen is None or not s.options.wakhan_savvy_purchasing or not is_court_card(chosen.card):
        return chosen
    cards = buyable(s, seat)
    card = COURT_CARDS[chosen.card]
    slot = {n: (r, c) for r, c, n in q.market_slots(s)}
    cheaper = [n for n, cost in cards.items() if is_court_card(n) and cost < cards[chosen.card]
               and COURT_CARDS[n].suit == card.suit and COURT_CARDS[n].rank >= card.rank]
    if not cheaper:
        return chosen
    row = arrow_market_row(s)
    number = min(cheaper, key=lambda n: (cards[n], slot[n][1], slot[n][0] != row))
    return Pick(number, f"{chosen.rule}; Savvy Purchasing: card {number} is cheaper, of the same suit and rank")


def gains_rule(s: PaxState, seat: int, number: int) -> bool:
    """Would playing this card make her the ruler of its region (its tribes and armies placed)?"""
    region = COURT_CARDS[number].region
    if q.ruler_of(s, region) == seat:
        return False
    after = copy_state(s)
    after.tribes[region][seat] += icons(number, ImpactIcon.TRIBE)
    loyalty = s.players[seat].loyalty
    if loyalty is not None:
        after.armies[region][loyalty] += icons(number, ImpactIcon.ARMY)
    return q.ruler_of(after, region) == seat


def _rank(number: int) -> int:
    return COURT_CARDS[number].rank


Condition = Callable[[PaxState, int], bool]
Instruction = tuple[Condition, Callable[[PaxState, int, int], bool], Callable[[int], int], str]


def _always(s: PaxState, seat: int) -> bool:
    return True


def _of_suit(suit: Suit) -> Callable[[PaxState, int, int], bool]:
    return lambda s, seat, number: COURT_CARDS[number].suit == suit


def _court_full(s: PaxState, seat: int) -> bool:
    return len(s.players[seat].court) >= q.court_limit(s, seat)


def _fewer_spies(s: PaxState, seat: int) -> bool:
    mine = spies_in_play(s, seat)
    return any(spies_in_play(s, other) > mine for other in range(s.seats) if other != seat)


def _no_move_card(s: PaxState, seat: int) -> bool:
    return not any(CardAction.MOVE in COURT_CARDS[n].actions for n in s.players[seat].court)


def _blocks(number: int) -> int:
    return icons(number, ImpactIcon.ARMY, ImpactIcon.ROAD)


def _cylinders(number: int) -> int:
    return icons(number, ImpactIcon.TRIBE, ImpactIcon.SPY)


def _none(number: int) -> int:
    return 0


INSTRUCTIONS: dict[str, Instruction] = {
    "radicalize_top_military_if_military_favored": (
        lambda s, seat: s.favored == Suit.MILITARY, _of_suit(Suit.MILITARY), _rank,
        "military is favored: the highest-ranked military card"),
    "radicalize_top_economic_if_political_favored": (
        lambda s, seat: s.favored == Suit.POLITICAL, _of_suit(Suit.ECONOMIC), _rank,
        "political is favored: the highest-ranked economic card"),
    "radicalize_top_political": (_always, _of_suit(Suit.POLITICAL), _rank, "the highest-ranked political card"),
    "radicalize_top_intelligence": (_always, _of_suit(Suit.INTELLIGENCE), _rank,
                                    "the highest-ranked intelligence card"),
    "radicalize_best_net_rupees_if_under_2_rupees": (
        lambda s, seat: s.players[seat].rupees < POOR, lambda s, seat, n: True, _none,
        "under 2 rupees: the card that nets her the most rupees (its rupees, less its cost, plus 2 "
        "for a leverage icon), if it nets her any"),
    "radicalize_card_gaining_rule": (_always, gains_rule, _none, "a card whose play makes her ruler of a region"),
    "radicalize_any_intelligence": (_always, _of_suit(Suit.INTELLIGENCE), _none, "an intelligence card"),
    "radicalize_most_blocks": (_always, lambda s, seat, n: _blocks(n) > 0, _blocks,
                               "the card with the most army and road icons"),
    "radicalize_most_cylinders_if_no_dominance": (
        lambda s, seat: dominant(s) is None, lambda s, seat, n: _cylinders(n) > 0, _cylinders,
        "no coalition is dominant: the card with the most tribe and spy icons"),
    "radicalize_move_card_if_none_in_court": (
        _no_move_card, lambda s, seat, n: CardAction.MOVE in COURT_CARDS[n].actions, _none,
        "no card of her court can move: a card with a move action"),
    "radicalize_dominant_patriot_if_dominance": (
        lambda s, seat: dominant(s) is not None, lambda s, seat, n: COURT_CARDS[n].patriot == dominant(s), _none,
        "a coalition is dominant: a patriot of it"),
    "radicalize_top_political_if_court_full": (_court_full, _of_suit(Suit.POLITICAL), _rank,
                                               "her court is full: the highest-ranked political card"),
    "radicalize_top_intelligence_if_fewer_spies": (_fewer_spies, _of_suit(Suit.INTELLIGENCE), _rank,
                                                   "a player has more spies than she: the highest-ranked "
                                                   "intelligence card"),
}


def by_instruction(s: PaxState, seat: int, key: str) -> Pick | None:
    """A specific Radicalize instruction: None when its condition fails or no card fits."""
    condition, fits, score, rule = INSTRUCTIONS[key]
    if not condition(s, seat):
        return None
    cards = {n: cost for n, cost in buyable(s, seat).items() if is_court_card(n) and fits(s, seat, n)}
    if key == "radicalize_best_net_rupees_if_under_2_rupees":
        number = most_net_rupees(s, seat, cards)
        if number is not None and net_rupees(s, seat, number, cards[number]) <= 0:
            return None  # only a card that nets her something (BGA)
    else:
        number = best(s, seat, cards, score)
    return Pick(number, f"{key}: {rule}") if number is not None else None


def check_gives_her_the_most(s: PaxState, seat: int, win_too: bool) -> bool:
    """Would a Dominance Check now give her more points than anyone else (or, with
    ``win_too``, the win)? The check bought is out of the market when it resolves (R-DOM-6)."""
    final = q.dominance_checks_left(s) - 1 == 0
    _, _, scored = check_scores(s, final)
    mine = scored.get(seat, 0)
    if mine > 0 and all(mine > points for other, points in scored.items() if other != seat):
        return True
    if not win_too:
        return False
    vps = [player.vp + scored.get(other, 0) for other, player in enumerate(s.players)]
    rest = max(vp for other, vp in enumerate(vps) if other != seat)
    return vps[seat] > rest and (final or vps[seat] - rest >= WINNING_LEAD)


def ambition(s: PaxState, seat: int) -> Pick | None:
    """A check in the market she can buy that gives her the most points, or the win."""
    for number in buyable(s, seat):
        if is_dominance_check(number) and check_gives_her_the_most(s, seat, win_too=True):
            return Pick(number, "ambition: this Dominance Check gives her the most points, or the win")
    return None


def by_default(s: PaxState, seat: int) -> Pick | None:
    """Plain Radicalize: the Dominance-Check-in-market rule, else the arrows."""
    cards = buyable(s, seat)
    if not any(is_dominance_check(n) for _, _, n in q.market_slots(s)):
        return savvy(s, seat, by_arrows(s, seat, cards))
    for number in cards:
        if is_dominance_check(number) and check_gives_her_the_most(s, seat, win_too=False):
            return Pick(number, "radicalize: a Dominance Check in the market gives her the most points")
    court = {n: cost for n, cost in cards.items() if is_court_card(n)}
    if not court:
        return None  # with a check in the market the arrows are not used (BGA)
    leader = dominant(s)
    if leader is not None:
        patriot = best(s, seat, {n: c for n, c in court.items() if COURT_CARDS[n].patriot == leader}, _none)
        if patriot is not None:
            return Pick(patriot, f"radicalize: a check in the market: the cheapest {leader} patriot "
                                 "(the dominant coalition)")
        blocks = max(court, key=lambda n: (_blocks(n), -court[n], n))
        return Pick(blocks, "radicalize: a check in the market: the card with the most army and road icons "
                            f"({_blocks(blocks)}), then the cheapest, then the highest number")
    cylinders = max(court, key=lambda n: (_cylinders(n), -court[n], n))
    if _cylinders(cylinders) == 0 and s.options.wakhan_savvy_purchasing:
        richest = max(court, key=lambda n: (net_rupees(s, seat, n, court[n]), -court[n], n))
        return Pick(richest, "radicalize: a check in the market, no dominant coalition, no card with a spy or "
                             "tribe icon; Savvy Purchasing: the card that nets her the most rupees")
    return Pick(cylinders, "radicalize: a check in the market, no dominant coalition: the card with the most "
                           f"spy and tribe icons ({_cylinders(cylinders)}), then the cheapest, then the highest number")


def by_arrows(s: PaxState, seat: int, cards: dict[int, int]) -> Pick | None:
    row, column = arrow_market_row(s), arrow_column(s)
    other = (row + 1) % MARKET_ROWS
    for r, c in [(row, c) for c in range(column, -1, -1)] + [(other, c) for c in range(column, -1, -1)]:
        number = s.market[r][c]
        if number is not None and number in cards and not is_dominance_check(number):
            moved = "" if (r, c) == (row, column) else f" (row {row + 1} column {column + 1} was invalid)"
            return Pick(number, f"radicalize: the arrows point at row {row + 1} column {column + 1}: "
                                f"row {r + 1} column {c + 1}{moved}")
    return None


def pick(s: PaxState, seat: int, key: str) -> Pick | None:
    return by_instruction(s, seat, key) if key in INSTRUCTIONS else by_default(s, seat)
