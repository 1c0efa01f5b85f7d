"""``evolve``: one small function per event type. It only records what happened: it never
validates and never draws randomness (the card drawn is in the event)."""

from __future__ import annotations

from domain.games.dynasties.events import SETUP_STARTED
from domain.games.dynasties.options import DynastiesOptions
from domain.games.dynasties.state import (
    CONCLAVE_CHOICE,
    ENQUIRE,
    OVER,
    RAISING,
    RETIREMENT,
    DynastiesState,
    PendingDecision,
    Placement,
    clear_round,
    new_state,
)
from domain.kernel.events import Event


def _setup_started(_: DynastiesState | None, e: Event) -> DynastiesState:
    data = e.data
    return new_state(DynastiesOptions.from_json(data["options"]), data["seats"], data["starting_gold"],
                     data["legacy"])


def _deck_shuffled(s: DynastiesState, e: Event) -> None:
    s.deck = list(e.hidden()["order"])


def _card_drawn(s: DynastiesState, e: Event) -> None:
    card = e.hidden()["card"]
    s.deck.remove(card)  # the top card, index 0
    s.hands[e.data["seat"]].append(card)


def _graveyard_reshuffled(s: DynastiesState, e: Event) -> None:
    s.deck = s.deck + list(e.hidden()["order"])
    s.graveyard = []


def _draw_failed(s: DynastiesState, e: Event) -> None:
    if e.data["purpose"] == "enquire" and s.phase == RAISING:
        s.placer_enquired = True


def _round_started(s: DynastiesState, e: Event) -> None:
    s.round = e.data["round"]
    s.anchor = e.data["anchor"]
    s.phase = ENQUIRE
    clear_round(s)


def _phase_started(s: DynastiesState, e: Event) -> None:
    s.phase = e.data["phase"]


def _prospects_enquired(s: DynastiesState, e: Event) -> None:
    seat, card, paid = e.data["seat"], e.data["revealed_card"], e.data["paid"]
    s.treasury[seat] -= paid
    s.stakes += paid
    s.enquiries.append({"seat": seat, "card": card, "price": e.data["price"], "paid": paid})
    if not e.data["kept_revealed"]:
        s.deck.remove(card)
        s.graveyard.append(card)
    if s.phase == RAISING:
        s.placer_enquired = True


def _tribute_sealed(s: DynastiesState, e: Event) -> None:
    s.tribute_hash[e.data["seat"]] = e.data["hash"]


def _tribute_committed(s: DynastiesState, e: Event) -> None:
    seat, secret = e.data["seat"], e.hidden()
    s.hands[seat].remove(secret["card"])
    s.tribute_commit[seat] = secret["card"]
    s.tribute_salt[seat] = secret.get("salt")


def _tributes_revealed(s: DynastiesState, e: Event) -> None:
    for row in e.data["tributes"]:
        card = row["card"]
        s.tribute_zone.append(card)
        s.tributes.append(card)
        s.tribute_commit[row["seat"]] = None
    s.tribute_hash = [None] * s.seats
    s.tribute_salt = [None] * s.seats


def _tribute_stalemate(s: DynastiesState, e: Event) -> None:
    for card in e.data["cards"]:
        s.tribute_zone.remove(card)
        s.graveyard.append(card)
    s.tributes = []


def _first_player_chosen(s: DynastiesState, e: Event) -> None:
    s.first_player = e.data["seat"]


def _stakes_paid(s: DynastiesState, e: Event) -> None:
    paid = e.data["paid"]
    s.treasury[e.data["seat"]] -= paid
    s.stakes += paid


def _debt_recorded(s: DynastiesState, e: Event) -> None:
    s.debt[e.data["seat"]] += e.data["amount"]


def _turn_started(s: DynastiesState, e: Event) -> None:
    s.phase = RAISING
    s.turn = e.data["turn"]
    s.tie_break = e.data["tie_break"]
    s.turn_leader = e.data["leader"]
    s.turn_order = list(e.data["order"])
    s.turn_cursor = 0
    s.turn_placements = []
    s.placer_enquired = False
    s.next_leader = None


