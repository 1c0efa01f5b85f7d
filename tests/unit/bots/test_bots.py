"""The bot kinds: each plays whole games of both games with legal commands only, keeps to its
budget, and chooses from what its seat sees alone (non-interference: change a human's
hand or the deck order, and no bot's input or chosen command changes)."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.games.pax_pamir import RULES as PAX
from domain.kernel.arena import play_match, seen
from domain.kernel.bots import BOT_KINDS, Seen, bot_kinds, mcts_bot
from domain.kernel.rng import Rng
from domain.kernel.rules import fold
from tests.games.highcard import RULES as HIGHCARD
from tests.property.test_pax_pamir_no_leaks import World, exchanged, setup_events, with_deck
from tests.unit.bots.games import worlds_differing_in_one_hand

FAST = {"random": BOT_KINDS["random"].bot(), "greedy": BOT_KINDS["greedy"].bot(),
        "mcts": mcts_bot(iterations=8, depth=6)}


def _legal_only(rules):
    def check(state, seat, command):
        assert command in rules.legal_commands(state, seat)
    return check


@pytest.mark.parametrize(("rules", "seats"), [(DYNASTIES, 3), (DYNASTIES, 2), (PAX, 2), (PAX, 4)])
def test_every_kind_plays_a_whole_game_with_legal_commands_only(rules, seats):
    lineup = list(itertools.islice(itertools.cycle(["mcts", "greedy", "random"]), seats))
    match = play_match(rules, seats, [FAST[kind] for kind in lineup], seed=3, check=_legal_only(rules))
    assert match.outcome is not None, f"{rules.kind} did not end in {match.decisions} decisions"
    assert match.outcome.winners


@pytest.mark.parametrize(("rules", "seats"), [(DYNASTIES, 3), (PAX, 2)])
def test_the_guided_flat_search_plays_a_whole_game_with_legal_commands_only(rules, seats):
    guided = mcts_bot(iterations=4, depth=10, candidates=2, guided=1.0, tree=False)
    lineup = [guided, FAST["greedy"], FAST["random"]][:seats]
    match = play_match(rules, seats, lineup, seed=4, check=_legal_only(rules))
    assert match.outcome is not None and match.outcome.winners


def test_random_chooses_every_offered_command_and_nothing_else():
    commands = [DYNASTIES.legal_commands(fold(DYNASTIES, DYNASTIES.setup(3, DYNASTIES.check_options({}),
                                                                        Rng(1))), 0)][0]
    shown = Seen(0, {}, [], commands)
    picked = {FAST["random"](DYNASTIES, shown, random.Random(k), None) for k in range(200)}
    assert picked == set(commands)


def test_mcts_stops_at_its_time_budget_when_given_a_clock():
    state = fold(DYNASTIES, DYNASTIES.setup(3, DYNASTIES.check_options({}), Rng(2)))
    events = DYNASTIES.setup(3, DYNASTIES.check_options({}), Rng(2))
    ticks = itertools.count()
    reads = []

    def clock() -> float:  # a millisecond passes each time the clock is read
        reads.append(1)
        return next(ticks) / 1000

    bot = mcts_bot(iterations=10_000, milliseconds=25, depth=4)
    bot(DYNASTIES, seen(DYNASTIES, state, events, 0), random.Random(0), clock)
    assert 20 <= len(reads) <= 30, "about one clock read per iteration, until 25 ms have passed"


class _Slow:
    """The game's rules with every move taking ``seconds`` longer, as on a loaded machine."""

    def __init__(self, rules, seconds):
        self._rules, self._seconds = rules, seconds

    def __getattr__(self, name):
        return getattr(self._rules, name)

    def decide(self, *args):
        time.sleep(self._seconds)
        return self._rules.decide(*args)

    def play(self, *args):  # the searches play each move in place
        time.sleep(self._seconds)
        return self._rules.play(*args)


