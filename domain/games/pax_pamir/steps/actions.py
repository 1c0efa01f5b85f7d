"""Card-based actions (R-ACT, rules.md section 10): Tax, Gift, Build, Move, Betray, Battle.

``usable_cards`` says which court cards the turn menu offers for an action (R-ACT-1,
R-ACT-4, R-TRN-2 to R-TRN-4, R-ACT-2); ``start`` runs the ``action`` procedure: the
hostage bribe, the card marked used and the action spent, then the action's own steps.
Costs are paid to the market by ``pay_action_cost`` (R-CST).

Pieces are named as in ``state``: ``army:kabul``, ``tribe:kabul``, ``spy:54``; a piece a
Battle may remove also names its owner (``army:kabul:british``, ``tribe:kabul:1``,
``spy:54:2``), since several owners share a place.
"""

from __future__ import annotations

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    ADJACENT,
    BORDERS_OF,
    MARKET_COLUMNS,
    MARKET_ROWS,
    Coalition,
    Region,
    Suit,
    border_between,
)
from domain.games.pax_pamir.data.cards import (
    CITADEL_REGION,
    COURT_CARDS,
    SAFE_HOUSES,
    Ability,
    CardAction,
    EventEffect,
)
from domain.games.pax_pamir.state import SUPPLY, PaxState, is_wakhan
from domain.games.pax_pamir.steps.bribes import HOSTAGE, hostage_bribe
from domain.games.pax_pamir.steps.common import (
    CARD,
    PIECE,
    Play,
    Procedure,
    block_owner,
    lose_piece,
    pay_rupee_to_market,
    pieces_on_board,
    place_piece,
    supply_of,
)
from domain.games.pax_pamir.steps.court import discard_from_court
from domain.kernel.prompt import AMOUNT, BORDER, REGION, SEAT, Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

#: R-BLD-1: blocks in one Build, and with Nation Building (R-BLD-2); rupees per paid block.
BUILD_LIMIT = 3
NATION_BUILDING_LIMIT = 6
BLOCK_COST = 2
#: R-BTR-1: the price of a Betray.
BETRAY_COST = 2

# -- reading the table ---------------------------------------------------------------------------


def seat_of(frame: Frame) -> int:
    """The seat an action step belongs to (always a seat, never the table)."""
    assert frame.seat is not None
    return frame.seat


def _loyalty(s: PaxState, seat: int) -> Coalition:
    return block_owner(s, seat)


def is_favored(s: PaxState, seat: int, number: int) -> bool:
    return q.counts_as_favored(s, seat, number)


def can_place(s: PaxState, seat: int, kind: str, dst: str) -> bool:
    """A piece of ``kind`` can really be placed at ``dst``: from the supply, or else from
    somewhere on the board other than ``dst`` itself (R-LIM-1, R-LIM-4)."""
    if supply_of(s, kind, seat) > 0:
        return True
    return any(piece != f"{kind}:{dst}" for piece in pieces_on_board(s, kind, seat))


def free_gift_spaces(s: PaxState, seat: int) -> list[int]:
    """R-GFT-1, R-GFT-2: every empty gift space, any order, a cylinder can reach."""
    return [value for value in q.free_gift_spaces(s, seat) if can_place(s, seat, "gift", str(value))]


def minimum_cost(s: PaxState, seat: int, action: CardAction) -> int:
    """R-ACT-2: 2 for Build and Betray, the cheapest free gift space for Gift, 0 otherwise."""
    if action == CardAction.BUILD:
        return BLOCK_COST
    if action == CardAction.BETRAY:
        return BETRAY_COST
    if action == CardAction.GIFT:
        return min(free_gift_spaces(s, seat), default=0)
    return 0


# Tax (R-TAX)

def taxable_market_cards(s: PaxState) -> list[int]:
    """R-TAX-1, section 23 item 1: cards with rupees on them (never an empty slot)."""
    return [number for row, column, number in q.market_slots(s) if s.market_rupees[row][column] > 0]


