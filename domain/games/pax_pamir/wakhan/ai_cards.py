"""Wakhan's 24 AI cards (rules.md section 20), tabulated from shared/rules/paxpamir/cards.yaml
``wakhan_ai_cards``; what each action key means is ``wakhan_ai_action_keys`` there (and
``radicalize`` / ``turn`` here).

The card just drawn (the top of her AI discard) is read on its front: the three actions she
tries, her pragmatic order of coalitions, her order of regions and two arrows. The arrows
point into the *back* of the new top card of the AI deck: the market column is
``next.back_columns[drawn.column_arrow]``, the row ``next.back_rows[drawn.row_arrow]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from domain.games.pax_pamir.data.board import Coalition, Region

TOP: Final = "top"
BOTTOM: Final = "bottom"


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class AiCard:
    number: int
    actions: tuple[str, ...]
    pragmatic_order: tuple[str, ...]
    region_order: tuple[str, ...]
    column_arrow: int
    row_arrow: int
    back_columns: tuple[int, ...]
    back_rows: tuple[str, ...]

    @property
    def coalitions(self) -> tuple[Coalition, ...]:
        return tuple(Coalition(c) for c in self.pragmatic_order)

    @property
    def regions(self) -> tuple[Region, ...]:
        return tuple(Region(r) for r in self.region_order)

    def back(self) -> dict[str, list[int] | list[str]]:
        """What the table sees of this card while it lies on top of the AI deck."""
        return {"columns": list(self.back_columns), "rows": list(self.back_rows)}


AI_CARDS: dict[int, AiCard] = {card.number: card for card in (
    AiCard(1, ('tax', 'radicalize_top_military_if_military_favored', 'radicalize'), ('russian', 'afghan', 'british'),
           ('transcaspia', 'kabul', 'kandahar', 'persia', 'herat', 'punjab'),
           2, 1, (3, 4, 5, 0, 1, 2), ('top', 'bottom')),
    AiCard(2, ('radicalize_top_economic_if_political_favored', 'radicalize_top_political', 'radicalize'), ('afghan', 'british', 'russian'),
           ('persia', 'punjab', 'kandahar', 'herat', 'transcaspia', 'kabul'),
           1, 0, (4, 5, 0, 1, 2, 3), ('bottom', 'top')),
    AiCard(3, ('tax', 'radicalize_top_intelligence', 'radicalize'), ('british', 'russian', 'afghan'),
           ('punjab', 'persia', 'herat', 'kandahar', 'transcaspia', 'kabul'),
           3, 1, (2, 3, 4, 5, 0, 1), ('top', 'bottom')),
    AiCard(4, ('radicalize_best_net_rupees_if_under_2_rupees', 'build', 'radicalize'), ('russian', 'afghan', 'british'),
           ('kandahar', 'kabul', 'herat', 'punjab', 'transcaspia', 'persia'),
           4, 0, (1, 2, 3, 4, 5, 0), ('top', 'bottom')),
    AiCard(5, ('radicalize_card_gaining_rule', 'battle', 'radicalize'), ('british', 'afghan', 'russian'),
           ('persia', 'kandahar', 'herat', 'transcaspia', 'kabul', 'punjab'),
           1, 0, (4, 5, 0, 1, 2, 3), ('top', 'bottom')),
    AiCard(6, ('radicalize_any_intelligence', 'move', 'radicalize'), ('british', 'russian', 'afghan'),
           ('herat', 'persia', 'transcaspia', 'kabul', 'punjab', 'kandahar'),
           0, 0, (5, 0, 1, 2, 3, 4), ('top', 'bottom')),
    AiCard(7, ('build', 'move', 'radicalize'), ('afghan', 'russian', 'british'),
           ('punjab', 'transcaspia', 'kabul', 'persia', 'kandahar', 'herat'),
           4, 1, (1, 2, 3, 4, 5, 0), ('bottom', 'top')),
    AiCard(8, ('tax', 'betray', 'radicalize'), ('british', 'russian', 'afghan'),
           ('transcaspia', 'persia', 'punjab', 'kandahar', 'herat', 'kabul'),
           4, 1, (1, 2, 3, 4, 5, 0), ('bottom', 'top')),
    AiCard(9, ('radicalize_most_blocks', 'radicalize_most_cylinders_if_no_dominance', 'radicalize'), ('russian', 'british', 'afghan'),
           ('kabul', 'punjab', 'kandahar', 'persia', 'herat', 'transcaspia'),
           5, 1, (0, 1, 2, 3, 4, 5), ('top', 'bottom')),
    AiCard(10, ('radicalize_move_card_if_none_in_court', 'move', 'radicalize'), ('afghan', 'british', 'russian'),
           ('persia', 'kandahar', 'kabul', 'herat', 'punjab', 'transcaspia'),
           0, 1, (5, 0, 1, 2, 3, 4), ('bottom', 'top')),
    AiCard(11, ('radicalize_most_cylinders_if_no_dominance', 'radicalize_top_military_if_military_favored', 'radicalize'), ('afghan', 'russian', 'british'),
           ('punjab', 'persia', 'herat', 'kandahar', 'kabul', 'transcaspia'),
           0, 1, (5, 0, 1, 2, 3, 4), ('top', 'bottom')),
    AiCard(12, ('move', 'betray', 'radicalize'), ('british', 'afghan', 'russian'),
           ('kandahar', 'herat', 'persia', 'kabul', 'transcaspia', 'punjab'),
           4, 1, (1, 2, 3, 4, 5, 0), ('top', 'bottom')),
    AiCard(13, ('radicalize_dominant_patriot_if_dominance', 'radicalize_most_cylinders_if_no_dominance', 'radicalize'), ('afghan', 'british', 'russian'),
           ('herat', 'kabul', 'transcaspia', 'punjab', 'persia', 'kandahar'),
           2, 0, (3, 4, 5, 0, 1, 2), ('top', 'bottom')),
    AiCard(14, ('battle_spies_on_priority_card', 'battle', 'radicalize'), ('afghan', 'russian', 'british'),
           ('kabul', 'transcaspia', 'persia', 'punjab', 'kandahar', 'herat'),
           3, 0, (2, 3, 4, 5, 0, 1), ('bottom', 'top')),
    AiCard(15, ('move', 'battle', 'radicalize'), ('russian', 'british', 'afghan'),
           ('transcaspia', 'kabul', 'punjab', 'persia', 'herat', 'kandahar'),
           2, 1, (3, 4, 5, 0, 1, 2), ('bottom', 'top')),
    AiCard(16, ('radicalize_most_cylinders_if_no_dominance', 'battle_spies_on_priority_card', 'radicalize'), ('afghan', 'russian', 'british'),
           ('punjab', 'transcaspia', 'persia', 'kandahar', 'kabul', 'herat'),
           5, 0, (0, 1, 2, 3, 4, 5), ('top', 'bottom')),
    AiCard(17, ('radicalize_top_political_if_court_full', 'tax', 'radicalize'), ('russian', 'british', 'afghan'),
           ('transcaspia', 'kandahar', 'persia', 'herat', 'punjab', 'kabul'),
           0, 0, (5, 0, 1, 2, 3, 4), ('bottom', 'top')),
    AiCard(18, ('tax', 'betray', 'radicalize'), ('russian', 'british', 'afghan'),
           ('kabul', 'punjab', 'kandahar', 'herat', 'persia', 'transcaspia'),
           3, 0, (2, 3, 4, 5, 0, 1), ('top', 'bottom')),
    AiCard(19, ('build', 'move', 'radicalize'), ('russian', 'afghan', 'british'),
           ('kandahar', 'herat', 'punjab', 'transcaspia', 'kabul', 'persia'),
           2, 0, (3, 4, 5, 0, 1, 2), ('bottom', 'top')),
    AiCard(20, ('radicalize_best_net_rupees_if_under_2_rupees', 'build', 'radicalize'), ('russian', 'afghan', 'british'),
           ('kandahar', 'herat', 'kabul', 'transcaspia', 'persia', 'punjab'),
           1, 1, (2, 3, 4, 5, 0, 1), ('bottom', 'top')),
    AiCard(21, ('radicalize_card_gaining_rule', 'build', 'radicalize'), ('british', 'afghan', 'russian'),
           ('herat', 'kandahar', 'transcaspia', 'kabul', 'punjab', 'persia'),
           5, 0, (0, 1, 2, 3, 4, 5), ('bottom', 'top')),
    AiCard(22, ('betray', 'battle_spies_on_priority_card', 'radicalize'), ('british', 'afghan', 'russian'),
           ('kabul', 'herat', 'punjab', 'transcaspia', 'persia', 'kandahar'),
           5, 1, (0, 1, 2, 3, 4, 5), ('bottom', 'top')),
    AiCard(23, ('radicalize_top_political', 'radicalize_top_military_if_military_favored', 'radicalize'), ('british', 'russian', 'afghan'),
           ('herat', 'punjab', 'transcaspia', 'kabul', 'kandahar', 'persia'),
           3, 1, (2, 3, 4, 5, 0, 1), ('bottom', 'top')),
    AiCard(24, ('radicalize_top_intelligence_if_fewer_spies', 'battle_spies_on_priority_card', 'radicalize'), ('afghan', 'british', 'russian'),
           ('persia', 'transcaspia', 'kabul', 'punjab', 'kandahar', 'herat'),
           1, 1, (4, 5, 0, 1, 2, 3), ('top', 'bottom')),
)}

#: The action keys of ``wakhan_ai_action_keys``, in the words of cards.yaml.
ACTION_KEYS: dict[str, str] = {
    'radicalize': 'Default radicalize: buy the card chosen by the arrows (or the Dominance-Check-in-market rule) and play it.',
    'radicalize_top_military_if_military_favored': 'Only if military is favored: radicalize the highest-ranked military card she can take.',
    'radicalize_top_economic_if_political_favored': 'Only if political is favored: radicalize the highest-ranked economic card.',
    'radicalize_top_political': 'Radicalize the highest-ranked political card.',
    'radicalize_top_intelligence': 'Radicalize the highest-ranked intelligence card.',
    'radicalize_best_net_rupees_if_under_2_rupees': 'Only while her purse is below 2 rupees: radicalize whichever card gives her the largest net rupee gain.',
    'radicalize_card_gaining_rule': 'Radicalize a card whose play would make her ruler of a region.',
    'radicalize_any_intelligence': 'Radicalize an intelligence card.',
    'radicalize_most_blocks': 'Radicalize the card with the most army + road impact icons.',
    'radicalize_most_cylinders_if_no_dominance': 'Only if no coalition is currently dominant: radicalize the card with the most tribe + spy icons.',
    'radicalize_move_card_if_none_in_court': 'Only if no card in her court has a move action: radicalize a card with a move action.',
    'radicalize_dominant_patriot_if_dominance': 'Only if a coalition is currently dominant: radicalize a patriot of that coalition.',
    'radicalize_top_political_if_court_full': 'Only if her court is at its size limit: radicalize the highest-ranked political card.',
    'radicalize_top_intelligence_if_fewer_spies': 'Only if some player has more spies in play than she does: radicalize the highest-ranked intelligence card.',
    'battle_spies_on_priority_card': 'Fight a spy battle on a court card holding both her spy and an enemy spy; pick the card with the most spies in total, ties broken by card priority.',
    'tax': 'Card-based Tax with her default behaviour.',
    'build': 'Card-based Build with her default behaviour.',
    'move': 'Card-based Move with her default behaviour.',
    'betray': 'Card-based Betray with her default behaviour.',
    'battle': 'Card-based Battle with her default behaviour.',
}

assert len(AI_CARDS) == 24 and all(a in ACTION_KEYS for card in AI_CARDS.values() for a in card.actions)
