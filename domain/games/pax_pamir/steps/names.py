"""The name of every Pax Pamir step, said once (rules.md's procedures): a step class takes its
``name`` from here and every ``call``/``goto`` names the step it starts from here, so a typo
is an import error rather than a runaway game. The names are stored in frame events: never
change one (an old stream would no longer fold)."""

from __future__ import annotations

from typing import Final

ACTION: Final = "action"
BATTLE: Final = "battle"
BETRAY: Final = "betray"
BRIBE: Final = "bribe"
BRIBE_OFFER: Final = "bribe_offer"
BUILD: Final = "build"
CHOOSE_SIDE: Final = "choose_side"
CLEANUP: Final = "cleanup"
CONFIDENCE_FAILURE: Final = "confidence_failure"
DISCARD_COURT_CARD: Final = "discard_court_card"
DOMINANCE_CHECK: Final = "dominance_check"
EVENT_DISCARDED: Final = "event_discarded"
EVENT_PURCHASED: Final = "event_purchased"
GIFT: Final = "gift"
IMPACTS: Final = "impacts"
INFRASTRUCTURE: Final = "infrastructure"
INSURRECTION: Final = "insurrection"
LEVERAGE_DISCARD: Final = "leverage_discard"
LIMIT_DISCARD: Final = "limit_discard"
LOYALTY: Final = "loyalty"
LOYALTY_CHANGE: Final = "loyalty_change"
MOVE: Final = "move"
OVERTHROW: Final = "overthrow"
PLAY: Final = "play"
PRIZE: Final = "prize"
REFILL: Final = "refill"
SAFE_HOUSE: Final = "safe_house"
START_OF_TURN: Final = "start_of_turn"
TAKE_PIECE: Final = "take_piece"
TAX: Final = "tax"
TURN: Final = "turn"
TURNS: Final = "turns"
WAKHAN_LOYALTY: Final = "wakhan_loyalty"
WAKHAN_PAUSE: Final = "wakhan_pause"
WAKHAN_TURN: Final = "wakhan_turn"