def taxable_seats(s: PaxState, seat: int) -> list[int]:
    """R-TAX-1, R-TAX-2: another seat with a court card of a region ``seat`` rules (any
    region with Claim of Ancient Lineage, but never a seat with an empty court) and rupees
    above its tax shelter."""
    claim = q.has_ability(s, seat, Ability.CLAIM_OF_ANCIENT_LINEAGE)
    ruled = set(q.ruled_regions(s, seat))
    found = []
    for other, player in enumerate(s.players):
        if other == seat or not player.court:
            continue
        if not claim and not any(COURT_CARDS[n].region in ruled for n in player.court):
            continue
        if player.rupees > q.tax_shelter(s, other):
            found.append(other)
    return found


# Build (R-BLD)

def build_places(s: PaxState, seat: int) -> tuple[list[str], list[str]]:
    """R-BLD-1, section 23 item 7: (regions, borders) a block can go to now: an army in a
    region the seat rules, a road on a border of one."""
    regions: list[str] = []
    borders: list[str] = []
    for region in q.ruled_regions(s, seat):
        if can_place(s, seat, "army", region.value):
            regions.append(region.value)
        for border in BORDERS_OF[region]:
            if border.value not in borders and can_place(s, seat, "road", border.value):
                borders.append(border.value)
    return regions, sorted(borders)


def build_limit(s: PaxState, seat: int) -> int:
    return NATION_BUILDING_LIMIT if q.effect_active(s, EventEffect.NATION_BUILDING, seat) else BUILD_LIMIT


def block_is_paid(s: PaxState, seat: int, built: int) -> bool:
    """R-BLD-2: with Nation Building every second block is free (cost 2 * ceil(n / 2))."""
    return not q.effect_active(s, EventEffect.NATION_BUILDING, seat) or built % 2 == 0


# Move (R-MOV)

def _crossable(s: PaxState, seat: int, here: Region, there: Region) -> bool:
    """R-MOV-2: the border carries a road of the seat's coalition, or Indian Supplies; Wakhan
    needs no roads (section 20)."""
    if q.has_ability(s, seat, Ability.INDIAN_SUPPLIES) or is_wakhan(s, seat):
        return True
    border = border_between(here, there)
    return border is not None and s.roads[border][_loyalty(s, seat)] > 0


def region_destinations(s: PaxState, seat: int, here: Region) -> list[str]:
    return sorted(there.value for there in ADJACENT[here] if _crossable(s, seat, here, there))


def spy_destinations(s: PaxState, seat: int, origin: int) -> list[int]:
    """R-MOV-3: the next or previous card along the court track (it wraps; empty courts are
    skipped), 1 or 2 cards with Well-Connected; with Strange Bedfellows also any court card
    of the origin's region (not combined with Well-Connected: RTT). Never the origin."""
    track = [number for _, number in q.court_cards(s)]
    if origin not in track:
        return []
    at = track.index(origin)
    reach = 2 if q.has_ability(s, seat, Ability.WELL_CONNECTED) else 1
    found = {track[(at + step) % len(track)] for distance in range(1, reach + 1) for step in (distance, -distance)}
    if q.has_ability(s, seat, Ability.STRANGE_BEDFELLOWS):
        region = COURT_CARDS[origin].region
        found |= {number for number in track if COURT_CARDS[number].region == region}
    found.discard(origin)
    return [number for number in track if number in found]


def movable_pieces(s: PaxState, seat: int) -> list[str]:
    """R-MOV-1 to R-MOV-4, section 23 item 6: loyal armies, the seat's spies and (with
    Nationalism) its tribes, each only with a legal destination."""
    loyalty = _loyalty(s, seat)
    nationalism = q.effect_active(s, EventEffect.NATIONALISM, seat)
    found = []
    for region in Region:
        if not region_destinations(s, seat, region):
            continue
        if s.armies[region][loyalty] > 0:
            found.append(f"army:{region.value}")
        if nationalism and s.tribes[region][seat] > 0:
            found.append(f"tribe:{region.value}")
    for _, number in q.court_cards(s):
        if my_spies(s, seat, number) > 0 and spy_destinations(s, seat, number):
            found.append(f"spy:{number}")
    return found