def _noble_placed(s: DynastiesState, e: Event) -> None:
    seat, card = e.data["seat"], e.data["card"]
    s.hands[seat].remove(card)
    s.families[seat].append(card)
    s.turn_placements.append(Placement(seat, card, e.data["activated"]))
    s.turn_cursor += 1
    s.placer_enquired = False


def _placement_skipped(s: DynastiesState, e: Event) -> None:
    s.turn_cursor += 1
    s.placer_enquired = False


def _kings_deposed(s: DynastiesState, e: Event) -> None:
    for row in e.data["removed"]:
        card = row["card"]
        s.families[row["seat"]].remove(card)
        s.graveyard.append(card)


def _dynasty_changed(s: DynastiesState, e: Event) -> None:
    s.current_dynasty = e.data["lineage"]
    s.crowned_card = e.data["crowned_card"]


def _conclave_formed(s: DynastiesState, e: Event) -> None:
    seat, gold = e.data["seat"], e.data["gold_taken"]
    s.treasury[seat] += gold
    s.stakes -= gold
    s.rewarded[seat].add(f"conclave:{e.data['value']}")
    if e.data["may_take"]:
        s.pending = PendingDecision(CONCLAVE_CHOICE, seat, e.data["may_take"])


def _stakes_emptied(s: DynastiesState, e: Event) -> None:
    s.stakes_emptied = True


def _conclave_cards_taken(s: DynastiesState, e: Event) -> None:
    seat = e.data["seat"]
    for card in e.data["cards"]:
        s.tribute_zone.remove(card)
        s.hands[seat].append(card)
        if card in s.tributes:
            s.tributes.remove(card)
        if card == s.enshrined:
            s.enshrined = None
    s.pending = None


def _pureblood_formed(s: DynastiesState, e: Event) -> None:
    s.rewarded[e.data["seat"]].add(f"pureblood:{e.data['lineage']}")


def _pureblood_paid(s: DynastiesState, e: Event) -> None:
    paid = e.data["paid"]
    s.treasury[e.data["from"]] -= paid
    s.treasury[e.data["to"]] += paid


def _turn_ended(s: DynastiesState, e: Event) -> None:
    s.next_leader = e.data["next_leader"]


def _nothing(s: DynastiesState, e: Event) -> None:
    """A fact for the log (a tally, a Broke seat) that changes no state of its own."""


def _conclusion_tied(s: DynastiesState, e: Event) -> None:
    s.tied_seats = list(e.data["seats"])


def _stakes_won(s: DynastiesState, e: Event) -> None:
    seat, amount = e.data["seat"], e.data["amount"]
    s.treasury[seat] += amount
    s.stakes -= amount
    s.last_stakes_winner = seat
    s.stakes_carried = False
    s.tied_seats = []


def _stakes_carried(s: DynastiesState, e: Event) -> None:
    s.stakes_carried = True
    s.last_stakes_winner = None


def _stakes_split(s: DynastiesState, e: Event) -> None:
    for share in e.data["shares"]:
        amount = share["amount"]
        s.treasury[share["seat"]] += amount
        s.stakes -= amount
    s.stakes_carried = False
    s.last_stakes_winner = None


def _debt_settled(s: DynastiesState, e: Event) -> None:
    seat, paid = e.data["seat"], e.data["paid"]
    s.treasury[seat] -= paid
    s.legacy += paid
    s.debt[seat] = 0


def _game_ended(s: DynastiesState, e: Event) -> None:
    s.phase = OVER
    s.pending = None
    s.outcome = dict(e.data)


def _coronation_buried(s: DynastiesState, e: Event) -> None:
    card = e.data["card"]
    s.tribute_zone.remove(card)
    s.graveyard.append(card)
    s.enshrined = None


def _coronation_enshrined(s: DynastiesState, e: Event) -> None:
    card = e.data["card"]
    for family in s.families:
        if card in family:
            family.remove(card)
    s.tribute_zone.append(card)
    s.enshrined = card


def _families_buried(s: DynastiesState, e: Event) -> None:
    """R51: Families in seat order, then the TZ; the enshrined Coronation stays (R34)."""
    for family in s.families:
        s.graveyard.extend(family)
        family.clear()
    s.graveyard.extend(card for card in s.tribute_zone if card != s.enshrined)
    s.tribute_zone = [s.enshrined] if s.enshrined is not None else []
    s.tributes = []


