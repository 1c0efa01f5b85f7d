"""Generate ``domain/games/pax_pamir/data/cards_table.py`` from the Pax Pamir ``cards.yaml``.

The domain package may use the standard library only, so the card data is committed as Python
literals. This script copies the facts (numbers, names, regions, suits, ranks, icons, actions,
ability and event keys, durations, scopes) and drops the yaml's prose: the descriptions the
engine shows are written in ``cards.py``. The Wakhan AI deck is left out.

Usage (from the repository root)::

    python tools/gen_pax_cards.py [--yaml PATH] [--check]

Without ``--yaml`` the file is looked up as ``shared/rules/paxpamir/cards.yaml`` in the repository's
parent folders. ``--check`` writes nothing and exits 1 if the committed table is out of date.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
TABLE_PATH = REPO_ROOT / "domain" / "games" / "pax_pamir" / "data" / "cards_table.py"
YAML_IN_SHARED = Path("shared") / "rules" / "paxpamir" / "cards.yaml"
SCHEMA_VERSION = 1
LINE_LENGTH = 110
INDENT = "    "

COURT_FIELDS = ("number", "name", "region", "suit", "rank", "patriot", "prize", "impact_icons", "actions",
                "special_ability")
EFFECT_FIELDS = ("key", "name", "duration", "scope")


def find_cards_yaml(start: Path = REPO_ROOT) -> Path | None:
    """The first ``shared/rules/paxpamir/cards.yaml`` in ``start`` or one of its parents."""
    for folder in (start, *start.parents):
        candidate = folder / YAML_IN_SHARED
        if candidate.is_file():
            return candidate
    return None


def _literal(value: Any) -> str:
    """A Python literal for a yaml scalar or list (lists become tuples)."""
    if isinstance(value, list | tuple):
        items = [_literal(item) for item in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(f"no literal for {value!r}")


def _wrapped_dict(items: Iterable[tuple[str, str]], prefix: str, closing: str = ",") -> list[str]:
    """``prefix{"key": value, ...}closing`` wrapped at LINE_LENGTH, continuation lines aligned after the brace."""
    pieces = [f'"{key}": {value}' for key, value in items]
    pieces = [piece + "," for piece in pieces[:-1]] + [pieces[-1] + "}" + closing]
    continuation = " " * (len(prefix) + 1)
    lines: list[str] = []
    current = prefix + "{" + pieces[0]
    for piece in pieces[1:]:
        if len(current) + 1 + len(piece) > LINE_LENGTH:
            lines.append(current)
            current = continuation + piece
        else:
            current += " " + piece
    lines.append(current)
    return lines


def _check_court_card(card: Mapping[str, Any]) -> None:
    missing = [name for name in (*COURT_FIELDS, "impact_counts") if name not in card]
    if missing:
        raise ValueError(f"court card {card.get('number')}: missing {missing}")
    if Counter(card["impact_icons"]) != Counter(card["impact_counts"]):
        raise ValueError(f"court card {card['number']}: impact_icons and impact_counts disagree")


def _court_cards(cards: list[Mapping[str, Any]]) -> list[str]:
    lines = ["#: Court cards 1-100 (R-CMP-6); impact icons in printed order, actions left to right.",
             "COURT_CARD_ROWS: tuple[CourtCardRow, ...] = ("]
    for card in cards:
        _check_court_card(card)
        lines += _wrapped_dict(((name, _literal(card[name])) for name in COURT_FIELDS), INDENT)
    return [*lines, ")"]


def _special_abilities(abilities: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = ["#: Special abilities (R-SA): the cards that carry each key and when it applies.",
             "SPECIAL_ABILITY_ROWS: tuple[SpecialAbilityRow, ...] = ("]
    for key, ability in abilities.items():
        items = (("key", _literal(key)), ("cards", _literal(ability["cards"])),
                 ("timing", _literal(ability["timing"])))
        lines += _wrapped_dict(items, INDENT)
    return [*lines, ")"]


def _event_cards(events: list[Mapping[str, Any]]) -> list[str]:
    lines = ["#: Event cards 105-116 (R-EVT): each has a discard side and a purchase side.",
             "EVENT_CARD_ROWS: tuple[EventCardRow, ...] = ("]
    for event in events:
        lines.append(f'{INDENT}{{"number": {_literal(event["number"])}, "name": {_literal(event["name"])}, '
                     f'"purchasable": {_literal(event.get("purchasable", True))},')
        for side, closing in (("on_discard", ","), ("on_purchase", "},")):
            effect = ((name, _literal(event[side][name])) for name in EFFECT_FIELDS)
            lines += _wrapped_dict(effect, f'{INDENT} "{side}": ', closing)
    return [*lines, ")"]


def _dominance_checks(checks: list[Mapping[str, Any]]) -> list[str]:
    lines = ["#: Dominance Check cards 101-104 (R-DOM).", "DOMINANCE_CHECK_ROWS: tuple[DominanceCheckRow, ...] = ("]
    for check in checks:
        lines += _wrapped_dict((("number", _literal(check["number"])), ("name", _literal(check["name"]))), INDENT)
    return [*lines, ")"]


HEADER = '''\
"""Pax Pamir card data as plain literals. GENERATED by tools/gen_pax_cards.py from
shared/rules/paxpamir/cards.yaml (schema_version {schema}): do not edit by hand, rerun the script.

