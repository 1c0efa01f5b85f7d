"""Dynasties, phase by phase (rulings §1.3, §1.7). Each function is one rulebook procedure
and cites the rulings it encodes. Procedures read the state as the rulebook would and only
``emit`` events; the kernel's ``Flow`` applies each event at once, so reading and recording
agree.

The kernel plays them as **steps** (bottom of this file): one per phase of a round, and one
per decision a seat may owe in the middle of one (a Conclave's card choice, a retirement).
Each step's prompt says what its seat may do; the kernel refuses anything else before a
handler runs, so the handlers below hold no legality checks of their own. The frames are
derived from the state (the phase, and the pending decision), which only events change.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.dynasties import events as ev
from domain.games.dynasties.cards import (
    DECK,
    LINEAGES,
    in_display_order,
    is_card,
    is_coronation,
    is_king,
    lineage_of,
    lineage_place,
    value_of,
)
from domain.games.dynasties.options import DynastiesOptions
from domain.games.dynasties.state import (
    CONCLAVE_CHOICE,
    CONCLUSION,
    DRAW,
    ENQUIRE,
    GRAVE,
    OVER,
    RAISING,
    RETIREMENT,
    SETUP,
    TRIBUTE,
    DynastiesState,
    PendingDecision,
)
from domain.kernel.errors import RuleViolation
from domain.kernel.prompt import Arg, Kind, Prompt, Verb, short
from domain.kernel.steps import Flow, Frame, Step, handles, step_table
from domain.kernel.steps import frame as make_frame

#: Turns in a round before the Conclusion; tie-break Turns are numbered after them (R26, R45).
TURNS_PER_ROUND: Final = 3
#: The smallest set that makes a Conclave (three of a value) or a Pureblood (three of a lineage).
COMBINATION_SIZE: Final = 3


#: The flow of one command; its rng is used only to reshuffle (R55).
Play = Flow[DynastiesState]

#: Under ``mid_round_enquire = tda`` a seat Enquires before placing with at most this many
#: Nobles (R13); ``enquire_threshold`` is the phase-1 threshold (R10) only.
TDA_PLACEMENT_THRESHOLD: Final = 1


def clockwise(start: int, seats: int) -> list[int]:
    """``start, start+1, ...`` wrapping round (R4)."""
    return [(start + step) % seats for step in range(seats)]


def highest_untied(seats: list[int], values: list[int]) -> int | None:
    """The seat holding the highest value that exactly one seat has, or None (R19, R25):
    ``seats[i]`` holds ``values[i]``, a card's value (1 to 13). (A value's seats are counted in the list of values itself: a
    handful of seats, where a dict of counts cost several times as much.)"""
    best = 0
    leader: int | None = None
    for place in range(len(values)):
        value = values[place]
        if value > best and values.count(value) == 1:
            best = value
            leader = seats[place]
    return leader


# -- setup (§1.2) ------------------------------------------------------------------------

def setup(p: Play, seats: int, options: DynastiesOptions) -> None:
    """R5-R7: treasuries, the shuffle, four cards each dealt one at a time clockwise from
    seat 0, then round 1 starts (the kernel runs it until the first Tribute is awaited)."""
    rng = p.rng
    assert rng is not None
    p.emit(ev.setup_started(options, seats))
    p.emit(ev.deck_shuffled(rng.shuffled(DECK)))
    for _ in range(options.starting_hand):
        for seat in range(seats):
            p.emit(ev.card_drawn(seat, p.state.deck[0], "deal"))
    p.emit(ev.round_started(1, 0))  # R60: the anchor is seat 0 in round 1


# -- the Noble Deck (R15, R54, R55) ------------------------------------------------------

def ensure_deck(p: Play) -> bool:
    """R55: a card is needed; if the deck is empty, the whole Graveyard becomes a new deck.
    False when there is no card anywhere (R54)."""
    s = p.state
    if s.deck:
        return True
    if not s.graveyard:
        return False
    assert p.rng is not None, "a reshuffle draws from the command's rng"
    p.emit(ev.graveyard_reshuffled(p.rng.shuffled(s.graveyard)))
    return True


def draw_card(p: Play, seat: int, reason: str) -> bool:
    """One card from the top of the deck into ``seat``'s hand, or ``DrawFailed`` (R54)."""
    if not ensure_deck(p):
        p.emit(ev.draw_failed(seat, reason))
        return False
    p.emit(ev.card_drawn(seat, p.state.deck[0], reason))
    return True


def affordable(s: DynastiesState, seat: int, owed: int) -> int:
    """R15: a seat pays what it owes or all it has."""
    return min(owed, s.treasury[seat])


def record_shortfall(p: Play, seat: int, shortfall: int) -> None:
    """R15: forgiven by default; under ``debt_to_legacy`` it becomes debt."""
    if shortfall and p.state.options.shortfall == "debt_to_legacy":
        p.emit(ev.debt_recorded(seat, shortfall))


# -- phase 1: Enquire Prospects (R8, R10-R14) --------------------------------------------

