"""What computer opponents need of Pax Pamir: a sampler of the hidden facts and an evaluation.

**Sampler.** What is hidden in Pax Pamir is the deck (its order and which cards are in
it) and the cards left out; a hand is hidden from view, but every card in it was bought
face up from the market, so the events tell it (``domain.kernel.sampling``). The seat's
events are folded with the deck and the cards left out as unknown cards; each card dealt
face up pins down the top of the deck. A ``draw`` deals the unseen cards back the way
R-SET-1 built the deck: the six piles keep their shape (pile 1 no event, pile 2 two
events, piles 3-6 one event and their own Dominance Check), each pile's unseen cards
shuffled within it; the rest are the cards left out. A deck that does not have that shape
(a given ``deal``) is dealt uniformly, its Dominance Checks kept in it.

**Evaluation** (``greedy``'s one step, ``mcts``'s estimate where a playout stops), per
seat, in quarters of a victory point:

* 4 per victory point;
* the points the **next Dominance Check** is expected to give it, 4 each, times 0.6 (0.9
  while a check is in the market: it can be bought now). Each coalition is dominant at that
  check with a chance that grows with its lead in blocks (a logistic curve centred on the
  lead a check needs, R-DOM-2); then the loyal seats (and Wakhan, with her influence with
  that coalition) share its points by influence (R-DOM-4); with no dominant coalition the
  seats share the failure points by cylinders in play (R-DOM-5). So blocks of its own
  coalition, loyalty to the coalition ahead, influence and cylinders all count, as they do
  at a check;
* a little for what builds towards later checks: 0.5 per block of its coalition ahead of
  the strongest other coalition, 0.3 per cylinder in play, 1 per point of influence;
* 2 per region it rules, a half per rupee (actions cost rupees), a half per court card and
  a quarter per card in hand up to its hand limit (a card beyond the limit is discarded at
  cleanup, worth nothing).

Once the game is over: the victory points, and 100 for a winner.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import (
    COALITIONS,
    MARKET_ROWS,
    PILE_EXTRAS,
    REGIONS,
    Coalition,
    pile_size,
)
from domain.games.pax_pamir.data.cards import (
    ALL_CARDS,
    COURT_CARDS,
    DOMINANCE_CHECKS,
    EVENT_CARDS,
    EventEffect,
    is_dominance_check,
)
from domain.games.pax_pamir.state import PaxState, copy_state, is_wakhan
from domain.games.pax_pamir.steps.dominance import (
    DOMINANCE_LEAD,
    FAILURE_POINTS,
    FATIGUED_LEAD,
    FINAL_MULTIPLIER,
    SUCCESS_POINTS,
    split_points,
)
from domain.games.pax_pamir.wakhan.ai_cards import AI_CARDS
from domain.kernel.bots import BOT_KINDS, Bot, Clock, Seen, mcts_bot
from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rules import GameRules
from domain.kernel.sampling import Places, SampleInconsistent, deal_tokens, seen_event, unseen

VP_WEIGHT, INFLUENCE_WEIGHT, RULE_WEIGHT, RUPEE_WEIGHT = 4.0, 1.0, 2.0, 0.5
#: how much of the next check's expected points count now: a check is some turns away, or in the market
CHECK_LATER, CHECK_IN_MARKET = 0.6, 0.9
#: how sharply a coalition's chance of dominance rises with its lead in blocks
DOMINANCE_SPREAD = 1.0
LEAD_WEIGHT, CYLINDER_WEIGHT, COURT_WEIGHT, HAND_WEIGHT = 1.5, 1.0, 1.0, 0.25
WIN_BONUS = 100.0
#: ``greedy`` plans this many choices of its own turn ahead: a purchase with the play it allows
GREEDY_PLIES = 2
#: A gap of this much evaluation is "clearly ahead" for a playout (about one victory point).
SCORE_SCALE = 4.0
#: ``mcts`` at a table of people and bots (no Wakhan) searches the few choices ``greedy``
#: judges best, flat (no tree below the root), each played out to the seat's next turn by
#: every seat's best next step by the evaluation: random playouts of a Pax Pamir turn were too
#: noisy to tell choices apart in a hundred iterations (0.410 of 100 against ``greedy``).
#: ``hard`` weighs more choices and plays the rest of its own turn in a playout as ``greedy``
#: would (``GREEDY_PLIES`` ahead): it won 0.870 of 100 games against ``normal``, where more
#: iterations alone (96 over 8 choices) had won 0.550.
GUIDED: dict[str, dict[str, Any]] = {
    "normal": {"iterations": 36, "candidates": 6, "depth": 40, "guided": 1.0, "tree": False},
    "hard": {"iterations": 48, "candidates": 8, "depth": 40, "guided": 1.0, "tree": False,
             "own_plies": GREEDY_PLIES},
}


def _mcts(level: str) -> Bot:
    """``mcts`` at ``level`` as Pax Pamir plays it. At a table with Wakhan, the generic search:
    its random playouts run on through her turn, which the rules play exactly as she will, and
    it won 0.355 of 200 games against her where the guided search won 0.225 of 40. Elsewhere
    the guided search of ``GUIDED`` (where it sets the level)."""
    generic = BOT_KINDS["mcts"].levels[level]
    plain, guided = mcts_bot(**generic), mcts_bot(**{**generic, **GUIDED.get(level, {})})

    def choose(rules: GameRules[Any, Any], seen: Seen, rng: random.Random, clock: Clock | None) -> Command:
        return (plain if seen.view.get("wakhan") else guided)(rules, seen, rng, clock)
    return choose


#: the game's own ``mcts`` (it replaces the generic kind: ``domain.kernel.bots.bot_kinds``)
MCTS = replace(BOT_KINDS["mcts"], levels={level: {"level": level} for level in BOT_KINDS["mcts"].levels},
               make=_mcts)

_GUESSED = frozenset({"deck", "out"})


def _places(s: PaxState) -> Iterator[tuple[str, list[Any]]]:
    yield "deck", s.deck
    yield "out", s.out_of_game
    for row in range(MARKET_ROWS):
        yield f"market:{row}", s.market[row]
    yield "discard", s.discard
    for seat, player in enumerate(s.players):
        yield f"hand:{seat}", player.hand
        yield f"court:{seat}", player.court
        yield f"prizes:{seat}", player.prizes


class PaxSampler:
    """The skeleton of one seat's knowledge, folded once; ``draw`` completes it at random."""

    def __init__(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int,
                 evolve: Callable[[PaxState | None, Event], PaxState]):
        self.seat = seat
        self._evolve = evolve
        self.places: Places[PaxState] = Places(_places, _GUESSED.__contains__)
        self.built = 0
        #: the cards dealt from the deck, in order: position ``i`` of the built deck
        self.dealt: list[int] = []
        state: PaxState | None = None
        for raw in events:
            state = self._apply(state, seen_event(raw))
        if state is None:
            raise SampleInconsistent("no events to sample from")
        self.skeleton = state
        mine = view.get("players", [{}] * (seat + 1))[seat].get("hand")
        if mine is not None and sorted(mine) != sorted(state.players[seat].hand):
            raise SampleInconsistent("the events do not give the hand the view shows")

    def _apply(self, s: PaxState | None, e: Event) -> PaxState:
        places = self.places
        if e.type == "DeckBuilt" and e.secret is None:
            self.built = e.data["deck_count"]
            e = Event(e.type, e.data, secret={"deck": places.tokens(self.built),
                                              "out": places.tokens(len(ALL_CARDS) - self.built)})
        elif e.type == "CardDealt" and s is not None:
            places.make(s, e.data["card"], "deck", s.deck, 0)
            self.dealt.append(e.data["card"])
        elif e.type == "WakhanDeckShuffled" and e.secret is None and s is not None and s.wakhan is not None:
            # every AI card not in her deck goes in under it; its order is nobody's (``draw`` shuffles)
            e = Event(e.type, e.data, secret={"ai_deck": sorted(set(AI_CARDS) - set(s.wakhan.deck))},
                      secret_to=e.secret_to, barrier=e.barrier)
        elif e.type == "CardMoved" and "card" not in e.data and e.secret is None and s is not None:
            source = _hand_of(s, e.data["src"])  # a card between hands, hidden from this seat
            e = Event(e.type, e.data, secret={"card": source[0]})
        return self._evolve(s, e)

    def draw(self, rng: random.Random) -> PaxState:
        """One full state consistent with what the seat has seen."""
        s = copy_state(self.skeleton)
        if s.wakhan is not None:  # Wakhan's AI deck: its order is hidden from every seat
            rng.shuffle(s.wakhan.deck)
        known = self.places.known(s)
        if not self._deal_by_piles(s, known, rng):
            checks = unseen(sorted(DOMINANCE_CHECKS), known)
            deck_slots = list(range(len(s.deck)))
            rng.shuffle(deck_slots)
            for index, card in zip(deck_slots, checks, strict=False):
                s.deck[index] = card
            slots = [(place, index) for _, place, index in self.places.held_tokens(s)]
            deal_tokens(slots, unseen(sorted(ALL_CARDS), self.places.known(s)), rng.shuffle)
        return s

    def _deal_by_piles(self, s: PaxState, known: set[Any], rng: random.Random) -> bool:
        size = pile_size(s.seats)
        piles = [(size, events, checks) for events, checks in PILE_EXTRAS]
        if self.built != sum(a + b + c for a, b, c in piles) or len(self.dealt) + len(s.deck) != self.built:
            return False
        court = unseen(sorted(COURT_CARDS), known)
        events = unseen(sorted(EVENT_CARDS), known)
        rng.shuffle(court)
        rng.shuffle(events)
        checks = iter(sorted(DOMINANCE_CHECKS))
        start, deck = 0, []
        for court_count, event_count, check_count in piles:
            end = start + court_count + event_count + check_count
            gone = self.dealt[start:end]
            pile = [check for check in (next(checks) for _ in range(check_count)) if check not in gone]
            court_left = court_count - sum(1 for card in gone if card in COURT_CARDS)
            event_left = event_count - sum(1 for card in gone if card in EVENT_CARDS)
            if court_left < 0 or event_left < 0 or court_left > len(court) or event_left > len(events):
                return False
            pile += court[:court_left] + events[:event_left]
            court, events = court[court_left:], events[event_left:]
            rng.shuffle(pile)
            deck += pile
            start = end
        if len(deck) != len(s.deck) or len(court) + len(events) != len(s.out_of_game):
            return False
        s.deck[:] = deck
        s.out_of_game[:] = court + events
        return True


