"""For every hosted game (Pax Pamir among them) and every test game: a command outside the prompt is
refused by the kernel, with the prompt's text in the reason, and no code of the game runs
for it.

Each game is played at random for a while; at every state, each seat is sent commands of
the right shape that its prompt does not allow (a verb it does not offer, or a value the
offered verb does not allow). While those are decided, every step handler, every step's
automatic ``advance`` and the game's ``apply`` are spies that must not be called.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from domain.games import default_registry
from domain.kernel.commands import Command
from domain.kernel.engine import StepRules
from domain.kernel.errors import RuleViolation
from domain.kernel.prompt import Between, Kind, OneOf, Prompt, SubsetOf, Verb
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from domain.kernel.steps import Step
from tests.games.bargain import RULES as BARGAIN
from tests.games.highcard import RULES as HIGHCARD

#: every hosted game and the test games
GAMES = {**default_registry(), HIGHCARD.kind: HIGHCARD, BARGAIN.kind: BARGAIN}
#: commands played per game; enough to pass through every kind of prompt of these games
COMMANDS = 80


class Spies:
    """The game's rules and steps, spied on: subclasses of their classes whose handlers,
    automatic steps (``advance``) and ``apply`` record each call while armed, then run the
    game's own. ``rules`` is the game to play. (Subclasses, not attributes set on the objects:
    the compiled engine calls a native object's methods through its class, and would never
    call an attribute set on the object; ``test_the_spies_see_the_games_code_run`` checks
    that they see what runs.)"""

    def __init__(self, rules: StepRules[Any]):
        self.calls: list[str] = []
        self.armed = False
        steps = {name: self._spied(step, {*step.handlers.values(), "advance"}, f"{step.name}.")()
                 for name, step in rules.steps.items()}
        self.rules: StepRules[Any] = self._spied(rules, {"apply"}, "", steps=steps)()

    def _spied(self, original: Any, attrs: set[str], prefix: str, **more: Any) -> type:
        cls = type(original)
        spies = {attr: self._spy(prefix + attr, attr) for attr in attrs}
        return type(f"Spied{cls.__name__}", (cls,), {**spies, **more})

    def _spy(self, name: str, attr: str) -> Callable[..., Any]:
        def spy(spied: Any, *args: Any, **kwargs: Any) -> Any:
            if self.armed:
                self.calls.append(name)
            return getattr(super(type(spied), spied), attr)(*args, **kwargs)  # the game's own
        return spy

    def play(self, state: Any, seat: int, command: Command, rng: Rng) -> list[str]:
        """What of the game's code ran to decide an accepted ``command``."""
        self.armed, self.calls = True, []
        try:
            self.rules.decide(state, seat, command, rng)
        finally:
            self.armed = False
        return self.calls

    def refuse(self, rules: StepRules[Any], state: Any, seat: int, command: Command) -> str:
        """The reason ``command`` is refused; fails if it is accepted or if game code ran."""
        self.armed, self.calls = True, []
        try:
            rules.decide(state, seat, command, Rng(0))
        except RuleViolation as refused:
            return refused.reason
        else:
            pytest.fail(f"{command} by seat {seat} was accepted")
        finally:
            self.armed = False
            assert self.calls == [], f"{command} by seat {seat} ran {self.calls}"


def shaped(verb: Verb, pool: dict[Kind, list[Any]]) -> Command | None:
    """A command of ``verb`` whose argument has the right shape (values seen listed before)."""
    if verb.arg is None:
        return Command(verb.type, {})
    values = pool.get(verb.arg.kind)
    if not values:
        return None
    return Command(verb.type, {verb.arg.name: [values[0]] if verb.arg.many else values[0]})


def not_allowed(verb: Verb, allowed: Any, pool: dict[Kind, list[Any]]) -> Iterator[Command]:
    """Commands of an offered verb whose value the prompt does not allow."""
    assert verb.arg is not None
    name, kind = verb.arg.name, verb.arg.kind
    outside = [value for value in pool.get(kind, []) if value not in getattr(allowed, "options", ())]
    if isinstance(allowed, OneOf):
        if outside:
            yield Command(verb.type, {name: outside[0]})
        if kind.json_type == "integer":
            yield Command(verb.type, {name: max(allowed.options) + 1})
    elif isinstance(allowed, SubsetOf):
        if outside:
            yield Command(verb.type, {name: [outside[0]]})
        if allowed.maximum < len(allowed.options):
            yield Command(verb.type, {name: sorted(allowed.options)[:allowed.maximum + 1]})
        if allowed.minimum > 0:
            yield Command(verb.type, {name: []})
    elif isinstance(allowed, Between):
        yield Command(verb.type, {name: allowed.high + 1})
        yield Command(verb.type, {name: allowed.low - 1})