def enquire_prospects(p: Play) -> None:
    """R10: clockwise from the anchor (R60), every seat holding at most ``enquire_threshold``
    Nobles must Enquire. Then the Tribute phase opens."""
    s = p.state
    threshold = s.options.enquire_threshold
    for seat in clockwise(s.anchor, s.seats):
        if len(s.hands[seat]) <= threshold:
            enquire(p, seat)
    p.emit(ev.phase_started(TRIBUTE))


def enquire(p: Play, seat: int) -> None:
    """R10-R12, R14: flip the top card, pay its face value into the Stakes, then take cards
    until the hand holds ``enquire_refill_to``. Under ``keep`` (R11) the flipped card stays
    on top and is the first card taken; under ``discard`` it goes to the Graveyard."""
    s = p.state
    if not ensure_deck(p):
        p.emit(ev.draw_failed(seat, "enquire"))  # R14: nothing flipped, nothing paid
        return
    card = s.deck[0]
    price = value_of(card)  # R12: a Coronation costs 1; bonuses never count
    paid = affordable(s, seat, price)
    kept = s.options.enquire_price_card == "keep"
    p.emit(ev.prospects_enquired(seat, card, price, paid, kept))
    record_shortfall(p, seat, price - paid)
    if kept:
        p.emit(ev.card_drawn(seat, card, "enquire"))
    refill_to = s.options.enquire_refill_to
    while len(s.hands[seat]) < refill_to:
        if not draw_card(p, seat, "enquire"):
            return  # R14: what was taken is kept; the price stays paid


# -- phase 2: Tribute (R17-R22) ----------------------------------------------------------

def must_give_tribute(s: DynastiesState, seat: int) -> bool:
    """R17: every seat holding a card commits exactly one, face down."""
    return s.phase == TRIBUTE and s.tribute_commit[seat] is None and bool(s.hands[seat])


def submit_tribute(p: Play, seat: int, card: str) -> None:
    """R17: a secret, final commit. Nothing is revealed until every seat has committed."""
    p.emit(ev.tribute_committed(seat, card))


# -- phase 2 by commit-reveal (option ``commit_reveal_tributes``, R17a) -----------------

def tribute_digest(salt: str, card: str) -> str:
    """R17a: ``sha256(salt || card id)``: the salt's bytes (it is written in hex), then the
    card id's ASCII bytes; the digest in lowercase hex."""
    return hashlib.sha256(bytes.fromhex(salt) + card.encode("ascii")).hexdigest()


def must_seal(s: DynastiesState, seat: int) -> bool:
    """R17a: a seat that owes a Tribute first seals it."""
    return must_give_tribute(s, seat) and s.tribute_hash[seat] is None


def must_reveal(s: DynastiesState, seat: int) -> bool:
    """R17a: once every seat that owes a Tribute has sealed it, each reveals."""
    return (must_give_tribute(s, seat) and s.tribute_hash[seat] is not None
            and not any(must_seal(s, other) for other in range(s.seats)))


def owes_tribute_now(s: DynastiesState, seat: int) -> bool:
    """Is ``seat`` asked for its Tribute now (R17; under commit-reveal a seal or a reveal, R17a,
    each of a seat that must give one)? (The option is read for such a seat only: asked of
    every seat at every state of the phase, and an option read is a dictionary lookup.)"""
    return must_give_tribute(s, seat) and (not s.options.commit_reveal_tributes
                                           or must_seal(s, seat) or must_reveal(s, seat))


def _not_in_tribute_zone(card: str) -> str:
    return f"{card} is not in the Tribute Zone"


def opens_a_seal(s: DynastiesState, seat: int, salt: str) -> bool:
    """Does ``salt`` open ``seat``'s seal on a Noble of its hand?"""
    return sealed_card(s, seat, salt) is not None


def sealed_card(s: DynastiesState, seat: int, salt: str) -> str | None:
    """R17a: the Noble in ``seat``'s hand that ``salt`` opens its seal with, if any."""
    sealed = s.tribute_hash[seat]
    return next((card for card in s.hands[seat] if tribute_digest(salt, card) == sealed), None)


def seal_tribute(p: Play, seat: int, digest: str) -> None:
    """R17a: the seal is public and final; the card behind it is nobody's to know yet."""
    p.emit(ev.tribute_sealed(seat, digest))


def reveal_tribute(p: Play, seat: int, salt: str) -> None:
    """R17a: the salt opens the seal with one Noble of the hand: that is the seat's Tribute,
    given as under R17 (the others see it when every seat has revealed)."""
    card = sealed_card(p.state, seat, salt)
    assert card is not None, "the prompt accepts only a salt that opens the seal"
    p.emit(ev.tribute_committed(seat, card, salt))


def reveal_tributes(p: Play) -> None:
    """R19-R22: reveal; the highest untied value leads; every seat pays the highest value
    into the Stakes; the Tributes stay in the Tribute Zone. All tied: R20."""
    s = p.state
    given = [(seat, card) for seat, card in enumerate(s.tribute_commit) if card is not None]
    seats = [seat for seat, _ in given]
    values = [value_of(card) for _, card in given]
    highest = max(values, default=0)
    p.emit(ev.tributes_revealed([(seat, card, s.tribute_salt[seat]) for seat, card in given], highest))
    leader = highest_untied(seats, values)
    by = "tribute"
    if leader is None:
        if s.options.all_tied_tribute == "redraw" or not given:
            redraw_tributes(p, given)
            return
        committed = {seat for seat, _ in given}
        leader = next(seat for seat in clockwise(s.anchor, s.seats) if seat in committed)
        by = "anchor"
    p.emit(ev.first_player_chosen(leader, values[seats.index(leader)], by))
    pay_tribute_stakes(p, leader, highest)
    start_turn(p, 1, leader, tie_break=False)


