"""Computer opponents: pure players that see only what their seat sees.

A bot is a function from what its seat has been shown (``Seen``: the seat's view, the
game's events as redacted for that seat, the commands its prompt offers) to one of those
commands. It never receives a state: ``greedy`` and ``mcts`` search on states drawn by
the game's sampler (``Searchable.sampler``), which completes the seat's knowledge with
guesses, so nothing they do can depend on a hidden card. Randomness is a generator the
caller passes in; a time budget is a clock the caller passes in (the domain reads none).

Kinds (``BOT_KINDS``; a game adds its own through ``bot_kinds``, such as Pax Pamir's
Wakhan):

* ``random``: uniform over the prompt's choices;
* ``greedy``: each choice tried once on a sampled state (the game runs on to the next
  decision) and the game's evaluation read from the seat's side (its score minus the best
  other score), after the seat's best next choices while it alone is to move, as many as
  the game asks (``greedy_plies``: two in Pax Pamir, where a purchase is judged with the
  play it allows); the best, ties broken at random;
* ``mcts``: information-set Monte Carlo tree search (single observer): each iteration
  draws a state from the sampler, walks one tree of moves by UCB over the moves that state
  allows, plays at random until the seat's own next turn begins after the others' turns
  (the game's ``turn_begins``; a game without turns of one seat: up to a depth), and scores
  the end (the outcome, or the game's evaluation turned into shares of a win). Stopping there
  sees what the others (Wakhan's whole turn, in Pax Pamir) do in answer, without the noise
  of the seat's own random next turn. Another seat's face-down choice (a Dynasties
  Tribute) is not a tree decision but a guess made at random: the others choose without
  seeing the bot's own face-down choice, and the bot cannot read theirs. Its settings also
  allow a narrower, guided search: only the few choices ``greedy`` judges best
  (``candidates``), flat (``tree=False``: no tree below them), each played out by every
  seat's best next step by the evaluation (``guided``) instead of at random, the seat's own
  steps optionally planned as ``greedy`` plans them (``own_plies``); Pax Pamir's own
  ``mcts`` plays that way where Wakhan is not at the table.

A **sealed** choice (a Dynasties commit-reveal Tribute: the prompt lists nothing, the bot
computes a seal of each card it may give) is searched as the open choice it stands for
(``Seen.meanings``): ``greedy`` and ``mcts`` search on the game's ``unsealed`` states,
where the same choices are made openly, and send the seal of the choice they found best.
Its effect is the open choice's, so nothing is lost; the seal only keeps it from the others.
``greedy`` also looks past the others' face-down answers to its own (guessed at random, as
``mcts`` does), so a Tribute is judged by what the reveal does, not by the card it costs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from domain.kernel.commands import Command
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules

Clock = Callable[[], float]


@dataclass(frozen=True)
class Seen:
    """Everything a bot is given: what its seat may see, nothing else."""

    seat: int
    view: dict[str, Any]
    #: the game's events as shown to the seat (``redact(event, seat)``), oldest first
    events: Sequence[dict[str, Any]]
    #: the commands the seat's prompt offers now
    commands: Sequence[Command]
    #: for a sealed command among them, the open choice it stands for (``offered``)
    meanings: Mapping[Command, Command] = field(default_factory=dict)


class Sampler(Protocol):
    def draw(self, rng: random.Random) -> Any:
        """One full state consistent with what the seat has seen."""


class Searchable(GameRules[Any, Any], Protocol):
    """A game a searching bot can play: it samples hidden facts and evaluates a state."""

    #: A difference of this much in ``scores`` is "clearly ahead".
    score_scale: float
    #: Verbs of face-down choices, hidden from the others until a reveal (Tributes).
    face_down_verbs: frozenset[str]

    def sampler(self, view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int) -> Sampler:
        """Built once per decision from what ``seat`` has seen."""

    def scores(self, state: Any) -> list[float]:
        """Each seat's standing (higher is better)."""

    def turn_begins(self, event: Event) -> int | None:
        """The seat whose turn ``event`` begins, if it begins one (None for every event in a game
        whose turns are no one seat's)."""


