"""Bribes (R-BRB): owed to a ruler for a play (R-PLY-2) or to a hostage holder for a
card-based action (R-ACT-2)."""

from __future__ import annotations

from domain.games.pax_pamir import events as ev
from domain.games.pax_pamir.state import PaxState
from domain.games.pax_pamir.steps.common import Play
from domain.kernel.prompt import Prompt, Verb
from domain.kernel.steps import Frame, Step, handles


class Bribe(Step[PaxState]):
    """The payer pays ``amount`` to ``recipient`` or abandons (no action is spent)."""

    name = "bribe"

    def ask(self, s: PaxState, frame: Frame) -> Prompt:
        prompt = Prompt(frame.seat, f"Seat {frame.recipient} asks a bribe of {frame.amount} rupee(s).")  # type: ignore[arg-type]
        if s.players[frame.seat].rupees >= frame.amount + frame.reserve:  # type: ignore[index]
            prompt.nothing("PayBribe")
        return prompt.nothing("AbandonBribe")

    @handles("PayBribe")
    def pay(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        if frame.amount:
            t.emit(ev.rupees_moved(frame.amount, f"seat:{seat}", f"seat:{frame.recipient}", "bribe"))
        t.end()

    @handles("AbandonBribe")
    def abandon(self, t: Play, frame: Frame, seat: int, _: None) -> None:
        t.end()
        t.update(abandoned=True)


VERBS = (
    Verb("PayBribe", "Pay the bribe in full (R-BRB-2).", refusal="no bribe is asked of you now"),
    Verb("AbandonBribe", "Give up the play or action rather than pay (R-BRB-4).",
         refusal="no bribe is asked of you now"),
)

STEPS = (Bribe(),)
