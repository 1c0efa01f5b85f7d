"""Event cards (R-EVT, section 16) and the special abilities that act at set moments
(R-SA, section 15): start of turn (Blackmail) and after a Dominance Check (Insurrection).

An event's purchase side resolves in ``event_purchased`` (called by Purchase with the
purchaser as the frame's seat), its discard side in ``event_discarded`` (called by cleanup
for column 0 with the active seat). Effects that last until the next Dominance Check are
``EffectStarted`` with their holder, as ``cards.yaml`` scopes them: the purchaser, the
chosen player (Rumor) or nobody in particular (``None``: they hold for every player); the
check clears them all (R-EVT-1).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Coalition, Region, Suit
from domain.games.pax_pamir.data.cards import (
    BLACKMAIL_REGION,
    COURT_CARDS,
    EVENT_CARDS,
    FAVORED_SUIT_OF_EFFECT,
    INSURRECTION,
    RIOT_REGION_OF_EFFECT,
    Duration,
    EventEffect,
    EventSide,
    Scope,
)
from domain.games.pax_pamir.state import SUPPLY, PaxState
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import CARD, Play, Procedure, place_piece
from domain.games.pax_pamir.steps.court import DISCARD
from domain.games.pax_pamir.steps.turn import change_favored_suit
from domain.kernel.prompt import REGION, SEAT, SUIT, Arg, Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

#: Backing of Persian Aristocracy: rupees the purchaser takes from the bank.
PERSIAN_ARISTOCRACY_RUPEES: Final = 3
#: Insurrection: Afghan armies placed in Kabul after a check that does not end the game.
INSURRECTION_ARMIES: Final = 2


def clockwise(s: PaxState, first: int) -> list[int]:
    """Every seat, from ``first`` clockwise (increasing seat number)."""
    return [(first + step) % s.seats for step in range(s.seats)]


def start_effect(t: Play, side: EventSide, chooser: int, chosen: int | None = None) -> None:
    """R-EVT-1: a lasting effect, held by the purchaser, the chosen player, or everyone."""
    holder = {Scope.PURCHASER: chooser, Scope.CHOSEN_PLAYER: chosen}.get(side.scope)
    t.emit(ev.effect_started(side.effect.value, holder))


def clear_region(t: Play, region: Region, first: int) -> None:
    """Riots and Rebuke (section 16.2): every tribe and army in ``region`` goes to supply,
    roads stay; then the overthrow check for each seat that lost tribes there, clockwise
    from ``first`` (each may owe discards of its own, R-OVR-1)."""
    s = t.state
    losers = [seat for seat in clockwise(s, first) if s.tribes[region][seat]]
    for seat in losers:
        for _ in range(s.tribes[region][seat]):
            t.emit(ev.piece_moved("tribe", seat, region.value, SUPPLY))
    for coalition, count in sorted(s.armies[region].items()):
        for _ in range(count):
            t.emit(ev.piece_moved("army", Coalition(coalition).value, region.value, SUPPLY))
    for seat in reversed(losers):  # the stack runs the last call first
        t.call(names.OVERTHROW, seat, region=region.value, lost="tribe")


# -- purchase effects (R-PUR-5, section 16) ----------------------------------------------------


#: the verbs of this module, each said once: declared here, handled and offered by name
CHOOSE_PLAYER: Final = Verb("ChoosePlayer", "The other player your event card names (Rumor, Other Persuasive Methods).",
                            Arg("seat", SEAT), refusal="you are not choosing a player now")
CHOOSE_SUIT: Final = Verb("ChooseSuit", "The suit Pashtunwali Values makes favored.", Arg("suit", SUIT),
                          refusal="you are not choosing a suit now")
CHOOSE_REGION: Final = Verb("ChooseRegion", "The region Rebuke clears of tribes and armies.", Arg("region", REGION),
                            refusal="you are not choosing a region now")
BLACKMAIL: Final = Verb("Blackmail", "Place a spy on this court card with your Blackmail ability (R-TRN-1).", Arg("card", CARD),
                        refusal="you cannot blackmail now")
DECLINE_BLACKMAIL: Final = Verb("DeclineBlackmail", "Do not use this Blackmail ability this turn.", refusal="you cannot blackmail now")


@mypyc_attr(allow_interpreted_subclasses=True)
class EventPurchased(Step[PaxState]):
    """R-PUR-5, section 16: the purchase effect of event ``card`` for the frame's seat."""

    name = names.EVENT_PURCHASED

    def _side(self, frame: Frame) -> EventSide:
        return EVENT_CARDS[frame.card].purchase

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        seat = frame.owner_seat
        effect = self._side(frame).effect
        others = [other for other in clockwise(s, seat) if other != seat]
        if effect == EventEffect.RUMOR:
            return Prompt(seat, "Rumor: choose another player; their patriots give them no influence until the "
                          "next Dominance Check.").one_of(CHOOSE_PLAYER, others)
        if effect == EventEffect.OTHER_PERSUASIVE_METHODS:
            return Prompt(seat, "Other Persuasive Methods: choose another player to swap your whole hand with "
                          "theirs.").one_of(CHOOSE_PLAYER, others)
        if effect == EventEffect.PASHTUNWALI_VALUES:
            return Prompt(seat, "Pashtunwali Values: choose the favored suit; nothing else can change it until "
                          "the next Dominance Check.").one_of(CHOOSE_SUIT, [suit.value for suit in Suit])
        if effect == EventEffect.REBUKE:
            return Prompt(seat, "Rebuke: choose a region; all its tribes and armies go back to supply.").one_of(
                "ChooseRegion", [region.value for region in Region])
        return None

    def advance(self, t: Play, frame: Frame) -> None:
        """The effects that need no choice."""
        side = self._side(frame)
        seat = frame.owner_seat
        t.end()
        if side.effect == EventEffect.BACKING_OF_PERSIAN_ARISTOCRACY:
            t.emit(ev.rupees_moved(PERSIAN_ARISTOCRACY_RUPEES, "bank", places.purse(seat), side.effect.value))
        elif side.duration == Duration.UNTIL_NEXT_DOMINANCE_CHECK:
            start_effect(t, side, seat)  # New Tactics, Koh-i-noor, Courtly Manners, Nationalism, ...

    @handles(CHOOSE_PLAYER)
    def choose_player(self, t: Play, frame: Frame, seat: int, other: int) -> None:
        side = self._side(frame)
        t.end()
        if side.effect == EventEffect.RUMOR:
            start_effect(t, side, seat, chosen=other)
        else:  # Other Persuasive Methods: whole hands, either may be empty; a barrier (23 item 9)
            players = t.state.players
            t.emit(ev.hands_swapped(seat, other, players[seat].hand, players[other].hand))

    @handles(CHOOSE_SUIT)
    def choose_suit(self, t: Play, frame: Frame, seat: int, suit: str) -> None:
        side = self._side(frame)
        t.end()
        if t.state.favored != suit:
            t.emit(ev.favored_suit_changed(suit, side.effect.value))
        start_effect(t, side, seat)  # the lock on the favored suit (section 16.2)

    @handles(CHOOSE_REGION)
    def choose_region(self, t: Play, frame: Frame, seat: int, region: str) -> None:
        t.end()
        clear_region(t, Region(region), seat)  # an empty region may be chosen


