"""Wakhan's turn (rules.md section 20), a step that runs by itself:

1. flip the top AI card onto her AI discard (an empty AI deck is reshuffled first; a draw that
   empties it reshuffles the other discarded AI cards at once, so the back of a new top card
   can always be read), and read her pragmatic loyalty;
2. start-of-turn abilities (Blackmail: she always uses it);
3. until she has done 2 non-bonus actions, try the AI card's 3 actions top to bottom, cycling;
   an action with nothing to do is skipped, and 3 skips in a row end this part. Before each,
   Ambition: a Dominance Check that would give her the most points, or the win, is bought;
4. bonus actions: the leftmost unused court card that counts as favored, its leftmost action
   she can take, until none is left;
5. cleanup, as for every player (her discard order answers its questions).

Every choice is recorded in a ``WakhanDecided`` event with the AI card and the rule applied.

With the option ``wakhan_paced`` her turn waits after each action she takes (her core
actions, Ambition's purchase, her bonus actions), once its own questions are settled, until
the human who plays after her sends ``NextWakhanAction`` (step ``wakhan_pause``): each of her
actions then ends a command, so a client shows her moves one at a time. The pause decides
nothing: the game is the same with it or without it. A turn clock running out at the pause
lets her go on (a timeout default, never a forfeit).
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir import places
from domain.games.pax_pamir.data.cards import COURT_CARDS, CardAction, is_court_card
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps import actions as card_actions
from domain.games.pax_pamir.steps import names
from domain.games.pax_pamir.steps.common import Play
from domain.games.pax_pamir.steps.turn import purchase
from domain.games.pax_pamir.wakhan import actions, radicalize
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS
from domain.games.pax_pamir.wakhan.card import drawn, her, why
from domain.games.pax_pamir.wakhan.loyalty import set_pragmatic_loyalty
from domain.kernel.prompt import Prompt, Verb
from domain.kernel.steps import Frame, Step, handles

#: BGA stops trying after this many skipped actions in a row.
SKIPS_TO_STOP: Final = 3

#: the AI card's card-based action keys
CARD_ACTIONS = {"tax": CardAction.TAX, "build": CardAction.BUILD, "move": CardAction.MOVE,
                "betray": CardAction.BETRAY, "battle": CardAction.BATTLE,
                "battle_spies_on_priority_card": CardAction.BATTLE}


def paced(s: PaxState) -> dict[str, bool]:
    """The local that makes her turn pause once the action being started is over (``wakhan_paced``)."""
    return {"pace": True} if s.options.wakhan_paced else {}


def watcher(s: PaxState) -> int:
    """Who lets her go on at a pause: the human who plays after her."""
    return (her(s).seat + 1) % s.seats


def decided(t: Play, seat: int, verb: str, args: dict[str, Any], rule: str) -> None:
    t.emit(ev.wakhan_decided(seat, "wakhan_turn", {"type": verb, "args": args}, her(t.state).card,
                             why(t.state, rule)))


def draw_ai_card(t: Play) -> None:
    """Flip the top AI card. With one card left, the discarded AI cards are shuffled in under
    it first, so the back of the next card can always be read (section 20 reshuffles an
    empty deck: this is the same, a draw earlier)."""
    rng = t.rng
    assert rng is not None, "her turn runs inside a command, which has the game's randomness"
    if len(her(t.state).deck) <= 1:
        t.emit(ev.wakhan_deck_shuffled(rng.shuffled(sorted(set(AI_CARDS) - set(her(t.state).deck)))))
    deck = her(t.state).deck
    t.emit(ev.wakhan_card_drawn(deck[0], AI_CARDS[deck[1]].back()))


def attempt(t: Play, seat: int, key: str) -> bool:
    """Try one action of the AI card; False when it has nothing to do (a skip)."""
    s = t.state
    if key in CARD_ACTIONS:
        action = CARD_ACTIONS[key]
        number = actions.card_for(s, seat, action)
        plan = actions.plan(s, seat, action, spy_battle=key == "battle_spies_on_priority_card") \
            if number is not None else None
        if number is None or plan is None:
            return False
        t.update(plan=plan, **paced(s))
        decided(t, seat, action.value.capitalize(), {"card": number, **plan},
                f"{key}: {COURT_CARDS[number].name} (card {number})")
        card_actions.start(t, seat, number, action)
        return True
    chosen = radicalize.pick(s, seat, key)
    if chosen is None:
        return False
    radicalize_card(t, seat, chosen)
    return True


def radicalize_card(t: Play, seat: int, chosen: radicalize.Pick) -> None:
    """One action: buy the card and, a court card, play it at once (its purchase spends the action)."""
    decided(t, seat, "Radicalize", {"card": chosen.card}, chosen.rule)
    t.update(**paced(t.state))
    if is_court_card(chosen.card):
        t.update(radicalized=chosen.card)
    purchase(t, seat, chosen.card)
    if is_court_card(chosen.card):
        t.call(names.PLAY, seat, card=chosen.card, radicalize=True)


def bonus_action(s: PaxState, seat: int) -> tuple[int, CardAction, dict[str, Any]] | None:
    """The leftmost unused favored court card and its leftmost action she can take."""
    for number in s.players[seat].court:
        if number in s.used_cards or not card_actions.is_favored(s, seat, number):
            continue
        for action in COURT_CARDS[number].actions:
            if number in actions.affordable_cards(s, seat, action):
                plan = actions.plan(s, seat, action)
                if plan is not None:
                    return number, action, plan
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class WakhanTurn(Step[PaxState]):
    """Her whole turn; locals: ``phase``, ``tried`` (actions tried), ``skips`` (in a row),
    ``plan`` (what the action under way is for), ``radicalized`` (the card being played) and
    ``pace`` (pause once the action under way is over: ``wakhan_paced``)."""

    name = names.WAKHAN_TURN

    def awaits(self, s: PaxState, frame: Frame, seats: int) -> bool:
        return False

    def advance(self, t: Play, frame: Frame) -> None:
        seat = frame.owner_seat
        phase = frame.locals.get("phase", "draw")
        if phase == "draw":
            draw_ai_card(t)
            set_pragmatic_loyalty(t, seat)
            t.update(phase="actions", tried=0, skips=0)
            t.call(names.START_OF_TURN, seat)
        elif phase == "actions":
            self.actions(t, t.frame, seat)
        elif phase == "bonus":
            self.bonus(t, seat)
        else:
            t.goto(names.CLEANUP, seat)

    def actions(self, t: Play, frame: Frame, seat: int) -> None:
        s = t.state
        played = frame.locals.get("radicalized")
        if played is not None:
            t.update(radicalized=None)
            if played in s.players[seat].hand:  # the ruler's bribe was beyond her purse
                decided(t, seat, "Discard", {"card": played}, "radicalize: she cannot pay the bribe, so she "
                        "discards the card instead")
                t.emit(ev.card_moved(played, places.hand(seat), "discard"))
            return
        if pause(t, frame):
            return
        if s.actions_left <= 0 or frame.skips >= SKIPS_TO_STOP:
            t.update(phase="bonus", plan=None)
            return
        ambition = radicalize.ambition(s, seat)
        if ambition is not None:
            radicalize_card(t, seat, ambition)
            return
        keys = drawn(s).actions
        key = keys[frame.tried % len(keys)]
        t.update(tried=frame.tried + 1, skips=0)  # before the action's steps go on top of this one
        if not attempt(t, seat, key):  # a skip emits nothing else: this frame is still on top
            t.update(skips=frame.skips + 1)

    def bonus(self, t: Play, seat: int) -> None:
        if pause(t, t.frame):
            return
        found = bonus_action(t.state, seat)
        if found is None:
            t.update(phase="cleanup", plan=None)
            return
        number, action, plan = found
        t.update(plan=plan, **paced(t.state))
        decided(t, seat, action.value.capitalize(), {"card": number, **plan},
                f"bonus action: the leftmost unused favored card, {COURT_CARDS[number].name} (card {number}), "
                f"its leftmost action she can take")
        card_actions.start(t, seat, number, action)


def pause(t: Play, frame: Frame) -> bool:
    """If an action of hers has just ended and her turn is paced, wait for the watcher."""
    if not frame.locals.get("pace"):
        return False
    t.update(pace=None)
    t.call(names.WAKHAN_PAUSE, watcher(t.state))
    return True


NEXT_WAKHAN_ACTION: Final = Verb("NextWakhanAction", "Let Wakhan take her next action (the option wakhan_paced).",
                                 refusal="Wakhan is not waiting for you")


@mypyc_attr(allow_interpreted_subclasses=True)
class WakhanPause(Step[PaxState]):
    """``wakhan_paced``: her turn waits here after each action, until the human who plays after
    her lets her go on."""

    name = names.WAKHAN_PAUSE
    always_asks = True

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        return Prompt(frame.owner_seat, "Wakhan has taken an action. Let her take the next one.").nothing(
            NEXT_WAKHAN_ACTION)

    @handles(NEXT_WAKHAN_ACTION)
    def go_on(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()


VERBS = (NEXT_WAKHAN_ACTION,)

STEPS = (WakhanTurn(), WakhanPause())
