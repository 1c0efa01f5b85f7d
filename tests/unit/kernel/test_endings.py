"""What a resignation means in each game, and the fold of the platform's endings and
invitations (``domain.kernel.endings``, ``domain.kernel.invitations``)."""

from __future__ import annotations

from domain.games.dynasties import RULES as DYNASTIES
from domain.games.pax_pamir import RULES as PAX_PAMIR
from domain.kernel.endings import (
    Endings,
    end_agreed,
    end_declined,
    end_proposed,
    every_other_seat_wins,
    game_aborted,
    rematch_started,
    resigned_outcome,
    seat_resigned,
)
from domain.kernel.invitations import (
    DECLINED,
    EXPIRED,
    PENDING,
    Invitations,
    invitation_declined,
    invitation_sent,
)
from domain.kernel.rng import Rng


def _dynasties(seats):
    state = None
    for event in DYNASTIES.setup(seats, DYNASTIES.check_options({}), Rng("resign", 0)):
        state = DYNASTIES.evolve(state, event)
    return state


def _pax(seats):
    state = None
    for event in PAX_PAMIR.setup(seats, PAX_PAMIR.options_type.from_json({}), Rng("resign", 0)):
        state = PAX_PAMIR.evolve(state, event)
    return state


def test_in_dynasties_the_richest_other_treasury_wins_a_resignation():
    state = _dynasties(4)
    state.treasury = [30, 45, 45, 10]
    outcome = resigned_outcome(DYNASTIES, state, 1, 4)
    assert outcome.winners == (2,)  # seat 1 had as much, but resigned
    assert outcome.scores == {0: 30, 1: 45, 2: 45, 3: 10}
    assert outcome.details == {"reason": "resigned", "resigned": 1}
    state.treasury = [30, 45, 30, 10]
    assert resigned_outcome(DYNASTIES, state, 1, 4).winners == (0, 2)  # tied on gold: they share it


def test_in_pax_pamir_the_other_seats_are_ordered_as_at_the_end_of_the_game():
    state = _pax(3)
    for seat, (vp, rupees) in enumerate([(4, 1), (6, 0), (4, 3)]):
        state.players[seat].vp, state.players[seat].rupees = vp, rupees
    assert resigned_outcome(PAX_PAMIR, state, 1, 3).winners == (2,)  # tied on points, more rupees
    assert resigned_outcome(PAX_PAMIR, state, 0, 3).winners == (1,)
    assert resigned_outcome(PAX_PAMIR, state, 0, 3).scores == {0: 4, 1: 6, 2: 4}


def test_a_game_without_a_ruling_gives_the_win_to_every_other_seat():
    class Silent:
        pass

    assert resigned_outcome(Silent(), object(), 2, 3).winners == (0, 1)
    assert every_other_seat_wins(2, 0).scores == {0: 0, 1: 1}


def test_the_endings_fold_keeps_the_outcome_decided_at_the_time():
    endings = Endings()
    outcome = resigned_outcome(DYNASTIES, _dynasties(2), 0, 2)
    endings.apply(end_proposed(1))
    endings.apply(end_declined(0))
    assert endings.end_votes == set()
    endings.apply(end_proposed(0))
    endings.apply(end_agreed(1))
    assert endings.end_votes == {0, 1}
    endings.apply(seat_resigned(0, outcome))
    assert endings.outcome == outcome and endings.end_votes == set()
    endings.apply(rematch_started("0123456789abcdef"))
    assert endings.rematch == "0123456789abcdef"
    aborted = Endings()
    aborted.apply(game_aborted(None))
    assert aborted.outcome is not None and aborted.outcome.winners == () and aborted.outcome.details["reason"] == "aborted"


def test_an_invitation_expires_and_holds_its_seat_while_pending():
    invitations = Invitations()
    invitations.apply(invitation_sent("a", "p1", 1, "p2", "Bob", "2026-01-01T00:10:00.000Z", None))
    invitations.apply(invitation_sent("b", "p1", None, None, None, "2026-01-01T00:20:00.000Z", "hash"))
    assert invitations.reserved_seats("2026-01-01T00:00:00.000Z") == {1}
    assert invitations.by_id["a"].status_at("2026-01-01T00:10:00.000Z") == EXPIRED
    assert invitations.reserved_seats("2026-01-01T00:10:00.000Z") == set()
    invitations.apply(invitation_declined("b"))
    assert invitations.by_id["b"].status == DECLINED
    assert [i.id for i in invitations.pending("2026-01-01T00:00:00.000Z")] == ["a"]
    assert invitations.by_id["a"].status == PENDING
    # the code's hash is in the secret part, which nobody receives
    sent = invitation_sent("c", "p1", None, None, None, "2026-01-01T00:20:00.000Z", "hash")
    assert "hash" not in str(sent.data) and sent.secret_to == frozenset()
