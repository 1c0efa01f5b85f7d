"""The Pax Pamir card catalogue: what is printed on each of the 116 cards, for any front end to draw.

Public data, the same for every game (nothing here depends on a deal): a court card's region, suit,
stars, patriot bar, prize, its card-based actions left to right, its impact icons in printed order
(top to bottom, the order they resolve in) and its special ability; an event card's two sides; a
Dominance Check. Names of abilities and every text are our own words (the summaries of ``data/cards``);
the numbers are ``shared/rules/paxpamir/cards.yaml``'s. ``version`` changes whenever any of it does.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from domain.games.pax_pamir.data.cards import (
    ALL_CARDS,
    SPECIAL_ABILITIES,
    Ability,
    CardAction,
    CourtCard,
    EventCard,
    EventSide,
    ImpactIcon,
)

#: how a player names each special ability (the two citadels and blackmails share a name)
ABILITY_NAMES: dict[Ability, str] = {
    Ability.INDISPENSABLE_ADVISORS: "Indispensable Advisors",
    Ability.INSURRECTION: "Insurrection",
    Ability.CLAIM_OF_ANCIENT_LINEAGE: "Claim of Ancient Lineage",
    Ability.BODYGUARDS: "Bodyguards",
    Ability.CITADEL_KABUL: "Citadel",
    Ability.CITADEL_TRANSCASPIA: "Citadel",
    Ability.STRANGE_BEDFELLOWS: "Strange Bedfellows",
    Ability.CIVIL_SERVICE_REFORMS: "Civil Service Reforms",
    Ability.SAFE_HOUSE: "Safe House",
    Ability.CHARISMATIC_COURTIERS: "Charismatic Courtiers",
    Ability.BLACKMAIL_KANDAHAR: "Blackmail",
    Ability.BLACKMAIL_HERAT: "Blackmail",
    Ability.INDIAN_SUPPLIES: "Indian Supplies",
    Ability.WELL_CONNECTED: "Well Connected",
    Ability.HERAT_INFLUENCE: "Herat Influence",
    Ability.PERSIAN_INFLUENCE: "Persian Influence",
    Ability.RUSSIAN_INFLUENCE: "Russian Influence",
    Ability.INFRASTRUCTURE: "Infrastructure",
    Ability.SAVVY_OPERATOR: "Savvy Operator",
    Ability.IRREGULARS: "Irregulars",
}

#: what each card-based action does, in a line (section 10 of the rules as played here)
ACTION_TEXTS: dict[CardAction, str] = {
    CardAction.TAX: "Take up to the card's stars in rupees, from the market or from players with a card "
    "in a region you rule.",
    CardAction.GIFT: "Pay 2, 4 or 6 rupees to put a cylinder on a gift space: one more influence.",
    CardAction.BUILD: "Pay 2 rupees a block for armies or roads where you rule (up to three).",
    CardAction.MOVE: "One step a star: an army along your coalition's roads, or a spy along the court track.",
    CardAction.BETRAY: "Pay 2 rupees to discard a card your spy sits on; you may keep its prize.",
    CardAction.BATTLE: "Remove up to the card's stars in enemy pieces from a region or a card, no more than "
    "you have there.",
}

#: what each impact icon does when the card is played, in a line (R-IMP)
ICON_TEXTS: dict[ImpactIcon, tuple[str, str]] = {
    ImpactIcon.ROAD: ("Road", "Place a road of your coalition on a border of the card's region."),
    ImpactIcon.ARMY: ("Army", "Place an army of your coalition in the card's region."),
    ImpactIcon.TRIBE: ("Tribe", "Place one of your cylinders in the card's region as a tribe."),
    ImpactIcon.SPY: ("Spy", "Place one of your cylinders as a spy on a court card of the card's region."),
    ImpactIcon.LEVERAGE: ("Leverage", "Take 2 rupees from the bank; the card is leveraged (pay or discard later)."),
    ImpactIcon.FAVORED_SUIT_ECONOMIC: ("Favored suit: economic", "Economic becomes the favored suit."),
    ImpactIcon.FAVORED_SUIT_MILITARY: ("Favored suit: military", "Military becomes the favored suit."),
    ImpactIcon.FAVORED_SUIT_POLITICAL: ("Favored suit: political", "Political becomes the favored suit."),
    ImpactIcon.FAVORED_SUIT_INTELLIGENCE: ("Favored suit: intelligence", "Intelligence becomes the favored suit."),
}

DOMINANCE_CHECK_TEXT = ("Bought or discarded from the market's first column: the Dominance Check is resolved "
                        "(victory points by coalition or by influence).")


def _side(side: EventSide) -> dict[str, Any]:
    return {"key": side.effect.value, "name": side.name, "text": side.description,
            "duration": side.duration.value, "scope": side.scope.value}


def face(number: int) -> dict[str, Any]:
    """Everything printed on card ``number``, as plain JSON."""
    card = ALL_CARDS[number]
    out: dict[str, Any] = {"number": number, "name": card.name}
    if isinstance(card, CourtCard):
        ability = card.special_ability
        out.update(kind="court", region=card.region.value, suit=card.suit.value, rank=card.rank,
                   patriot=card.patriot.value if card.patriot else None,
                   prize=card.prize.value if card.prize else None,
                   actions=[action.value for action in card.actions],
                   impact_icons=[icon.value for icon in card.impact_icons],
                   special_ability=None if ability is None else {
                       "key": ability.value, "name": ABILITY_NAMES[ability],
                       "timing": SPECIAL_ABILITIES[ability].timing.value,
                       "text": SPECIAL_ABILITIES[ability].description})
    elif isinstance(card, EventCard):
        out.update(kind="event", purchasable=card.purchasable, if_purchased=_side(card.purchase),
                   if_discarded=_side(card.discard))
    else:
        out.update(kind="dominance_check", text=DOMINANCE_CHECK_TEXT)
    return out


def _build() -> dict[str, Any]:
    body: dict[str, Any] = {
        "game": "pax_pamir",
        "schema_version": 1,
        "actions": {action.value: {"name": action.value.capitalize(), "text": text}
                    for action, text in ACTION_TEXTS.items()},
        "impact_icons": {icon.value: {"name": name, "text": text} for icon, (name, text) in ICON_TEXTS.items()},
        "cards": {str(number): face(number) for number in ALL_CARDS},
    }
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    return {"version": f"{body['schema_version']}-{digest}", **body}


def _check() -> None:
    """Refuse a catalogue that misses a name or a text (a new ability, icon or action needs its words)."""
    if set(ABILITY_NAMES) != set(Ability) or set(ACTION_TEXTS) != set(CardAction) or set(ICON_TEXTS) != set(ImpactIcon):
        raise ValueError("every ability, card action and impact icon needs its words in the catalogue")


_check()

#: the catalogue served at ``GET /game-types/pax_pamir/cards`` (built once, at import)
CATALOGUE: dict[str, Any] = _build()