@pytest.mark.parametrize(("rules", "seats"), [(PAX, 4), (DYNASTIES, 3)])
def test_mcts_keeps_to_its_deadline_on_the_wall_clock_even_inside_a_long_playout(rules, seats):
    """The budget covers the whole decision (sampling, the tree, the playouts), checked at
    every move of a playout: with each move slowed to 3 ms and playouts to the end of the
    game, one iteration alone takes far longer than the 30 ms budget."""
    match_events, state = _midgame(rules, seats)
    seat = rules.to_move(state)[0]
    shown = seen(rules, state, match_events, seat)
    bot = mcts_bot(iterations=1_000_000, milliseconds=30, depth=100_000)
    started = time.perf_counter()
    command = bot(_Slow(rules, 0.003), shown, random.Random(0), time.perf_counter)
    took = time.perf_counter() - started
    assert command in shown.commands
    assert took < 0.030 + 0.040, f"a 30 ms budget took {took * 1000:.0f} ms"


def _midgame(rules, seats, moves=12):
    """A position ``moves`` random moves into a seeded game, with its events."""
    rng = random.Random(5)
    events = rules.setup(seats, rules.check_options({}), Rng("mid"))
    state = fold(rules, events)
    played = 0
    while played < moves or len(rules.legal_commands(state, rules.to_move(state)[0])) < 2:
        seat = rng.choice(rules.to_move(state))
        for event in rules.decide(state, seat, rng.choice(rules.legal_commands(state, seat)), Rng("mid", len(events))):
            events.append(event)
            state = rules.evolve(state, event)
        played += 1
    assert rules.outcome(state) is None and len(rules.legal_commands(state, rules.to_move(state)[0])) > 1
    return events, state


def test_a_game_without_a_sampler_offers_only_the_random_kind():
    assert set(bot_kinds(HIGHCARD)) == {"random"}
    assert {"random", "greedy", "mcts"} <= set(bot_kinds(DYNASTIES)) and set(bot_kinds(PAX)) >= {"mcts"}


def test_a_bot_never_reads_a_state():
    """The only thing a bot is handed is ``Seen``: a view, redacted events, commands and what
    its own sealed commands stand for (made from the seat's own secret, like the seals)."""
    fields = set(Seen.__dataclass_fields__)
    assert fields == {"seat", "view", "events", "commands", "meanings"}


# -- non-interference --------------------------------------------------------------------------

BOTS = {"greedy": BOT_KINDS["greedy"].bot(), "mcts": mcts_bot(iterations=12, depth=6),
        "mcts guided": mcts_bot(iterations=6, depth=8, candidates=3, guided=1.0, tree=False),
        "mcts planned": mcts_bot(iterations=4, depth=8, candidates=3, guided=1.0, tree=False, own_plies=2)}


def _choices(rules, state, events, seat):
    shown = seen(rules, state, events, seat)
    if not shown.commands:
        return shown, {}
    return shown, {name: bot(rules, shown, random.Random(9), None) for name, bot in BOTS.items()}


def test_changing_a_humans_hand_changes_no_dynasties_bots_input_or_choice():
    compared = 0
    for a, b, human in worlds_differing_in_one_hand(range(10)):
        seats = 3
        differing = 0
        for cut in range(20, len(a[0]), 9):
            state_a, state_b = fold(DYNASTIES, a[0][:cut]), fold(DYNASTIES, b[0][:cut])
            if (state_a.hands[human], state_a.deck) == (state_b.hands[human], state_b.deck) or differing == 2:
                continue
            differing += 1
            for bot_seat in (q for q in range(seats) if q != human):
                assert _choices(DYNASTIES, state_a, a[0][:cut], bot_seat) == \
                    _choices(DYNASTIES, state_b, b[0][:cut], bot_seat)
                compared += 1
    assert compared >= 8