# Betray (R-BTR)

def betrayable_cards(s: PaxState, seat: int) -> list[int]:
    """R-BTR-2: court cards, any court, with a spy of the seat; not a political card in the
    court of a Bodyguards owner."""
    found = []
    for owner, number in q.court_cards(s):
        if my_spies(s, seat, number) <= 0:
            continue
        if COURT_CARDS[number].suit == Suit.POLITICAL and q.has_ability(s, owner, Ability.BODYGUARDS):
            continue
        found.append(number)
    return found


# Battle (R-BAT)

def strength(s: PaxState, seat: int, region: Region) -> int:
    """R-BAT-1: loyal armies, plus the seat's tribes under Nationalism."""
    total = s.armies[region][_loyalty(s, seat)]
    if q.effect_active(s, EventEffect.NATIONALISM, seat):
        total += s.tribes[region][seat]
    return total


def _citadel_protects(s: PaxState, owner: int, region: Region) -> bool:
    return any(q.has_ability(s, owner, ability) for ability, where in CITADEL_REGION.items() if where == region)


def region_enemies(s: PaxState, seat: int, region: Region) -> list[str]:
    """R-BAT-1: armies of other coalitions, their roads on the region's borders (section 21
    item 15), and tribes of seats of another loyalty not under their own Citadel."""
    loyalty = _loyalty(s, seat)
    found = [f"army:{region.value}:{c.value}" for c in Coalition if c != loyalty and s.armies[region][c] > 0]
    for border in BORDERS_OF[region]:
        found += [f"road:{border.value}:{c.value}" for c in Coalition if c != loyalty and s.roads[border][c] > 0]
    for other, player in enumerate(s.players):
        if (other != seat and player.loyalty != loyalty and s.tribes[region][other] > 0
                and not _citadel_protects(s, other, region)):
            found.append(f"tribe:{region.value}:{other}")
    return found


def card_enemies(s: PaxState, seat: int, number: int) -> list[str]:
    """R-BAT-2: spies of other seats, except those of an Indispensable Advisors owner."""
    return [f"spy:{number}:{other}" for other, count in sorted(s.spies.get(number, {}).items())
            if other != seat and count > 0 and not q.has_ability(s, other, Ability.INDISPENSABLE_ADVISORS)]


def my_spies(s: PaxState, seat: int, number: int) -> int:
    spies = s.spies.get(number)
    return spies[seat] if spies is not None else 0


def battle_regions(s: PaxState, seat: int) -> list[str]:
    return [r.value for r in Region if strength(s, seat, r) > 0 and region_enemies(s, seat, r)]


def battle_cards(s: PaxState, seat: int) -> list[int]:
    return [n for _, n in q.court_cards(s) if my_spies(s, seat, n) > 0 and card_enemies(s, seat, n)]


def safe_houses_of(s: PaxState, seat: int) -> list[int]:
    return [number for number in s.players[seat].court if number in SAFE_HOUSES]


# -- the menu ------------------------------------------------------------------------------------

def can_take(s: PaxState, seat: int, action: CardAction, rupees: int) -> bool:
    """R-ACT-4 (RTT's preconditions): the action can have an effect with ``rupees``."""
    if action == CardAction.TAX:
        return bool(taxable_market_cards(s) or taxable_seats(s, seat))
    if action == CardAction.GIFT:
        return any(value <= rupees for value in free_gift_spaces(s, seat))
    if action == CardAction.BUILD:
        return rupees >= BLOCK_COST and any(build_places(s, seat))
    if action == CardAction.MOVE:
        return bool(movable_pieces(s, seat))
    if action == CardAction.BETRAY:
        return rupees >= BETRAY_COST and bool(betrayable_cards(s, seat))
    return bool(battle_regions(s, seat) or battle_cards(s, seat))