def _hand_of(s: PaxState, place: str) -> list[int]:
    kind, _, seat = place.partition(":")
    if kind != "hand" or not s.players[int(seat)].hand:
        raise SampleInconsistent(f"a hidden card left {place}")
    return s.players[int(seat)].hand


def sampler(view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int,
            evolve: Callable[[PaxState | None, Event], PaxState]) -> PaxSampler:
    """``evolve``: the rules' own (frame events included)."""
    return PaxSampler(view, events, seat, evolve)


def turn_begins(e: Event) -> int | None:
    """The seat whose turn ``e`` begins (``TurnStarted``, R-TRN-1), if it begins one: ``mcts``
    ends a playout as its own seat's next turn begins, once Wakhan and the others have had theirs."""
    return e.data["seat"] if e.type == "TurnStarted" else None


def scores(s: PaxState) -> list[float]:
    """Each seat's standing now (see the module's docstring)."""
    if s.outcome is not None:
        winners = set(s.outcome["winners"])
        return [float(vp) + (WIN_BONUS if seat in winners else 0.0) for seat, vp in enumerate(s.outcome["vp"])]
    seats = range(s.seats)
    blocks = {c: q.blocks_in_play(s, c) for c in COALITIONS}
    influence = [q.influence(s, seat) for seat in seats]
    cylinders = [q.cylinders_in_play(s, seat) for seat in seats]
    rulers = [q.ruler_of(s, region) for region in REGIONS]
    check = expected_check_points(s, blocks, influence, cylinders)
    soon = CHECK_IN_MARKET if any(is_dominance_check(n) for _, _, n in q.market_slots(s)) else CHECK_LATER
    out = []
    for seat, player in enumerate(s.players):
        lead = 0
        if player.loyalty is not None:
            lead = blocks[player.loyalty] - max(blocks[c] for c in COALITIONS if c != player.loyalty)
        out.append(VP_WEIGHT * (player.vp + soon * check[seat])
                   + LEAD_WEIGHT * lead + CYLINDER_WEIGHT * cylinders[seat]
                   + INFLUENCE_WEIGHT * influence[seat] + RULE_WEIGHT * rulers.count(seat)
                   + RUPEE_WEIGHT * player.rupees + COURT_WEIGHT * len(player.court)
                   + HAND_WEIGHT * min(len(player.hand), q.hand_limit(s, seat)))
    return out


