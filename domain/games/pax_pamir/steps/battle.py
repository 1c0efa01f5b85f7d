"""Battle (R-BAT, rules.md section 10): remove enemy pieces in a region or on a court card;
a Safe House may save a removed spy.

A piece a Battle may remove names its owner (``army:kabul:british``, ``tribe:kabul:1``,
``spy:54:2``), since several owners share a place."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    BORDERS_OF,
    COALITIONS,
    REGION_BY_ID,
    REGIONS,
    Coalition,
    Region,
)
from domain.games.pax_pamir.data.cards import (
    CITADEL_REGION,
    SAFE_HOUSES,
    Ability,
    EventEffect,
)
from domain.games.pax_pamir.state import SUPPLY, PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import (
    CARD,
    PIECE,
    STOP_ACTION,
    ActionStep,
    Play,
    block_owner,
    lose_piece,
    my_spies,
    seat_of,
    spied_cards,
)
from domain.kernel.prompt import REGION, Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles


def strength(s: PaxState, seat: int, region: Region) -> int:
    """R-BAT-1: loyal armies, plus the seat's tribes under Nationalism."""
    return _strength(s, seat, region, block_owner(s, seat), q.effect_active(s, EventEffect.NATIONALISM, seat))


def _strength(s: PaxState, seat: int, region: Region, loyalty: Coalition, nationalism: bool) -> int:
    """``strength``, the seat's loyalty and Nationalism read once for every region (``can_battle``)."""
    total = s.armies[region].get(loyalty, 0)  # (``get``: a missing key costs ``__missing__``)
    if nationalism:
        total += s.tribes[region].get(seat, 0)
    return total


def _citadel_protects(s: PaxState, owner: int, region: Region) -> bool:
    return any(q.has_ability(s, owner, ability) for ability, where in CITADEL_REGION.items() if where == region)


def region_enemies(s: PaxState, seat: int, region: Region) -> list[str]:
    """R-BAT-1: armies of other coalitions, their roads on the region's borders (section 21
    item 15), and tribes of seats of another loyalty not under their own Citadel."""
    loyalty = block_owner(s, seat)
    armies, roads, tribes = s.armies[region], s.roads, s.tribes[region]  # (counts read with ``get``: a Counter's
    found = [places.enemy("army", str(region), str(c))  # missing key is a Python-level ``__missing__``)
             for c in COALITIONS if c != loyalty and armies.get(c, 0) > 0]
    for border in BORDERS_OF[region]:
        here = roads[border]
        found += [places.enemy("road", str(border), str(c)) for c in COALITIONS if c != loyalty and here.get(c, 0) > 0]
    for other, player in enumerate(s.players):
        if (other != seat and player.loyalty != loyalty and tribes.get(other, 0) > 0
                and not _citadel_protects(s, other, region)):
            found.append(places.enemy("tribe", str(region), other))
    return found


def _has_region_enemy(s: PaxState, seat: int, region: Region) -> bool:
    """Would ``region_enemies`` list anything? (without naming every piece)"""
    loyalty = block_owner(s, seat)
    armies = s.armies[region]
    for c in COALITIONS:  # (``get`` on a Counter: its ``items`` is a Python-level method call)
        if c != loyalty and armies.get(c, 0) > 0:
            return True
    roads = s.roads
    for border in BORDERS_OF[region]:
        here = roads[border]
        for c in COALITIONS:
            if c != loyalty and here.get(c, 0) > 0:
                return True
    tribes = s.tribes[region]
    for other, player in enumerate(s.players):
        if (other != seat and tribes.get(other, 0) > 0 and player.loyalty != loyalty
                and not _citadel_protects(s, other, region)):
            return True
    return False


def card_enemies(s: PaxState, seat: int, number: int) -> list[str]:
    """R-BAT-2: spies of other seats, except those of an Indispensable Advisors owner."""
    spies = s.spies.get(number)
    if spies is None:
        return []
    return [places.enemy("spy", number, other) for other in range(s.seats)  # (in seat order, read with ``get``:
            if other != seat and spies.get(other, 0) > 0  # a Counter's ``items`` is a Python-level call)
            and not q.has_ability(s, other, Ability.INDISPENSABLE_ADVISORS)]


def battle_regions(s: PaxState, seat: int) -> list[str]:
    return [str(r) for r in REGIONS if strength(s, seat, r) > 0 and region_enemies(s, seat, r)]


def battle_cards(s: PaxState, seat: int) -> list[int]:
    return [n for n in spied_cards(s, seat) if card_enemies(s, seat, n)]


def can_battle(s: PaxState, seat: int) -> bool:
    """Is there a region or a card ``battle_regions`` or ``battle_cards`` would list? (stops
    at the first)"""
    loyalty, nationalism = block_owner(s, seat), q.effect_active(s, EventEffect.NATIONALISM, seat)
    for region in REGIONS:
        if _strength(s, seat, region, loyalty, nationalism) > 0 and _has_region_enemy(s, seat, region):
            return True
    for number in spied_cards(s, seat):
        if card_enemies(s, seat, number):
            return True
    return False


def safe_houses_of(s: PaxState, seat: int) -> list[int]:
    return [number for number in s.players[seat].court if number in SAFE_HOUSES]