def test_reordering_the_pax_pamir_deck_changes_no_bots_input_or_choice():
    """The deck beyond what is dealt at a moment T reordered (and exchanged with the cards
    left out): up to T, every bot's input and choice is the same."""
    compared = 0
    for seed, seats in ((0, 2), (1, 4)):
        setup = setup_events(seed, seats)
        a = World(seed, setup)
        built = next(e for e in setup if e.type == "DeckBuilt").secret
        moment = len(a.script) // 2
        dealt = len(built["deck"]) - len(a.states[moment].deck)
        deck, out = exchanged(random.Random(seed), built["deck"], dealt, built["out"])
        b = World(seed, with_deck(setup, deck, out), script=a.script[:moment])
        assert b.states[moment].deck != a.states[moment].deck
        for index in range(5, moment + 1, max(1, moment // 4)):
            mark = a.marks[index]
            for bot_seat in range(seats):
                assert _choices(PAX, a.states[index], a.stream[:mark], bot_seat) == \
                    _choices(PAX, b.states[index], b.stream[:mark], bot_seat)
                compared += 1
    assert compared >= 8


class _Recording:
    """Pax Pamir's rules, recording the events of every command a search plays on the state it
    walks (not on the copies a guided step tries each choice on)."""

    def __init__(self):
        self.played: list[list] = []
        self._copies: list = []

    def __getattr__(self, name):
        return getattr(PAX, name)

    def copy(self, state):
        self._copies.append(PAX.copy(state))
        return self._copies[-1]

    def play(self, state, seat, command, rng):
        events, after = PAX.play(state, seat, command, rng)
        if not any(state is tried for tried in self._copies):
            self.played.append(events)
        return events, after


def test_an_mcts_playout_ends_as_its_seats_next_turn_begins_after_wakhans():
    """R-TRN-1 ``TurnStarted``: each iteration from the human's turn runs through Wakhan's
    whole turn (inside the human's last command) and stops where the human's next turn begins,
    however deep its depth would let it go; or at the end of the game."""
    from domain.kernel.bots import _Deadline, _iterate, _Node
    from tests.unit.bots.games import random_positions

    game = next(g for g in random_positions("pax_pamir", 1, 3, every=7, options={"wakhan": True})
                if g.rules.to_move(g.state) == [0] and len(g.rules.legal_commands(g.state, 0)) > 3)
    recording, root, rng = _Recording(), _Node(), random.Random(5)
    stops = 0
    for _ in range(25):
        recording.played.clear()
        _iterate(recording, PAX.copy(game.state), 0, root, rng, 500, 0.7, _Deadline(None, None))
        began = [e.data["seat"] for events in recording.played for e in events if e.type == "TurnStarted"]
        last = [e.data["seat"] for e in recording.played[-1] if e.type == "TurnStarted"]
        over = any(e.type == "GameEnded" for e in recording.played[-1])
        # the last command began the human's turn, after Wakhan's (seat 1) began in this iteration
        assert over or (last and last[-1] == 0 and began[-2:] == [1, 0]), began
        assert began.count(0) <= 2  # at most one turn of its own walked in the tree, none played out beyond
        stops += not over
    assert stops >= 20
    assert sum(child.visits for child in root.children.values()) == 25


# -- the guided, narrowed search (Pax Pamir's mcts levels) ------------------------------------

def test_pax_pamirs_mcts_searches_guided_except_at_a_table_with_wakhan():
    from domain.games.pax_pamir.bots import GUIDED
    from tests.unit.bots.games import random_positions
    kind, generic = bot_kinds(PAX)["mcts"], BOT_KINDS["mcts"]
    assert list(kind.levels) == list(generic.levels) and kind.default_level == generic.default_level
    assert GUIDED["normal"]["candidates"] < GUIDED["hard"]["candidates"]
    assert GUIDED["normal"]["iterations"] < GUIDED["hard"]["iterations"]
    assert bot_kinds(DYNASTIES)["mcts"] is generic
    guided = mcts_bot(**{**generic.levels["normal"], **GUIDED["normal"]})
    plain = generic.bot("normal")
    for options, seats, expected in (({}, 2, guided), ({"wakhan": True}, 1, plain)):
        game = next(g for g in random_positions("pax_pamir", seats, 3, every=5, options=options)
                    if g.rules.to_move(g.state) == [0] and len(g.rules.legal_commands(g.state, 0)) > 8)
        shown = seen(PAX, game.state, game.events, 0)
        chosen = [kind.bot("normal")(PAX, shown, random.Random(k), None) for k in range(4)]
        assert chosen == [expected(PAX, shown, random.Random(k), None) for k in range(4)]
        # the two searches differ here, so the check above tells which one played
        assert chosen != [other(PAX, shown, random.Random(k), None) for k in range(4)
                          for other in [plain if expected is guided else guided]]


def _pax_position(seed: int = 3):
    from tests.unit.bots.games import random_positions
    return next(g for g in random_positions("pax_pamir", 2, seed, every=5)
                if g.rules.to_move(g.state) == [0] and len(g.rules.legal_commands(g.state, 0)) > 8)


def test_the_root_is_narrowed_to_the_choices_greedy_judges_best(monkeypatch):
    from domain.kernel import bots
    game = _pax_position()
    commands = PAX.legal_commands(game.state, 0)
    judgement = {c: float((index * 5) % 11 + index / 100) for index, c in enumerate(commands)}
    monkeypatch.setattr(bots, "_value", lambda _game, after, seat, rng, plies: judgement[after])
    monkeypatch.setattr(bots, "_after", lambda _game, state, seat, command, rng: command)
    allowed = bots._judged(PAX, game.state, 0, commands, random.Random(1), 3)
    assert sorted(judgement[c] for c in allowed) == sorted(judgement.values())[-3:]


def test_a_flat_search_walks_only_its_candidates_and_plays_out_below_them():
    from domain.kernel.bots import _Deadline, _iterate, _judged, _Node
    game = _pax_position()
    commands = PAX.legal_commands(game.state, 0)
    root, rng = _Node(), random.Random(2)
    root.allowed = _judged(PAX, PAX.copy(game.state), 0, commands, rng, 3)
    for _ in range(9):
        _iterate(PAX, PAX.copy(game.state), 0, root, rng, 12, 0.7, _Deadline(None, None), guided=1.0, tree=False)
    assert root.allowed is not None and set(root.children) <= root.allowed and len(root.allowed) == 3
    assert sum(child.visits for child in root.children.values()) == 9
    assert all(not child.children for child in root.children.values())  # nothing below the root


def test_a_planned_step_is_the_seats_best_by_greedys_judgement_two_choices_ahead():
    """``own_plies`` 2: the seat's step weighs each choice with its best next choice while it
    alone is still to move (a purchase by the play it allows), which one step ahead may miss."""
    from domain.kernel.bots import _after, _planned_step, _value
    compared = differs = 0
    for game in itertools.islice(itertools.chain(_positions_with_choices(), _positions_with_choices(12)), 12):
        seat = game.rules.to_move(game.state)[0]
        commands = PAX.legal_commands(game.state, seat)

        def judged(plies, command, state=game.state, seat=seat):
            return _value(PAX, _after(PAX, state, seat, command, random.Random(0)), seat, random.Random(0), plies)
        two = {c: judged(2, c) for c in commands}
        one = {c: judged(1, c) for c in commands}
        chosen = _planned_step(PAX, game.state, seat, commands, random.Random(compared), 2)
        assert two[chosen] == max(two.values())
        best_by_one = {c for c in commands if one[c] == max(one.values())}
        differs += chosen not in best_by_one
        compared += 1
    assert compared == 12 and differs >= 1


def test_with_own_plies_only_the_seats_own_playout_steps_are_planned(monkeypatch):
    from domain.kernel import bots
    game = _pax_position()
    planned, stepped = [], []
    real_planned, real_best = bots._planned_step, bots._best_step
    monkeypatch.setattr(bots, "_planned_step", lambda g, state, seat, commands, rng, plies: (
        planned.append((g.to_move(state), plies)), real_planned(g, state, seat, commands, rng, plies))[1])
    monkeypatch.setattr(bots, "_best_step", lambda g, state, mover, commands, rng: (
        stepped.append(mover), real_best(g, state, mover, commands, rng))[1])
    root, rng = bots._Node(), random.Random(6)
    root.allowed = bots._judged(PAX, PAX.copy(game.state), 0, PAX.legal_commands(game.state, 0), rng, 3)
    for _ in range(4):
        bots._iterate(PAX, PAX.copy(game.state), 0, root, rng, 60, 0.7, bots._Deadline(None, None), guided=1.0,
                      tree=False, own_plies=2)
    assert planned and all(movers[0] == 0 and plies == 2 for movers, plies in planned)
    assert stepped and set(stepped) == {1}


def _positions_with_choices(seed: int = 11):
    from tests.unit.bots.games import random_positions
    for game in random_positions("pax_pamir", 2, seed, every=9):
        movers = game.rules.to_move(game.state)
        if movers and len(game.rules.legal_commands(game.state, movers[0])) > 4:
            yield game