# -- discard effects (R-CLN-3, section 16) -----------------------------------------------------

@mypyc_attr(allow_interpreted_subclasses=True)
class EventDiscarded(Step[PaxState]):
    """R-CLN-3, section 16: the discard effect of event ``card`` in column 0; the frame's
    seat is the active player."""

    name = names.EVENT_DISCARDED

    def advance(self, t: Play, frame: Frame) -> None:
        side = EVENT_CARDS[frame.card].discard
        effect = side.effect
        active = frame.owner_seat
        t.end()
        if effect in FAVORED_SUIT_OF_EFFECT:
            change_favored_suit(t, FAVORED_SUIT_OF_EFFECT[effect], effect.value)  # not under Pashtunwali
        elif effect in RIOT_REGION_OF_EFFECT:
            clear_region(t, RIOT_REGION_OF_EFFECT[effect], active)
        elif effect == EventEffect.FAILURE_TO_IMPRESS:
            for seat, player in enumerate(t.state.players):
                for number in list(player.prizes):
                    t.emit(ev.card_moved(number, places.prizes(seat), "discard"))
        elif effect == EventEffect.CONFIDENCE_FAILURE:
            order = clockwise(t.state, active)
            t.call(names.CONFIDENCE_FAILURE, order[0], later=order[1:])
        elif side.duration == Duration.UNTIL_NEXT_DOMINANCE_CHECK:
            start_effect(t, side, active)  # Embarrassment of Riches, Disregard for Customs
        # Public Withdrawal's discard side has no effect