def expected_check_points(s: PaxState, blocks: dict[Coalition, int], influence: Sequence[int],
                          cylinders: Sequence[int]) -> list[float]:
    """The points each seat may expect of the next Dominance Check (R-DOM-1 to R-DOM-5), each
    coalition dominant with a chance that rises with its lead in blocks. ``influence`` and
    ``cylinders``: each seat's (``q.influence``, ``q.cylinders_in_play``)."""
    lead_needed = FATIGUED_LEAD if EventEffect.CONFLICT_FATIGUE in s.effects else DOMINANCE_LEAD
    multiplier = FINAL_MULTIPLIER if q.dominance_checks_left(s) == 1 else 1
    seats = range(s.seats)
    expected = [0.0] * s.seats
    left = 1.0
    for coalition in COALITIONS:
        lead = blocks[coalition] - max(blocks[c] for c in COALITIONS if c != coalition)
        chance = 1.0 / (1.0 + math.exp(-(lead - lead_needed + 0.5) / DOMINANCE_SPREAD))
        chance = min(chance, left)
        left -= chance
        ranking = [(seat, q.influence_with(s, seat, coalition) if is_wakhan(s, seat) else influence[seat])
                   for seat in seats if s.players[seat].loyalty == coalition or is_wakhan(s, seat)]
        if ranking:
            for seat, points in split_points(ranking, tuple(p * multiplier for p in SUCCESS_POINTS)).items():
                expected[seat] += chance * points
    ranking = [(seat, cylinders[seat]) for seat in seats]
    for seat, points in split_points(ranking, tuple(p * multiplier for p in FAILURE_POINTS)).items():
        expected[seat] += left * points
    return expected
