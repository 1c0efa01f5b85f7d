"""What computer opponents need of Dynasties: a sampler of the hidden facts and an evaluation.

**Sampler.** From one seat's view and the events as that seat was shown them, a full
state consistent with everything it has seen (``domain.kernel.sampling``): the deck is
dealt as unknown cards, each hidden draw takes whatever is on top, and public events (an
Enquire's face-up card, a Noble placed, the Tributes revealed) pin down the cards they
name. Each ``draw`` deals the unseen cards at random into the other hands, the deck, the
face-down Retirements, and guesses each other seat's face-down Tribute uniformly from what
that seat holds. The seat's own hand and Tribute are exactly what it was shown.

**Evaluation** (the ``greedy`` bot's one step, and ``mcts``'s estimate where a playout
stops): a seat's gold, plus its expected share of the Stakes (the seats whose Family
tallies highest now share them), plus a fifth of the value of its hand (Nobles still to
place). Once the game is over: gold plus the Legacy share.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from domain.games.dynasties import evolve as _evolve
from domain.games.dynasties.cards import DECK, value_of
from domain.games.dynasties.rules import tribute_digest
from domain.games.dynasties.state import DynastiesState, copy_state
from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.sampling import Places, SampleInconsistent, deal_tokens, is_token, seen_event, unseen

#: How much a Noble in hand counts, per point of its value, against a gold piece.
HAND_WEIGHT = 0.2
#: Gold is the unit of the evaluation; a gap of this many gold is "clearly ahead" for a playout.
SCORE_SCALE = 10.0


def _places(s: DynastiesState) -> Iterator[tuple[str, list[Any]]]:
    yield "deck", s.deck
    yield "graveyard", s.graveyard
    yield "tributes", s.tribute_commit
    for seat in range(s.seats):
        yield f"hand:{seat}", s.hands[seat]
    for seat in range(s.seats):
        yield f"family:{seat}", s.families[seat]
    yield "tribute_zone", s.tribute_zone


class DynastiesSampler:
    """The skeleton of one seat's knowledge, folded once; ``draw`` completes it at random."""

    def __init__(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int):
        self.seat = seat
        mine = f"hand:{seat}"
        self.places: Places[DynastiesState] = Places(_places, lambda name: name in _GUESSED or (
            name.startswith("hand:") and name != mine))
        #: the fold's own guesses (a reshuffle's order) come from a fixed generator: the
        #: skeleton depends on the events only
        self._guess = random.Random(0)
        self._seen_tribute = False
        state: DynastiesState | None = None
        for raw in events:
            state = self._apply(state, seen_event(raw))
        if state is None:
            raise SampleInconsistent("no events to sample from")
        self.skeleton = state
        hand = view.get("hand")
        if hand is not None and sorted(hand) != sorted(state.hands[seat]):
            raise SampleInconsistent("the events do not give the hand the view shows")

    def _apply(self, s: DynastiesState | None, e: Event) -> DynastiesState:
        if s is None:
            return _evolve.evolve(None, e)
        kind, data, places = e.type, e.data, self.places
        if kind == "DeckShuffled" and e.secret is None:
            e = Event(kind, data, secret={"order": places.tokens(data["count"])})
        elif kind == "CardDrawn":
            if e.secret is None:
                if not s.deck:
                    raise SampleInconsistent("a card was drawn from an empty deck")
                e = Event(kind, data, secret={"card": s.deck[0]})
            else:
                places.make(s, e.secret["card"], "deck", s.deck, 0)
        elif kind == "GraveyardReshuffled" and e.secret is None:
            order = s.graveyard[:]
            self._guess.shuffle(order)
            e = Event(kind, data, secret={"order": order})
        elif kind == "ProspectsEnquired":
            places.make(s, data["revealed_card"], "deck", s.deck, 0)
        elif kind == "TributeCommitted":
            hand = s.hands[data["seat"]]
            if e.secret is None:
                e = Event(kind, data, secret={"card": self._pick(hand, 1)[0]})
            else:
                places.make(s, e.secret["card"], f"hand:{data['seat']}", hand)
        elif kind == "TributesRevealed":
            for row in data["tributes"]:
                places.make(s, row["card"], "tributes", s.tribute_commit, row["seat"])
        elif kind == "NoblePlaced":
            places.make(s, data["card"], f"hand:{data['seat']}", s.hands[data["seat"]])
        elif kind == "NoblesRetired":
            hand = s.hands[data["seat"]]
            if e.secret is None:
                e = Event(kind, data, secret={"cards": self._pick(hand, data["count"])})
            else:
                for card in e.secret["cards"]:
                    places.make(s, card, f"hand:{data['seat']}", hand)
        return _evolve.evolve(s, e)

    def _pick(self, hand: list[Any], count: int) -> list[Any]:
        """Cards a seat gave face down, guessed: unknown ones first (a later reveal corrects
        a guess; ``draw`` guesses the ones still face down afresh)."""
        tokens = [card for card in hand if is_token(card)]
        known = [card for card in hand if not is_token(card)]
        self._guess.shuffle(known)
        picked = (tokens + known)[:count]
        if len(picked) < count:
            raise SampleInconsistent("a seat gave more cards than it held")
        return picked

    def draw(self, rng: random.Random) -> DynastiesState:
        """One full state consistent with what the seat has seen."""
        s = copy_state(self.skeleton)
        slots = [(place, index) for _, place, index in self.places.held_tokens(s)]
        deal_tokens(slots, unseen(DECK, self.places.known(s)), rng.shuffle)
        for seat, committed in enumerate(s.tribute_commit):
            if committed is None or seat == self.seat:
                continue
            pool = [*s.hands[seat], committed]  # the face-down Tribute is any card the seat held
            index = rng.randrange(len(pool))
            s.tribute_commit[seat] = pool.pop(index)
            s.hands[seat] = pool
        return s


