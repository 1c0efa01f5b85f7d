"""``evolve``: one small function per event type. It records what happened; it never
validates and never draws (the deck order is in ``DeckBuilt``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.games.pax_pamir import places
from domain.games.pax_pamir.data.board import BORDER_BY_ID, COALITION_BY_ID, REGION_BY_ID
from domain.games.pax_pamir.events import SETUP_STARTED
from domain.games.pax_pamir.options import PaxOptions
from domain.games.pax_pamir.state import SUPPLY, PaxState, Player, Wakhan
from domain.kernel.events import Event


def _setup_started(_: PaxState | None, e: Event) -> PaxState:
    seats = e.data["seats"]
    options = PaxOptions.from_json(e.data["options"])
    return PaxState(seats=seats, options=options, players=[Player() for _ in range(seats)],
                    wakhan=Wakhan(seat=seats - 1) if options.wakhan else None)


def _deck_built(s: PaxState, e: Event) -> None:
    s.deck = list(e.hidden()["deck"])
    s.out_of_game = list(e.hidden()["out"])


def _card_dealt(s: PaxState, e: Event) -> None:
    row, column = e.data["row"], e.data["column"]
    s.deck.pop(0)
    s.market[row][column] = e.data["card"]


def _loyalty_chosen(s: PaxState, e: Event) -> None:
    s.players[e.data["seat"]].loyalty = COALITION_BY_ID[e.data["coalition"]]



def _turn_started(s: PaxState, e: Event) -> None:
    s.active = e.data["seat"]
    s.actions_left = e.data["actions"]
    s.used_cards = set()
    s.marked = set()
    s.placed.clear()
    s.declined_bribes = 0


def _action_spent(s: PaxState, e: Event) -> None:
    s.actions_left -= 1


def _bribe_declined(s: PaxState, e: Event) -> None:
    s.declined_bribes += 1




def _card_used(s: PaxState, e: Event) -> None:
    s.used_cards.add(e.data["card"])


def _take_card(s: PaxState, place: str, card: int) -> None:
    kind, at = places.parse(place)
    if kind == "market":
        row, column = at
        s.market[row][column] = None
    elif kind == "hand":
        s.players[at[0]].hand.remove(card)
    elif kind == "court":
        s.players[at[0]].court.remove(card)
    elif kind == "prizes":
        s.players[at[0]].prizes.remove(card)
    elif kind == "deck":
        s.deck.remove(card)
    elif kind == "discard":  # a betrayed card kept as a prize (R-BTR-4)
        s.discard.remove(card)
    else:
        raise AssertionError(f"no card can leave {place}")


def _put_card(s: PaxState, place: str, card: int, side: str | None) -> None:
    kind, at = places.parse(place)
    if kind == "hand":
        s.players[at[0]].hand.append(card)
    elif kind == "court":
        court = s.players[at[0]].court
        court.insert(0, card) if side == "left" else court.append(card)
    elif kind == "prizes":
        s.players[at[0]].prizes.append(card)
    elif kind == "discard":
        s.discard.append(card)
    elif kind == "market":
        row, column = at
        s.market[row][column] = card
    else:
        raise AssertionError(f"no card can go to {place}")


def _card_moved(s: PaxState, e: Event) -> None:
    card = e.data["card"] if "card" in e.data else e.hidden()["card"]
    _take_card(s, e.data["src"], card)
    _put_card(s, e.data["dst"], card, e.data.get("side"))


def _rupees(s: PaxState, place: str, amount: int) -> None:
    kind, at = places.parse(place)
    if kind == "seat":
        s.players[at[0]].rupees += amount
    elif kind == "market":
        row, column = at
        s.market_rupees[row][column] += amount
    else:  # the bank, or removed from the game
        s.bank_flow -= amount


def _rupees_moved(s: PaxState, e: Event) -> None:
    _rupees(s, e.data["src"], -e.data["amount"])
    _rupees(s, e.data["dst"], e.data["amount"])


def _market_slot_marked(s: PaxState, e: Event) -> None:
    s.marked.add((e.data["row"], e.data["column"]))


def _pieces(s: PaxState, kind: str, owner: Any, place: str, delta: int) -> None:
    """``owner`` as the event has it: a coalition's name (armies, roads) or a seat (tribes,
    spies, gifts)."""
    if place == SUPPLY:
        return
    if kind == "army":
        _add(s.armies[REGION_BY_ID[place]], COALITION_BY_ID[owner], delta)
    elif kind == "road":
        _add(s.roads[BORDER_BY_ID[place]], COALITION_BY_ID[owner], delta)
    elif kind == "tribe":
        _add(s.tribes[REGION_BY_ID[place]], owner, delta)
    elif kind == "spy":
        number = int(place)
        spies = s.spies.get(number)
        if spies is None:  # (not ``setdefault``: a Counter made on every call, by a Python-level ``__init__``)
            spies = s.spies[number] = Counter()
        _add(spies, owner, delta)
    elif kind == "gift":
        gifts = s.players[owner].gifts
        gifts.add(int(place)) if delta > 0 else gifts.discard(int(place))


def _add(counts: Counter[Any], key: Any, delta: int) -> None:
    """``counts[key] += delta``, the count read with ``get`` (a Counter's missing key is a
    Python-level ``__missing__``)."""
    counts[key] = counts.get(key, 0) + delta


def _piece_moved(s: PaxState, e: Event) -> None:
    kind, owner = e.data["kind"], e.data["owner"]
    _pieces(s, kind, owner, e.data["src"], -1)
    _pieces(s, kind, owner, e.data["dst"], +1)
    if e.data.get("placed"):
        _add(s.placed, places.placed_key(kind, owner, e.data["dst"]), 1)
    if not s.placed:
        return  # nothing placed this turn, so nothing placed where it comes from (no key made)
    src_key = places.placed_key(kind, owner, e.data["src"])
    if s.placed.get(src_key):
        if e.data["dst"] == SUPPLY:  # a piece removed (R-LIM pickups take only unplaced ones)
            s.placed[src_key] = min(s.placed[src_key], _count(s, kind, owner, e.data["src"]))
        else:  # moved on: may be taken under R-LIM (section 23 item 8)
            s.placed[src_key] -= 1


def _count(s: PaxState, kind: str, owner: Any, place: str) -> int:
    """Pieces of ``kind`` and ``owner`` (as in ``_pieces``) at ``place``."""
    if kind == "army":
        return s.armies[REGION_BY_ID[place]][COALITION_BY_ID[owner]]
    if kind == "road":
        return s.roads[BORDER_BY_ID[place]][COALITION_BY_ID[owner]]
    if kind == "tribe":
        return s.tribes[REGION_BY_ID[place]][owner]
    if kind == "spy":
        return s.spies.get(int(place), Counter())[owner]
    return int(int(place) in s.players[owner].gifts)


def _favored_suit_changed(s: PaxState, e: Event) -> None:
    s.favored = e.data["suit"]


def _effect_started(s: PaxState, e: Event) -> None:
    s.effects[e.data["effect"]] = e.data["seat"]


def _effects_cleared(s: PaxState, e: Event) -> None:
    s.effects = {}


def _hands_swapped(s: PaxState, e: Event) -> None:
    first, second = e.data["seats"]
    s.players[first].hand, s.players[second].hand = s.players[second].hand, s.players[first].hand


def _dominance_check_resolved(s: PaxState, e: Event) -> None:
    s.checks_resolved += 1


def _victory_points_scored(s: PaxState, e: Event) -> None:
    s.players[e.data["seat"]].vp += e.data["points"]


def _game_ended(s: PaxState, e: Event) -> None:
    s.outcome = dict(e.data)


def _wakhan_deck_shuffled(s: PaxState, e: Event) -> None:
    assert s.wakhan is not None
    shuffled = list(e.hidden()["ai_deck"])  # under what is left of the deck
    s.wakhan.deck = s.wakhan.deck + shuffled
    s.wakhan.discard = [card for card in s.wakhan.discard if card not in shuffled]


def _wakhan_card_drawn(s: PaxState, e: Event) -> None:
    assert s.wakhan is not None
    s.wakhan.deck.remove(e.data["ai_card"])
    s.wakhan.discard.append(e.data["ai_card"])
    s.wakhan.next_back = e.data["next_back"]


def _wakhan_loyalty_set(s: PaxState, e: Event) -> None:
    s.players[e.data["seat"]].loyalty = COALITION_BY_ID[e.data["coalition"]]


def _nothing(s: PaxState, e: Event) -> None:
    return None


def evolve(state: PaxState | None, event: Event) -> PaxState:
    """Apply one event: the function of its type. A ``match`` on the type (the one list of
    Pax Pamir's event types), the most frequent first: compiled, each ``case`` is a string
    comparison and a direct C call, where a function read from a table is called through
    Python's calling convention (docs/adding-a-game.md)."""
    if event.type == SETUP_STARTED:
        return _setup_started(state, event)
    assert state is not None, f"a Pax Pamir stream starts with {SETUP_STARTED}"
    match event.type:
        case "CardMoved":
            _card_moved(state, event)
        case "RupeesMoved":
            _rupees_moved(state, event)
        case "ActionSpent":
            _action_spent(state, event)
        case "PieceMoved":
            _piece_moved(state, event)
        case "MarketSlotMarked":
            _market_slot_marked(state, event)
        case "CardDealt":
            _card_dealt(state, event)
        case "TurnStarted":
            _turn_started(state, event)
        case "CardUsed":
            _card_used(state, event)
        case "VictoryPointsScored":
            _victory_points_scored(state, event)
        case "FavoredSuitChanged":
            _favored_suit_changed(state, event)
        case "DominanceCheckResolved":
            _dominance_check_resolved(state, event)
        case "LoyaltyChosen":
            _loyalty_chosen(state, event)
        case "LoyaltyChanged":
            _loyalty_chosen(state, event)
        case "EffectStarted":
            _effect_started(state, event)
        case "EffectsCleared":
            _effects_cleared(state, event)
        case "BribeDeclined":
            _bribe_declined(state, event)
        case "BribeAbandoned":  # a give-up counts with the declines (section 23 item 16)
            _bribe_declined(state, event)
        case "HandsSwapped":
            _hands_swapped(state, event)
        case "DeckBuilt":
            _deck_built(state, event)
        case "LoyaltyOrderChosen":
            _nothing(state, event)
        case "GameEnded":
            _game_ended(state, event)
        case "WakhanDeckShuffled":
            _wakhan_deck_shuffled(state, event)
        case "WakhanCardDrawn":
            _wakhan_card_drawn(state, event)
        case "WakhanLoyaltySet":
            _wakhan_loyalty_set(state, event)
        case "WakhanDecided":
            _nothing(state, event)
        case _:
            raise ValueError(f"Pax Pamir has no event type {event.type!r}")
    return state


__all__ = ["evolve"]