Bot = Callable[[GameRules[Any, Any], Seen, random.Random, Clock | None], Command]


def searchable(rules: GameRules[Any, Any]) -> Searchable:
    """``rules`` as a game a searching bot can play: every game offered to the searching bots
    (``greedy``, ``mcts``) gives ``sampler``, ``scores``, ``score_scale`` and ``face_down_verbs``
    (checked for each game by tests/unit/bots/test_searchable.py)."""
    return cast(Searchable, rules)


def offered(rules: GameRules[Any, Any], view: dict[str, Any], events: Sequence[dict[str, Any]], seat: int,
            listed: Sequence[Command], key: str) -> list[Command]:
    """The commands a bot chooses from: the listed ones, and for a free-form prompt (a hash
    it must compute: a Dynasties seal) the ones the game makes from what the seat has seen
    and ``key``, the seat's own secret, never shown to another seat (``free_commands``)."""
    make = getattr(rules, "free_commands", None)
    return [*listed, *make(view, events, seat, key)] if make is not None else list(listed)


def seen_from(rules: GameRules[Any, Any], seat: int, view: dict[str, Any], events: Sequence[dict[str, Any]],
            listed: Sequence[Command], key: str) -> Seen:
    """What a bot seat is handed: its view and events, the commands it may send (``offered``)
    and what a sealed one among them stands for (the game's ``free_meanings``, from the same
    secret ``key``)."""
    meanings = getattr(rules, "free_meanings", None)
    return Seen(seat, view, events, offered(rules, view, events, seat, listed, key),
                meanings(view, events, seat, key) if meanings is not None else {})


@dataclass(frozen=True)
class BotKind:
    """A kind of bot, its named levels and which one is the default."""

    name: str
    description: str
    levels: Mapping[str, Mapping[str, Any]]
    default_level: str
    make: Callable[..., Bot]
    #: does it need the game's sampler and evaluation (``Searchable``)?
    searches: bool = True

    def bot(self, level: str | None = None) -> Bot:
        return self.make(**self.levels[level or self.default_level])


# -- random ------------------------------------------------------------------------------

def random_bot() -> Bot:
    def choose(rules: GameRules[Any, Any], seen: Seen, rng: random.Random, clock: Clock | None) -> Command:
        return rng.choice(list(seen.commands))
    return choose


# -- greedy ------------------------------------------------------------------------------

def _advantage(scores: Sequence[float], seat: int) -> float:
    others = [score for other, score in enumerate(scores) if other != seat]
    return scores[seat] - (max(others) if others else 0.0)


def _after(rules: GameRules[Any, Any], state: Any, seat: int, command: Command, rng: random.Random) -> Any:
    """``state`` after ``seat``'s ``command``, and after the others' face-down answers to it
    (guessed at random: a Tribute is judged by its reveal)."""
    game = searchable(rules)
    after = rules.copy(state)
    mover = seat
    for _ in range(_FACE_DOWN_STEPS):
        _, after = rules.play(after, mover, command, Rng(rng.getrandbits(64)))  # on its own copy, in place
        others = [other for other in rules.to_move(after) if other != seat]
        if not others or rules.outcome(after) is not None or seat in rules.to_move(after):
            break
        mover = others[0]
        legal = rules.legal_commands(after, mover)
        if not legal or not all(c.type in game.face_down_verbs for c in legal):
            break
        command = rng.choice(legal)
    return after


#: at most this many of the others' face-down answers are played out after a choice
_FACE_DOWN_STEPS = 8


def _search(game: Searchable, seen: Seen) -> tuple[list[Command], Callable[[Any], Any]]:
    """The choices as searched (a seal as the open choice it stands for) and how a drawn
    state is made searchable (the game's ``unsealed``: sealed choices made openly)."""
    unsealed = getattr(game, "unsealed", None)
    return [seen.meanings.get(c, c) for c in seen.commands], unsealed if unsealed is not None else _same