_GUESSED = frozenset({"deck", "graveyard", "tributes"})


def sampler(view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int) -> DynastiesSampler:
    return DynastiesSampler(view, events, seat)


def bot_salt(key: str, events: Sequence[dict[str, Any]]) -> str:
    """R17a for a bot: the salt of its next seal, 128 bits from its own secret ``key`` and the
    number of Tribute reveals so far (a fresh salt for every seal, the same one again at the
    reveal: a bot keeps no memory between decisions)."""
    reveals = sum(1 for event in events if event.get("type") == "TributesRevealed")
    return hashlib.sha256(f"{key}:tribute:{reveals}".encode()).hexdigest()[:32]


def free_commands(view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int, key: str) -> list[Command]:
    """The commands a bot may send for a commit-reveal prompt (R17a): a seal of each Noble
    in its hand, or the reveal of its seal. Nothing outside the Tribute phase."""
    if view.get("phase") != "tribute" or not view["options"].get("commit_reveal_tributes") or view.get("hand") is None:
        return []
    if seat not in view.get("to_move", []):
        return []
    salt = bot_salt(key, events)
    if view["players"][seat]["tribute_hash"] is None:
        return [Command("CommitTribute", {"hash": tribute_digest(salt, card)}) for card in view["hand"]]
    return [Command("RevealTribute", {"salt": salt})]


def free_meanings(view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int, key: str) -> dict[Command, Command]:
    """R17a for a bot's search: each seal of ``free_commands`` stands for the open Tribute of
    the card it seals (``SubmitTribute``), which has the same effect once revealed."""
    if view.get("phase") != "tribute" or not view["options"].get("commit_reveal_tributes") or view.get("hand") is None:
        return {}
    if seat not in view.get("to_move", []) or view["players"][seat]["tribute_hash"] is not None:
        return {}
    salt = bot_salt(key, events)
    return {Command("CommitTribute", {"hash": tribute_digest(salt, card)}): Command("SubmitTribute", {"card": card})
            for card in view["hand"]}


def unsealed(s: DynastiesState) -> DynastiesState:
    """The same game with every Tribute still to give given openly (R17 instead of R17a): a
    seal not yet revealed is forgotten, its seat gives its Tribute again (in a search, a
    guess like any other seat's face-down choice). Under R17 already: ``s`` itself."""
    if not s.options.commit_reveal_tributes:
        return s
    new = copy_state(s)
    new.options = replace(s.options, commit_reveal_tributes=False)
    new.tribute_hash = [None] * s.seats
    new.tribute_salt = [None] * s.seats
    return new


def scores(s: DynastiesState) -> list[float]:
    """Each seat's worth in gold now (see the module's docstring)."""
    if s.outcome is not None:
        return [float(gold + share) for gold, share in zip(s.outcome["treasuries"], s.outcome["legacy_shares"],
                                                           strict=True)]
    totals = [_tally(s, family) for family in s.families]
    best = max(totals)
    leaders = [seat for seat, total in enumerate(totals) if total == best]
    out = []
    for seat in range(s.seats):
        share = s.stakes / len(leaders) if seat in leaders else 0.0
        hand = sum(value_of(card) for card in s.hands[seat])
        out.append(s.treasury[seat] - s.debt[seat] + share + HAND_WEIGHT * hand)
    return out


def _tally(s: DynastiesState, family: list[str]) -> int:
    bonus_c, bonus_d = s.options.coronation_bonus, s.options.dynasty_bonus
    return sum(value_of(card) + (bonus_c if value_of(card) == 1 else 0)
               + (bonus_d if card.rsplit("-", 1)[0] == s.current_dynasty else 0) for card in family)
