"""Checking a finished game's randomness from its export alone (``verify-fairness``).

A game commits to its seed at creation (``domain.kernel.fairness``) and reveals it in the
events when it ends. Given the export of a finished game, ``verify_fairness``:

1. opens the commitment: ``sha256(salt || seed)`` of the revealed values must be the hash
   that ``GameCreated`` published;
2. plays the game again from the revealed seed, batch by batch (a batch is everything
   one request stored): the opening (seat order and the game's setup: shuffles, deals) is
   made again exactly as the server makes it, and every move's events must be what the
   rules decide, with the seed's ``Rng`` for that version, for one of the commands the
   seat could legally send then. Commands are not stored (a secret choice would leak), so
   each legal command is tried; a free-form argument the prompt cannot list (a sealed
   Tribute's hash, its salt) is tried with each value of its kind the move's own events
   carry. Every draw, shuffle and reveal a move caused must come out identical, or the
   check fails.

Nothing here trusts the file: a tampered event, seed or salt, a missing reveal, or a deal
given as an option (not drawn from the seed) fails with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.kernel import Command, Event, GameRules, RuleViolation
from domain.kernel.fairness import SEED_REVEALED, check_reveal
from domain.kernel.prompt import Free
from domain.kernel.table import GAME_CREATED, GAME_STARTED, PLATFORM, SEAT_TAKEN
from service.adapters.codec import loads
from service.adapters.memory_store import MemoryStore
from service.adapters.store import Recorded
from service.streams.envelopes import GAME_SOURCE, is_platform, stored_shape, stream_of
from service.streams.game import Game, opening_events
from service.streams.loading import GameLoader

_GAME_ID = "verified"


class Unfair(Exception):
    """The export does not show a game drawn from its committed seed; the reason says where."""


@dataclass
class Verdict:
    game_type: str
    seed_commitment: str
    openings: int = 0
    moves: int = 0
    events: int = 0
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        return (f"fair: the {self.game_type} game's seed opens its commitment {self.seed_commitment[:16]}..., and "
                f"its opening and {self.moves} moves ({self.events} events) came out identical when "
                "recomputed from that seed")


def _comparable(body: Mapping[str, Any]) -> dict[str, Any]:
    """An event as the rules made it (upcast; none of the envelope's facts)."""
    return Event.from_json(dict(body)).to_json()


def _batches(records: list[Recorded]) -> list[list[Recorded]]:
    out: list[list[Recorded]] = []
    for record in records:
        if out and out[-1][-1].event.get("batch") == record.event.get("batch"):
            out[-1].append(record)
        else:
            out.append([record])
    return out


def verify_fairness(text: str, registry: Mapping[str, GameRules]) -> Verdict:
    """The verdict on an exported game (JSON Lines), or ``Unfair`` with the reason."""
    records = _records(text)
    first = records[0].event
    if first.get("source") != PLATFORM or first.get("type") != GAME_CREATED:
        raise Unfair("the first event is not the platform's GameCreated")
    created = first.get("data") or {}
    if created.get("game_type") not in registry:
        raise Unfair(f"unknown game type {created.get('game_type')!r}")
    if created.get("secret_options"):
        raise Unfair(f"options {', '.join(created['secret_options'])} were given by the game's creator "
                     "(a given deal): its cards were not drawn from the seed")
    reveals = [r for r in records if is_platform(r.event) and r.event.get("type") == SEED_REVEALED]
    if len(reveals) != 1:
        raise Unfair("the game's seed was not revealed: only a finished game's whole export can be checked"
                     if not reveals else "the seed was revealed more than once")
    revealed = reveals[0].event.get("data") or {}
    refusal = check_reveal(created.get("seed_commitment"), revealed)
    if refusal:
        raise Unfair(refusal)
    verdict = Verdict(str(created["game_type"]), str(created["seed_commitment"]))
    # the game is played again with the revealed seed, never the one the file keeps hidden
    records[0] = Recorded(records[0].stream, 1, {**first, "secret": {**(first.get("secret") or {}),
                                                                     "seed": revealed["seed"]}})
    loader = GameLoader(MemoryStore(), registry, cache_size=1)
    game: Game | None = None
    for batch in _batches(records):
        start = batch[0].version - 1
        if game is None or game.version != start:
            game = _game_at(loader, records, start, game)
        if game is not None:
            _check_batch(game, batch, verdict)
        game = _game_at(loader, records, batch[-1].version, game)
    assert game is not None
    if not game.over:
        raise Unfair("the events do not reach the end of the game")
    if reveals[0].event.get("batch") != records[-1].event.get("batch"):
        raise Unfair("the seed was revealed before the move that ended the game")
    return verdict


def _records(text: str) -> list[Recorded]:
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        parsed = [loads(line) for line in lines]
    except ValueError as exc:
        raise Unfair(f"the file is not JSON Lines: {exc}") from None
    if len(parsed) < 2 or not isinstance(parsed[0], dict) or parsed[0].get("format") != "game-log":
        raise Unfair("the file is not a game export (a 'game-log' header, then events)")
    if parsed[0].get("redacted_for") is not None:
        raise Unfair("this copy was exported during play and hides what its seat could not see")
    stream = stream_of(_GAME_ID)
    out = []
    for number, body in enumerate(parsed[1:], start=1):
        if not isinstance(body, dict) or body.get("version") != number or not isinstance(body.get("type"), str):
            raise Unfair(f"line {number + 1} is not event version {number}")
        out.append(Recorded(stream, number, {k: v for k, v in body.items() if k != "version"}))
    return out


def _game_at(loader: GameLoader, records: list[Recorded], version: int, game: Game | None) -> Game | None:
    """The game folded to ``version`` (None before its first event), from ``game`` when it can."""
    if version == 0:
        return None
    try:
        if game is not None and game.version <= version:
            extended = loader.extend(game, records[game.version:version])
            if extended is not None:
                return extended
        return loader.fold(_GAME_ID, records[:version])
    except Exception as exc:  # a tampered file may break the fold in any way
        raise Unfair(f"the events up to version {version} do not fold into a game: {exc!r}") from None


def _check_batch(game: Game, batch: list[Recorded], verdict: Verdict) -> None:
    """``batch`` is what the rules make from the seed on ``game`` (the game just before it)."""
    where = f"versions {batch[0].version}-{batch[-1].version}" if len(batch) > 1 else f"version {batch[0].version}"
    if any(is_platform(r.event) and r.event.get("type") == GAME_STARTED for r in batch):
        joined = dict(game.table.players)
        for record in batch:
            if is_platform(record.event) and record.event.get("type") == SEAT_TAKEN:
                joined[record.event["data"]["seat"]] = record.event["data"]["player_id"]
        expected = [stored_shape(new) for new in opening_events(game, joined)]
        got = [r.event for r in batch if r.event.get("type") == GAME_STARTED or not is_platform(r.event)]
        if [_comparable(e) for e in expected] != [_comparable(e) for e in got]:
            raise Unfair(f"the opening ({where}: seat order, shuffles and deals) differs from the one the "
                         f"revealed seed makes{_first_difference(expected, got)}")
        verdict.openings += 1
        verdict.events += len(got)
        return
    moved = [r for r in batch if r.event.get("source", GAME_SOURCE) == GAME_SOURCE]
    if not moved:
        return  # the platform's own bookkeeping (a seat, a consent, an undo): nothing drawn
    seat = moved[0].event.get("actor")
    if game.state is None or not isinstance(seat, int):
        raise Unfair(f"the game's events at {where} were made by no seat of a started game")
    got = [r.event for r in moved]
    wanted = [_comparable(e) for e in got]
    closest: list[dict[str, Any]] = []
    for command in _candidates(game, seat, got):
        try:
            made = [e.to_json() for e in game.rules.decide(game.state, seat, command, game.table.rng(game.version))]
        except RuleViolation:
            continue  # a free-form value the events carry that this prompt refuses
        if made == wanted:
            verdict.moves += 1
            verdict.events += len(got)
            return
        if _common_prefix(made, wanted) >= _common_prefix(closest, wanted):
            closest = made
    raise Unfair(f"the events at {where} (seat {seat}) are not what any legal move of that seat makes with "
                 f"the revealed seed{_first_difference(closest, got)}")


def _candidates(game: Game, seat: int, got: list[dict[str, Any]]) -> list[Command]:
    """The seat's legal commands, and for a free-form choice (``Prompt.free``) a command with
    each string in ``got`` (data and secrets) that its argument's kind accepts."""
    listed = list(game.rules.legal_commands(game.state, seat))
    asked = game.rules.prompt(game.state, seat)
    if asked is None:
        return listed
    strings = sorted(set(_strings(got)))
    for verb in game.rules.commands:
        if verb.arg is None or not isinstance(asked.choices.get(verb.type), Free):
            continue
        for value in strings:
            try:
                listed.append(Command(verb.type, {verb.arg.name: verb.arg.kind.check(value)}))
            except RuleViolation:
                continue
    return listed


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [found for item in value.values() for found in _strings(item)]
    if isinstance(value, list):
        return [found for item in value for found in _strings(item)]
    return []


def _common_prefix(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _first_difference(expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> str:
    wanted = [_comparable(e) for e in expected]
    stored = [_comparable(e) for e in got]
    n = _common_prefix(wanted, stored)
    if n == len(wanted) == len(stored):
        return ""
    if n >= len(stored):
        return f": the seed makes {len(wanted) - n} more event(s), the first {wanted[n]['type']}"
    if n >= len(wanted):
        return f": the file has {len(stored) - n} more event(s), the first {stored[n]['type']}"
    return f": its event {n + 1} ({stored[n]['type']}) differs from the recomputed {wanted[n]['type']}"
