"""No bot kind can keep a game from ending: seeded games of each kind against itself at 2 to
5 seats end within a move bound. (Pax Pamir once let a payer give up a bribe and start the
same play again for nothing, for ever; rules.md section 23 item 16 closes it: a give-up
counts with the declines toward three a turn, and after three a bribe is paid in full.) The default run plays a game per kind and seat count
(mcts in Pax Pamir at 2 seats only); the ``drill`` run plays many of each."""

from __future__ import annotations

import pytest

from domain.games.dynasties import RULES as DYNASTIES
from domain.games.pax_pamir import RULES as PAX
from domain.kernel.arena import play_match
from domain.kernel.bots import BOT_KINDS, mcts_bot

KINDS = {"random": BOT_KINDS["random"].bot(), "greedy": BOT_KINDS["greedy"].bot(),
         "mcts": mcts_bot(iterations=8, depth=6)}
#: far more decisions than any game of these bots has needed (a few hundred at five seats)
MOVE_BOUND = 2000
SEATS = (2, 3, 4, 5)


def _ends(rules, kind, seats, seeds):
    for seed in seeds:
        match = play_match(rules, seats, [KINDS[kind]] * seats, seed=f"live:{seed}", limit=MOVE_BOUND)
        assert match.outcome is not None, (
            f"{rules.kind}, {seats} {kind} bots, seed {seed}: no end in {match.decisions} decisions")


#: mcts at 3 to 5 seats costs minutes a game on a loaded machine: in the drill only
PAX_DEFAULT = [(kind, seats) for kind in ("random", "greedy") for seats in SEATS] + [("mcts", 2)]


@pytest.mark.parametrize(("kind", "seats"), PAX_DEFAULT)
def test_every_bot_kind_ends_pax_pamir_games_within_a_move_bound(kind, seats):
    _ends(PAX, kind, seats, range(1))


@pytest.mark.parametrize("seats", SEATS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_bot_kind_ends_dynasties_games_within_a_move_bound(kind, seats):
    _ends(DYNASTIES, kind, seats, range(2))


@pytest.mark.drill
@pytest.mark.parametrize("seats", SEATS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_drill_many_seeded_bot_games_of_each_kind_end_within_a_move_bound(kind, seats):
    _ends(PAX, kind, seats, range(1, 21))
    _ends(DYNASTIES, kind, seats, range(2, 22))