def redraw_tributes(p: Play, given: list[tuple[int, str]]) -> None:
    """R20 (``redraw``): the tied Tributes go to the Graveyard, no gold moves, each seat
    draws 1 card clockwise from the anchor, and everyone gives a new Tribute."""
    s = p.state
    p.emit(ev.tribute_stalemate([value_of(card) for _, card in given], [card for _, card in given]))
    for seat in clockwise(s.anchor, s.seats):
        draw_card(p, seat, "redraw")


def pay_tribute_stakes(p: Play, first_player: int, highest: int) -> None:
    """R21: every seat, clockwise from the First Player, pays the highest Tribute value,
    even a tied one (R15 for shortfalls)."""
    s = p.state
    for seat in clockwise(first_player, s.seats):
        paid = affordable(s, seat, highest)
        p.emit(ev.stakes_paid(seat, highest, paid))
        record_shortfall(p, seat, highest - paid)


# -- phase 3: Raising the Family (R23-R43) -----------------------------------------------

def start_turn(p: Play, turn: int, leader: int, tie_break: bool) -> None:
    """R23: the leader places first, then the others clockwise. A tie-break Turn under
    ``tie_break_participants = tied`` has only the tied seats; its leader is then the first
    tied seat clockwise from the R25 leader (R45)."""
    s = p.state
    order = clockwise(leader, s.seats)
    if tie_break and s.options.tie_break_participants == "tied":
        order = [seat for seat in order if seat in s.tied_seats]
    p.emit(ev.turn_started(turn, order[0], tie_break, order))


def must_enquire_before_placing(s: DynastiesState, seat: int) -> bool:
    """R13 (``mid_round_enquire``): ``empty`` Enquires when the hand is empty; ``tda`` when it
    holds at most one card (R13's own threshold, not R10's ``enquire_threshold``); ``never``
    does not. Once per placement. (No mode Enquires with more Nobles in hand than ``tda``'s
    threshold: the option is read only for a hand that small, as it is asked of every placement.)"""
    if s.placer_enquired or len(s.hands[seat]) > TDA_PLACEMENT_THRESHOLD:
        return False
    mode = s.options.mid_round_enquire
    if mode == "empty":
        return not s.hands[seat]
    if mode == "tda":
        return len(s.hands[seat]) <= TDA_PLACEMENT_THRESHOLD
    return False


def placer_asked(s: DynastiesState) -> int | None:
    """The seat asked to place a Noble now (R23, R27, R13: it holds one and owes no Enquire
    first), or None: phase 3's one question, asked once for its prompt, ``asked`` and ``awaits``."""
    placer = s.next_placer
    if (placer is None or s.stakes_emptied or s.pending is not None or not s.hands[placer]
            or must_enquire_before_placing(s, placer)):
        return None
    return placer


def raising_the_family(p: Play) -> None:
    """One automatic step of phase 3: a mid-round Enquire (R13), a skip (R27), the end of a
    Turn (R25), or the end of the round when a Conclave emptied the Stakes (R40)."""
    s = p.state
    if s.stakes_emptied:
        p.emit(ev.phase_started(CONCLUSION))
        return
    placer = s.next_placer
    if placer is None:
        end_turn(p)
    elif must_enquire_before_placing(s, placer):
        enquire(p, placer)
    elif not s.hands[placer]:
        p.emit(ev.placement_skipped(placer, "no_cards"))


def placement_text(turn: int) -> str:
    """The text of phase 3's prompt in Turn ``turn``: made once per Turn number (every
    placement's prompt shows it; formatting it each time cost several dict lookups' worth)."""
    text = _PLACEMENT_TEXTS.get(turn)
    if text is None:
        text = _PLACEMENT_TEXTS[turn] = f"Turn {turn}: place a Noble from your hand into your Family."
    return text


_PLACEMENT_TEXTS: Final[dict[int, str]] = {}


def place_noble(p: Play, seat: int, card: str) -> None:
    """R24, R27, R29: place, record activation, resolve an activated Coronation, then the
    placing seat's combinations."""
    s = p.state
    activated, compared_with = activation(s, card)
    p.emit(ev.noble_placed(seat, card, activated, compared_with))
    if activated and is_coronation(card):
        crown(p, card)
    resolve_combinations(p, seat)


def activation(s: DynastiesState, card: str) -> tuple[bool, str | None]:
    """R24: the first placement of a Turn activates; a later one activates when its value is
    at most the most recent Noble placed earlier in the same Turn (skips do not count)."""
    if not s.turn_placements:
        return True, None
    previous = s.turn_placements[-1].card
    return value_of(card) <= value_of(previous), previous


