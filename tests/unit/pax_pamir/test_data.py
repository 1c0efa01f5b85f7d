"""Pax Pamir static data against the numbers in the specification: the map and setup tables of
rules.md (R-MAP, R-SET, R-CMP) and the verified totals in the header of cards.yaml.

Expected values are written out here, never computed from the module under test.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from domain.games.pax_pamir.data import board, cards
from domain.games.pax_pamir.data.board import Border, Coalition, Region, Suit, border_between
from domain.games.pax_pamir.data.cards import (
    ALL_CARDS,
    COURT_CARDS,
    DOMINANCE_CHECKS,
    EVENT_CARDS,
    Ability,
    CardAction,
    Duration,
    EventEffect,
    ImpactIcon,
    cards_with_ability,
    is_court_card,
    is_dominance_check,
    is_event,
)

# --- Map (R-MAP) -------------------------------------------------------------------------------

RULES_MD_BORDERS = {
    "herat_kabul": ("herat", "kabul"),
    "herat_kandahar": ("herat", "kandahar"),
    "herat_persia": ("herat", "persia"),
    "herat_transcaspia": ("herat", "transcaspia"),
    "kabul_kandahar": ("kabul", "kandahar"),
    "kabul_punjab": ("kabul", "punjab"),
    "kabul_transcaspia": ("kabul", "transcaspia"),
    "kandahar_punjab": ("kandahar", "punjab"),
    "persia_transcaspia": ("persia", "transcaspia"),
}
RULES_MD_NON_ADJACENT = {
    frozenset(pair) for pair in (("persia", "kabul"), ("persia", "kandahar"), ("persia", "punjab"),
                                 ("transcaspia", "kandahar"), ("transcaspia", "punjab"), ("herat", "punjab"))
}
RULES_MD_BORDER_COUNTS = {"herat": 4, "kabul": 4, "kandahar": 3, "transcaspia": 3, "persia": 2, "punjab": 2}


def test_regions_coalitions_and_suits_use_the_lower_case_ids_of_rules_md():
    assert [r.value for r in Region] == ["persia", "transcaspia", "herat", "kabul", "kandahar", "punjab"]
    assert {c.value for c in Coalition} == {"afghan", "british", "russian"}
    assert {s.value for s in Suit} == {"economic", "military", "political", "intelligence"}


def test_the_map_has_exactly_the_nine_borders_of_r_map_each_joining_the_regions_in_its_id():
    assert {b.value for b in Border} == set(RULES_MD_BORDERS)
    assert {b.value: tuple(r.value for r in pair) for b, pair in board.REGIONS_OF.items()} == RULES_MD_BORDERS


def test_each_region_has_the_number_of_borders_rules_md_gives_it():
    assert {r.value: len(borders) for r, borders in board.BORDERS_OF.items()} == RULES_MD_BORDER_COUNTS
    for region, borders in board.BORDERS_OF.items():
        assert all(region in board.REGIONS_OF[border] for border in borders)


def test_the_six_pairs_rules_md_calls_not_adjacent_have_no_border_and_every_other_pair_has_one():
    for a in Region:
        for b in Region:
            if a == b:
                continue
            expected_adjacent = frozenset((a.value, b.value)) not in RULES_MD_NON_ADJACENT
            assert (border_between(a, b) is not None) == expected_adjacent, (a, b)
            assert (b in board.ADJACENT[a]) == expected_adjacent, (a, b)
    assert {frozenset(pair) for pair in board.NON_ADJACENT_PAIRS} == RULES_MD_NON_ADJACENT


def test_border_between_finds_the_same_border_in_either_order_and_none_for_a_region_and_itself():
    assert border_between(Region.KABUL, Region.HERAT) is Border.HERAT_KABUL
    assert border_between(Region.HERAT, Region.KABUL) is Border.HERAT_KABUL
    assert border_between(Region.TRANSCASPIA, Region.PERSIA) is Border.PERSIA_TRANSCASPIA
    assert border_between(Region.KABUL, Region.KABUL) is None
    assert Region.KABUL not in board.ADJACENT[Region.KABUL]


# --- Components and setup (R-CMP, R-SET) -------------------------------------------------------


def test_component_counts_and_the_market_match_sections_1_and_3():
    assert board.BLOCKS_PER_COALITION == 12
    assert board.CYLINDERS_PER_PLAYER == 10
    assert board.STARTING_RUPEES == 4
    assert board.GIFT_VALUES == (2, 4, 6)
    assert board.STARTING_FAVORED_SUIT is Suit.POLITICAL
    assert (board.MARKET_ROWS, board.MARKET_COLUMNS) == (2, 6)
    assert (board.MIN_SEATS, board.MAX_SEATS) == (2, 5)


@pytest.mark.parametrize(("seats", "per_pile", "deck", "used", "unused"), [
    (2, 7, 52, 42, 58),
    (3, 8, 58, 48, 52),
    (4, 9, 64, 54, 46),
    (5, 10, 70, 60, 40),
])
def test_pile_and_deck_sizes_for_each_seat_count_match_the_r_set_table(seats, per_pile, deck, used, unused):
    assert board.pile_size(seats) == per_pile
    assert board.deck_size(seats) == deck
    assert board.court_cards_in_deck(seats) == used
    assert len(COURT_CARDS) - board.court_cards_in_deck(seats) == unused


@pytest.mark.parametrize("seats", [0, 1, 6])
def test_pile_size_refuses_a_seat_count_outside_two_to_five(seats):
    with pytest.raises(ValueError):
        board.pile_size(seats)


def test_the_piles_take_six_events_and_all_four_dominance_checks_none_in_the_top_two_piles():
    assert len(board.PILE_EXTRAS) == board.PILE_COUNT == 6
    assert board.PILE_EXTRAS[0] == (0, 0)
    assert board.PILE_EXTRAS[1] == (2, 0)
    assert all(extra == (1, 1) for extra in board.PILE_EXTRAS[2:])
    assert sum(events for events, _ in board.PILE_EXTRAS) == 6
    assert sum(checks for _, checks in board.PILE_EXTRAS) == len(DOMINANCE_CHECKS) == 4


# --- Card counts (cards.yaml header) -----------------------------------------------------------


def test_there_are_100_court_cards_4_dominance_checks_and_12_events_numbered_1_to_116():
    assert list(COURT_CARDS) == list(range(1, 101))
    assert list(DOMINANCE_CHECKS) == [101, 102, 103, 104]
    assert list(EVENT_CARDS) == list(range(105, 117))
    assert list(ALL_CARDS) == list(range(1, 117))
    assert all(card.number == number for number, card in ALL_CARDS.items())


VERIFIED_REGIONS = {
    # region: (first, last, economic, military, political, intelligence)
    "kabul": (1, 17, 7, 3, 3, 4),
    "punjab": (18, 38, 3, 8, 4, 6),
    "kandahar": (39, 53, 4, 4, 4, 3),
    "herat": (54, 67, 7, 2, 4, 1),
    "persia": (68, 84, 4, 3, 4, 6),
    "transcaspia": (85, 100, 3, 4, 4, 5),
}


@pytest.mark.parametrize("region", list(VERIFIED_REGIONS))
def test_each_region_holds_its_numbered_block_of_cards_with_the_verified_suit_counts(region):
    first, last, economic, military, political, intelligence = VERIFIED_REGIONS[region]
    numbers = [n for n, card in COURT_CARDS.items() if card.region == region]
    assert numbers == list(range(first, last + 1))
    suits = Counter(COURT_CARDS[n].suit.value for n in numbers)
    assert suits == {"economic": economic, "military": military, "political": political,
                     "intelligence": intelligence}


def test_suit_rank_patriot_and_prize_totals_match_the_verified_totals():
    court = COURT_CARDS.values()
    assert Counter(c.suit.value for c in court) == {"economic": 28, "military": 24, "political": 23,
                                                    "intelligence": 25}
    assert Counter(c.rank for c in court) == {1: 56, 2: 39, 3: 5}
    assert Counter(c.patriot and c.patriot.value for c in court) == {"afghan": 7, "british": 13, "russian": 10,
                                                                    None: 70}
    assert Counter(c.prize and c.prize.value for c in court) == {"afghan": 18, "british": 17, "russian": 17,
                                                                None: 48}


def test_action_totals_match_and_only_cards_7_and_76_have_no_action():
    assert Counter(a.value for c in COURT_CARDS.values() for a in c.actions) == {
        "tax": 31, "gift": 22, "build": 23, "move": 37, "betray": 22, "battle": 31}
    assert [n for n, c in COURT_CARDS.items() if not c.actions] == [7, 76]
    assert all(len(set(c.actions)) == len(c.actions) for c in COURT_CARDS.values())


def test_impact_icon_totals_match_the_verified_totals():
    assert Counter(i.value for c in COURT_CARDS.values() for i in c.impact_icons) == {
        "army": 55, "spy": 51, "road": 45, "tribe": 28, "leverage": 13, "favored_suit_political": 9,
        "favored_suit_intelligence": 9, "favored_suit_economic": 8, "favored_suit_military": 6}


def test_every_political_card_has_a_tribe_icon_and_no_card_of_another_suit_has_one():
    for card in COURT_CARDS.values():
        assert (ImpactIcon.TRIBE in card.impact_icons) == (card.suit == Suit.POLITICAL), card.number


def test_impact_icons_keep_printed_order_where_it_differs_from_the_fixed_rtt_order():
    # cards.yaml: printed order (R-PLY-5); card 2 prints its spies before its army.
    assert COURT_CARDS[2].impact_icons == (ImpactIcon.SPY, ImpactIcon.SPY, ImpactIcon.ARMY,
                                           ImpactIcon.FAVORED_SUIT_MILITARY)


def test_each_favored_suit_icon_names_a_different_suit():
    assert {icon.value: suit.value for icon, suit in cards.FAVORED_SUIT_OF_ICON.items()} == {
        "favored_suit_economic": "economic", "favored_suit_military": "military",
        "favored_suit_political": "political", "favored_suit_intelligence": "intelligence"}


def test_the_two_names_the_sources_disagreed_on_use_the_printed_spelling():
    assert COURT_CARDS[48].name == "Fruit Markets"
    assert COURT_CARDS[97].name == "The Ark of Bukhara"


# --- Special abilities (R-SA) ------------------------------------------------------------------


def test_22_cards_have_a_special_ability_under_20_distinct_keys():
    with_ability = [c for c in COURT_CARDS.values() if c.special_ability is not None]
    assert len(with_ability) == 22
    keys = Counter(c.special_ability for c in with_ability)
    assert len(keys) == len(Ability) == 20
    assert {key.value for key, count in keys.items() if count > 1} == {"bodyguards", "safe_house"}


NAMED_COURT_CARDS = [
    ("INDISPENSABLE_ADVISORS", 1, "indispensable_advisors"),
    ("INSURRECTION", 3, "insurrection"),
    ("CLAIM_OF_ANCIENT_LINEAGE", 5, "claim_of_ancient_lineage"),
    ("CITADEL_KABUL", 17, "citadel_kabul"),
    ("STRANGE_BEDFELLOWS", 21, "strange_bedfellows"),
    ("CIVIL_SERVICE_REFORMS", 24, "civil_service_reforms"),
    ("CHARISMATIC_COURTIERS", 42, "charismatic_courtiers"),
    ("BLACKMAIL_KANDAHAR", 43, "blackmail_kandahar"),
    ("INDIAN_SUPPLIES", 51, "indian_supplies"),
    ("BLACKMAIL_HERAT", 54, "blackmail_herat"),
    ("WELL_CONNECTED", 56, "well_connected"),
    ("HERAT_INFLUENCE", 66, "herat_influence"),
    ("PERSIAN_INFLUENCE", 68, "persian_influence"),
    ("RUSSIAN_INFLUENCE", 70, "russian_influence"),
    ("INFRASTRUCTURE", 78, "infrastructure"),
    ("SAVVY_OPERATOR", 91, "savvy_operator"),
    ("CITADEL_TRANSCASPIA", 97, "citadel_transcaspia"),
    ("IRREGULARS", 99, "irregulars"),
]


@pytest.mark.parametrize(("constant", "number", "key"), NAMED_COURT_CARDS)
def test_each_named_court_card_constant_is_the_rules_md_number_and_carries_its_ability(constant, number, key):
    assert getattr(cards, constant) == number
    assert COURT_CARDS[number].special_ability == key
    assert cards_with_ability(key) == (number,)


def test_bodyguards_and_safe_houses_name_both_of_their_cards():
    assert cards.BODYGUARDS == (15, 83)
    assert cards.SAFE_HOUSES == (41, 72)
    assert all(COURT_CARDS[n].special_ability == "bodyguards" for n in cards.BODYGUARDS)
    assert COURT_CARDS[cards.SAFE_HOUSES[0]].special_ability == "safe_house"
    assert COURT_CARDS[cards.SAFE_HOUSES[1]].special_ability == "safe_house"
    assert cards_with_ability(Ability.SAFE_HOUSE) == cards.SAFE_HOUSES


def test_prince_akbar_khan_is_the_insurrection_card_and_an_afghan_patriot_of_kabul():
    card = COURT_CARDS[cards.INSURRECTION]
    assert card.name == "Prince Akbar Khan"
    assert card.patriot == "afghan" and card.region == "kabul"


def test_savvy_operator_and_irregulars_always_count_as_favored_but_keep_their_printed_suits():
    assert cards.ALWAYS_FAVORED == (91, 99)
    assert COURT_CARDS[91].suit == "political" and COURT_CARDS[99].suit == "military"


def test_citadel_and_blackmail_keys_name_their_regions_and_their_cards_belong_there():
    assert {k.value: r.value for k, r in cards.CITADEL_REGION.items()} == {
        "citadel_kabul": "kabul", "citadel_transcaspia": "transcaspia"}
    assert {k.value: r.value for k, r in cards.BLACKMAIL_REGION.items()} == {
        "blackmail_kandahar": "kandahar", "blackmail_herat": "herat"}
    for ability, region in {**cards.CITADEL_REGION, **cards.BLACKMAIL_REGION}.items():
        assert all(COURT_CARDS[n].region == region for n in cards_with_ability(ability))


def test_every_ability_has_its_cards_a_timing_and_a_description():
    for key, spec in cards.SPECIAL_ABILITIES.items():
        assert spec.key == key and spec.cards == cards_with_ability(key) and spec.description
    assert cards.SPECIAL_ABILITIES[Ability.BLACKMAIL_HERAT].timing == "start_of_turn"
    assert cards.SPECIAL_ABILITIES[Ability.INSURRECTION].timing == "after_dominance_check"


def test_cards_with_ability_takes_a_key_string_and_refuses_an_unknown_key():
    assert cards_with_ability("bodyguards") == (15, 83)
    with pytest.raises(ValueError):
        cards_with_ability("teleportation")


# --- Events and Dominance Checks (R-EVT, R-DOM) ------------------------------------------------

NAMED_EVENTS = {
    # constant: (number from rules.md section 16, yaml effect key the name refers to)
    "NEW_TACTICS": (105, "new_tactics"),
    "FAVOR_MILITARY": (105, "favor_military"),
    "KOH_I_NOOR_RECOVERED": (106, "koh_i_noor_recovered"),
    "EMBARRASSMENT_OF_RICHES": (106, "embarrassment_of_riches"),
    "COURTLY_MANNERS": (107, "courtly_manners"),
    "DISREGARD_FOR_CUSTOMS": (107, "disregard_for_customs"),
    "RUMOR": (108, "rumor"),
    "FAILURE_TO_IMPRESS": (108, "failure_to_impress"),
    "CONFLICT_FATIGUE": (109, "conflict_fatigue"),
    "RIOTS_PUNJAB": (109, "riots_punjab"),
    "NATIONALISM": (110, "nationalism"),
    "RIOTS_HERAT": (110, "riots_herat"),
    "PUBLIC_WITHDRAWAL": (111, "public_withdrawal"),
    "NATION_BUILDING": (112, "nation_building"),
    "RIOTS_KABUL": (112, "riots_kabul"),
    "BACKING_OF_PERSIAN_ARISTOCRACY": (113, "backing_of_persian_aristocracy"),
    "RIOTS_PERSIA": (113, "riots_persia"),
    "OTHER_PERSUASIVE_METHODS": (114, "other_persuasive_methods"),
    "CONFIDENCE_FAILURE": (114, "confidence_failure"),
    "PASHTUNWALI_VALUES": (115, "pashtunwali_values"),
    "FAVOR_INTELLIGENCE": (115, "favor_intelligence"),
    "REBUKE": (116, "rebuke"),
    "FAVOR_POLITICAL": (116, "favor_political"),
}


@pytest.mark.parametrize("constant", list(NAMED_EVENTS))
def test_each_named_event_constant_is_the_card_whose_purchase_or_discard_side_has_that_effect(constant):
    number, key = NAMED_EVENTS[constant]
    assert getattr(cards, constant) == number
    event = EVENT_CARDS[number]
    assert key in (event.on_purchase, event.on_discard)


def test_every_event_card_has_a_constant_named_after_its_purchase_side():
    named = {number for number, key in NAMED_EVENTS.values() if key == EVENT_CARDS[number].on_purchase}
    assert named == set(EVENT_CARDS)


def test_public_withdrawal_is_the_only_event_that_cannot_be_purchased():
    assert [n for n, e in EVENT_CARDS.items() if not e.purchasable] == [cards.PUBLIC_WITHDRAWAL]
    assert EVENT_CARDS[cards.PUBLIC_WITHDRAWAL].purchase.duration == "while_in_market"


def test_suit_events_favor_their_suit_and_riots_clear_their_region_as_section_16_lists():
    favored = {n: cards.FAVORED_SUIT_OF_EFFECT.get(e.on_discard) for n, e in EVENT_CARDS.items()}
    assert {n: s.value for n, s in favored.items() if s} == {105: "military", 115: "intelligence",
                                                              116: "political"}
    riots = {n: cards.RIOT_REGION_OF_EFFECT.get(e.on_discard) for n, e in EVENT_CARDS.items()}
    assert {n: r.value for n, r in riots.items() if r} == {109: "punjab", 110: "herat", 112: "kabul",
                                                            113: "persia"}


def test_exactly_the_persistent_effects_of_r_evt_1_last_until_the_next_dominance_check():
    persistent = {side.effect.value for e in EVENT_CARDS.values() for side in (e.purchase, e.discard)
                  if side.duration == Duration.UNTIL_NEXT_DOMINANCE_CHECK}
    assert persistent == {"embarrassment_of_riches", "disregard_for_customs", "new_tactics", "koh_i_noor_recovered",
                          "courtly_manners", "nationalism", "nation_building", "rumor", "conflict_fatigue",
                          "pashtunwali_values"}


def test_event_sides_carry_their_own_key_and_a_description():
    for event in EVENT_CARDS.values():
        assert event.purchase.effect == event.on_purchase and event.discard.effect == event.on_discard
        assert event.purchase.description and event.discard.description
    assert {e.on_purchase for e in EVENT_CARDS.values()} | {e.on_discard for e in EVENT_CARDS.values()} == set(
        EventEffect)


def test_rumor_is_aimed_at_a_chosen_player_and_conflict_fatigue_at_everyone():
    assert EVENT_CARDS[cards.RUMOR].purchase.scope == "chosen_player"
    assert EVENT_CARDS[cards.CONFLICT_FATIGUE].purchase.scope == "all"


def test_the_predicates_tell_court_cards_events_and_dominance_checks_apart():
    assert is_court_card(1) and is_court_card(100) and not is_court_card(101) and not is_court_card(0)
    assert is_dominance_check(101) and is_dominance_check(104) and not is_dominance_check(105)
    assert is_event(105) and is_event(116) and not is_event(104) and not is_event(117)
    assert all(card.name == "Dominance Check" for card in DOMINANCE_CHECKS.values())


def test_card_actions_and_abilities_compare_equal_to_their_yaml_strings():
    assert CardAction.BATTLE == "battle" and Ability.SAFE_HOUSE == "safe_house"
    assert COURT_CARDS[1].actions == ("move",)


# --- The generated table and the yaml ----------------------------------------------------------

GENERATOR = Path(__file__).resolve().parents[3] / "tools" / "gen_pax_cards.py"


def _generator():
    yaml = pytest.importorskip("yaml")
    spec = importlib.util.spec_from_file_location("gen_pax_cards", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = module.find_cards_yaml()
    if source is None:
        pytest.skip("shared/rules/paxpamir/cards.yaml is not beside this checkout")
    return module, yaml.safe_load(source.read_text(encoding="utf-8"))


def test_the_committed_card_table_is_what_the_generator_makes_from_cards_yaml():
    generator, data = _generator()
    assert generator.TABLE_PATH.read_text(encoding="utf-8") == generator.render(data)


def test_no_description_repeats_the_yaml_prose():
    _, data = _generator()
    yaml_prose = {a["effect"] for a in data["special_abilities"].values()}
    yaml_prose |= {e[side]["effect"] for e in data["event_cards"] for side in ("on_purchase", "on_discard")}
    ours = {s.description for s in cards.SPECIAL_ABILITIES.values()}
    ours |= {side.description for e in EVENT_CARDS.values() for side in (e.purchase, e.discard)}
    assert not ours & yaml_prose