def _same(state: Any) -> Any:
    return state


def _value(game: Searchable, state: Any, seat: int, rng: random.Random, plies: int) -> float:
    """The seat's advantage in ``state``; with ``plies`` > 1 and the seat alone to move
    again, the best of its next choices (its own turn planned a few choices ahead)."""
    if plies > 1 and game.outcome(state) is None and game.to_move(state) == [seat]:
        commands = game.legal_commands(state, seat)
        if commands:
            return max(_value(game, _after(game, state, seat, command, rng), seat, rng, plies - 1)
                       for command in commands)
    return _advantage(game.scores(state), seat)


def greedy_bot(samples: int = 1, plies: int | None = None) -> Bot:
    """The best choice by the game's evaluation after it and, while the seat alone is to
    move, after its best next ``plies - 1`` choices (a Pax Pamir purchase is worth the play
    it allows). ``plies``: the game's ``greedy_plies`` (1 where it does not say)."""
    def choose(rules: GameRules[Any, Any], seen: Seen, rng: random.Random, clock: Clock | None) -> Command:
        game = searchable(rules)
        depth = plies if plies is not None else getattr(rules, "greedy_plies", 1)
        commands = list(seen.commands)
        if len(commands) == 1:
            return commands[0]
        searched, prepare = _search(game, seen)
        sampler = game.sampler(seen.view, seen.events, seen.seat)
        totals = [0.0] * len(commands)
        for _ in range(samples):
            state = prepare(sampler.draw(rng))
            for index, command in enumerate(searched):
                totals[index] += _value(game, _after(rules, state, seen.seat, command, rng), seen.seat, rng, depth)
        best = max(totals)
        return rng.choice([command for command, total in zip(commands, totals, strict=True) if total == best])
    return choose


# -- information-set MCTS ---------------------------------------------------------------

@dataclass
class _Node:
    mover: int = -1
    visits: int = 0
    reward: float = 0.0
    available: int = 0
    children: dict[Command, _Node] = field(default_factory=dict)
    #: the only choices searched here (the root's ``candidates``); None: every legal one
    allowed: frozenset[Command] | None = None


def _rewards(game: Searchable, state: Any) -> list[float]:
    """Shares of a win: 1 split among the winners of a finished game; otherwise the
    evaluation as a softmax over seats (``score_scale`` apart is e times as likely)."""
    scores = game.scores(state)
    outcome = game.outcome(state)
    if outcome is not None:
        winners = set(outcome.winners)
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(len(scores))]
    top = max(scores)
    weights = [math.exp((score - top) / game.score_scale) for score in scores]
    total = sum(weights)
    return [weight / total for weight in weights]