def crown(p: Play, card: str) -> None:
    """R30-R32, R36: every King in any Family goes to the Graveyard, then the Coronation's
    lineage becomes the Current Dynasty at once."""
    s = p.state
    kings = [(seat, noble) for seat in range(s.seats) for noble in s.families[seat] if is_king(noble)]
    if kings:
        p.emit(ev.kings_deposed(kings, card))
    p.emit(ev.dynasty_changed(lineage_of(card), card, "coronation"))


def conclave_values(s: DynastiesState, seat: int) -> list[int]:
    """R37: values held at least three times in the Family and not yet rewarded this round,
    lowest first. (This runs after every placement: the Family's values, sorted, hold three of a
    kind where a value equals the one two places after it; a sort and one pass cost less than
    counting each of the thirteen values.)"""
    held = sorted([value_of(card) for card in s.families[seat]])
    found: list[int] = []
    for place in range(len(held) - COMBINATION_SIZE + 1):
        value = held[place]
        if value == held[place + COMBINATION_SIZE - 1] and (not found or found[-1] != value):
            found.append(value)
    if not found:
        return found
    rewarded = s.rewarded[seat]
    return [value for value in found if f"conclave:{value}" not in rewarded]


def pureblood_lineages(s: DynastiesState, seat: int) -> list[str]:
    """R41: lineages held at least three times in the Family and not yet rewarded this round,
    in the lineages' order. (Found as ``conclave_values`` finds values: the places of the
    Family's lineages in ``LINEAGES``, sorted.)"""
    held = sorted([lineage_place(card) for card in s.families[seat]])
    found: list[str] = []
    for place in range(len(held) - COMBINATION_SIZE + 1):
        index = held[place]
        if index == held[place + COMBINATION_SIZE - 1]:
            lineage = LINEAGES[index]
            if not found or found[-1] != lineage:
                found.append(lineage)
    if not found:
        return found
    rewarded = s.rewarded[seat]
    return [lineage for lineage in found if f"pureblood:{lineage}" not in rewarded]


def resolve_combinations(p: Play, seat: int) -> None:
    """R28, R29, R43: after a placement, the placing seat's Conclaves (gold, then the card
    choice), then its Purebloods. Under ``combinations_require_activation`` only an
    activating placement checks, and it picks up any combination that was waiting.
    A Conclave card choice suspends this; ``choose_conclave_cards`` resumes it."""
    s = p.state
    # (the option is read only for a placement that did not activate: an option is an attribute
    # of a plain Python object, a dictionary lookup, and this runs after every placement)
    if not s.turn_placements[-1].activated and s.options.combinations_require_activation:
        return
    if len(s.families[seat]) < COMBINATION_SIZE:
        return  # too few Nobles for any combination
    for value in conclave_values(s, seat):
        form_conclave(p, seat, value)
        if s.pending is not None:
            return
    for lineage in pureblood_lineages(s, seat):
        form_pureblood(p, seat, lineage)


def form_conclave(p: Play, seat: int, value: int) -> None:
    """R37-R40, R58: take ``min(value, stakes)`` gold, then may take up to
    ``conclave_max_cards`` cards from the Tribute Zone (no decision if it is empty).
    Under ``empty_stakes_ends_round`` an emptied Stakes ends the round (R40)."""
    s = p.state
    gold = min(value, s.stakes)
    may_take = min(s.options.conclave_max_cards, len(s.tribute_zone))
    p.emit(ev.conclave_formed(seat, value, gold, may_take))
    if s.options.empty_stakes_ends_round and s.stakes == 0:
        p.emit(ev.stakes_emptied(seat))


def choose_conclave_cards(p: Play, seat: int, cards: list[str]) -> None:
    """R39, R35: the chosen TZ cards go to the hand. Taking the crowned Coronation ends the
    Current Dynasty. Then the rest of the placement resolves (R29)."""
    s = p.state
    if s.crowned_card is not None and s.crowned_card in cards:
        p.emit(ev.dynasty_changed(None, None, "conclave"))  # first, so I6 holds at every event
    p.emit(ev.conclave_cards_taken(seat, in_display_order(cards)))
    resolve_combinations(p, seat)


def form_pureblood(p: Play, seat: int, lineage: str) -> None:
    """R41, R42: every other seat, clockwise from the seat's left, pays the middle
    (second-highest) value of that lineage in the Family (R15 for shortfalls)."""
    s = p.state
    values = sorted((value_of(card) for card in s.families[seat] if lineage_of(card) == lineage), reverse=True)
    amount = values[1]
    p.emit(ev.pureblood_formed(seat, lineage, amount))
    for payer in clockwise(seat, s.seats)[1:]:
        paid = affordable(s, payer, amount)
        p.emit(ev.pureblood_paid(payer, seat, amount, paid))
        record_shortfall(p, payer, amount - paid)


def next_leader(s: DynastiesState) -> int:
    """R25: the seat whose placement this Turn has the highest value placed by exactly one
    seat, counting only Nobles still in a Family (removed Kings too under
    ``removed_cards_count_for_lead``); otherwise the same leader again."""
    seats: list[int] = []
    values: list[int] = []
    for placed in s.turn_placements:  # (the option read only for a Noble no longer in its Family)
        if placed.card in s.families[placed.seat] or s.options.removed_cards_count_for_lead:
            seats.append(placed.seat)
            values.append(value_of(placed.card))
    leader = highest_untied(seats, values)
    if leader is not None:
        return leader
    assert s.turn_leader is not None, "a Turn that had placements has a leader"
    return s.turn_leader


