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
from typing import Any

from domain.kernel import DomainError, Event
from domain.kernel.events import EVERYONE
from domain.kernel.table import GAME_CREATED, PLATFORM, split_options
from service.adapters.codec import dumps, loads
from service.adapters.store import Recorded, VersionConflict
from service.appending import Appender, Clock
from service.envelopes import Viewer, redacted_envelope, stream_of
from service.errors import ServiceError, Unprocessable
from service.game import Game
from service.loading import GameLoader
from service.signing import VALID, Signer, signer_for

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
    def __init__(self, loader: GameLoader, appender: Appender, clock: Clock, signing_keys: tuple[str, ...] = ()):
        self.loader = loader
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
        header, bodies = self._parse(text)
        verdict = self.signer.verify(text)
        # envelope facts the server derives itself are never taken from a file
        envelopes = [{k: v for k, v in body.items() if k not in ("version", "after", "imported")}
                     for body in bodies]
        probe_id = uuid.uuid4().hex[:16]
        try:
            game, afters = self._refold(probe_id, envelopes)
        except ServiceError:
            raise
        except DomainError as exc:
            raise _invalid(f"the log breaks the game's rules: {exc}") from None
        except Exception as exc:  # a tampered log may break the fold in any way
            raise _invalid(f"the events do not fold into a game: {exc!r}") from None
        if not game.table.may_export():
            raise _invalid("the log is of a game that was neither finished nor consented to export")
        if digest(game, [{k: v for k, v in b.items() if k != "version"} for b in bodies]) != header.get("digest"):
            raise _invalid("the events or the final state they fold to differ from the header's digest: "
                           "the log was altered")
        for envelope, after in zip(envelopes, afters, strict=True):
            if after is not None:
                envelope["after"] = after
        origin = header.get("game_id") if isinstance(header.get("game_id"), str) else None
        signed = verdict == VALID
        if signed and header.get("ranked", True) and origin and _GAME_ID.fullmatch(origin):
            envelopes[0]["imported"] = {"ranked": True, "from": origin, "signature": verdict}
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

    def _parse(self, text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The header and the event lines, checked for shape only."""
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise _invalid("the log is empty")
        try:
            parsed = [loads(line) for line in lines]
        except ValueError as exc:
            raise _invalid(f"the log is not JSON Lines: {exc}") from None
        header, bodies = parsed[0], parsed[1:]
        if not bodies:
            raise _invalid("the log has a header but no events")
        if not isinstance(header, dict) or header.get("format") != LOG_FORMAT:
            raise _invalid(f"the first line must be a {LOG_FORMAT!r} header")
        if header.get("events") != len(bodies):
            raise _invalid(f"the header announces {header.get('events')} events but the log has "
                           f"{len(bodies)}: it is truncated or padded")
        for number, body in enumerate(bodies, start=1):
            if not isinstance(body, dict) or body.get("version") != number or not isinstance(body.get("type"), str):
                raise _invalid(f"line {number + 1} is not event version {number}")
        if header.get("redacted_for") is not None:
            raise _invalid("this copy was exported during play and hides what its seat could not see; "
                           "import the game's export once it is over")
        if header.get("game_type") not in self.loader.registry:
            raise _invalid(f"unknown game type {header.get('game_type')!r}")
        return header, bodies

    def _refold(self, game_id: str, envelopes: list[dict[str, Any]]) -> tuple[Game, list[dict[str, Any] | None]]:
        """The game the events fold to, and the public facts after each append (batch), as
        this server computes them. Options are checked against the game's bounds."""
        records = [Recorded(stream_of(game_id), i + 1, body) for i, body in enumerate(envelopes)]
        first = Event.from_json(records[0].event)
        if records[0].event.get("source") != PLATFORM or first.type != GAME_CREATED:
            raise _invalid("the events do not fold into a game: the first event must be the platform's GameCreated")
        rules = self.loader.rules(str(first.data.get("game_type")))
        seats = first.data.get("seats")
        if isinstance(seats, bool) or not isinstance(seats, int) or not rules.min_seats <= seats <= rules.max_seats:
            raise _invalid(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} seats")
        if not isinstance(first.data.get("options"), dict):
            raise _invalid("the log's GameCreated has no options")
        game = self.loader.fold(game_id, records[:1])
        # every option (secret ones included) within this server's bounds, else InvalidOptions
        split_options(dict(game.table.options))
        rules.check_options(game.table.game_options()).validate_seats(seats)
        afters: list[dict[str, Any] | None] = []
        for index, record in enumerate(records):
            if index:
                game = self.loader.extend(game, [record]) or self.loader.fold(game_id, records[:index + 1])
            last_of_batch = index + 1 == len(records) or \
                records[index + 1].event.get("batch") != record.event.get("batch")
            afters.append(game.public_facts() if last_of_batch else None)
        return game, afters
