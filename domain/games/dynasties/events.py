"""The event vocabulary (rulings §1.5): one constructor per event, named in the past tense.

Public facts go in ``data``; hidden facts in ``secret`` with the seats allowed to see them.
``barrier`` marks events that draw randomness or reveal hidden information (undo never
crosses one). Every value is JSON: lists of ``{seat, ...}`` rows, never int-keyed dicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypedDict

from domain.games.dynasties.options import MAX_SEATS, DynastiesOptions
from domain.kernel.events import Event
from domain.kernel.upcasting import Upcasters

NOBODY: Final[frozenset[int]] = frozenset()
#: ``{seat}`` for each seat, made once (a frozenset is made by a call into Python, and one is
#: given to every card drawn)
_ONLY: Final[tuple[frozenset[int], ...]] = tuple(frozenset((seat,)) for seat in range(MAX_SEATS))


def _to(seat: int) -> frozenset[int]:
    return _ONLY[seat]


# -- setup and cards ---------------------------------------------------------------------

SETUP_STARTED: Final = "SetupStarted"
#: The schema history of Dynasties' own events, its namespace: no other game's event is read with
#: it. Stored before its name was ``SetupStarted``: ``GameStarted``, the platform's event too.
UPCASTERS = Upcasters("dynasties", renames={"GameStarted": SETUP_STARTED})


def setup_started(options: DynastiesOptions, seats: int) -> Event:
    """Setup (rulings §1.2): the agreed options, the seats, the Legacy and the starting gold."""
    return Event(SETUP_STARTED, {"options": options.to_json(), "seats": seats, "legacy": options.legacy,
                                 "starting_gold": options.starting_gold})


def deck_shuffled(order: list[str]) -> Event:
    return Event("DeckShuffled", {"count": len(order)}, secret={"order": list(order)}, secret_to=NOBODY,
                 barrier=True)


def card_drawn(seat: int, card: str, reason: str) -> Event:
    """``reason``: deal | enquire | redraw | draw."""
    return Event("CardDrawn", {"seat": seat, "reason": reason}, secret={"card": card}, secret_to=_to(seat),
                 barrier=True)


def graveyard_reshuffled(order: list[str]) -> Event:
    return Event("GraveyardReshuffled", {"count": len(order)}, secret={"order": list(order)},
                 secret_to=NOBODY, barrier=True)


def draw_failed(seat: int, purpose: str) -> Event:
    """No card in the deck nor the Graveyard (R14, R54). ``purpose`` is the would-be reason."""
    return Event("DrawFailed", {"seat": seat, "reason": "deck_and_graveyard_empty", "purpose": purpose})


# -- phase 1 -----------------------------------------------------------------------------

def round_started(round_number: int, anchor: int) -> Event:
    return Event("RoundStarted", {"round": round_number, "anchor": anchor})


def phase_started(phase: str) -> Event:
    return Event("PhaseStarted", {"phase": phase})


def prospects_enquired(seat: int, card: str, price: int, paid: int, kept: bool) -> Event:
    """The flipped card is public (R10, R11)."""
    return Event("ProspectsEnquired", {"seat": seat, "revealed_card": card, "price": price, "paid": paid,
                                       "shortfall": price - paid, "kept_revealed": kept}, barrier=True)


# -- phase 2 -----------------------------------------------------------------------------

def tribute_sealed(seat: int, digest: str) -> Event:
    """Commit-reveal (R17a): the seat's sealed Tribute, ``sha256(salt || card id)``; public."""
    return Event("TributeSealed", {"seat": seat, "hash": digest})


def tribute_committed(seat: int, card: str, salt: str | None = None) -> Event:
    """The seat's Tribute, known to the seat only; under commit-reveal with the salt that
    opened its seal (R17a)."""
    secret = {"card": card} if salt is None else {"card": card, "salt": salt}
    return Event("TributeCommitted", {"seat": seat}, secret=secret, secret_to=_to(seat))


def tributes_revealed(tributes: Iterable[tuple[int, str, str | None]], highest: int) -> Event:
    """Every Tribute, face up; under commit-reveal each with its salt, so anyone can check
    it against the seat's ``TributeSealed`` hash (R17a)."""
    rows = [{"seat": seat, "card": card} if salt is None else {"seat": seat, "card": card, "salt": salt}
            for seat, card, salt in tributes]
    return Event("TributesRevealed", {"tributes": rows, "highest": highest}, barrier=True)


def tribute_stalemate(values: list[int], cards: list[str]) -> Event:
    return Event("TributeStalemate", {"values": values, "cards": cards})


def first_player_chosen(seat: int, value: int, by: str) -> Event:
    """``by``: ``tribute`` (R19) or ``anchor`` (R20 option ``anchor_leads``)."""
    return Event("FirstPlayerChosen", {"seat": seat, "value": value, "by": by})


def stakes_paid(seat: int, owed: int, paid: int) -> Event:
    return Event("StakesPaid", {"seat": seat, "owed": owed, "paid": paid, "shortfall": owed - paid})


def debt_recorded(seat: int, amount: int) -> Event:
    return Event("DebtRecorded", {"seat": seat, "amount": amount})


# -- phase 3 -----------------------------------------------------------------------------

