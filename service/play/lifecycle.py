"""The life of a table around its moves: resign, abort, end by agreement, rematch, and
invitations to private (or public) tables.

Each use case is a platform event appended to the game's stream, like a move
(``domain.kernel.endings``, ``domain.kernel.invitations``), so it replays, exports and is
redacted like one; the rules of each game say only what a resignation means
(``resigned``). Seats played by computer opponents never need to agree or accept: they
have nothing of their own at stake.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from domain.kernel.endings import (
    end_agreed,
    end_declined,
    end_proposed,
    game_aborted,
    game_ended_by_agreement,
    rematch_accepted,
    rematch_declined,
    rematch_offered,
    rematch_started,
    resigned_outcome,
    seat_resigned,
)
from domain.kernel.fairness import SECRET_BITS
from domain.kernel.invitations import (
    PENDING,
    invitation_accepted,
    invitation_cancelled,
    invitation_declined,
    invitation_sent,
)
from domain.kernel.stand_ins import RESIGNED, seat_reclaimed
from domain.kernel.table import Table, game_created, seat_taken
from service.adapters.store import VersionConflict
from service.background.bot_seats import BOT_GAMES
from service.base.errors import Conflict, Forbidden, NotFound, TooManyRequests, Unprocessable
from service.players.player_feed import PLAYING_SET
from service.streams.appending import iso, retried
from service.streams.envelopes import GAME_SOURCE, NewEvent, stream_of
from service.streams.game import Game, opening_events

#: how long an invitation stands unless its sender says otherwise, and the bounds
INVITATION_SECONDS = 7 * 86_400
INVITATION_MIN_SECONDS = 60
INVITATION_MAX_SECONDS = 30 * 86_400
#: pending invitations a table may have at once (each seat twice over, at most)
MAX_PENDING_PER_SEAT = 2
#: the store's set of games with an invitation to a player (a hint, checked against each game)
INVITED_SET = "invited:"


def _hash_code(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


@dataclass(frozen=True)
class Invitation:
    """An invitation as ``Lifecycle.invite`` is asked to send it."""

    id: str
    seat: int | None
    invited: Mapping[str, Any] | None
    code_hash: str | None
    seconds: int


class Lifecycle:
    def __init__(self, games: Any):
        """``games``: the ``service.play.services.GameService`` this serves (its store, loader, appender)."""
        self.games = games

    # -- helpers ---------------------------------------------------------------------------
    def _append(self, game: Game, events: list[NewEvent]) -> Game:
        return self.games.appender.append(game, events)[0]

    def _now(self) -> str:
        return self.games.appender.clock.iso()

    @staticmethod
    def _people(game: Game) -> set[int]:
        """The seats played by persons (bots agree to whatever the persons agree)."""
        return set(range(game.table.seats)) - set(game.table.bot_seats())

    def _playing_seat(self, game: Game, player: Mapping[str, Any]) -> int:
        seat = self.games._seat(game, player)
        if game.over:
            raise Conflict("the game is over", code="game_over")
        return seat

    # -- resign, abort, agreement -------------------------------------------------------------
    def resign(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """The caller's seat gives up. In a game of three or more seats with a stand-in, while
        another seat is a person's, the game goes on with the stand-in in that seat (which the
        caller may reclaim); otherwise it ends now, as its rules rule on a resignation."""
        game = self._give_up(game_id, player, {})
        if game.table.seat_left_by(player["id"]) is not None:
            self.games.store.set_add(BOT_GAMES, game_id)  # its stand-in plays from now on
        return game

    @retried
    def _give_up(self, game_id: str, player: Mapping[str, Any], stand_ins: dict[int, dict[str, Any]]) -> Game:
        """``stand_ins``: the stand-in's player, made once whatever the retries."""
        game = self.games.load(game_id)
        seat = self._playing_seat(game, player)
        if game.may_stand_in(seat):
            events = [self.games.stand_in_for(game, seat, RESIGNED, stand_ins)]
            votes = game.table.endings.end_votes
            if votes and game.table.people() - {seat} <= votes:  # the others had all agreed to stop
                events.append(NewEvent(game_ended_by_agreement(game.table.seats), seat))
            return self._append(game, events)
        outcome = resigned_outcome(game.rules, game.state, seat, game.table.seats)
        return self._append(game, [NewEvent(seat_resigned(seat, outcome), seat)])

    @retried
    def reclaim(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """Take back the seat a stand-in plays for the caller (after a timeout or a resignation):
        the stand-in stops at once, and the caller answers whatever the seat is asked from here."""
        game = self.games.load(game_id)
        seat = game.table.seat_left_by(player["id"])
        if seat is None:
            if game.table.seat_of(player["id"]) is not None:
                raise Conflict("your seat is yours already: no stand-in plays it", code="not_taken_over")
            raise Forbidden("no seat of yours at this game is played by a stand-in")
        if game.over:
            raise Conflict("the game is over", code="game_over")
        if game.sealed_to_its_player(seat):
            raise Conflict("the stand-in has sealed a choice only it can open (a Tribute it has not revealed): "
                           "reclaim the seat once it is revealed", code="conflict")
        return self._append(game, [NewEvent(seat_reclaimed(seat, player["id"], player["name"]), seat)])

    @retried
    def abort(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """Call the table off before its first move: a waiting table by its creator or a seated
        player, a started one by any seated player while no seat has moved. Nobody wins."""
        game = self.games.load(game_id)
        table = game.table
        seat = table.seat_of(player["id"])
        if game.over:
            raise Conflict("the game is over", code="game_over")
        if seat is None and not (player["id"] == table.created_by and not table.started):
            raise Forbidden("only a seated player (or the creator of a waiting table) may abort it")
        if table.started and self._first_move_made(game):
            raise Conflict("the first move was made: resign, or propose to end by agreement",
                           code="game_in_progress")
        return self._append(game, [NewEvent(game_aborted(seat), seat)])

    def _first_move_made(self, game: Game) -> bool:
        records = self.games.store.read(stream_of(game.id), 0, game.version)
        return any(r.event.get("source") == GAME_SOURCE and r.event.get("actor") is not None
                   and r.version not in game.undone for r in records)

    @retried
    def propose_end(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """Propose to end the game now (or agree to the standing proposal); once every seat
        played by a person agreed, the game ends as a draw."""
        game = self.games.load(game_id)
        seat = self._playing_seat(game, player)
        votes = game.table.endings.end_votes
        if seat in votes:
            return game
        events = [NewEvent(end_agreed(seat) if votes else end_proposed(seat), seat)]
        if self._people(game) <= votes | {seat}:
            events.append(NewEvent(game_ended_by_agreement(game.table.seats), seat))
        return self._append(game, events)

    @retried
    def decline_end(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """Decline the proposal to end (or withdraw one's own): play goes on."""
        game = self.games.load(game_id)
        seat = self._playing_seat(game, player)
        if not game.table.endings.end_votes:
            return game
        return self._append(game, [NewEvent(end_declined(seat), seat)])

    # -- rematch ----------------------------------------------------------------------------
    @retried
    def offer_rematch(self, game_id: str, player: Mapping[str, Any]) -> Game:
        """Offer a rematch after the end (or accept the standing offer). Once every seat played
        by a person accepted, the new game starts: the same players, each one seat on."""
        game = self.games.load(game_id)
        seat = self.games._seat(game, player)
        endings = game.table.endings
        if not game.over:
            raise Conflict("a rematch is offered once the game is over", code="not_over")
        if endings.rematch is not None:
            return game
        events: list[NewEvent] = []
        if seat not in endings.rematch_votes:
            events.append(NewEvent(rematch_accepted(seat) if endings.rematch_votes else rematch_offered(seat), seat))
        if self._people(game) <= endings.rematch_votes | {seat}:
            new_id = self._start_rematch(game)
            events.append(NewEvent(rematch_started(new_id), seat))
        return self._append(game, events) if events else game

    @retried
    def decline_rematch(self, game_id: str, player: Mapping[str, Any]) -> Game:
        game = self.games.load(game_id)
        seat = self.games._seat(game, player)
        endings = game.table.endings
        if endings.rematch is not None:
            raise Conflict(f"the rematch has started: game {endings.rematch}", code="rematch_started")
        if not endings.rematch_votes:
            return game
        return self._append(game, [NewEvent(rematch_declined(seat), seat)])

    def _start_rematch(self, old: Game) -> str:
        """Create and start the rematch of ``old`` (its id follows from ``old``'s, so a retry
        finds the game it made): the same type, options and players, each one seat on."""
        table = old.table
        new_id = hashlib.sha256(f"rematch:{old.id}".encode()).hexdigest()[:16]
        seats = table.seats
        players = {(s + 1) % seats: table.players[s] for s in range(seats)}
        created = game_created(table.game_type, dict(table.options), seats, table.created_by,
                               secrets.token_hex(SECRET_BITS // 8), table.secret_options,
                               salt=secrets.token_hex(SECRET_BITS // 8))
        created.data["rematch_of"] = old.id
        created.data["stand_in"] = table.stand_in
        if table.private:
            created.data["private"] = True
        events = [NewEvent(created)]
        for seat in range(seats):
            player = players[seat]
            events.append(NewEvent(seat_taken(seat, player, table.names.get(player, player), table.bots.get(player))))
        seated = self.games.loader.advance(Game(new_id, 0, Table(), old.rules), events)
        events += opening_events(seated, players)
        try:
            rematch, _ = self.games.appender.append(Game(new_id, 0, Table(), old.rules), events)
        except VersionConflict:  # made by an earlier attempt
            return new_id
        if rematch.table.bot_seats():
            self.games.store.set_add(BOT_GAMES, new_id)
        return new_id

    # -- invitations -----------------------------------------------------------------------
    def invite(self, game_id: str, player: Mapping[str, Any], seat: int | None, invitee: str | None,
               expires_in: int | None) -> dict[str, Any]:
        """Invite ``invitee`` (a player id) to the table, or anyone holding the code of an open
        link (``invitee`` None); ``seat`` holds that seat for the invitation. The creator of the
        table or a seated player invites, while seats are open."""
        seconds = INVITATION_SECONDS if expires_in is None else expires_in
        if not INVITATION_MIN_SECONDS <= seconds <= INVITATION_MAX_SECONDS:
            raise Unprocessable(f"expires_in must be {INVITATION_MIN_SECONDS} to {INVITATION_MAX_SECONDS} seconds",
                                code="invalid_input")
        invited = self.games.players.get(invitee) if invitee is not None else None
        code = secrets.token_urlsafe(16) if invitee is None else None
        invitation_id = secrets.token_hex(8)
        sent = Invitation(invitation_id, seat, invited, _hash_code(code) if code else None, seconds)
        game = self._send_invitation(game_id, player, sent)
        if invited is not None:
            self.games.store.set_add(INVITED_SET + invited["id"], game_id)
        answer = game.table.invitations.by_id[invitation_id].to_json(self._now())
        answer["game_id"] = game_id
        if code is not None:  # shown only now: the link's holder accepts with it
            answer["code"] = code
            # after the '#': browsers never send it, so the code stays out of every access log
            answer["link"] = f"/#/invitation/{game_id}/{invitation_id}/{code}"
        return answer

    @retried
    def _send_invitation(self, game_id: str, player: Mapping[str, Any], sent: Invitation) -> Game:
        seat, invited = sent.seat, sent.invited
        game = self.games.load(game_id)
        table = game.table
        now = self._now()
        if player["id"] != table.created_by and table.seat_of(player["id"]) is None:
            raise Forbidden("only the table's creator or a seated player may invite")
        if game.over:
            raise Conflict("the table was called off", code="game_over")
        if table.started:
            raise Conflict("the game has started: no seat is open", code="game_started")
        if invited is not None and table.seat_of(invited["id"]) is not None:
            raise Conflict("that player already has a seat at this table", code="already_seated")
        if invited is not None and any(i.invitee == invited["id"] for i in table.invitations.pending(now)):
            raise Conflict("that player already has a pending invitation to this table", code="already_invited")
        if seat is not None:
            if not 0 <= seat < table.seats:
                raise NotFound(f"this table has no seat {seat}: its seats are 0 to {table.seats - 1}")
            if seat not in table.open_seats() or seat in table.invitations.reserved_seats(now):
                raise Conflict(f"seat {seat} is taken or held for another invitation", code="seat_taken")
        limit = MAX_PENDING_PER_SEAT * table.seats
        if len(table.invitations.pending(now)) >= limit:
            raise TooManyRequests(f"this table has {limit} pending invitations, its most; cancel one or let "
                                  "it expire first", code="too_many_invitations", retry_after=60)
        expires_at = iso(self.games.appender.clock.now() + timedelta(seconds=sent.seconds))
        event = invitation_sent(sent.id, player["id"], seat, invited["id"] if invited else None,
                                invited["name"] if invited else None, expires_at, sent.code_hash)
        return self._append(game, [NewEvent(event, table.seat_of(player["id"]))])

    def invitations(self, game_id: str, player: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The table's invitations: all of them to its creator and seated players, else the
        caller's own."""
        game = self.games.load(game_id)
        table = game.table
        now = self._now()
        insider = player["id"] == table.created_by or table.seat_of(player["id"]) is not None
        return [{**i.to_json(now), "game_id": game_id} for i in table.invitations.by_id.values()
                if insider or i.invitee == player["id"]]

    def _pending(self, game: Game, invitation_id: str) -> Any:
        found = game.table.invitations.by_id.get(invitation_id)
        if found is None:
            raise NotFound(f"no invitation {invitation_id!r} at this table")
        status = found.status_at(self._now())
        if status != PENDING:
            raise Conflict(f"the invitation is {status}", code="invitation_closed")
        return found

    def accept(self, game_id: str, invitation_id: str, player: Mapping[str, Any], code: str | None) -> tuple[Game, int]:
        """Take the seat an invitation offers (the first open one if it names none); an open
        link needs its code. The last seat starts the game."""
        joined = self._take_invited_seat(game_id, invitation_id, player, code)
        self.games.store.set_remove(INVITED_SET + player["id"], game_id)
        return joined

    @retried
    def _take_invited_seat(self, game_id: str, invitation_id: str, player: Mapping[str, Any], code: str | None) -> tuple[Game, int]:
        game = self.games.load(game_id)
        table = game.table
        invitation = self._pending(game, invitation_id)
        if invitation.invitee is not None and invitation.invitee != player["id"]:
            raise Forbidden("this invitation is for another player")
        if invitation.invitee is None and (code is None or invitation.code_hash is None
                                           or not hmac.compare_digest(_hash_code(code), invitation.code_hash)):
            raise Forbidden("an open invitation is accepted with its link's code: the code is missing or wrong")
        if table.seat_of(player["id"]) is not None:
            raise Conflict("you already have a seat at this game", code="already_seated")
        now = self._now()
        held = table.invitations.reserved_seats(now) - ({invitation.seat} if invitation.seat is not None else set())
        free = [s for s in table.open_seats() if s not in held]
        seat = invitation.seat if invitation.seat is not None else (free[0] if free else None)
        if seat is None or seat not in table.open_seats():
            raise Conflict("no seat is open for this invitation", code="seat_taken")
        events = [NewEvent(invitation_accepted(invitation_id, player["id"], seat)),
                  NewEvent(seat_taken(seat, player["id"], player["name"]))]
        if len(table.open_seats()) == 1:
            events += opening_events(game, {**table.players, seat: player["id"]})
        return self._append(game, events), seat

    def decline(self, game_id: str, invitation_id: str, player: Mapping[str, Any]) -> Game:
        game = self._decline_invitation(game_id, invitation_id, player)
        self.games.store.set_remove(INVITED_SET + player["id"], game_id)
        return game

    @retried
    def _decline_invitation(self, game_id: str, invitation_id: str, player: Mapping[str, Any]) -> Game:
        game = self.games.load(game_id)
        invitation = self._pending(game, invitation_id)
        if invitation.invitee != player["id"]:
            raise Forbidden("only the invited player declines an invitation (an open link is cancelled)")
        return self._append(game, [NewEvent(invitation_declined(invitation_id))])

    def cancel(self, game_id: str, invitation_id: str, player: Mapping[str, Any]) -> Game:
        game = self._cancel_invitation(game_id, invitation_id, player)
        invitation = game.table.invitations.by_id[invitation_id]
        if invitation.invitee is not None:
            self.games.store.set_remove(INVITED_SET + invitation.invitee, game_id)
        return game

    @retried
    def _cancel_invitation(self, game_id: str, invitation_id: str, player: Mapping[str, Any]) -> Game:
        game = self.games.load(game_id)
        invitation = self._pending(game, invitation_id)
        if player["id"] not in (invitation.by, game.table.created_by):
            raise Forbidden("only who sent an invitation, or the table's creator, cancels it")
        return self._append(game, [NewEvent(invitation_cancelled(invitation_id))])

    def waiting_for(self, player: Mapping[str, Any]) -> dict[str, Any]:
        """What waits for the caller: pending invitations (private tables included) and the
        games where it is the caller's move."""
        now = self._now()
        invitations = []
        for game_id in self.games.store.set_members(INVITED_SET + player["id"]):
            try:
                game = self.games.load(game_id)
            except NotFound:
                continue
            mine = [i for i in game.table.invitations.pending(now) if i.invitee == player["id"]]
            if not mine:
                self.games.store.set_remove(INVITED_SET + player["id"], game_id)
            invitations += [{**i.to_json(now), "game_id": game_id, "game": game.summary()} for i in mine]
        your_turn = []
        for game_id in self.games.store.set_members(PLAYING_SET + player["id"]):
            try:
                game = self.games.load(game_id)
            except NotFound:
                continue
            if game.over:
                self.games.store.set_remove(PLAYING_SET + player["id"], game_id)
                continue
            seat = game.seat_of(player)
            if seat is not None and seat in game.public_facts()["to_move"]:
                your_turn.append(game.summary())
        return {"invitations": invitations, "your_turn": your_turn}