@mypyc_attr(allow_interpreted_subclasses=True)
class ConfidenceFailure(Step[PaxState]):
    """Confidence Failure (section 16.2, section 21 item 11): from the active player
    clockwise, each player with a hand card discards one of their choice; ``later`` are the
    seats still to come. A seat with an empty hand is skipped."""

    name = names.CONFIDENCE_FAILURE

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        hand = s.players[frame.owner_seat].hand
        if not hand:
            return None
        return Prompt(frame.owner_seat, "Confidence Failure: discard one card from your hand.").one_of(
            DISCARD, sorted(hand))

    def advance(self, t: Play, frame: Frame) -> None:
        self._next(t, frame)

    @handles(DISCARD)
    def discard(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        t.emit(ev.card_moved(number, places.hand(seat), "discard"))
        self._next(t, frame)

    def _next(self, t: Play, frame: Frame) -> None:
        later = list(frame.later)
        if later:
            t.goto(names.CONFIDENCE_FAILURE, later[0], later=later[1:])
        else:
            t.end()


# -- abilities at set moments (R-SA) -----------------------------------------------------------

def blackmail_targets(s: PaxState, region: Region) -> list[int]:
    """R-SA Blackmail: court cards of ``region``, in any court, with no spies at all."""
    return [number for _, number in q.court_cards(s)
            if COURT_CARDS[number].region == region and not sum(s.spies.get(number, {}).values())]


def blackmail_pending(s: PaxState, seat: int, done: list[str]) -> tuple[str, Region, list[int]] | None:
    """The first Blackmail ability of ``seat`` not in ``done`` with a card to place on: the
    ability, its region and the cards (``StartOfTurn`` asks about it); None when none is."""
    for ability, region in BLACKMAIL_REGION.items():
        if not q.has_ability(s, seat, ability) or str(ability) in done:  # (``str``: ``value`` is a Python-level property)
            continue
        targets = blackmail_targets(s, region)
        if targets:
            return str(ability), region, targets
    return None


def start_of_turn(t: Play, seat: int) -> None:
    """R-TRN-1: the start of ``seat``'s turn, a step only when a Blackmail may be used (with
    nothing to decide it would end at once)."""
    if blackmail_pending(t.state, seat, []) is not None:
        t.call(names.START_OF_TURN, seat)


@mypyc_attr(allow_interpreted_subclasses=True)
class StartOfTurn(Step[PaxState]):
    """R-TRN-1, R-SA Blackmail (43 Kandahar, 54 Herat): at the start of their turn the owner
    may place one spy per Blackmail ability on a court card of its region that has no spies
    at all. ``done`` lists the abilities already used or declined this turn."""

    name = names.START_OF_TURN

    def _pending(self, s: PaxState, frame: Frame) -> tuple[str, Region, list[int]] | None:
        return blackmail_pending(s, frame.owner_seat, frame.locals.get("done", []))

    def ask(self, s: PaxState, frame: Frame) -> Prompt | None:
        pending = self._pending(s, frame)
        if pending is None:
            return None
        _, region, targets = pending
        return (Prompt(frame.owner_seat, f"Blackmail: you may place a spy on a {region.title()} court card that "
                       "has no spies.").one_of(BLACKMAIL, targets).nothing(DECLINE_BLACKMAIL))

    def advance(self, t: Play, frame: Frame) -> None:
        t.end()

    def _ability_asked(self, s: PaxState, frame: Frame) -> str:
        """The ability the prompt asks about (the kernel calls a handler only when asked)."""
        pending = self._pending(s, frame)
        assert pending is not None, "a Blackmail answer with no Blackmail asked"
        return pending[0]

    @handles(BLACKMAIL)
    def blackmail(self, t: Play, frame: Frame, seat: int, number: int) -> None:
        ability = self._ability_asked(t.state, frame)
        t.update(done=[*frame.locals.get("done", []), ability])
        place_piece(t, seat, "spy", str(number))  # a placement this turn (section 23 item 8)

    @handles(DECLINE_BLACKMAIL)
    def decline(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        ability = self._ability_asked(t.state, frame)
        t.update(done=[*frame.locals.get("done", []), ability])


@mypyc_attr(allow_interpreted_subclasses=True)
class Insurrection(Procedure):
    """R-SA Insurrection (card 3): after every check that does not end the game, its owner
    places two Afghan armies in Kabul (R-LIM if the Afghan blocks run out). They are not
    "placed this turn": R-LIM may take them later in the turn (section 23 item 8)."""

    name = names.INSURRECTION
    stages = ("place_armies",)

    def place_armies(self, t: Play, frame: Frame) -> None:
        owner = q.owner_of(t.state, INSURRECTION)
        if owner is None or t.state.players[owner].loyalty != Coalition.AFGHAN:
            return
        for _ in range(INSURRECTION_ARMIES):
            place_piece(t, owner, "army", Region.KABUL.value, placed=False)


VERBS = (
    CHOOSE_PLAYER,
    CHOOSE_SUIT,
    CHOOSE_REGION,
    BLACKMAIL,
    DECLINE_BLACKMAIL,
)

STEPS = (EventPurchased(), EventDiscarded(), ConfidenceFailure(), StartOfTurn(), Insurrection())