def end_turn(p: Play) -> None:
    """R25, R26: the Turn ends; after Turn 3 (or a tie-break Turn) comes the Conclusion."""
    s = p.state
    leader = next_leader(s)
    p.emit(ev.turn_ended(s.turn, leader))
    if s.turn < TURNS_PER_ROUND:
        start_turn(p, s.turn + 1, leader, tie_break=False)
    else:
        p.emit(ev.phase_started(CONCLUSION))


# -- phase 4: Conclusion (R44-R50) -------------------------------------------------------

def tallied_card(card: str, coronation_bonus: int, dynasty_bonus: int, dynasty: str | None) -> ev.TalliedCard:
    """R44 for one Noble: its value, + ``coronation_bonus`` if it is a Coronation, +
    ``dynasty_bonus`` if it is of the Current Dynasty."""
    return {"card": card, "value": value_of(card),
            "coronation_bonus": coronation_bonus if is_coronation(card) else 0,
            "dynasty_bonus": dynasty_bonus if lineage_of(card) == dynasty else 0}


#: ``tallied_card`` of every card, with its points, for each (coronation bonus, dynasty bonus,
#: Current Dynasty) met: a game meets a few of them, and each Conclusion copies its rows from
#: here (a dict copied costs less than one built key by key, and its three lookups are made once)
_TALLIED: Final[dict[tuple[int, int, str | None], dict[str, tuple[ev.TalliedCard, int]]]] = {}
#: more kinds of tally than this and the table starts again (options are bounded, but many games'
#: options could still fill it)
_TALLIED_KINDS: Final = 64


def tallied_cards(coronation_bonus: int, dynasty_bonus: int,
                  dynasty: str | None) -> dict[str, tuple[ev.TalliedCard, int]]:
    """``{card: (tallied_card, its points)}`` for these bonuses and this Current Dynasty."""
    kind = (coronation_bonus, dynasty_bonus, dynasty)
    found = _TALLIED.get(kind)
    if found is None:
        if len(_TALLIED) >= _TALLIED_KINDS:
            _TALLIED.clear()
        found = {}
        for card in DECK:
            row = tallied_card(card, coronation_bonus, dynasty_bonus, dynasty)
            found[card] = (row, row["value"] + row["coronation_bonus"] + row["dynasty_bonus"])
        _TALLIED[kind] = found
    return found


def tally(s: DynastiesState) -> list[ev.TalliedFamily]:
    """R44: each Noble's ``tallied_card`` (the Current Dynasty at tally time), summed per Family.
    An empty Family totals 0. (Each row is a copy of the table's: an event's rows are its own.)"""
    table = tallied_cards(s.options.coronation_bonus, s.options.dynasty_bonus, s.current_dynasty)
    rows: list[ev.TalliedFamily] = []
    for seat, family in enumerate(s.families):
        cards: list[ev.TalliedCard] = []
        total = 0
        for card in family:
            row, points = table[card]
            cards.append(row.copy())
            total += points
        rows.append({"seat": seat, "cards": cards, "total": total})
    return rows


def conclusion(p: Play) -> None:
    """R44-R48: the single highest total wins the whole Stakes; a tie plays another Turn
    (R45) or, if it cannot be broken, carries or splits (R46). Then debts (R15) and the
    Broke check (R48): Game Over at once, or Into the Grave."""
    s = p.state
    rows = tally(s)
    p.emit(ev.families_tallied(rows, s.current_dynasty))
    best = max([row["total"] for row in rows])
    leaders = [row["seat"] for row in rows if row["total"] == best]
    if len(leaders) == 1:
        p.emit(ev.stakes_won(leaders[0], s.stakes))
    else:
        p.emit(ev.conclusion_tied(leaders, best))
        if tie_break_possible(s, leaders):
            assert s.next_leader is not None, "the Turn just ended named the next leader"
            start_turn(p, s.turn + 1, s.next_leader, tie_break=True)
            return
        settle_unbroken_tie(p, leaders)
    settle_debts(p)
    broke = [seat for seat in range(s.seats) if s.treasury[seat] == 0]
    if broke:
        end_game(p, broke)
    else:
        p.emit(ev.phase_started(GRAVE))


def can_place(s: DynastiesState, seat: int) -> bool:
    """A seat can place if it holds a card or could Enquire for one (R13, R46)."""
    if s.hands[seat]:
        return True
    return s.options.mid_round_enquire != "never" and bool(s.deck or s.graveyard)


def tie_break_possible(s: DynastiesState, tied: list[int]) -> bool:
    """R45, R46, R40: not after a Conclave emptied the Stakes, not past
    ``max_tie_break_turns``, and only if some seat that would play can place."""
    if s.stakes_emptied:
        return False
    limit = s.options.max_tie_break_turns
    if limit is not None and s.turn - TURNS_PER_ROUND >= limit:
        return False
    players = tied if s.options.tie_break_participants == "tied" else range(s.seats)
    return any(can_place(s, seat) for seat in players)


