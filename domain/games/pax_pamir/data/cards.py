"""The Pax Pamir cards, keyed by rulebook number: court cards 1-100, Dominance Checks 101-104 and
events 105-116 (R-CMP-6), with named constants for every card the rules single out.

The facts come from ``cards_table.py`` (generated from ``shared/rules/paxpamir/cards.yaml`` by
``tools/gen_pax_cards.py``); this module types and checks them. Ability and event-effect keys are
StrEnums whose values are the yaml keys, so ``Ability.SAFE_HOUSE == "safe_house"``. Descriptions
are our own short summaries; the rules that apply them are cited by rules.md id (R-SA, R-EVT, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from domain.games.pax_pamir.data.board import Coalition, Region, Suit
from domain.games.pax_pamir.data.cards_table import (
    COURT_CARD_ROWS,
    DOMINANCE_CHECK_ROWS,
    EVENT_CARD_ROWS,
    SPECIAL_ABILITY_ROWS,
    EventEffectRow,
)

# --- Vocabulary --------------------------------------------------------------------------------


class ImpactIcon(StrEnum):
    """What playing a court card does, one icon at a time in printed order (R-IMP, R-PLY-5)."""

    ROAD = "road"
    ARMY = "army"
    TRIBE = "tribe"
    SPY = "spy"
    LEVERAGE = "leverage"
    FAVORED_SUIT_ECONOMIC = "favored_suit_economic"
    FAVORED_SUIT_MILITARY = "favored_suit_military"
    FAVORED_SUIT_POLITICAL = "favored_suit_political"
    FAVORED_SUIT_INTELLIGENCE = "favored_suit_intelligence"


#: The suit each favored-suit icon makes favored (R-IMP); other icons are absent.
FAVORED_SUIT_OF_ICON: Final[dict[ImpactIcon, Suit]] = {
    ImpactIcon.FAVORED_SUIT_ECONOMIC: Suit.ECONOMIC,
    ImpactIcon.FAVORED_SUIT_MILITARY: Suit.MILITARY,
    ImpactIcon.FAVORED_SUIT_POLITICAL: Suit.POLITICAL,
    ImpactIcon.FAVORED_SUIT_INTELLIGENCE: Suit.INTELLIGENCE,
}


class CardAction(StrEnum):
    """The card-based actions printed on court cards (R-ACT, section 10)."""

    TAX = "tax"
    GIFT = "gift"
    BUILD = "build"
    MOVE = "move"
    BETRAY = "betray"
    BATTLE = "battle"


#: the card-based actions in declaration order (a tuple: see ``board.REGIONS``)
CARD_ACTION_ORDER: Final[tuple[CardAction, ...]] = tuple(CardAction)
#: each card-based action by its id (as ``board.REGION_BY_ID``)
CARD_ACTION_BY_ID: Final[dict[str, CardAction]] = {action.value: action for action in CardAction}


class Ability(StrEnum):
    """Special ability keys (R-SA); ``cards_with_ability`` gives the cards that carry each."""

    INDISPENSABLE_ADVISORS = "indispensable_advisors"
    INSURRECTION = "insurrection"
    CLAIM_OF_ANCIENT_LINEAGE = "claim_of_ancient_lineage"
    BODYGUARDS = "bodyguards"
    CITADEL_KABUL = "citadel_kabul"
    CITADEL_TRANSCASPIA = "citadel_transcaspia"
    STRANGE_BEDFELLOWS = "strange_bedfellows"
    CIVIL_SERVICE_REFORMS = "civil_service_reforms"
    SAFE_HOUSE = "safe_house"
    CHARISMATIC_COURTIERS = "charismatic_courtiers"
    BLACKMAIL_KANDAHAR = "blackmail_kandahar"
    BLACKMAIL_HERAT = "blackmail_herat"
    INDIAN_SUPPLIES = "indian_supplies"
    WELL_CONNECTED = "well_connected"
    HERAT_INFLUENCE = "herat_influence"
    PERSIAN_INFLUENCE = "persian_influence"
    RUSSIAN_INFLUENCE = "russian_influence"
    INFRASTRUCTURE = "infrastructure"
    SAVVY_OPERATOR = "savvy_operator"
    IRREGULARS = "irregulars"


class AbilityTiming(StrEnum):
    """When an ability comes into play, as cards.yaml tags it."""

    PASSIVE = "passive"
    START_OF_TURN = "start_of_turn"
    PURCHASE = "purchase"
    MOVE_ACTION = "move_action"
    AFTER_BUILD = "after_build"
    ON_SPY_REMOVED_IN_BATTLE = "on_spy_removed_in_battle"
    AFTER_DOMINANCE_CHECK = "after_dominance_check"


#: The region a citadel protects tribes in (R-BAT-1) and a blackmail places spies in (R-TRN-1).
CITADEL_REGION: Final[dict[Ability, Region]] = {
    Ability.CITADEL_KABUL: Region.KABUL,
    Ability.CITADEL_TRANSCASPIA: Region.TRANSCASPIA,
}
BLACKMAIL_REGION: dict[Ability, Region] = {
    Ability.BLACKMAIL_KANDAHAR: Region.KANDAHAR,
    Ability.BLACKMAIL_HERAT: Region.HERAT,
}


class EventEffect(StrEnum):
    """Event effect keys: each event card has one for its purchase side and one for its discard side (R-EVT)."""

    FAVOR_MILITARY = "favor_military"
    NEW_TACTICS = "new_tactics"
    EMBARRASSMENT_OF_RICHES = "embarrassment_of_riches"
    KOH_I_NOOR_RECOVERED = "koh_i_noor_recovered"
    DISREGARD_FOR_CUSTOMS = "disregard_for_customs"
    COURTLY_MANNERS = "courtly_manners"
    FAILURE_TO_IMPRESS = "failure_to_impress"
    RUMOR = "rumor"
    RIOTS_PUNJAB = "riots_punjab"
    CONFLICT_FATIGUE = "conflict_fatigue"
    RIOTS_HERAT = "riots_herat"
    NATIONALISM = "nationalism"
    NO_EFFECT = "no_effect"
    PUBLIC_WITHDRAWAL = "public_withdrawal"
    RIOTS_KABUL = "riots_kabul"
    NATION_BUILDING = "nation_building"
    RIOTS_PERSIA = "riots_persia"
    BACKING_OF_PERSIAN_ARISTOCRACY = "backing_of_persian_aristocracy"
    CONFIDENCE_FAILURE = "confidence_failure"
    OTHER_PERSUASIVE_METHODS = "other_persuasive_methods"
    FAVOR_INTELLIGENCE = "favor_intelligence"
    PASHTUNWALI_VALUES = "pashtunwali_values"
    FAVOR_POLITICAL = "favor_political"
    REBUKE = "rebuke"


class Duration(StrEnum):
    """How long an event effect lasts (R-EVT-1)."""

    IMMEDIATE = "immediate"
    UNTIL_NEXT_DOMINANCE_CHECK = "until_next_dominance_check"
    WHILE_IN_MARKET = "while_in_market"


class Scope(StrEnum):
    """Whom an event effect applies to."""

    ALL = "all"
    PURCHASER = "purchaser"
    CHOSEN_PLAYER = "chosen_player"


#: The suit a discarded suit event makes favored, unless Pashtunwali Values is in force (R-EVT 16.2).
FAVORED_SUIT_OF_EFFECT: dict[EventEffect, Suit] = {
    EventEffect.FAVOR_MILITARY: Suit.MILITARY,
    EventEffect.FAVOR_INTELLIGENCE: Suit.INTELLIGENCE,
    EventEffect.FAVOR_POLITICAL: Suit.POLITICAL,
}

#: The region a discarded Riots event clears of tribes and armies (R-EVT 16.2).
RIOT_REGION_OF_EFFECT: dict[EventEffect, Region] = {
    EventEffect.RIOTS_PUNJAB: Region.PUNJAB,
    EventEffect.RIOTS_HERAT: Region.HERAT,
    EventEffect.RIOTS_KABUL: Region.KABUL,
    EventEffect.RIOTS_PERSIA: Region.PERSIA,
}

# --- Descriptions (our own summaries) ----------------------------------------------------------

_ABILITY_DESCRIPTIONS: dict[Ability, str] = {
    Ability.INDISPENSABLE_ADVISORS: "A battle on a court card never takes away the owner's spies.",
    Ability.INSURRECTION: "When a Dominance Check is over and the game goes on, the owner adds 2 Afghan armies "
    "to Kabul.",
    Ability.CLAIM_OF_ANCIENT_LINEAGE: "When taxing, the owner counts as ruler of every region.",
    Ability.BODYGUARDS: "Betray may not target a political card in the owner's court.",
    Ability.CITADEL_KABUL: "Battles do not remove the owner's tribes from Kabul.",
    Ability.CITADEL_TRANSCASPIA: "Battles do not remove the owner's tribes from Transcaspia.",
    Ability.STRANGE_BEDFELLOWS: "A spy step of the owner may jump to any court card of the region of the card "
    "it leaves.",
    Ability.CIVIL_SERVICE_REFORMS: "The owner owes no hostage bribe to use a card-based action.",
    Ability.SAFE_HOUSE: "An owner's spy knocked off a card in battle may rest on this card instead of going "
    "back to supply.",
    Ability.CHARISMATIC_COURTIERS: "The owner owes no ruler a bribe for playing a card.",
    Ability.BLACKMAIL_KANDAHAR: "When the owner's turn starts, they may put a spy on a Kandahar court card "
    "that has none.",
    Ability.BLACKMAIL_HERAT: "When the owner's turn starts, they may put a spy on a Herat court card that "
    "has none.",
    Ability.INDIAN_SUPPLIES: "The owner's armies, and tribes moved under Nationalism, need no road to cross "
    "a border.",
    Ability.WELL_CONNECTED: "Each spy step of the owner may cover one card or two.",
    Ability.HERAT_INFLUENCE: "The owner buys Herat court cards for nothing.",
    Ability.PERSIAN_INFLUENCE: "The owner buys Persia court cards for nothing.",
    Ability.RUSSIAN_INFLUENCE: "The owner buys Russian patriots for nothing.",
    Ability.INFRASTRUCTURE: "After a Build, the owner may add one more block for free where that Build could.",
    Ability.SAVVY_OPERATOR: "Acts as a favored-suit card for bonus actions; its stars stay political.",
    Ability.IRREGULARS: "Acts as a favored-suit card for bonus actions; its stars stay military.",
}

_RIOTS = "go back to supply; roads stay, and overthrow checks follow."
_EFFECT_DESCRIPTIONS: dict[EventEffect, str] = {
    EventEffect.FAVOR_MILITARY: "Military becomes the favored suit, unless Pashtunwali Values holds it.",
    EventEffect.NEW_TACTICS: "The buyer's military cards act as favored for bonus actions.",
    EventEffect.EMBARRASSMENT_OF_RICHES: "Gifts are worth no influence to anyone.",
    EventEffect.KOH_I_NOOR_RECOVERED: "Each of the buyer's gifts is worth double influence.",
    EventEffect.DISREGARD_FOR_CUSTOMS: "Nobody owes a bribe, neither to a ruler nor to a hostage holder.",
    EventEffect.COURTLY_MANNERS: "The buyer may refuse to pay any bribe and still go ahead.",
    EventEffect.FAILURE_TO_IMPRESS: "All players lose every prize they hold.",
    EventEffect.RUMOR: "The buyer names another player whose patriots are worth no influence.",
    EventEffect.RIOTS_PUNJAB: "All tribes and armies in Punjab " + _RIOTS,
    EventEffect.CONFLICT_FATIGUE: "The next Dominance Check needs a lead of only 2 blocks.",
    EventEffect.RIOTS_HERAT: "All tribes and armies in Herat " + _RIOTS,
    EventEffect.NATIONALISM: "The buyer's tribes move like armies and count as armies in battles.",
    EventEffect.NO_EFFECT: "Discarding this card does nothing.",
    EventEffect.PUBLIC_WITHDRAWAL: "Cannot be bought; any rupee paid onto it leaves the game.",
    EventEffect.RIOTS_KABUL: "All tribes and armies in Kabul " + _RIOTS,
    EventEffect.NATION_BUILDING: "Each block the buyer pays for in a Build comes with a second one.",
    EventEffect.RIOTS_PERSIA: "All tribes and armies in Persia " + _RIOTS,
    EventEffect.BACKING_OF_PERSIAN_ARISTOCRACY: "The buyer gains 3 rupees from the bank.",
    EventEffect.CONFIDENCE_FAILURE: "From the active player clockwise, each player holding cards discards one "
    "of their choice from hand.",
    EventEffect.OTHER_PERSUASIVE_METHODS: "The buyer trades whole hands with another player.",
    EventEffect.FAVOR_INTELLIGENCE: "Intelligence becomes the favored suit, unless Pashtunwali Values holds it.",
    EventEffect.PASHTUNWALI_VALUES: "The buyer picks the favored suit, and nothing else may change it.",
    EventEffect.FAVOR_POLITICAL: "Political becomes the favored suit, unless Pashtunwali Values holds it.",
    EventEffect.REBUKE: "The buyer picks a region: all its tribes and armies " + _RIOTS,
}

# --- Card types --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CourtCard:
    """A court card (R-CMP-6). ``rank`` is its stars (R-STR); ``patriot`` its coalition bar (R-PLY-4, R-LOY);
    ``prize`` the coalition of the prize a betrayer may keep (R-BTR-4)."""

    number: int
    name: str
    region: Region
    suit: Suit
    rank: int
    patriot: Coalition | None
    prize: Coalition | None
    impact_icons: tuple[ImpactIcon, ...]
    actions: tuple[CardAction, ...]
    special_ability: Ability | None


@dataclass(frozen=True, slots=True)
class SpecialAbility:
    """A special ability (R-SA): the court cards that carry it, when it applies, and a summary."""

    key: Ability
    cards: tuple[int, ...]
    timing: AbilityTiming
    description: str


@dataclass(frozen=True, slots=True)
class EventSide:
    """One side of an event card: what buying it (``on_purchase``) or discarding it from column 0
    (``on_discard``) does (R-EVT 16.1), for how long (R-EVT-1) and to whom."""

    effect: EventEffect
    name: str
    duration: Duration
    scope: Scope
    description: str


@dataclass(frozen=True, slots=True)
class EventCard:
    """An event card (R-EVT). ``on_purchase`` and ``on_discard`` are effect keys; ``purchase`` and
    ``discard`` give their names, durations and summaries. Public Withdrawal is not ``purchasable`` (R-EVT-2)."""

    number: int
    name: str
    on_purchase: EventEffect
    on_discard: EventEffect
    purchasable: bool
    purchase: EventSide
    discard: EventSide


@dataclass(frozen=True, slots=True)
class DominanceCheckCard:
    """A Dominance Check card (R-DOM): resolved when bought or discarded, never held."""

    number: int
    name: str


Card = CourtCard | EventCard | DominanceCheckCard

# --- Tables ------------------------------------------------------------------------------------


def _optional_coalition(value: str | None) -> Coalition | None:
    return None if value is None else Coalition(value)


def _side(row: EventEffectRow) -> EventSide:
    effect = EventEffect(row["key"])
    return EventSide(effect=effect, name=row["name"], duration=Duration(row["duration"]), scope=Scope(row["scope"]),
                     description=_EFFECT_DESCRIPTIONS[effect])


#: Court cards 1-100 by number (R-CMP-6).
COURT_CARDS: Final[dict[int, CourtCard]] = {
    row["number"]: CourtCard(
        number=row["number"],
        name=row["name"],
        region=Region(row["region"]),
        suit=Suit(row["suit"]),
        rank=row["rank"],
        patriot=_optional_coalition(row["patriot"]),
        prize=_optional_coalition(row["prize"]),
        impact_icons=tuple(ImpactIcon(icon) for icon in row["impact_icons"]),
        actions=tuple(CardAction(action) for action in row["actions"]),
        special_ability=None if row["special_ability"] is None else Ability(row["special_ability"]),
    )
    for row in COURT_CARD_ROWS
}

#: Special abilities by key (R-SA).
SPECIAL_ABILITIES: dict[Ability, SpecialAbility] = {
    Ability(row["key"]): SpecialAbility(key=Ability(row["key"]), cards=row["cards"],
                                        timing=AbilityTiming(row["timing"]),
                                        description=_ABILITY_DESCRIPTIONS[Ability(row["key"])])
    for row in SPECIAL_ABILITY_ROWS
}

#: Event cards 105-116 by number (R-EVT).
EVENT_CARDS: Final[dict[int, EventCard]] = {
    row["number"]: EventCard(
        number=row["number"],
        name=row["name"],
        on_purchase=EventEffect(row["on_purchase"]["key"]),
        on_discard=EventEffect(row["on_discard"]["key"]),
        purchasable=row["purchasable"],
        purchase=_side(row["on_purchase"]),
        discard=_side(row["on_discard"]),
    )
    for row in EVENT_CARD_ROWS
}

#: Dominance Check cards 101-104 by number (R-DOM).
DOMINANCE_CHECKS: Final[dict[int, DominanceCheckCard]] = {
    row["number"]: DominanceCheckCard(number=row["number"], name=row["name"]) for row in DOMINANCE_CHECK_ROWS
}

#: Every card by number, 1-116.
_BY_KIND: dict[int, Card] = {**COURT_CARDS, **DOMINANCE_CHECKS, **EVENT_CARDS}
ALL_CARDS: dict[int, Card] = dict(sorted(_BY_KIND.items()))

#: R-CMP-6: how many cards of each kind the game has.
COURT_CARD_COUNT: Final = 100
EVENT_CARD_COUNT: Final = 12
DOMINANCE_CHECK_COUNT: Final = 4


def is_court_card(number: int) -> bool:
    return number in COURT_CARDS


def is_event(number: int) -> bool:
    """An event card (105-116); Dominance Checks are not events here (see ``is_dominance_check``)."""
    return number in EVENT_CARDS


def is_dominance_check(number: int) -> bool:
    return number in DOMINANCE_CHECKS


_CARDS_WITH_ABILITY: Final[dict[Ability, tuple[int, ...]]] = {
    ability: tuple(number for number, card in COURT_CARDS.items() if card.special_ability == ability)
    for ability in Ability
}


def cards_with_ability(key: Ability | str) -> tuple[int, ...]:
    """The court cards carrying an ability key, lowest number first (R-SA); raises ValueError for an unknown key."""
    return _CARDS_WITH_ABILITY[Ability(key)]


def _check_tables() -> None:
    """Refuse to import a table that disagrees with itself or with the counts of R-CMP-6."""
    counts = (len(COURT_CARDS), len(EVENT_CARDS), len(DOMINANCE_CHECKS))
    if counts != (COURT_CARD_COUNT, EVENT_CARD_COUNT, DOMINANCE_CHECK_COUNT) or len(ALL_CARDS) != sum(counts):
        raise ValueError(f"card table counts {counts} do not match R-CMP-6")
    for ability, spec in SPECIAL_ABILITIES.items():
        if spec.cards != _CARDS_WITH_ABILITY[ability]:
            raise ValueError(f"{ability}: listed on {spec.cards}, carried by {_CARDS_WITH_ABILITY[ability]}")
    if set(SPECIAL_ABILITIES) != set(Ability) or set(_ABILITY_DESCRIPTIONS) != set(Ability):
        raise ValueError("every Ability needs a table row and a description")
    used = {effect for card in EVENT_CARDS.values() for effect in (card.on_purchase, card.on_discard)}
    if used != set(EventEffect) or set(_EFFECT_DESCRIPTIONS) != set(EventEffect):
        raise ValueError("every EventEffect must appear on exactly the event cards and have a description")


_check_tables()

# --- Named court cards (R-SA, section 15) ------------------------------------------------------

INDISPENSABLE_ADVISORS: Final = 1  # Mohan Lal
INSURRECTION: Final = 3  # Prince Akbar Khan
CLAIM_OF_ANCIENT_LINEAGE: Final = 5  # Shah Shujah Durrani
BODYGUARDS: tuple[int, ...] = (15, 83)  # Durrani Royal Guard, Shah's Guard
CITADEL_KABUL: Final = 17  # Citadel of Ghazni
STRANGE_BEDFELLOWS: Final = 21  # Alexander Burnes
CIVIL_SERVICE_REFORMS: Final = 24  # Ranjit Singh
SAFE_HOUSES: Final[tuple[int, ...]] = (41, 72)  # Charles Masson, Claude Wade
CHARISMATIC_COURTIERS: Final = 42  # Barakzai Sadars
BLACKMAIL_KANDAHAR: Final = 43  # Giljee Nobles
INDIAN_SUPPLIES: Final = 51  # Sir John Keane
BLACKMAIL_HERAT: Final = 54  # Herati Bandits
WELL_CONNECTED: Final = 56  # Yar Mohammad Alikozai
HERAT_INFLUENCE: Final = 66  # Baluchi Smugglers
PERSIAN_INFLUENCE: Final = 68  # Ghaem Magham Farahani
RUSSIAN_INFLUENCE: Final = 70  # Alexander Griboyedov
INFRASTRUCTURE: Final = 78  # Civic Improvements
SAVVY_OPERATOR: Final = 91  # Allah Quli Bahadur
CITADEL_TRANSCASPIA: Final = 97  # The Ark of Bukhara
IRREGULARS: Final = 99  # Cossacks

#: R-TRN-3: court cards that always count as favored for bonus actions (not for stars, R-STR).
ALWAYS_FAVORED: Final[tuple[int, ...]] = (SAVVY_OPERATOR, IRREGULARS)

# --- Named event cards (R-EVT, section 16) -----------------------------------------------------
# Each event card has a purchase side and a discard side; both names refer to the same number.

NEW_TACTICS = FAVOR_MILITARY = 105
KOH_I_NOOR_RECOVERED = EMBARRASSMENT_OF_RICHES = 106
COURTLY_MANNERS = DISREGARD_FOR_CUSTOMS = 107
RUMOR = FAILURE_TO_IMPRESS = 108
CONFLICT_FATIGUE = RIOTS_PUNJAB = 109
NATIONALISM = RIOTS_HERAT = 110
PUBLIC_WITHDRAWAL: Final = 111  # its discard side has no effect
NATION_BUILDING = RIOTS_KABUL = 112
BACKING_OF_PERSIAN_ARISTOCRACY = RIOTS_PERSIA = 113
OTHER_PERSUASIVE_METHODS = CONFIDENCE_FAILURE = 114
PASHTUNWALI_VALUES = FAVOR_INTELLIGENCE = 115
REBUKE = FAVOR_POLITICAL = 116