``cards.py`` turns these rows into typed, validated tables; import from there, not from here.
"""

from __future__ import annotations

from typing import TypedDict


class CourtCardRow(TypedDict):
    number: int
    name: str
    region: str
    suit: str
    rank: int
    patriot: str | None
    prize: str | None
    impact_icons: tuple[str, ...]
    actions: tuple[str, ...]
    special_ability: str | None


class SpecialAbilityRow(TypedDict):
    key: str
    cards: tuple[int, ...]
    timing: str


class EventEffectRow(TypedDict):
    key: str
    name: str
    duration: str
    scope: str


class EventCardRow(TypedDict):
    number: int
    name: str
    purchasable: bool
    on_discard: EventEffectRow
    on_purchase: EventEffectRow


class DominanceCheckRow(TypedDict):
    number: int
    name: str
'''


def render(data: Mapping[str, Any]) -> str:
    """The text of ``cards_table.py`` for the parsed yaml ``data``."""
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"expected cards.yaml schema_version {SCHEMA_VERSION}, got {data.get('schema_version')}")
    sections = [
        _court_cards(data["court_cards"]),
        _special_abilities(data["special_abilities"]),
        _event_cards(data["event_cards"]),
        _dominance_checks(data["dominance_check_cards"]),
    ]
    body = "\n\n".join("\n".join(section) for section in sections)
    text = HEADER.format(schema=SCHEMA_VERSION) + "\n\n" + body + "\n"
    too_long = [line for line in text.splitlines() if len(line) > LINE_LENGTH]
    if too_long:
        raise ValueError(f"generated lines longer than {LINE_LENGTH}: {too_long[:3]}")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--yaml", type=Path, default=None, help="path to cards.yaml")
    parser.add_argument("--check", action="store_true", help="only report whether the table is up to date")
    args = parser.parse_args(argv)
    source = args.yaml or find_cards_yaml()
    if source is None:
        parser.error(f"no {YAML_IN_SHARED} found above {REPO_ROOT}; pass --yaml")
    text = render(yaml.safe_load(source.read_text(encoding="utf-8")))
    if args.check:
        current = TABLE_PATH.read_text(encoding="utf-8") if TABLE_PATH.exists() else ""
        if current != text:
            print(f"{TABLE_PATH.relative_to(REPO_ROOT)} is out of date; run tools/gen_pax_cards.py")
            return 1
        return 0
    TABLE_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE_PATH.relative_to(REPO_ROOT)} from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