def split_shares(s: DynastiesState, seats: list[int], amount: int) -> list[tuple[int, int]]:
    """R46 ``split``: equal shares; the remainder 1 gold each, clockwise from the First
    Player among the seats."""
    share, remainder = divmod(amount, len(seats))
    origin = s.first_player if s.first_player is not None else seats[0]
    ordered = [seat for seat in clockwise(origin, s.seats) if seat in seats]
    extra = set(ordered[:remainder])
    return [(seat, share + (1 if seat in extra else 0)) for seat in sorted(seats)]


def settle_unbroken_tie(p: Play, tied: list[int]) -> None:
    """R46: nobody wins; the Stakes carry to the next round (default) or are split."""
    s = p.state
    if s.options.unresolved_tie == "split":
        p.emit(ev.stakes_split(split_shares(s, tied, s.stakes)))
    else:
        p.emit(ev.stakes_carried(s.stakes, tied))


def settle_debts(p: Play) -> None:
    """R15 (``debt_to_legacy``): each debtor pays what it can of its debt into the Legacy,
    and the debt is cleared."""
    s = p.state
    for seat in range(s.seats):
        if s.debt[seat]:
            p.emit(ev.debt_settled(seat, s.debt[seat], min(s.debt[seat], s.treasury[seat])))


def end_game(p: Play, broke: list[int]) -> None:
    """R48-R50: leftover Stakes are split among the seats tied in this Conclusion; the
    winners are every seat with the highest treasury; the Legacy is split equally and the
    remainder reported."""
    s = p.state
    for seat in broke:
        p.emit(ev.player_broke(seat))
    leftover: list[dict[str, int]] = []
    if s.stakes:
        shares = split_shares(s, s.tied_seats or list(range(s.seats)), s.stakes)
        p.emit(ev.stakes_split(shares))
        leftover = [{"seat": seat, "amount": amount} for seat, amount in shares]
    top = max(s.treasury)
    winners = [seat for seat in range(s.seats) if s.treasury[seat] == top]
    share, remainder = divmod(s.legacy, len(winners))
    shares_by_seat = [share if seat in winners else 0 for seat in range(s.seats)]
    p.emit(ev.game_ended(winners, list(s.treasury), shares_by_seat, remainder, leftover))


# -- phase 5: Into the Grave (R34, R51) --------------------------------------------------

def into_the_grave(p: Play) -> None:
    """R51, R34: the older enshrined Coronation is buried if a newer one was crowned; the
    crowned card moves from its Family to the TZ; every other Family and TZ card goes to the
    Graveyard."""
    s = p.state
    crowned = s.crowned_card
    if s.enshrined is not None and s.enshrined != crowned:
        p.emit(ev.coronation_buried(s.enshrined))
    if crowned is not None and any(crowned in family for family in s.families):
        p.emit(ev.coronation_enshrined(crowned))
    kept = 1 if s.enshrined is not None else 0
    p.emit(ev.families_buried(sum(len(family) for family in s.families) + len(s.tribute_zone) - kept))
    p.emit(ev.phase_started(DRAW))
    starter = draw_starter(s)
    p.emit(ev.draw_order_chosen(starter, clockwise(starter, s.seats)))


# -- phase 6: Draw & Retirement (R52-R54, R60) -------------------------------------------

def draw_starter(s: DynastiesState) -> int:
    """R52: the seat with the most cards; on a tie the Stakes winner if it is among them,
    else the first of them clockwise from the Stakes winner (from the First Player when the
    Stakes were carried or split)."""
    most = max([len(hand) for hand in s.hands])
    candidates = [seat for seat in range(s.seats) if len(s.hands[seat]) == most]
    if len(candidates) == 1:
        return candidates[0]
    winner = s.last_stakes_winner
    origin = winner if winner is not None else s.first_player
    return next(seat for seat in clockwise(origin or 0, s.seats) if seat in candidates)


def draw_and_retirement(p: Play) -> None:
    """R52-R54: the next seat in draw order draws ``draw_per_round`` cards, then its hand
    limit is checked (a seat over it must retire cards before the next seat draws). When
    every seat has drawn, the next round starts, anchored at the starter (R60, R8)."""
    s = p.state
    if not s.draw_queue:
        assert s.draw_starter is not None, "phase 6 began with its starter (R52)"
        p.emit(ev.round_started(s.round + 1, s.draw_starter))
        return
    seat = s.draw_queue[0]
    for _ in range(s.options.draw_per_round):
        if not draw_card(p, seat, "draw"):
            break
    p.emit(ev.hand_limit_checked(seat, len(s.hands[seat]), s.options.hand_limit))


def retire_nobles(p: Play, seat: int, cards: list[str]) -> None:
    """R53: the owner chooses exactly the excess; the cards go face down to the Graveyard."""
    p.emit(ev.nobles_retired(seat, in_display_order(cards)))


def _nobles(count: int, noun: str = "Noble") -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


# -- the steps the kernel plays -------------------------------------------------------------

