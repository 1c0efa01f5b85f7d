"""Seeded random play of Dynasties to Game Over, checking every invariant after every event.

Only ``legal_commands`` drive the games, and for a free-form prompt (a commit-reveal seal
or reveal, R17a, which nothing can list) the commands a client would compute itself
(``computed``): a seal of each card in hand, or the reveal of the seat's seal. Along the way: no dead ends (exactly the seats in
``to_move`` have legal commands, I21), no runaway, every listed command is accepted and
random unlisted or malformed commands are refused with ``RuleViolation`` (I23), a
JSON round trip of the stream folds to the same state and a replay gives the same events
(I22), and nothing is accepted after Game Over (I19).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from domain.games.dynasties import RULES
from domain.games.dynasties.cards import DECK
from domain.kernel.commands import Command
from domain.kernel.errors import InvalidOptions, RuleViolation
from domain.kernel.events import Event
from domain.kernel.rng import Rng
from tests.helpers.replays import assert_the_log_replays
from tests.unit.dynasties.dynasties_invariants import DynastiesInvariants

#: Commands one game may take before it is judged a runaway.
MAX_COMMANDS = 4000

#: Option sets that each change play; every non-default value of §3 appears at least once.
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"enquire_price_card": "discard", "mid_round_enquire": "tda", "shortfall": "debt_to_legacy", "legacy": 7},
    {"mid_round_enquire": "never", "all_tied_tribute": "anchor_leads", "unresolved_tie": "split"},
    {"combinations_require_activation": True, "removed_cards_count_for_lead": True, "conclave_max_cards": 4},
    {"empty_stakes_ends_round": True, "tie_break_participants": "tied", "max_tie_break_turns": 1},
    {"starting_gold": 20, "starting_hand": 6, "hand_limit": 6, "draw_per_round": 3, "conclave_max_cards": 0},
    {"enquire_threshold": 3, "enquire_refill_to": 6, "hand_limit": 8, "coronation_bonus": 0, "dynasty_bonus": 0},
    {"starting_hand": 1, "enquire_threshold": 0, "enquire_refill_to": 2, "draw_per_round": 0},
    {"commit_reveal_tributes": True, "all_tied_tribute": "redraw", "starting_gold": 30},
]


def salt_of(seed: int, seat: int, stream: list[Event]) -> str:
    """The salt a seat's client would pick for its next seal: a new one for every seal."""
    seals = sum(1 for event in stream if event.type == "TributesRevealed")
    return hashlib.sha256(f"{seed}:{seat}:{seals}".encode()).hexdigest()[:32]


def computed(state: Any, seat: int, salt: str) -> list[Command]:
    """A free-form choice as a client computes it: sha256(salt || card id) of each card in
    hand for a seal, the seal's salt for a reveal (R17a)."""
    asked = RULES.prompt(state, seat)
    if asked is None:
        return []
    if asked.allows("CommitTribute"):
        return [Command("CommitTribute", {"hash": hashlib.sha256(bytes.fromhex(salt) + card.encode()).hexdigest()})
                for card in state.hands[seat]]
    if asked.allows("RevealTribute"):
        return [Command("RevealTribute", {"salt": salt})]
    return []


def random_options(r: random.Random) -> dict[str, Any]:
    """A random option set that ``check_options`` accepts (it refuses the one family that
    would never end: hands that run dry with unbreakable ties split back every round)."""
    while True:
        chosen: dict[str, Any] = {}
        for spec in RULES.options:
            if r.random() < 0.5:
                continue
            if spec.kind == "bool":
                chosen[spec.name] = r.random() < 0.5
            elif spec.kind == "choice":
                chosen[spec.name] = r.choice(spec.choices)
            elif spec.nullable and r.random() < 0.3:
                chosen[spec.name] = None
            else:
                low = spec.minimum if spec.minimum is not None else 0
                high = spec.maximum if spec.maximum is not None else low + 12
                chosen[spec.name] = r.randint(low, high)
        try:
            RULES.check_options(chosen)
        except InvalidOptions:
            continue
        return chosen


def canonical(command: Command) -> Command:
    """Card lists are sets: ``legal_commands`` lists each choice once, sorted."""
    if isinstance(command.args.get("cards"), list) and all(isinstance(c, str) for c in command.args["cards"]):
        return Command(command.type, {**command.args, "cards": sorted(command.args["cards"])})
    return command


def malformed_commands(r: random.Random, state: Any, seat: int) -> list[tuple[int, Any]]:
    card = r.choice(DECK)
    hand = state.hands[seat]
    mine = r.choice(hand) if hand else card
    return [
        (seat, Command("Pass", {})),
        (seat, Command("PlaceNoble", {})),
        (seat, Command("PlaceNoble", {"card": 7})),
        (seat, Command("PlaceNoble", {"card": "coppe-14"})),
        (seat, Command("PlaceNoble", {"card": mine, "extra": 1})),
        (seat, Command("SubmitTribute", {"card": None})),
        (seat, Command("SubmitTribute", {"cards": [mine]})),
        (seat, Command("ChooseConclaveCards", {"cards": mine})),
        (seat, Command("ChooseConclaveCards", {"cards": [mine, mine]})),
        (seat, Command("RetireNobles", {"cards": [1, 2]})),
        (seat, Command("RetireNobles", {"cards": ["nope"]})),
        (seat, Command("PlaceNoble", [mine])),  # args not an object
        (seat, "PlaceNoble"),
        (-1, Command("PlaceNoble", {"card": mine})),
        (state.seats, Command("SubmitTribute", {"card": mine})),
        (True, Command("SubmitTribute", {"card": mine})),  # type: ignore[list-item]
        (seat, Command("CommitTribute", {"hash": "AB" * 32})),
        (seat, Command("CommitTribute", {"hash": mine})),
        (seat, Command("RevealTribute", {"salt": "ab" * 15})),
        (seat, Command("RevealTribute", {"salt": "ff" * 16})),  # opens no seal: the test's salts are others
    ]


