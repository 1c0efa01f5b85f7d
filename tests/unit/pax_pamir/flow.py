"""Small helpers for Pax Pamir step tests: commands, running a procedure put on the stack
by events, and checks that a prompt is the whole law (every listed command is accepted,
anything else refused) and never names a card hidden from the seat it is put to."""

from __future__ import annotations

from typing import Any

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir.data.board import Border, Region
from domain.games.pax_pamir.data.cards import ALL_CARDS, COURT_CARDS
from domain.kernel.commands import Command
from domain.kernel.prompt import Between, OneOf, Prompt
from domain.kernel.rng import Rng
from domain.kernel.steps import step_entered
from tests.helpers.scenario import Given, given


def cmd(verb: str, **args: Any) -> Command:
    return Command(verb, args)


def with_steps(g: Given, *steps: tuple[str, int | None, dict[str, Any]]) -> Given:
    """``g`` with steps entered on top of its stack (a procedure started mid-turn)."""
    return given(RULES, *g.history, *(step_entered(step, seat, values) for step, seat, values in steps))


def resolve(g: Given) -> Given:
    """Run the automatic steps on top of ``g`` until some seat is asked something, as the
    engine does after every command."""
    turn = RULES.begin(RULES.copy(g.state), Rng(0, len(g.history)))
    RULES.run_until_input(turn)
    return given(RULES, *g.history, *turn.events)


def asked(g: Given, seat: int) -> Prompt:
    prompt = RULES.prompt(g.state, seat)
    assert prompt is not None, f"seat {seat} is asked nothing; waiting for {g.to_move()}"
    return prompt


def choices(g: Given, seat: int) -> set[tuple[str, Any]]:
    """The legal commands of ``seat`` as (verb, argument or None) pairs."""
    return {(c.type, next(iter(c.args.values()), None)) for c in g.legal(seat)}


def _off_prompt_values(allowed: Any) -> list[Any]:
    if isinstance(allowed, Between):
        return [allowed.low - 1, allowed.high + 1]
    if isinstance(allowed, OneOf):
        options = set(allowed.options)
        sample = next(iter(options))
        if isinstance(sample, int):
            pool: list[Any] = sorted(ALL_CARDS)
        elif sample in {b.value for b in Border}:
            pool = [b.value for b in Border]
        elif sample in {r.value for r in Region}:
            pool = [r.value for r in Region]
        else:
            pool = ["left", "right", "tribe:kabul", "army:kabul", "road:herat_kabul", "spy:1", "gift:2", "nowhere"]
        return [value for value in pool if value not in options][:6]
    return []


def assert_prompt_is_the_law(g: Given, seat: int) -> None:
    """Every command ``seat`` is listed is accepted; every verb not offered, every value
    outside what the prompt allows, and every command of another seat is refused."""
    prompt = asked(g, seat)
    assert g.to_move() == [seat], f"expected only seat {seat} to be asked, not {g.to_move()}"
    for command in g.legal(seat):
        outcome = g.when(seat, command)
        assert outcome.error is None, f"listed {command} was refused: {outcome.error}"
    for verb in RULES.verbs:
        allowed = prompt.choices.get(verb.type)
        if allowed is None:
            sample = {} if verb.arg is None else {verb.arg.name: 1 if verb.arg.kind.json_type == "integer" else "x"}
            g.when(seat, Command(verb.type, sample)).then_rejects("")
            continue
        for value in _off_prompt_values(allowed):
            assert verb.arg is not None
            g.when(seat, Command(verb.type, {verb.arg.name: value})).then_rejects("")
    for other in range(g.state.seats):
        if other != seat:
            assert g.legal(other) == []
            for command in g.legal(seat)[:3]:
                g.when(other, command).then_rejects("")


def assert_reveals_no_hidden_card(g: Given, announced: tuple[int, ...] = ()) -> None:
    """No seat's prompt text or listed commands name a card in another seat's hand or in the
    deck (``announced``: cards the table has been told of, such as a card being played)."""
    s = g.state
    for seat in range(s.seats):
        prompt = RULES.prompt(s, seat)
        if prompt is None:
            continue
        hidden = {n for other, player in enumerate(s.players) if other != seat for n in player.hand}
        hidden |= set(s.deck)
        hidden -= set(announced)
        for number in hidden:
            if number in COURT_CARDS:
                assert COURT_CARDS[number].name not in prompt.text, f"seat {seat} is told of card {number}"
            assert f"(card {number})" not in prompt.text, f"seat {seat} is told of card {number}"
        for command in g.legal(seat):
            value = next(iter(command.args.values()), None)
            assert command.args.get("card") not in hidden, f"seat {seat} is offered hidden card {value}"
