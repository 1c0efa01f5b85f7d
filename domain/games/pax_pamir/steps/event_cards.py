"""Event cards (R-EVT, section 16) and the special abilities that act at set moments
(R-SA, section 15): start of turn (Blackmail) and after a Dominance Check (Insurrection)."""

from __future__ import annotations

from domain.games.pax_pamir.data.board import Coalition, Region
from domain.games.pax_pamir.data.cards import INSURRECTION
from domain.games.pax_pamir.queries import owner_of
from domain.games.pax_pamir.steps.common import Play, Procedure, place_piece
from domain.kernel.steps import Frame

#: Insurrection: Afghan armies placed in Kabul after a check that does not end the game.
INSURRECTION_ARMIES = 2


class EventPurchased(Procedure):
    """R-PUR-5, section 16: the purchase effect of an event card."""

    name = "event_purchased"
    stages = ()


class EventDiscarded(Procedure):
    """R-CLN-3, section 16: the discard effect of an event card in column 0."""

    name = "event_discarded"
    stages = ()


class StartOfTurn(Procedure):
    """R-TRN-1: abilities used at the start of a turn (Blackmail)."""

    name = "start_of_turn"
    stages = ()


class Insurrection(Procedure):
    """R-SA Insurrection (card 3): after every check that does not end the game, its owner
    places two Afghan armies in Kabul (R-LIM if the Afghan blocks run out)."""

    name = "insurrection"
    stages = ("place_armies",)

    def place_armies(self, t: Play, frame: Frame) -> None:
        owner = owner_of(t.state, INSURRECTION)
        if owner is None or t.state.players[owner].loyalty != Coalition.AFGHAN:
            return
        for _ in range(INSURRECTION_ARMIES):
            place_piece(t, owner, "army", Region.KABUL.value)


VERBS: tuple = ()
STEPS = (EventPurchased(), EventDiscarded(), StartOfTurn(), Insurrection())