def _draw_order_chosen(s: DynastiesState, e: Event) -> None:
    s.draw_queue = list(e.data["order"])
    s.draw_starter = e.data["starter"]


def _hand_limit_checked(s: DynastiesState, e: Event) -> None:
    s.draw_queue.pop(0)
    if e.data["must_retire"]:
        s.pending = PendingDecision(RETIREMENT, e.data["seat"], e.data["must_retire"])


def _nobles_retired(s: DynastiesState, e: Event) -> None:
    seat = e.data["seat"]
    for card in e.hidden()["cards"]:
        s.hands[seat].remove(card)
        s.graveyard.append(card)
    s.pending = None


def evolve(state: DynastiesState | None, event: Event) -> DynastiesState:
    """Apply one event: the function of its type. A ``match`` on the type (the one list of
    Dynasties' event types) rather than a table of functions: compiled, each ``case`` is a string comparison and a direct C call, where
    a function read from a table is called through Python's calling convention (about 640
    instructions an event, a quarter of folding one). The most frequent types come first (as
    counted in random games of three seats under the default options). The opening
    ``SetupStarted`` is known by the state it lacks (where the sources run as Python, comparing
    every event's type with it first cost about 180 instructions an event), and recognised
    after the match if it comes again onto a state."""
    if state is None:
        assert event.type == SETUP_STARTED, f"a Dynasties stream starts with {SETUP_STARTED}"
        return _setup_started(state, event)
    match event.type:
        case "CardDrawn":
            _card_drawn(state, event)
        case "NoblePlaced":
            _noble_placed(state, event)
        case "PhaseStarted":
            _phase_started(state, event)
        case "TurnStarted":
            _turn_started(state, event)
        case "TurnEnded":
            _turn_ended(state, event)
        case "TributeCommitted":
            _tribute_committed(state, event)
        case "StakesPaid":
            _stakes_paid(state, event)
        case "HandLimitChecked":
            _hand_limit_checked(state, event)
        case "ProspectsEnquired":
            _prospects_enquired(state, event)
        case "FamiliesTallied":
            _nothing(state, event)
        case "RoundStarted":
            _round_started(state, event)
        case "TributesRevealed":
            _tributes_revealed(state, event)
        case "FirstPlayerChosen":
            _first_player_chosen(state, event)
        case "StakesWon":
            _stakes_won(state, event)
        case "FamiliesBuried":
            _families_buried(state, event)
        case "DrawOrderChosen":
            _draw_order_chosen(state, event)
        case "DynastyChanged":
            _dynasty_changed(state, event)
        case "CoronationEnshrined":
            _coronation_enshrined(state, event)
        case "PurebloodPaid":
            _pureblood_paid(state, event)
        case "CoronationBuried":
            _coronation_buried(state, event)
        case "PurebloodFormed":
            _pureblood_formed(state, event)
        case "KingsDeposed":
            _kings_deposed(state, event)
        case "GraveyardReshuffled":
            _graveyard_reshuffled(state, event)
        case "ConclusionTied":
            _conclusion_tied(state, event)
        case "PlayerBroke":
            _nothing(state, event)
        case "GameEnded":
            _game_ended(state, event)
        case "DeckShuffled":
            _deck_shuffled(state, event)
        case "DrawFailed":
            _draw_failed(state, event)
        case "TributeSealed":
            _tribute_sealed(state, event)
        case "TributeStalemate":
            _tribute_stalemate(state, event)
        case "DebtRecorded":
            _debt_recorded(state, event)
        case "PlacementSkipped":
            _placement_skipped(state, event)
        case "ConclaveFormed":
            _conclave_formed(state, event)
        case "StakesEmptied":
            _stakes_emptied(state, event)
        case "ConclaveCardsTaken":
            _conclave_cards_taken(state, event)
        case "StakesCarried":
            _stakes_carried(state, event)
        case "StakesSplit":
            _stakes_split(state, event)
        case "DebtSettled":
            _debt_settled(state, event)
        case "NoblesRetired":
            _nobles_retired(state, event)
        case _:
            if event.type == SETUP_STARTED:
                return _setup_started(state, event)
            raise ValueError(f"Dynasties has no event type {event.type!r}")
    return state
