"""Portable logs: a game exported as signed JSON Lines, and imported back, untrusted.

An export is a header (the game, its options and seats, a digest of the events and of
what they fold to, and this server's signature) followed by every stored event in order.
An import trusts nothing in the file: it checks the shape, refolds every event with the
game's rules (options within this server's bounds), recomputes every public fact, and
checks the digest. Only a log this server signed, of a game not here yet, comes back
under its own id and counts for rankings; any other becomes a new, unranked game.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from domain.kernel import DomainError
from domain.kernel.events import EVERYONE
from domain.kernel.stand_ins import SEAT_TAKEN_OVER
from domain.kernel.table import GAME_CREATED, PLATFORM, SEAT_TAKEN, read_event, split_options
from service.adapters.codec import dumps, loads
from service.adapters.store import Recorded, VersionConflict
from service.background.bot_seats import bot_problem
from service.base.errors import ServiceError, Unprocessable
from service.players.players import Players
from service.streams.appending import Appender, Clock
from service.streams.envelopes import Viewer, redacted_envelope, stream_of
from service.streams.game import Game
from service.streams.loading import GameLoader
from service.streams.signing import VALID, Signer, signer_for

LOG_FORMAT = "game-log"
_GAME_ID = re.compile("[0-9a-f]{16}")


def digest(game: Game, envelopes: list[dict[str, Any]]) -> str:
    """A fingerprint of a log: every stored event, and what the game folds to (the
    everything-revealed view and the outcome). Any edit to an event line changes it."""
    outcome = game.outcome()
    final = {"view": game.rules.view(game.state, EVERYONE), "outcome": outcome.to_json() if outcome else None}
    return hashlib.sha256(dumps({"events": envelopes, "final": final}, sort=True)).hexdigest()


def _invalid(detail: str) -> Unprocessable:
    return Unprocessable(detail, code="invalid_log")


class PortableLogs:
    def __init__(self, loader: GameLoader, appender: Appender, clock: Clock, signing_keys: tuple[str, ...] = (),
                 players: Players | None = None):
        self.loader = loader
        self.players = players
        self.appender = appender
        self.clock = clock
        self.signing_keys = signing_keys
        self._signer: Signer | None = None

    @property
    def signer(self) -> Signer:
        """Signs with the first configured key (or the store's own random key: made once)."""
        if self._signer is None:
            self._signer = signer_for(self.signing_keys, self.loader.store)
        return self._signer

    def export(self, game: Game, viewer: Viewer) -> str:
        """``game`` as JSON Lines, as ``viewer`` may see it (``EVERYONE``: whole)."""
        records = self.loader.store.read(stream_of(game.id), 0, game.version)
        lines = [{"version": r.version, **redacted_envelope(r.event, viewer)} for r in records]
        header: dict[str, Any] = {
            "format": LOG_FORMAT, "format_version": 2, "game_id": game.id, "game_type": game.table.game_type,
            "rules_version": getattr(game.rules, "rules_version", "1"), "options": game.table.options,
            "seats": game.summary()["seats"], "events": len(records), "finished": game.over,
            "ranked": game.ranked, "redacted_for": None if viewer == EVERYONE else viewer,
            "digest": (digest(game, [r.event for r in records]) if viewer == EVERYONE
                       else hashlib.sha256(dumps(lines, sort=True)).hexdigest()),
            "exported_at": self.clock.iso(),
        }
        return self.signer.sign(header, "".join(dumps(line).decode() + "\n" for line in lines))

    def import_log(self, text: str) -> Game:
        """A game from an exported log; refused whole if anything is off."""
        header, bodies, line_numbers = self._parse(text)
        verdict = self.signer.verify(text)
        # envelope facts the server derives itself are never taken from a file
        envelopes = [{k: v for k, v in body.items() if k not in ("version", "after", "imported")}
                     for body in bodies]
        probe_id = uuid.uuid4().hex[:16]
        game, afters = self._refold(probe_id, envelopes, line_numbers)
        if not game.table.may_export():
            raise _invalid("the log is of a game that was neither finished nor consented to export")
        try:
            folded: str | None = digest(game, [{k: v for k, v in b.items() if k != "version"} for b in bodies])
        except Exception:  # an altered line may fold to a state the game cannot even show
            folded = None  # (the compiled engine checks the types it reads: a TypeError)
        if folded != header.get("digest"):
            raise _invalid("line 1, field digest: the events or the final state they fold to differ from the "
                           "header's digest: the log was altered")
        for envelope, after in zip(envelopes, afters, strict=True):
            if after is not None:
                envelope["after"] = after
        origin = header.get("game_id") if isinstance(header.get("game_id"), str) else None
        signed = verdict == VALID
        if signed and header.get("ranked", True) and origin and _GAME_ID.fullmatch(origin):
            envelopes[0]["imported"] = {"ranked": True, "from": origin, "signature": verdict}
            if self.players is not None:  # its players are listed with it (scoreboards, histories)
                for player_id in game.table.players.values():
                    self.players.restore(player_id, game.table.names.get(player_id, player_id))
            try:
                self.appender.append_stored_log(origin, envelopes)
                return self.loader.load(origin)
            except VersionConflict:
                reason = "already_here"
        else:
            reason = verdict if not signed else "unranked_at_origin"
        envelopes[0]["imported"] = {"ranked": False, "from": origin, "signature": verdict, "reason": reason}
        self.appender.append_stored_log(probe_id, envelopes)
        return self.loader.load(probe_id)

    def _parse(self, text: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[int]]:
        """The header, the event lines and the line number of each, checked for shape only."""
        numbered = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if not numbered:
            raise _invalid("the log is empty")
        parsed = []
        for number, line in numbered:
            try:
                parsed.append(loads(line))
            except ValueError as exc:
                column = getattr(exc, "colno", None)
                raise _invalid(f"line {number} is not JSON" + (f" (column {column})" if column else "")
                               + ": a log is JSON Lines, one JSON object per line") from None
        header, bodies, line_numbers = parsed[0], parsed[1:], [number for number, _ in numbered[1:]]
        if not bodies:
            raise _invalid("the log has a header but no events")
        if not isinstance(header, dict) or header.get("format") != LOG_FORMAT:
            raise _invalid(f"line {numbered[0][0]}, field format: the first line must be a {LOG_FORMAT!r} header")
        if header.get("events") != len(bodies):
            raise _invalid(f"line {numbered[0][0]}, field events: the header announces "
                           f"{_shown(header.get('events'))} events but the log has {len(bodies)}: "
                           "it is truncated or padded")
        for version, (body, number) in enumerate(zip(bodies, line_numbers, strict=True), start=1):
            if not isinstance(body, dict):
                raise _invalid(f"line {number} is not a JSON object (event version {version})")
            if body.get("version") != version:
                raise _invalid(f"line {number}, field version: {_shown(body.get('version'))} where event "
                               f"version {version} comes")
            if not isinstance(body.get("type"), str):
                raise _invalid(f"line {number}, field type: an event's type must be a string")
            for part in ("data", "secret"):
                if body.get(part) is not None and not isinstance(body[part], dict):
                    raise _invalid(f"line {number}, field {part}: must be a JSON object")
        if header.get("redacted_for") is not None:
            raise _invalid(f"line {numbered[0][0]}, field redacted_for: this copy was exported during play and "
                           "hides what its seat could not see; import the game's export once it is over")
        if header.get("game_type") not in self.loader.registry:
            raise _invalid(f"line {numbered[0][0]}, field game_type: unknown game type "
                           f"{_shown(header.get('game_type'))}")
        return header, bodies, line_numbers

    def _refold(self, game_id: str, envelopes: list[dict[str, Any]],
                line_numbers: list[int]) -> tuple[Game, list[dict[str, Any] | None]]:
        """The game the events fold to, and the public facts after each append (batch), as
        this server computes them. Options are checked against the game's bounds. A line
        that does not fold is refused with its number and what is wrong in it."""
        records = [Recorded(stream_of(game_id), i + 1, body) for i, body in enumerate(envelopes)]
        first_line = line_numbers[0]
        try:
            first = read_event(records[0].event)
        except Exception:
            raise _invalid(f"line {first_line}: the first event must be the platform's GameCreated") from None
        if records[0].event.get("source") != PLATFORM or first.type != GAME_CREATED:
            raise _invalid(f"line {first_line}, field type: the first event must be the platform's GameCreated")
        if first.data.get("game_type") not in self.loader.registry:
            raise _invalid(f"line {first_line}, field data.game_type: unknown game type "
                           f"{_shown(first.data.get('game_type'))}")
        rules = self.loader.rules(str(first.data.get("game_type")))
        seats = first.data.get("seats")
        if isinstance(seats, bool) or not isinstance(seats, int) or not rules.min_seats <= seats <= rules.max_seats:
            raise _invalid(f"line {first_line}, field data.seats: {rules.title} is for {rules.min_seats} to "
                           f"{rules.max_seats} seats")
        if not isinstance(first.data.get("options"), dict):
            raise _invalid(f"line {first_line}, field data.options: the log's GameCreated has no options")
        with _refusing_at(first_line, records[0].event):
            game = self.loader.fold(game_id, records[:1])
            # every option (secret ones included) within this server's bounds, else InvalidOptions
            split_options(dict(game.table.options))
            rules.check_setup(seats, game.table.game_options())
        afters: list[dict[str, Any] | None] = []
        for index, record in enumerate(records):
            self._check_bot(rules, record.event, line_numbers[index])
            with _refusing_at(line_numbers[index], record.event):
                if index:
                    game = self.loader.extend(game, [record]) or self.loader.fold(game_id, records[:index + 1])
                last_of_batch = index + 1 == len(records) or \
                    records[index + 1].event.get("batch") != record.event.get("batch")
                afters.append(game.public_facts() if last_of_batch else None)
        return game, afters

    @staticmethod
    def _check_bot(rules: Any, event: dict[str, Any], line: int) -> None:
        """A seat the log says a bot plays (or a stand-in may play) must be one of this server's
        bots: it will move here."""
        data = event.get("data") or {}
        if event.get("source") == PLATFORM and event.get("type") == GAME_CREATED and data.get("stand_in") is not None:
            problem = bot_problem(rules, data["stand_in"])
            if problem:
                raise _invalid(f"line {line}, field data.stand_in: {problem}")
        if event.get("source") == PLATFORM and event.get("type") == SEAT_TAKEN_OVER:
            stand_in = data.get("stand_in")
            problem = bot_problem(rules, stand_in.get("bot") if isinstance(stand_in, dict) else None)
            if problem:
                raise _invalid(f"line {line}, field data.stand_in.bot: {problem}")
        if event.get("source") == PLATFORM and event.get("type") == SEAT_TAKEN and "bot" in data:
            problem = bot_problem(rules, data["bot"])
            if problem:
                raise _invalid(f"line {line}, field data.bot: {problem}")


@contextmanager
def _refusing_at(line: int, event: dict[str, Any]) -> Iterator[None]:
    """Folding the event of ``line``: anything that goes wrong is refused as ``invalid_log``
    naming the line, the event and the field at fault where it can be told (a tampered log
    may break the fold in any way; the Python error itself is never shown)."""
    try:
        yield
    except ServiceError:
        raise
    except DomainError as exc:
        raise _invalid(f"line {line} ({_shown(event.get('type'))} event): the log breaks the game's rules: "
                       f"{exc}") from None
    except Exception as exc:
        raise _invalid(f"line {line} ({_shown(event.get('type'))} event): {_fault(event, exc)}") from None


def _fault(event: dict[str, Any], exc: Exception) -> str:
    """What is wrong in an event that broke the fold, as a person can act on it."""
    fields = {f"{part}.{name}": value for part in ("data", "secret")
              for name, value in (event.get(part) or {}).items()}
    if isinstance(exc, KeyError) and exc.args:
        key = exc.args[0]
        if isinstance(key, str) and not any(name.endswith(f".{key}") for name in fields):
            return f"field data.{key} is missing"
        named = [name for name, value in fields.items() if _same(value, key)]
        if named:
            return f"field {named[0]} ({_shown(key)}) names nothing the game has at this point"
    nulls = [name for name, value in fields.items() if value is None]
    if nulls:
        return f"field {nulls[0]} is null"
    listed = ", ".join(sorted(fields)) or "none"
    return f"the event does not fit the game as the lines before it leave it (its fields: {listed})"


def _same(value: Any, key: Any) -> bool:
    try:
        return bool(value == key) and type(value) is type(key)
    except Exception:
        return False


def _shown(value: Any) -> str:
    """A value from the file, short, as JSON."""
    try:
        text = dumps(value).decode()
    except Exception:
        text = "?"
    return text if len(text) <= 40 else text[:37] + "..."