def turn_started(turn: int, leader: int, tie_break: bool, order: list[int]) -> Event:
    return Event("TurnStarted", {"turn": turn, "leader": leader, "tie_break": tie_break, "order": order})


def noble_placed(seat: int, card: str, activated: bool, compared_with: str | None) -> Event:
    """A card leaves a hand face up: hidden information is revealed, so it is a barrier."""
    return Event("NoblePlaced", {"seat": seat, "card": card, "activated": activated,
                                 "compared_with": compared_with}, barrier=True)


def placement_skipped(seat: int, reason: str) -> Event:
    return Event("PlacementSkipped", {"seat": seat, "reason": reason})


def kings_deposed(removed: Iterable[tuple[int, str]], by: str) -> Event:
    return Event("KingsDeposed", {"removed": [{"seat": seat, "card": card} for seat, card in removed], "by": by})


def dynasty_changed(lineage: str | None, crowned_card: str | None, cause: str) -> Event:
    return Event("DynastyChanged", {"lineage": lineage, "crowned_card": crowned_card, "cause": cause})


def conclave_formed(seat: int, value: int, gold_taken: int, may_take: int) -> Event:
    """``may_take`` > 0 leaves ``conclave_choice(seat)`` pending (R39)."""
    return Event("ConclaveFormed", {"seat": seat, "value": value, "gold_taken": gold_taken, "may_take": may_take})


def stakes_emptied(seat: int) -> Event:
    """Option ``empty_stakes_ends_round``: this Conclave emptied the Stakes (R40)."""
    return Event("StakesEmptied", {"seat": seat})


def conclave_cards_taken(seat: int, cards: list[str]) -> Event:
    return Event("ConclaveCardsTaken", {"seat": seat, "cards": cards})


def pureblood_formed(seat: int, lineage: str, amount: int) -> Event:
    return Event("PurebloodFormed", {"seat": seat, "lineage": lineage, "amount": amount})


def pureblood_paid(payer: int, receiver: int, owed: int, paid: int) -> Event:
    return Event("PurebloodPaid", {"from": payer, "to": receiver, "owed": owed, "paid": paid,
                                   "shortfall": owed - paid})


def turn_ended(turn: int, next_leader: int) -> Event:
    return Event("TurnEnded", {"turn": turn, "next_leader": next_leader})


# -- phase 4 -----------------------------------------------------------------------------

class TalliedCard(TypedDict):
    """One Noble of a Family as the Conclusion counts it (R44)."""

    card: str
    value: int
    coronation_bonus: int
    dynasty_bonus: int


class TalliedFamily(TypedDict):
    """A seat's Family at the Conclusion: its Nobles and their total (R44)."""

    seat: int
    cards: list[TalliedCard]
    total: int


def families_tallied(rows: list[TalliedFamily], dynasty: str | None) -> Event:
    return Event("FamiliesTallied", {"rows": rows, "dynasty": dynasty})


def conclusion_tied(seats: list[int], total: int) -> Event:
    return Event("ConclusionTied", {"seats": seats, "total": total})


def stakes_won(seat: int, amount: int) -> Event:
    return Event("StakesWon", {"seat": seat, "amount": amount})


def stakes_carried(amount: int, tied: list[int]) -> Event:
    return Event("StakesCarried", {"amount": amount, "tied": tied})


def stakes_split(shares: Iterable[tuple[int, int]]) -> Event:
    return Event("StakesSplit", {"shares": [{"seat": seat, "amount": amount} for seat, amount in shares]})


def debt_settled(seat: int, debt: int, paid: int) -> Event:
    return Event("DebtSettled", {"seat": seat, "debt": debt, "paid": paid})


def player_broke(seat: int) -> Event:
    return Event("PlayerBroke", {"seat": seat})


def game_ended(winners: list[int], treasuries: list[int], legacy_shares: list[int], legacy_remainder: int,
               leftover_stakes_split: list[dict[str, int]]) -> Event:
    return Event("GameEnded", {"winners": winners, "treasuries": treasuries, "legacy_shares": legacy_shares,
                               "legacy_remainder": legacy_remainder,
                               "leftover_stakes_split": leftover_stakes_split}, barrier=True)


# -- phase 5 -----------------------------------------------------------------------------

def coronation_buried(card: str) -> Event:
    return Event("CoronationBuried", {"card": card})


def coronation_enshrined(card: str) -> Event:
    return Event("CoronationEnshrined", {"card": card})


def families_buried(count: int) -> Event:
    return Event("FamiliesBuried", {"count": count})


# -- phase 6 -----------------------------------------------------------------------------

def draw_order_chosen(starter: int, order: list[int]) -> Event:
    return Event("DrawOrderChosen", {"starter": starter, "order": order})


def hand_limit_checked(seat: int, size: int, limit: int) -> Event:
    """After the seat's draw (R53); a hand over the limit leaves ``retirement`` pending."""
    return Event("HandLimitChecked", {"seat": seat, "size": size, "limit": limit,
                                      "must_retire": max(0, size - limit)})


def nobles_retired(seat: int, cards: list[str]) -> Event:
    return Event("NoblesRetired", {"seat": seat, "count": len(cards)}, secret={"cards": list(cards)},
                 secret_to=_to(seat))
