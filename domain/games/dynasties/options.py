"""Game-creation options (rulings §3). Every default reproduces the rulings.

``players`` is not an option here: the seat count comes from the platform (R3). ``seating``
is listed for the lobby but applied by the platform before ``setup``, so the rules ignore it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.kernel.errors import InvalidOptions
from domain.kernel.rules import OptionSpec
from domain.kernel.rules import check_options as check_against_specs

MIN_SEATS = 2
MAX_SEATS = 6

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("seating", "choice", "as_joined", "Seat order: join order, or shuffled by the platform (R4).",
               choices=("as_joined", "random")),
    OptionSpec("starting_gold", "int", 50, "Gold in every Treasury at the start (R5).", minimum=1,
               maximum=100),
    OptionSpec("legacy", "int", 0, "The agreed Legacy paid to the winner(s) at Game Over (R6, R49).", minimum=0,
               maximum=10000),
    OptionSpec("starting_hand", "int", 4, "Nobles dealt to each seat at setup (R7).", minimum=1, maximum=6),
    OptionSpec("enquire_threshold", "int", 1, "A seat holding at most this many Nobles Enquires (R10).",
               minimum=0, maximum=3),
    OptionSpec("enquire_refill_to", "int", 4, "An Enquire refills the hand to this many Nobles (R10).",
               minimum=2, maximum=6),
    OptionSpec("enquire_price_card", "choice", "keep",
               "The flipped price card is kept as the first card taken, or discarded as in TDA (R11).",
               choices=("keep", "discard")),
    OptionSpec("mid_round_enquire", "choice", "empty",
               "Getting cards while placing: Enquire when the hand is empty, the TDA rule, or never (R13).",
               choices=("empty", "tda", "never")),
    OptionSpec("shortfall", "choice", "forgive",
               "Gold a seat cannot pay is forgiven, or recorded as debt paid into the Legacy (R15).",
               choices=("forgive", "debt_to_legacy")),
    OptionSpec("all_tied_tribute", "choice", "redraw",
               "When every Tribute is tied: redraw and give again, or the anchor leads (R20).",
               choices=("redraw", "anchor_leads")),
    OptionSpec("removed_cards_count_for_lead", "bool", False,
               "Kings removed during a Turn still count when choosing the next leader (R25)."),
    OptionSpec("combinations_require_activation", "bool", False,
               "Conclave and Pureblood form only on an activating placement (R28)."),
    OptionSpec("coronation_bonus", "int", 10, "Tally bonus of each Coronation in a Family (R44).", minimum=0,
               maximum=100),
    OptionSpec("dynasty_bonus", "int", 3, "Tally bonus of each Noble of the Current Dynasty (R44).", minimum=0,
               maximum=100),
    OptionSpec("conclave_max_cards", "int", 2, "Cards a Conclave may take from the Tribute Zone (R39).",
               minimum=0, maximum=4),
    OptionSpec("empty_stakes_ends_round", "bool", False,
               "A Conclave that empties the Stakes ends the round at once, as in TDA (R40)."),
    OptionSpec("tie_break_participants", "choice", "all",
               "Who plays a tie-break Turn: every seat, or only the tied seats (R45).", choices=("all", "tied")),
    OptionSpec("max_tie_break_turns", "int", None, "Tie-break Turns allowed per round; null for no limit (R46).",
               minimum=1, maximum=100, nullable=True),
    OptionSpec("unresolved_tie", "choice", "carry",
               "A tie that cannot be broken carries the Stakes, or splits them among the tied (R46).",
               choices=("carry", "split")),
    OptionSpec("hand_limit", "int", 6, "Hand limit checked after each draw in Draw & Retirement (R53).",
               minimum=2, maximum=60),
    OptionSpec("draw_per_round", "int", 1, "Nobles each seat draws in Draw & Retirement (R52).",
               minimum=0, maximum=3),
)


def check_options(given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Defaults filled in, every value and the cross-option rules of §3 checked."""
    options = check_against_specs(OPTIONS, dict(given or {}))
    if options["hand_limit"] < options["enquire_refill_to"]:
        raise InvalidOptions("hand_limit", f"must be at least enquire_refill_to ({options['enquire_refill_to']})")
    if options["starting_hand"] > options["hand_limit"]:
        raise InvalidOptions("starting_hand", f"must be at most hand_limit ({options['hand_limit']})")
    if (options["enquire_threshold"] == 0 and options["mid_round_enquire"] == "never"
            and options["unresolved_tie"] == "split"):
        # Hands run dry with no way to buy cards, every Family totals 0, and each split hands
        # the gold back: no one can ever go Broke, so the game would never end.
        raise InvalidOptions("unresolved_tie", "cannot be 'split' when enquire_threshold is 0 and "
                             "mid_round_enquire is 'never': hands run dry and the game could never end")
    return options


def check_seats(seats: object) -> int:
    """The seat count (option ``players``) must be 2-6 (R3)."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidOptions("players", f"a game needs {MIN_SEATS} to {MAX_SEATS} seats, not {seats!r}")
    return seats