#: the verbs of this module, each said once: declared here, handled and offered by name
BATTLE_REGION: Final = Verb("BattleRegion", "Battle in this region (R-BAT-1).", Arg("region", REGION),
                            refusal="you are not choosing a battle site now")
BATTLE_CARD: Final = Verb("BattleCard", "Battle on this court card (R-BAT-2).", Arg("card", CARD),
                          refusal="you are not choosing a battle site now")
REMOVE_ENEMY: Final = Verb("RemoveEnemy", "Battle: remove this enemy piece, named kind:place:owner (army:kabul:british, "
                           "road:herat_kabul:russian, tribe:kabul:1, spy:54:2) (R-BAT).", Arg("piece", PIECE),
                           refusal="you are not removing pieces in a battle now")
USE_SAFE_HOUSE: Final = Verb("UseSafeHouse", "Put your spy removed in battle on this Safe House card (R-BAT-3).", Arg("card", CARD),
                             refusal="you have no spy to save in a Safe House now")
DECLINE_SAFE_HOUSE: Final = Verb("DeclineSafeHouse", "Leave your spy removed in battle in your supply (R-BAT-3).",
                                 refusal="you have no spy to save in a Safe House now")


@mypyc_attr(allow_interpreted_subclasses=True)
class Battle(ActionStep):
    """R-BAT-1 to R-BAT-4: choose a region where you have strength, or a court card with your
    spy, holding a piece you may remove; remove up to min(rank, strength or your spies there)
    enemy pieces, one at a time, stopping when you like. Each tribe removed is checked for
    overthrow; each spy whose owner has a Safe House waits for that owner's choice at the end
    of the battle (section 21 item 10)."""

    name = names.BATTLE

    def _targets(self, s: PaxState, frame: Frame) -> list[str]:
        site = frame.site
        if site is None or frame.left <= 0:
            return []
        if isinstance(site, int):
            return card_enemies(s, seat_of(frame), site)
        return region_enemies(s, seat_of(frame), REGION_BY_ID[site])

    def asks(self, s: PaxState, frame: Frame) -> bool:
        """A site to battle on, or, on the site chosen, removals left and an enemy piece there
        (told without naming every site and piece)."""
        seat = seat_of(frame)
        site = frame.site
        if site is None:
            return can_battle(s, seat)
        if frame.left <= 0:
            return False
        if isinstance(site, int):
            return bool(card_enemies(s, seat, site))
        return _has_region_enemy(s, seat, REGION_BY_ID[site])

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        if not self.asks(s, frame):
            return None
        seat = seat_of(frame)
        if frame.site is None:
            return (Prompt(seat, "Battle: choose a region or a court card to battle on.")
                    .one_of(BATTLE_REGION, battle_regions(s, seat)).one_of(BATTLE_CARD, battle_cards(s, seat)))
        where = f"card {frame.site}" if isinstance(frame.site, int) else str(frame.site).title()
        return (Prompt(seat, f"Battle in {where}: remove up to {frame.left} more enemy piece(s), or stop.")
                .one_of(REMOVE_ENEMY, self._targets(s, frame)).nothing(STOP_ACTION))

    def finish(self, t: Play, frame: Frame) -> None:
        """R-BAT-3: Safe House choices, owed by the spies' owners in seat order from the
        active player."""
        seat = seat_of(frame)
        table = t.state.seats
        owners: list[int] = [owner for _, owner in sorted(((owner - seat) % table, owner)
                                                          for owner in set(frame.safe_house))]
        t.end()
        for owner in reversed(owners):  # the first owner's step goes on top
            t.call(names.SAFE_HOUSE, owner, left=frame.safe_house.count(owner))

    @handles(BATTLE_REGION)
    def region(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        t.update(site=region, left=min(frame.rank, strength(t.state, seat, REGION_BY_ID[region])))

    @handles(BATTLE_CARD)
    def card(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.update(site=number, left=min(frame.rank, my_spies(t.state, seat, number)))

    @handles(REMOVE_ENEMY)
    def remove(self, t: Play, frame: Frame, seat: int, piece: str) -> None:
        kind, place, owner = places.parse_enemy(piece)
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


@mypyc_attr(allow_interpreted_subclasses=True)
class SafeHouse(Step[PaxState]):
    """R-BAT-3, R-SA Safe House: the owner of a spy removed in battle may put it on their
    Safe House card instead of leaving it in supply, one choice per spy."""

    name = names.SAFE_HOUSE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = seat_of(frame)
        houses = safe_houses_of(s, seat)
        if frame.left <= 0 or not houses or q.cylinders_in_supply(s, seat) <= 0:
            return None
        return (Prompt(seat, f"Safe House: a spy of yours was removed in battle ({frame.left} to decide); put it "
                       "on your Safe House card, or leave it in your supply?")
                .one_of(USE_SAFE_HOUSE, houses).nothing(DECLINE_SAFE_HOUSE))

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()

    @handles(USE_SAFE_HOUSE)
    def use(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.update(left=frame.left - 1)
        t.emit(ev.piece_moved("spy", seat, SUPPLY, str(number)))

    @handles(DECLINE_SAFE_HOUSE)
    def decline(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.update(left=frame.left - 1)


VERBS = (
    BATTLE_REGION,
    BATTLE_CARD,
    REMOVE_ENEMY,
    USE_SAFE_HOUSE,
    DECLINE_SAFE_HOUSE,
)

STEPS = (Battle(), SafeHouse())