def usable_cards(s: PaxState, seat: int, action: CardAction) -> list[int]:
    """Court cards of ``seat`` that may take ``action`` now: printed on the card (R-ACT-1),
    not used this turn (R-TRN-4), favored or with an action left (R-TRN-2, R-TRN-3), able to
    have an effect (R-ACT-4). A hostage bribe does not narrow this: it may be negotiated down
    to nothing (R-BRB-3), and R-ACT-2's limit (no bribe may leave less than the action's
    minimum cost) is held by the bribe step itself (its ``reserve``)."""
    player = s.players[seat]
    if player.loyalty is None:
        return []
    candidates = [n for n in player.court
                  if action in COURT_CARDS[n].actions and n not in s.used_cards
                  and (s.actions_left > 0 or is_favored(s, seat, n))]
    if not candidates:
        return []
    found = []
    for number in candidates:
        rupees = player.rupees
        if rupees >= minimum_cost(s, seat, action) and can_take(s, seat, action, rupees):
            found.append(number)
    return found


def start(t: Play, seat: int, number: int, action: CardAction) -> None:
    """Begin ``action`` with court card ``number`` (the menu offered it: ``usable_cards``)."""
    t.call("action", seat, card=number, action=action.value)


# -- R-CST: paying an action's cost to the market -------------------------------------------------

def pay_action_cost(t: Play, seat: int, amount: int, reason: str, offset: int = 0) -> None:
    """R-CST-1 to R-CST-4: ``amount`` (even) as ``amount // 2`` rupees per row, from the
    rightmost card leftwards, one card per rupee, skipping empty slots; a row that runs out
    removes its remaining rupees from the game. ``offset`` rupees per row were already paid
    in this action (a Build pays block by block and goes on leftwards)."""
    s = t.state
    per_row = amount // 2
    cards = [[column for column in reversed(range(MARKET_COLUMNS)) if s.market[row][column] is not None]
             for row in range(MARKET_ROWS)]
    for index in range(offset, offset + per_row):
        for row in range(MARKET_ROWS):
            if index < len(cards[row]):
                pay_rupee_to_market(t, seat, row, cards[row][index], reason)
            else:
                t.emit(ev.rupees_moved(1, f"seat:{seat}", "removed", reason))


# -- the action procedure ----------------------------------------------------------------------------

