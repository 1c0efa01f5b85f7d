"""Invitations to a table: the platform's events that invite a player to a seat, or anyone
holding a link's code, and what became of each invitation.

An invitation names a player (``invitee``) or none (an open link: whoever holds its code
may accept); it may reserve a seat (nobody else can take it while the invitation is
pending) and it expires at a time chosen when it was sent. The code of an open link is
kept as its hash in the event's secret part, which nobody ever receives.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from domain.kernel.events import Event

INVITATION_SENT = "InvitationSent"
INVITATION_ACCEPTED = "InvitationAccepted"
INVITATION_DECLINED = "InvitationDeclined"
INVITATION_CANCELLED = "InvitationCancelled"
INVITATION_EVENTS = frozenset({INVITATION_SENT, INVITATION_ACCEPTED, INVITATION_DECLINED, INVITATION_CANCELLED})

PENDING = "pending"
ACCEPTED = "accepted"
DECLINED = "declined"
CANCELLED = "cancelled"
EXPIRED = "expired"


def invitation_sent(invitation_id: str, by: str, seat: int | None, invitee: str | None, invitee_name: str | None,
                    expires_at: str, code_hash: str | None) -> Event:
    data: dict[str, Any] = {"invitation_id": invitation_id, "by": by, "seat": seat, "invitee": invitee,
                            "invitee_name": invitee_name, "expires_at": expires_at}
    secret = {"code_hash": code_hash} if code_hash else None
    return Event(INVITATION_SENT, data, secret=secret, secret_to=frozenset())


def invitation_accepted(invitation_id: str, player_id: str, seat: int) -> Event:
    return Event(INVITATION_ACCEPTED, {"invitation_id": invitation_id, "player_id": player_id, "seat": seat})


def invitation_declined(invitation_id: str) -> Event:
    return Event(INVITATION_DECLINED, {"invitation_id": invitation_id})


def invitation_cancelled(invitation_id: str) -> Event:
    return Event(INVITATION_CANCELLED, {"invitation_id": invitation_id})


@dataclass
class Invitation:
    id: str
    by: str
    seat: int | None
    invitee: str | None
    invitee_name: str | None
    expires_at: str
    code_hash: str | None = None
    status: str = PENDING
    accepted_by: str | None = None

    def status_at(self, now: str) -> str:
        """Its status at ``now`` (an ISO time like the events'): a pending one past its time has expired."""
        return EXPIRED if self.status == PENDING and now >= self.expires_at else self.status

    def to_json(self, now: str) -> dict[str, Any]:
        return {"id": self.id, "by": self.by, "seat": self.seat, "invitee": self.invitee,
                "invitee_name": self.invitee_name, "open_link": self.invitee is None,
                "expires_at": self.expires_at, "status": self.status_at(now), "accepted_by": self.accepted_by}


@dataclass
class Invitations:
    """Every invitation of a table, by id, in the order they were sent."""

    by_id: dict[str, Invitation] = field(default_factory=dict)

    def apply(self, event: Event) -> None:
        data = event.data
        if event.type == INVITATION_SENT:
            self.by_id[data["invitation_id"]] = Invitation(
                data["invitation_id"], data["by"], data["seat"], data["invitee"], data["invitee_name"],
                data["expires_at"], (event.secret or {}).get("code_hash"))
            return
        found = self.by_id.get(data["invitation_id"])
        if found is None:
            return
        if event.type == INVITATION_ACCEPTED:
            self.by_id[found.id] = replace(found, status=ACCEPTED, accepted_by=data["player_id"])
        elif event.type == INVITATION_DECLINED:
            self.by_id[found.id] = replace(found, status=DECLINED)
        elif event.type == INVITATION_CANCELLED:
            self.by_id[found.id] = replace(found, status=CANCELLED)

    def pending(self, now: str) -> list[Invitation]:
        return [i for i in self.by_id.values() if i.status_at(now) == PENDING]

    def reserved_seats(self, now: str) -> set[int]:
        """Seats held for a pending invitation."""
        return {i.seat for i in self.pending(now) if i.seat is not None}

    def copy(self) -> Invitations:
        return Invitations(dict(self.by_id))
