"""Game-creation options (rulings §3), as one typed object. Every default reproduces the rulings.

``players`` is not an option here: the seat count comes from the platform (R3), and so does
``seating`` (R4): the platform shuffles the seats before ``setup``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mypy_extensions import mypyc_attr

from domain.kernel.errors import InvalidOptions
from domain.kernel.rules import GameOptions, option

MIN_SEATS = 2
MAX_SEATS = 6


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class DynastiesOptions(GameOptions):
    # every integer has a maximum: a game's values stay sane and every game ends (starting_gold
    # above 100 makes games of thousands of commands)
    starting_gold: int = option(50, "Gold in every Treasury at the start (R5).", minimum=1, maximum=100)
    legacy: int = option(0, "The agreed Legacy paid to the winner(s) at Game Over (R6, R49).", minimum=0,
                         maximum=10000)
    starting_hand: int = option(4, "Nobles dealt to each seat at setup (R7).", minimum=1, maximum=6)
    enquire_threshold: int = option(1, "At phase 1, a seat holding at most this many Nobles Enquires (R10).",
                                    minimum=0, maximum=3)
    enquire_refill_to: int = option(4, "An Enquire refills the hand to this many Nobles (R10).",
                                     minimum=2, maximum=6)
    enquire_price_card: str = option(
        "keep", "The flipped price card is kept as the first card taken, or discarded as in TDA (R11).",
        choices=("keep", "discard"))
    mid_round_enquire: str = option(
        "empty", "Getting cards while placing: Enquire when the hand is empty, the TDA rule (at most one "
        "card), or never (R13).", choices=("empty", "tda", "never"))
    shortfall: str = option("forgive", "Gold a seat cannot pay is forgiven, or recorded as debt paid into "
                            "the Legacy (R15).", choices=("forgive", "debt_to_legacy"))
    all_tied_tribute: str = option("redraw", "When every Tribute is tied: redraw and give again, or the "
                                   "anchor leads (R20).", choices=("redraw", "anchor_leads"))
    removed_cards_count_for_lead: bool = option(
        False, "Kings removed during a Turn still count when choosing the next leader (R25).")
    combinations_require_activation: bool = option(
        False, "Conclave and Pureblood form only on an activating placement (R28).")
    coronation_bonus: int = option(10, "Tally bonus of each Coronation in a Family (R44).", minimum=0,
                                   maximum=100)
    dynasty_bonus: int = option(3, "Tally bonus of each Noble of the Current Dynasty (R44).", minimum=0,
                                maximum=100)
    conclave_max_cards: int = option(2, "Cards a Conclave may take from the Tribute Zone (R39).",
                                     minimum=0, maximum=4)
    empty_stakes_ends_round: bool = option(
        False, "A Conclave that empties the Stakes ends the round at once, as in TDA (R40).")
    tie_break_participants: str = option("all", "Who plays a tie-break Turn: every seat, or only the tied "
                                         "seats (R45).", choices=("all", "tied"))
    max_tie_break_turns: int | None = option(None, "Tie-break Turns allowed per round; null for no limit (R46).",
                                             minimum=1, maximum=100, nullable=True)
    unresolved_tie: str = option("carry", "A tie that cannot be broken carries the Stakes, or splits them "
                                 "among the tied (R46).", choices=("carry", "split"))
    hand_limit: int = option(6, "Hand limit checked after each draw in Draw & Retirement (R53).", minimum=2,
                             maximum=60)
    draw_per_round: int = option(1, "Nobles each seat draws in Draw & Retirement (R52).", minimum=0, maximum=3)
    commit_reveal_tributes: bool = option(
        False, "Tributes by commit-reveal: each seat first seals sha256(salt || card id) (CommitTribute), then, "
        "once every seat has sealed, reveals its salt (RevealTribute), so nobody, the server included, can "
        "change a Tribute after seeing another (R17a).")

    def validate(self) -> None:
        """The cross-option rules of §3, and the one option set that can never end."""
        if self.hand_limit < self.enquire_refill_to:
            raise InvalidOptions("hand_limit", f"must be at least enquire_refill_to ({self.enquire_refill_to})")
        if self.starting_hand > self.hand_limit:
            raise InvalidOptions("starting_hand", f"must be at most hand_limit ({self.hand_limit})")
        if never_ends(self):
            raise InvalidOptions(
                "unresolved_tie", "cannot be 'split' when enquire_threshold is 0, mid_round_enquire is 'never' "
                "and draw_per_round is 1: from the second round every hand holds one card, given as Tribute, "
                "so no Noble is ever placed, every tie is split back and the game could never end")


def never_ends(options: DynastiesOptions) -> bool:
    """The option sets refused because play cannot end (docs/rules/dynasties.md, "Refused option sets").

    Each round a seat draws exactly one Noble and holds it at phase 1, which is more than
    ``enquire_threshold = 0``, so it never Enquires; that Noble goes as its Tribute, it can
    never Enquire while placing, so every Family stays empty, every Conclusion is a tie
    nobody can break, and ``split`` gives the Stakes back. With ``draw_per_round`` 0 an
    empty hand Enquires at phase 1, and with 2 or 3 a Noble is left to place: those end.
    """
    return (options.enquire_threshold == 0 and options.mid_round_enquire == "never"
            and options.unresolved_tie == "split" and options.draw_per_round == 1)


OPTIONS = DynastiesOptions.specs()