def mcts_bot(iterations: int = 100, milliseconds: int | None = None, depth: int = 16,
             exploration: float = 0.7, candidates: int | None = None, guided: float = 0.0,
             tree: bool = True, own_plies: int = 1) -> Bot:
    """At most ``iterations`` iterations, and at most ``milliseconds`` when a clock is given.

    ``candidates``: only that many of the seat's choices are searched, the best by ``greedy``'s
    judgement on one drawn state (``_judged``).
    ``guided``: the chance that a playout's choice is its mover's best by the evaluation one
    step ahead (``_best_step``) rather than a random one. ``tree``: False searches the root's
    choices alone (flat Monte Carlo: every iteration plays out from its root choice).
    ``own_plies``: in a guided playout, the seat's own steps are its best by ``greedy``'s
    judgement this many of its choices ahead (the others' stay one step ahead).

    The time budget is a deadline for the whole decision, read from the clock at the start:
    building the sampler, every step of the tree walk and of the playouts. An iteration the
    deadline cuts short is scored where it stopped (the game's evaluation), and the answer
    comes from the tree as it is; a deadline passed before any iteration gives a random
    choice. So a decision overruns its budget by at most one game step (a guided step: each of its
    choices tried once; a planned step: each with its next choices, ``own_plies`` deep)."""
    def choose(rules: GameRules[Any, Any], seen: Seen, rng: random.Random, clock: Clock | None) -> Command:
        game = searchable(rules)
        commands = list(seen.commands)
        if len(commands) == 1:
            return commands[0]
        timer = _Deadline(clock, milliseconds)
        searched, prepare = _search(game, seen)
        sent = dict(zip(searched, commands, strict=True))
        sampler = game.sampler(seen.view, seen.events, seen.seat)
        root = _Node()
        if candidates is not None:
            root.allowed = _judged(game, prepare(sampler.draw(rng)), seen.seat, searched, rng, candidates)
        for _ in range(iterations):
            if timer.up():
                break
            _iterate(game, prepare(sampler.draw(rng)), seen.seat, root, rng, depth, exploration, timer, guided, tree,
                     own_plies)
        visited = [(root.children[c].visits, root.children[c].reward, c) for c in searched if c in root.children]
        if not visited:
            return rng.choice(commands)
        most = max(visits for visits, _, _ in visited)
        best = [(reward, c) for visits, reward, c in visited if visits == most]
        top = max(reward for reward, _ in best)
        return sent[rng.choice([c for reward, c in best if reward == top])]
    return choose


def _judged(game: Searchable, state: Any, seat: int, searched: Sequence[Command], rng: random.Random,
            candidates: int) -> frozenset[Command]:
    """The ``candidates`` choices ``greedy`` judges best on ``state`` (its plies, ties kept in
    the prompt's order)."""
    plies = getattr(game, "greedy_plies", 1)
    judged = {c: _value(game, _after(game, state, seat, c, rng), seat, rng, plies) for c in searched}
    return frozenset(sorted(searched, key=lambda c: judged[c], reverse=True)[:candidates])


class _Deadline:
    """``milliseconds`` from now on ``clock``; never up without a clock or a budget."""

    def __init__(self, clock: Clock | None, milliseconds: int | None):
        self.clock = clock if milliseconds else None
        self.at = clock() + milliseconds / 1000 if clock is not None and milliseconds else math.inf

    def up(self) -> bool:
        return self.clock is not None and self.clock() >= self.at


def _iterate(game: Searchable, state: Any, seat: int, root: _Node, rng: random.Random, depth: int,
             exploration: float, timer: _Deadline, guided: float = 0.0, tree: bool = True,
             own_plies: int = 1) -> None:
    node, path, played = root, [root], 0
    expanded = False
    others_moved = False  # another seat's turn began since the seat's own last began
    while game.outcome(state) is None and played < depth and not timer.up():
        movers = game.to_move(state)
        if not movers:
            break
        mover = seat if seat in movers else rng.choice(movers)
        commands = game.legal_commands(state, mover)
        if node.allowed is not None and not expanded:
            commands = [c for c in commands if c in node.allowed] or commands
        if not commands:
            break
        face_down = mover != seat and any(c.type in game.face_down_verbs for c in commands)
        if expanded and not face_down and guided and rng.random() < guided:  # a guided playout
            command = _planned_step(game, state, seat, commands, rng, own_plies) if mover == seat and own_plies > 1 \
                else _best_step(game, state, mover, commands, rng)
        elif expanded or face_down:
            command = rng.choice(commands)  # a playout, or another seat's face-down choice: a guess
        else:
            untried = [c for c in commands if c not in node.children]
            if untried:
                command = rng.choice(untried)
                node.children[command] = _Node(mover=mover)
                expanded = True
            else:
                command = _select(node, commands, exploration)
            child = node.children[command]
            for c in commands:
                if c in node.children:
                    node.children[c].available += 1
            node = child
            path.append(node)
            expanded = expanded or not tree
        events, state = game.play(state, mover, command, Rng(rng.getrandbits(64)))  # the drawn state is this iteration's own
        played += 1
        back = False
        for event in events:
            begun = game.turn_begins(event)
            if begun is not None and begun != seat:
                others_moved = True
            elif begun == seat and others_moved:
                back, others_moved = True, False
        if back and expanded:  # the playout ends as the seat's next turn begins
            break
    rewards = _rewards(game, state)
    for visited in path[1:]:
        visited.visits += 1
        visited.reward += rewards[visited.mover]