def random_command(r: random.Random) -> Command:
    kind = r.choice(["SubmitTribute", "PlaceNoble", "ChooseConclaveCards", "RetireNobles"])
    if kind in ("SubmitTribute", "PlaceNoble"):
        return Command(kind, {"card": r.choice(DECK)})
    return Command(kind, {"cards": r.sample(DECK, r.randint(0, 3))})


def refused(state: Any, seat: Any, command: Any, rng: Rng) -> bool:
    try:
        RULES.decide(state, seat, command, rng)
    except RuleViolation:
        return True
    return False


def play_game(seed: int, seats: int, given_options: dict[str, Any], thorough: bool) -> dict[str, Any]:
    r = random.Random(f"dynasties:{seed}")
    options = RULES.check_options(given_options)
    checker = DynastiesInvariants()
    stream: list[Event] = []
    script: list[tuple[int, Command]] = []
    state: Any = None

    def apply(events: list[Event]) -> None:
        nonlocal state
        for event in events:
            before = RULES.copy(state) if state is not None else None
            state = RULES.evolve(state, event)
            checker.observe(before, event, state)
            stream.append(event)

    apply(RULES.setup(seats, options, Rng(seed, 0)))
    for _ in range(MAX_COMMANDS):
        if state.phase == "game_over":
            break
        movers = RULES.to_move(state)
        assert movers, f"dead end in {state.phase}"
        legal = {seat: RULES.legal_commands(state, seat) + computed(state, seat, salt_of(seed, seat, stream))
                 for seat in range(seats)}
        assert [seat for seat in range(seats) if legal[seat]] == sorted(movers), "I21: movers and legal differ"
        if state.pending is not None:
            assert movers == [state.pending.seat], "I21"
        seat = r.choice(movers)
        command = r.choice(legal[seat])
        version = len(stream)
        # I23: other listed commands are accepted too; unlisted and malformed ones refused.
        listed = {(s, canonical(c)) for s in legal for c in legal[s]}
        others = [c for c in legal[seat] if c != command]
        for other in (others if thorough else r.sample(others, min(2, len(others)))):
            RULES.decide(state, seat, other, Rng(seed, version))
        if thorough or r.random() < 0.2:
            for who, bad in malformed_commands(r, state, seat):
                assert refused(state, who, bad, Rng(seed, version)), f"I23: accepted malformed {bad!r} from {who!r}"
            for _ in range(3):
                who, candidate = r.randrange(seats), random_command(r)
                if (who, canonical(candidate)) not in listed:
                    assert refused(state, who, candidate, Rng(seed, version)), f"I23: accepted unlisted {candidate}"
        snapshot = RULES.copy(state)
        events = RULES.decide(state, seat, command, Rng(seed, version))
        assert state == snapshot, "decide changed the state it was given"
        script.append((seat, command))
        apply(events)
        # ``play`` (decide and evolve at once, in place) makes the same events and state
        played_events, played_state = RULES.play(snapshot, seat, command, Rng(seed, version))
        assert played_events == events and played_state == state, "play differs from decide + evolve"
    else:
        pytest.fail(f"runaway: no Game Over after {MAX_COMMANDS} commands (seed {seed}, {seats} seats)")

    # I19: nothing is legal or accepted after Game Over.
    assert stream[-1].type == "GameEnded"
    assert RULES.to_move(state) == [] and all(RULES.legal_commands(state, s) == [] for s in range(seats))
    for seat in range(seats):
        assert refused(state, seat, Command("PlaceNoble", {"card": DECK[0]}), Rng(seed))
    outcome = RULES.outcome(state)
    assert outcome is not None and list(outcome.winners) == stream[-1].data["winners"]

    # I22: the stored stream folds to the same state without any rng; replayed, it is the same
    assert_the_log_replays(RULES, seats, options, seed, script, stream, state, thorough)
    return {"events": len(stream), "rounds": state.round}


GAMES = 560


def game_plan() -> list[tuple[int, int, dict[str, Any]]]:
    r = random.Random(2024)
    plan = []
    for seed in range(GAMES):
        seats = 2 + seed % 5
        if seed % 4 == 0:
            options: dict[str, Any] = {}
        elif seed % 4 == 1:
            options = OPTION_SETS[(seed // 4) % len(OPTION_SETS)]
        else:
            options = random_options(r)
        plan.append((seed, seats, options))
    return plan


@pytest.mark.parametrize("chunk", range(8))
def test_random_games_keep_every_invariant_to_game_over(chunk: int) -> None:
    """560 games in 8 chunks: 2-6 seats, defaults, every listed option set, random options."""
    plan = game_plan()[chunk::8]
    for seed, seats, options in plan:
        play_game(seed, seats, options, thorough=seed % 10 == 0)


def test_every_option_set_plays_to_game_over_on_every_seat_count() -> None:
    for index, options in enumerate(OPTION_SETS):
        for seats in range(2, 7):
            play_game(10_000 + index * 10 + seats, seats, options, thorough=False)