def check_state(rules: StepRules[Any], state: Any, seats: int, spies: Spies, pool: dict[Kind, list[Any]],
                checked: dict[str, int]) -> None:
    waiting = rules.to_move(state)
    for seat in range(seats):
        asked: Prompt | None = rules.prompt(state, seat)
        for verb in rules.verbs:
            if asked is not None and asked.allows(verb.type):
                if verb.arg is None:
                    continue
                for command in not_allowed(verb, asked.choices[verb.type], pool):
                    verb.parse(command)  # well formed: only the prompt can refuse it
                    assert asked.text in spies.refuse(rules, state, seat, command)
                    checked["value outside the prompt"] += 1
                continue
            command = shaped(verb, pool)
            if command is None:
                continue
            reason = spies.refuse(rules, state, seat, command)
            if asked is not None:
                assert reason.endswith(f"(you are asked: {asked.text})"), reason
                checked["verb outside the prompt"] += 1
            else:
                assert reason.endswith(f"(waiting for seat {', '.join(map(str, waiting))})"), reason
                checked["seat not asked"] += 1


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_command_outside_the_prompt_is_refused_with_its_text_before_any_game_code_runs(kind):
    game = GAMES[kind]
    assert isinstance(game, StepRules), f"{kind} is not played by the kernel's steps"
    spies = Spies(game)
    rules = spies.rules
    seats = rules.max_seats if kind != "dynasties" else 3
    r = random.Random(kind)
    state = fold(rules, rules.setup(seats, rules.check_options({}), Rng(kind)))
    pool: dict[Kind, list[Any]] = defaultdict(list)
    checked: dict[str, int] = defaultdict(int)
    for number in range(COMMANDS):
        if rules.outcome(state) is not None:
            break
        legal = {seat: rules.legal_commands(state, seat) for seat in range(seats)}
        for command in (c for commands in legal.values() for c in commands):
            verb = next(v for v in rules.verbs if v.type == command.type)
            if verb.arg is not None:
                value = command.args[verb.arg.name]
                for item in value if verb.arg.many else [value]:
                    if item not in pool[verb.arg.kind]:
                        pool[verb.arg.kind].append(item)
        check_state(rules, state, seats, spies, pool, checked)
        seat = r.choice(rules.to_move(state))
        for event in rules.decide(state, seat, r.choice(legal[seat]), Rng(kind, number)):
            state = rules.evolve(state, event)
    assert checked["value outside the prompt"] > 0 and checked["seat not asked"] > 0, dict(checked)
    if len(rules.verbs) > 1:  # High Card's one verb is offered to whoever is asked anything
        assert checked["verb outside the prompt"] > 0, dict(checked)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_the_spies_see_the_games_code_run(kind):
    """The spies above are not blind: every accepted command is seen running its step's handler,
    and over a game ``apply`` is seen, and ``advance`` too where a step of the game has one."""
    spies = Spies(GAMES[kind])
    rules = spies.rules
    seats = rules.max_seats if kind != "dynasties" else 3
    r = random.Random(kind)
    state = fold(rules, rules.setup(seats, rules.check_options({}), Rng(kind)))
    seen: set[str] = set()
    for number in range(COMMANDS):
        if rules.outcome(state) is not None:
            break
        seat = r.choice(rules.to_move(state))
        command = r.choice(rules.legal_commands(state, seat))
        found = rules.current(state)
        assert found is not None
        step = found[1]
        ran = spies.play(state, seat, command, Rng(kind, number))
        assert f"{step.name}.{step.handlers[command.type]}" in ran, (command, ran)
        seen |= {"advance" if call.endswith(".advance") else call for call in ran}
        for event in rules.decide(state, seat, command, Rng(kind, number)):
            state = rules.evolve(state, event)
    assert "apply" in seen, sorted(seen)
    if any(type(step).advance is not Step.advance for step in GAMES[kind].steps.values()):
        assert "advance" in seen, sorted(seen)