def _best_step(game: Searchable, state: Any, mover: int, commands: Sequence[Command], rng: random.Random) -> Command:
    """``mover``'s best choice by the evaluation one step ahead (its advantage), ties at random."""
    if len(commands) == 1:
        return commands[0]
    best, chosen = -math.inf, [commands[0]]
    for command in commands:
        _, after = game.play(game.copy(state), mover, command, Rng(rng.getrandbits(64)))
        value = _advantage(game.scores(after), mover)
        if value > best:
            best, chosen = value, [command]
        elif value == best:
            chosen.append(command)
    return rng.choice(chosen)


def _planned_step(game: Searchable, state: Any, seat: int, commands: Sequence[Command], rng: random.Random,
                  plies: int) -> Command:
    """The seat's best choice by ``greedy``'s judgement ``plies`` of its choices ahead, ties at random."""
    if len(commands) == 1:
        return commands[0]
    values = [_value(game, _after(game, state, seat, command, rng), seat, rng, plies) for command in commands]
    best = max(values)
    return rng.choice([command for command, value in zip(commands, values, strict=True) if value == best])


def _select(node: _Node, commands: Sequence[Command], exploration: float) -> Command:
    def ucb(command: Command) -> float:
        child = node.children[command]
        return child.reward / child.visits + exploration * math.sqrt(math.log(child.available + 1) / child.visits)
    return max(commands, key=ucb)


# -- the kinds -----------------------------------------------------------------------------

#: ``mcts``'s levels are budgets of iterations, so their strength does not depend on the load
#: of the machine while the budget fits the guard; the wall clock is only a guard against a
#: decision that would keep a table waiting: ``easy`` and ``normal`` stop searching at 1.6 s
#: (an answer within 2 s even at a load of 20 on two cores, where one game step can take
#: 0.3 s; at such a load the guard, not the budget, ends most ``normal`` searches), ``hard``
#: at 20 s.
GUARD_MS, HARD_GUARD_MS = 1600, 20_000

BOT_KINDS: dict[str, BotKind] = {
    "random": BotKind("random", "uniform over the prompt's choices", {"default": {}}, "default",
                      random_bot, searches=False),
    "greedy": BotKind("greedy", "the best choice by the game's evaluation one step ahead, on a sampled state",
                      {"default": {"samples": 1}, "careful": {"samples": 4}}, "default", greedy_bot),
    "mcts": BotKind("mcts", "information-set Monte Carlo tree search over sampled states",
                    {"easy": {"iterations": 30, "depth": 8, "milliseconds": GUARD_MS},
                     "normal": {"iterations": 100, "depth": 16, "milliseconds": GUARD_MS},
                     "hard": {"iterations": 1600, "depth": 24, "milliseconds": HARD_GUARD_MS}},
                    "normal", mcts_bot),
}


def bot_kinds(rules: GameRules[Any, Any]) -> dict[str, BotKind]:
    """The kinds that can play ``rules``: the searching ones where the game offers a sampler
    and an evaluation, then the game's own kinds (``rules.bot_kinds``), which may replace a
    generic one (Pax Pamir's ``mcts``)."""
    searchable = callable(getattr(rules, "sampler", None)) and callable(getattr(rules, "scores", None))
    kinds = {name: kind for name, kind in BOT_KINDS.items() if searchable or not kind.searches}
    kinds.update(getattr(rules, "bot_kinds", {}))
    return kinds