def parse_card(kind: Kind, raw: object) -> str:
    if not isinstance(raw, str):
        raise RuleViolation(f"a card must be a card id such as 'coppe-07', not {short(raw)}")
    if not is_card(raw):
        raise RuleViolation(f"there is no card {short(raw)}; card ids look like 'coppe-07'")
    return raw


NOBLE = Kind("card", "string", "a Noble's card id, such as 'coppe-07'", parse=parse_card)
#: R17a: a sealed Tribute, and the salt that opens it (16 to 32 random bytes, in hex)
SEAL = Kind("hash", "string", "exactly 64 lowercase hex digits: sha256(salt || card id)", pattern="[0-9a-f]{64}")
SALT = Kind("salt", "string", "32 to 64 lowercase hex digits (16 to 32 random bytes)", pattern="(?:[0-9a-f]{2}){16,32}")


def tribute_refusal(s: DynastiesState, seat: int) -> str:
    if s.phase != TRIBUTE:
        return "Tributes are given only in the Tribute phase"
    if s.tribute_commit[seat] is not None:
        return "you have already given your Tribute"
    if s.options.commit_reveal_tributes and must_give_tribute(s, seat):
        return "this game's Tributes are sealed, then revealed: send CommitTribute, then RevealTribute"
    return "you have no Noble to give as Tribute"


def seal_refusal(s: DynastiesState, seat: int) -> str:
    if not s.options.commit_reveal_tributes:
        return "this game's Tributes are not sealed: give yours with SubmitTribute"
    if must_give_tribute(s, seat) and s.tribute_hash[seat] is not None:
        return "you have already sealed your Tribute; a seal is final"
    return tribute_refusal(s, seat)


def reveal_refusal(s: DynastiesState, seat: int) -> str:
    if not s.options.commit_reveal_tributes:
        return "this game's Tributes are not sealed: give yours with SubmitTribute"
    if must_seal(s, seat):
        return "seal your Tribute first (CommitTribute)"
    if must_give_tribute(s, seat):
        return "reveal your Tribute once every seat has sealed one"
    if s.phase == TRIBUTE and s.tribute_commit[seat] is not None:
        return "you have already revealed your Tribute"
    return tribute_refusal(s, seat)


COMMIT_TRIBUTE = Verb("CommitTribute", "Commit-reveal: seal your secret Tribute as sha256(salt || card id) of a "
                      "Noble in your hand (salt: 16 to 32 random bytes you keep until the reveal).",
                      Arg("hash", SEAL), refusal=seal_refusal)
REVEAL_TRIBUTE = Verb("RevealTribute", "Commit-reveal: once every seat has sealed, reveal your Tribute with the salt "
                      "of your seal; the server finds the Noble of your hand it opens.",
                      Arg("salt", SALT), refusal=reveal_refusal)


VERBS = (
    Verb("SubmitTribute", "Give one card from your hand as your secret Tribute.", Arg("card", NOBLE),
         refusal=tribute_refusal),
    COMMIT_TRIBUTE,
    REVEAL_TRIBUTE,
    Verb("PlaceNoble", "Place a Noble from your hand into your Family.", Arg("card", NOBLE),
         refusal="it is not your turn to place a Noble"),
    Verb("ChooseConclaveCards", "After a Conclave, take up to the allowed number of cards from the Tribute Zone.",
         Arg("cards", NOBLE, many=True), refusal="you have no Conclave cards to choose"),
    Verb("RetireNobles", "Retire exactly the Nobles over the hand limit to the Graveyard, face down.",
         Arg("cards", NOBLE, many=True), refusal="you have no Nobles to retire"),
)


@mypyc_attr(allow_interpreted_subclasses=True)
class Phase(Step[DynastiesState]):
    """A phase that only runs automatic procedures (``procedure``)."""

    def advance(self, p: Play, frame: Frame) -> None:
        self.procedure(p)

    def procedure(self, p: Play) -> None:
        raise NotImplementedError