class CardBasedAction(Procedure):
    """R-ACT-1, R-ACT-2: settle a hostage bribe (abandoned: no action spent, the card not
    used), mark the card used (R-TRN-4) and spend an action unless it counts as favored
    (R-TRN-3), then the action itself."""

    name = "action"
    stages = ("hostage", "use_card", "act")

    def hostage(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        owed = hostage_bribe(t.state, seat, frame.card)
        if owed is not None:
            holder, amount = owed
            t.call("bribe", seat, recipient=holder, amount=amount,
                   reserve=minimum_cost(t.state, seat, CardAction(frame.action)), card=frame.card, purpose=HOSTAGE)

    def use_card(self, t: Play, frame: Frame) -> None:
        if frame.locals.get("abandoned"):
            t.end()
            return
        seat = seat_of(frame)
        t.emit(ev.card_used(seat, frame.card, frame.action))
        if not is_favored(t.state, seat, frame.card):
            t.emit(ev.action_spent(seat, frame.action))

    def act(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        action = CardAction(frame.action)
        rank = COURT_CARDS[frame.card].rank
        if action == CardAction.TAX:
            t.call("tax", seat, left=rank)
        elif action == CardAction.GIFT:
            t.call("gift", seat)
        elif action == CardAction.BUILD:
            t.call("build", seat, built=0, paid=0, limit=build_limit(t.state, seat))
        elif action == CardAction.MOVE:
            t.call("move", seat, left=rank, piece=None)
        elif action == CardAction.BETRAY:
            pay_action_cost(t, seat, BETRAY_COST, "betray")  # R-BTR-1: before the target is chosen
            t.call("betray", seat)
        else:
            t.call("battle", seat, rank=rank, site=None, left=0, safe_house=[])


class ActionStep(Step[PaxState]):
    """A step of a card-based action: its ``ask`` returns None once it is over, and then it ends."""

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()

    @handles("StopAction")
    def stop(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()


# -- Tax ------------------------------------------------------------------------------------------------

class Tax(ActionStep):
    """R-TAX-1 to R-TAX-3: up to the card's rank in rupees, one at a time, from market cards
    or from taxable seats (never below their shelter); stopping early is allowed."""

    name = "tax"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        cards, seats = taxable_market_cards(s), taxable_seats(s, seat)
        if frame.left <= 0 or not (cards or seats):
            return None
        return (Prompt(seat, f"Tax: take up to {frame.left} more rupee(s), one at a time, from market cards "
                       "or from players you may tax.")
                .one_of("TaxMarket", cards).one_of("TaxPlayer", seats).nothing("StopAction"))

    @handles("TaxMarket")
    def market(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        row, column = next((r, c) for r, c, n in q.market_slots(t.state) if n == number)
        t.update(left=frame.left - 1)
        t.emit(ev.rupees_moved(1, f"market:{row}:{column}", f"seat:{seat}", "tax"))

    @handles("TaxPlayer")
    def player(self, t: Play, frame: Frame, seat: int, other: int) -> None:
        t.update(left=frame.left - 1)
        t.emit(ev.rupees_moved(1, f"seat:{other}", f"seat:{seat}", "tax"))


# -- Gift -----------------------------------------------------------------------------------------------

class Gift(ActionStep):
    """R-GFT-1, R-GFT-2: an empty gift space you can afford; pay its value to the market
    (R-CST) and place a cylinder there (R-LIM)."""

    name = "gift"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        values = [v for v in free_gift_spaces(s, seat) if v <= s.players[seat].rupees]
        if not values:
            return None
        return Prompt(seat, "Gift: choose an empty gift space and pay its value to the market.").one_of(
            "PlaceGift", values)

    @handles("PlaceGift")
    def place(self, t: Play, frame: Frame, seat: int, value: int) -> None:
        t.end()
        pay_action_cost(t, seat, value, "gift")
        place_piece(t, seat, "gift", str(value))


# -- Build ----------------------------------------------------------------------------------------------

class Build(ActionStep):
    """R-BLD-1, R-BLD-2, R-CST-4, section 23 item 7: 1 to 3 blocks (6 with Nation Building),
    2 rupees a block (every second one free with Nation Building), each an army in a region
    you rule or a road on one of its borders, ruled regions read again before each block.
    Then Infrastructure (R-BLD-3)."""

    name = "build"

    def _places(self, s: PaxState, frame: Frame) -> tuple[list[str], list[str]]:
        seat = seat_of(frame)
        if frame.built >= frame.limit:
            return [], []
        if block_is_paid(s, seat, frame.built) and s.players[seat].rupees < BLOCK_COST:
            return [], []
        return build_places(s, seat)

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        regions, borders = self._places(s, frame)
        if not (regions or borders):
            # Never the case for a first block (the menu checked it); a way out all the same.
            return None if frame.built else Prompt(seat, "Build: no block can be placed.").nothing("StopAction")
        cost = f"{BLOCK_COST} rupees" if block_is_paid(s, seat, frame.built) else "free"
        prompt = Prompt(seat, f"Build: place block {frame.built + 1} of up to {frame.limit} ({cost}): an army "
                        "in a region you rule or a road on one of its borders.")
        prompt.one_of("BuildArmy", regions).one_of("BuildRoad", borders)
        return prompt.nothing("StopAction") if frame.built else prompt

    def advance(self, t: Play, frame: Frame) -> None:
        self.finish(t, frame)

    @handles("StopAction")
    def stop(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        self.finish(t, frame)

    def finish(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        if frame.built and q.has_ability(t.state, seat, Ability.INFRASTRUCTURE):
            t.goto("infrastructure", seat)
        else:
            t.end()

    def _block(self, t: Play, frame: Frame, seat: int, kind: str, place: str) -> None:
        paid = block_is_paid(t.state, seat, frame.built)
        t.update(built=frame.built + 1, paid=frame.paid + (1 if paid else 0))
        if paid:
            pay_action_cost(t, seat, BLOCK_COST, "build", offset=frame.paid)
        place_piece(t, seat, kind, place)

    @handles("BuildArmy")
    def army(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        self._block(t, frame, seat, "army", region)

    @handles("BuildRoad")
    def road(self, t: Play, frame: Frame, seat: int, border: str) -> None:
        self._block(t, frame, seat, "road", border)


class Infrastructure(ActionStep):
    """R-BLD-3, section 23 item 5: after a Build, one more block for free where a Build could
    place it; optional, and skipped when there is no such place."""

    name = "infrastructure"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        regions, borders = build_places(s, seat_of(frame))
        if not (regions or borders):
            return None
        return (Prompt(seat_of(frame), "Infrastructure: you may place one more block for free.")
                .one_of("BuildArmy", regions).one_of("BuildRoad", borders).nothing("StopAction"))

    @handles("BuildArmy")
    def army(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        t.end()
        place_piece(t, seat, "army", region)

    @handles("BuildRoad")
    def road(self, t: Play, frame: Frame, seat: int, border: str) -> None:
        t.end()
        place_piece(t, seat, "road", border)


# -- Move -----------------------------------------------------------------------------------------------

class Move(ActionStep):
    """R-MOV-1 to R-MOV-5: as many steps as the card's rank, one piece one step each: a loyal
    army across a border with a road of your coalition (any border with Indian Supplies),
    one of your spies along the court track, or (Nationalism) one of your tribes like an
    army, its leaving checked for overthrow. Stopping early is allowed."""

    name = "move"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        piece = frame.piece
        if piece is not None:
            kind, _, place = piece.partition(":")
            if kind == "spy":
                cards = spy_destinations(s, seat, int(place))
                if cards:
                    return Prompt(seat, f"Move: the spy on card {place} goes to...").one_of("MoveSpyTo", cards)
            else:
                regions = region_destinations(s, seat, Region(place))
                if regions:
                    return Prompt(seat, f"Move: the {kind} in {place.title()} goes to...").one_of("MoveTo", regions)
        pieces = movable_pieces(s, seat)
        if frame.left <= 0 or not pieces:
            return None
        return (Prompt(seat, f"Move: {frame.left} step(s) left; choose a piece to move, or stop.")
                .one_of("MovePiece", pieces).nothing("StopAction"))

    @handles("MovePiece")
    def choose(self, t: Play, frame: Frame, seat: int, piece: str) -> None:
        t.update(piece=piece)

    @handles("MoveTo")
    def to_region(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        kind, _, place = frame.piece.partition(":")
        t.update(piece=None, left=frame.left - 1)
        if kind == "army":
            t.emit(ev.piece_moved("army", _loyalty(t.state, seat).value, place, region))
        else:
            lose_piece(t, "tribe", seat, place, dst=region)

    @handles("MoveSpyTo")
    def to_card(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        place = frame.piece.partition(":")[2]
        t.update(piece=None, left=frame.left - 1)
        t.emit(ev.piece_moved("spy", seat, place, str(number)))


# -- Betray ---------------------------------------------------------------------------------------------

class Betray(ActionStep):
    """R-BTR-2, R-BTR-3: discard a court card holding your spy (any court, yours too, section
    21 item 13; not a political card of a Bodyguards owner); then its prize (R-BTR-4)."""

    name = "betray"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        cards = betrayable_cards(s, seat_of(frame))
        if not cards:
            return None
        return Prompt(seat_of(frame), "Betray: discard a court card holding your spy.").one_of("BetrayCard", cards)

    @handles("BetrayCard")
    def betray(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        owner = q.owner_of(t.state, number)
        assert owner is not None
        if COURT_CARDS[number].prize is not None:
            t.goto("prize", seat, card=number, kept=False)
        else:
            t.end()
        discard_from_court(t, owner, number)


def prize_of(number: int) -> Coalition:
    prize = COURT_CARDS[number].prize
    assert prize is not None, f"card {number} is no prize"
    return prize


class Prize(ActionStep):
    """R-BTR-4: the betrayer may keep the card as a prize; one of another coalition first
    changes their loyalty (R-LOY). Refused, it stays in the discard pile."""

    name = "prize"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if frame.kept:
            return None
        seat = seat_of(frame)
        prize = prize_of(frame.card)
        change = "" if prize == s.players[seat].loyalty else f" (your loyalty changes to {prize})"
        return (Prompt(seat, f"Betray: keep card {frame.card} as a {prize} prize{change}, or refuse it?")
                .nothing("KeepPrize").nothing("RefusePrize"))

    def advance(self, t: Play, frame: Frame) -> None:
        seat = seat_of(frame)
        t.end()
        t.emit(ev.card_moved(frame.card, "discard", f"prizes:{seat}"))

    @handles("KeepPrize")
    def keep(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.update(kept=True)
        prize = prize_of(frame.card)
        if prize != t.state.players[seat].loyalty and not is_wakhan(t.state, seat):  # she never changes loyalty
            t.call("loyalty_change", seat, coalition=prize.value)

    @handles("RefusePrize")
    def refuse(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()


# -- Battle ---------------------------------------------------------------------------------------------

class Battle(ActionStep):
    """R-BAT-1 to R-BAT-4: choose a region where you have strength, or a court card with your
    spy, holding a piece you may remove; remove up to min(rank, strength or your spies there)
    enemy pieces, one at a time, stopping when you like. Each tribe removed is checked for
    overthrow; each spy whose owner has a Safe House waits for that owner's choice at the end
    of the battle (section 21 item 10)."""

    name = "battle"

    def _targets(self, s: PaxState, frame: Frame) -> list[str]:
        site = frame.site
        if site is None or frame.left <= 0:
            return []
        if isinstance(site, int):
            return card_enemies(s, seat_of(frame), site)
        return region_enemies(s, seat_of(frame), Region(site))

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        if frame.site is None:
            regions, cards = battle_regions(s, seat), battle_cards(s, seat)
            if not (regions or cards):
                return None
            return (Prompt(seat, "Battle: choose a region or a court card to battle on.")
                    .one_of("BattleRegion", regions).one_of("BattleCard", cards))
        targets = self._targets(s, frame)
        if not targets:
            return None
        where = f"card {frame.site}" if isinstance(frame.site, int) else str(frame.site).title()
        return (Prompt(seat, f"Battle in {where}: remove up to {frame.left} more enemy piece(s), or stop.")
                .one_of("RemoveEnemy", targets).nothing("StopAction"))

    def advance(self, t: Play, frame: Frame) -> None:
        self.finish(t, frame)

    @handles("StopAction")
    def stop(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        self.finish(t, frame)

    def finish(self, t: Play, frame: Frame) -> None:
        """R-BAT-3: Safe House choices, owed by the spies' owners in seat order from the
        active player."""
        seat = seat_of(frame)
        owners = sorted(set(frame.safe_house), key=lambda owner: (owner - seat) % t.state.seats)
        t.end()
        for owner in reversed(owners):  # the first owner's step goes on top
            t.call("safe_house", owner, left=frame.safe_house.count(owner))

    @handles("BattleRegion")
    def region(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        t.update(site=region, left=min(frame.rank, strength(t.state, seat, Region(region))))

    @handles("BattleCard")
    def card(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.update(site=number, left=min(frame.rank, my_spies(t.state, seat, number)))

    @handles("RemoveEnemy")
    def remove(self, t: Play, frame: Frame, seat: int, piece: str) -> None:
        kind, place, owner = piece.split(":")
        if kind in ("army", "road"):
            t.update(left=frame.left - 1)
            t.emit(ev.piece_moved(kind, owner, place, SUPPLY))
        elif kind == "spy":
            victim = int(owner)
            queued = list(frame.safe_house) + ([victim] if safe_houses_of(t.state, victim) else [])
            t.update(left=frame.left - 1, safe_house=queued)
            t.emit(ev.piece_moved("spy", victim, place, SUPPLY))
        else:
            t.update(left=frame.left - 1)
            lose_piece(t, "tribe", int(owner), place)


class SafeHouse(Step[PaxState]):
    """R-BAT-3, R-SA Safe House: the owner of a spy removed in battle may put it on their
    Safe House card instead of leaving it in supply, one choice per spy."""

    name = "safe_house"

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        houses = safe_houses_of(s, seat)
        if frame.left <= 0 or not houses or q.cylinders_in_supply(s, seat) <= 0:
            return None
        return (Prompt(seat, f"Safe House: a spy of yours was removed in battle ({frame.left} to decide); put it "
                       "on your Safe House card, or leave it in your supply?")
                .one_of("UseSafeHouse", houses).nothing("DeclineSafeHouse"))

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()

    @handles("UseSafeHouse")
    def use(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.update(left=frame.left - 1)
        t.emit(ev.piece_moved("spy", seat, SUPPLY, str(number)))

    @handles("DeclineSafeHouse")
    def decline(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.update(left=frame.left - 1)


VERBS = (
    Verb("StopAction", "Stop the card-based action here (R-TAX-3, R-MOV-5, R-BAT-4, an optional block).",
         refusal="you are not in the middle of an action you may stop"),
    Verb("TaxMarket", "Tax: take one rupee from this market card (R-TAX-1).", Arg("card", CARD),
         refusal="you are not taxing now"),
    Verb("TaxPlayer", "Tax: take one rupee from this player (R-TAX-1).", Arg("seat", SEAT),
         refusal="you are not taxing now"),
    Verb("PlaceGift", "Gift: pay this gift space's value to the market and place a cylinder on it (R-GFT).",
         Arg("value", AMOUNT), refusal="you are not giving a gift now"),
    Verb("BuildArmy", "Build: place an army of your coalition in this region you rule (R-BLD-1).",
         Arg("region", REGION), refusal="you are not building now"),
    Verb("BuildRoad", "Build: place a road of your coalition on this border of a region you rule (R-BLD-1).",
         Arg("border", BORDER), refusal="you are not building now"),
    Verb("MovePiece", "Move: the piece to move one step (army:<region>, tribe:<region>, spy:<card>) (R-MOV).",
         Arg("piece", PIECE), refusal="you are not moving pieces now"),
    Verb("MoveTo", "Move: the region the chosen army or tribe goes to (R-MOV-2, R-MOV-4).", Arg("region", REGION),
         refusal="you are not moving an army or tribe now"),
    Verb("MoveSpyTo", "Move: the court card the chosen spy goes to (R-MOV-3).", Arg("card", CARD),
         refusal="you are not moving a spy now"),
    Verb("BetrayCard", "Betray: discard this court card holding your spy (R-BTR-2).", Arg("card", CARD),
         refusal="you are not betraying now"),
    Verb("KeepPrize", "Keep the betrayed card as a prize (R-BTR-4).", refusal="no prize is offered to you now"),
    Verb("RefusePrize", "Leave the betrayed card in the discard pile (R-BTR-4).",
         refusal="no prize is offered to you now"),
    Verb("BattleRegion", "Battle in this region (R-BAT-1).", Arg("region", REGION),
         refusal="you are not choosing a battle site now"),
    Verb("BattleCard", "Battle on this court card (R-BAT-2).", Arg("card", CARD),
         refusal="you are not choosing a battle site now"),
    Verb("RemoveEnemy", "Battle: remove this enemy piece, named kind:place:owner (army:kabul:british, "
         "road:herat_kabul:russian, tribe:kabul:1, spy:54:2) (R-BAT).", Arg("piece", PIECE),
         refusal="you are not removing pieces in a battle now"),
    Verb("UseSafeHouse", "Put your spy removed in battle on this Safe House card (R-BAT-3).", Arg("card", CARD),
         refusal="you have no spy to save in a Safe House now"),
    Verb("DeclineSafeHouse", "Leave your spy removed in battle in your supply (R-BAT-3).",
         refusal="you have no spy to save in a Safe House now"),
)

STEPS = (CardBasedAction(), Tax(), Gift(), Build(), Infrastructure(), Move(), Betray(), Prize(), Battle(),
         SafeHouse())