@mypyc_attr(allow_interpreted_subclasses=True)
class EnquireProspects(Phase):
    """Phase 1 (R8, R10-R14)."""

    name = ENQUIRE

    def procedure(self, p: Play) -> None:
        enquire_prospects(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class Conclusion(Phase):
    """Phase 4 (R44-R50)."""

    name = CONCLUSION

    def procedure(self, p: Play) -> None:
        conclusion(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class IntoTheGrave(Phase):
    """Phase 5 (R34, R51)."""

    name = GRAVE

    def procedure(self, p: Play) -> None:
        into_the_grave(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class DrawAndRetirement(Phase):
    """Phase 6 (R52-R54, R60)."""

    name = DRAW

    def procedure(self, p: Play) -> None:
        draw_and_retirement(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class Tribute(Step[DynastiesState]):
    """Phase 2 (R17-R22): every seat holding a card gives one, secretly and at the same time;
    when all have, the Tributes are revealed."""

    name = TRIBUTE

    def asks_seat(self, s: DynastiesState, frame: Frame, seat: int) -> bool:
        return owes_tribute_now(s, seat)

    def prompt(self, s: DynastiesState, frame: Frame, seat: int) -> Prompt | None:
        if not self.asks_seat(s, frame, seat):
            return None
        if not s.options.commit_reveal_tributes:
            return Prompt(seat, "Give one Noble from your hand as your secret Tribute.").one_of(
                "SubmitTribute", in_display_order(s.hands[seat]), why="Tribute must be a card in your hand")
        if must_seal(s, seat):
            return Prompt(seat, "Seal your secret Tribute: send sha256(salt || card id) of a Noble in your hand, "
                          "and keep the salt for the reveal.").free(COMMIT_TRIBUTE)
        return Prompt(seat, "Every Tribute is sealed: reveal yours with the salt of your seal.").free(
            REVEAL_TRIBUTE, test=partial(opens_a_seal, s, seat),
            why="your reveal does not match your seal: sha256(salt || card id) with this salt is the hash of no "
                "Noble in your hand")

    @handles("SubmitTribute")
    def submit(self, p: Play, frame: Frame, seat: int, card: str) -> None:
        submit_tribute(p, seat, card)

    @handles(COMMIT_TRIBUTE)
    def seal(self, p: Play, frame: Frame, seat: int, digest: str) -> None:
        seal_tribute(p, seat, digest)

    @handles(REVEAL_TRIBUTE)
    def reveal(self, p: Play, frame: Frame, seat: int, salt: str) -> None:
        reveal_tribute(p, seat, salt)

    def advance(self, p: Play, frame: Frame) -> None:
        reveal_tributes(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class RaisingTheFamily(Step[DynastiesState]):
    """Phase 3 (R23-R43): the seat due to place chooses a Noble; everything else between
    placements (a mid-round Enquire, a skip, the end of a Turn) runs by itself."""

    name = RAISING

    def seat_asked(self, s: DynastiesState, frame: Frame) -> int | None:
        return placer_asked(s)

    def prompt(self, s: DynastiesState, frame: Frame, seat: int) -> Prompt | None:
        if not self.asks_seat(s, frame, seat):
            return None
        return Prompt(seat, placement_text(s.turn)).one_of(
            "PlaceNoble", in_display_order(s.hands[seat]), why="you can only place a Noble from your hand")

    @handles("PlaceNoble")
    def place(self, p: Play, frame: Frame, seat: int, card: str) -> None:
        place_noble(p, seat, card)

    def advance(self, p: Play, frame: Frame) -> None:
        raising_the_family(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class ConclaveChoice(Step[DynastiesState]):
    """R39: the seat that formed a Conclave may take up to ``count`` Tribute Zone cards."""

    name = CONCLAVE_CHOICE

    def ask(self, s: DynastiesState, frame: Frame) -> Prompt:
        count = frame.count
        return Prompt(frame.owner_seat, f"Conclave: take up to {_nobles(count, 'card')} from the Tribute Zone "
                      "(or none).").subset_of(
            "ChooseConclaveCards", s.tribute_zone, 0, count, why=_not_in_tribute_zone,
            size_why=f"you may take at most {_nobles(count, 'card')} from the Tribute Zone")

    @handles("ChooseConclaveCards")
    def choose(self, p: Play, frame: Frame, seat: int, cards: list[str]) -> None:
        choose_conclave_cards(p, seat, cards)


@mypyc_attr(allow_interpreted_subclasses=True)
class Retirement(Step[DynastiesState]):
    """R53: a seat over its hand limit retires exactly the excess."""

    name = RETIREMENT

    def ask(self, s: DynastiesState, frame: Frame) -> Prompt:
        count = frame.count
        seat = frame.owner_seat
        return Prompt(seat, f"Over the hand limit: retire exactly {_nobles(count)} to the Graveyard.").subset_of(
            "RetireNobles", s.hands[seat], count, count, why="you can only retire Nobles from your hand",
            size_why=f"you must retire exactly {_nobles(count)}")

    @handles("RetireNobles")
    def retire(self, p: Play, frame: Frame, seat: int, cards: list[str]) -> None:
        retire_nobles(p, seat, cards)


@mypyc_attr(allow_interpreted_subclasses=True)
class GameOver(Step[DynastiesState]):
    name = OVER

    def awaits(self, s: DynastiesState, frame: Frame, seats: int) -> bool:
        return True


STEPS = step_table(
    EnquireProspects(),
    Tribute(),
    RaisingTheFamily(),
    Conclusion(),
    IntoTheGrave(),
    DrawAndRetirement(),
    ConclaveChoice(),
    Retirement(),
    GameOver(),
)


def frames(s: DynastiesState) -> list[Frame]:
    """The phase, and on top of it the decision a seat owes inside it, if any (none while
    the opening events are still being dealt)."""
    if s.phase == SETUP:
        return []
    pending = s.pending
    if pending is None:
        return [PHASE_FRAMES[s.phase]]
    return [PHASE_FRAMES[s.phase], pending_frame(pending)]


def pending_frame(pending: PendingDecision) -> Frame:
    """The frame of a decision a seat owes in the middle of a phase."""
    return make_frame(pending.kind, pending.seat, count=pending.card_count)


#: The frame of each phase (frames never change: the phase's one needs making only once).
PHASE_FRAMES: Final = {name: Frame(name) for name in STEPS}
