"""Envelopes for projection unit tests, shaped as the service stores events.

``GameLog`` numbers versions, stamps times, and puts ``after`` on the last event of each
append, as ``Appender.append`` does; ``envelopes`` turns the log into the public
envelopes a projection receives.
"""

from __future__ import annotations

from typing import Any

from domain.kernel.table import PLATFORM_UPCASTERS, game_created, game_started, moves_undone, seat_taken
from projections.base import envelope


class GameLog:
    def __init__(self, game_id: str, kind: str = "highcard", seats: int = 2, minute: int = 0,
                 partition: int = 0):
        self.game_id = game_id
        self.kind = kind
        self.seats = seats
        self.bodies: list[dict[str, Any]] = []
        self.second = minute * 60
        self.partition = partition
        self.append([(game_created(kind, {"tricks": 3}, seats, "creator", "seed-secret"), "platform", None)],
                    status="waiting", to_move=[])

    def stamp(self) -> str:
        self.second += 1
        return f"2026-01-01T{self.second // 3600:02d}:{self.second // 60 % 60:02d}:{self.second % 60:02d}.000Z"

    def append(self, events, status: str, to_move: list[int], outcome: dict[str, Any] | None = None) -> GameLog:
        at = self.stamp()
        batch = len(self.bodies) + 1
        for event, source, actor in events:
            body = event.to_json()
            body.update(source=source, actor=actor, at=at, batch=batch, v=PLATFORM_UPCASTERS.current_version(event.type) if source == "platform" else 1)
            self.bodies.append(body)
        self.bodies[-1]["after"] = {"status": status, "to_move": to_move, "outcome": outcome}
        return self

    def join(self, seat: int, player: str, name: str | None = None) -> GameLog:
        return self.append([(seat_taken(seat, player, name or player.upper()), "platform", None)],
                           status="waiting", to_move=[])

    def start(self, players: list[str], to_move: int = 0) -> GameLog:
        from domain.kernel import Event

        dealt = [Event("HandDealt", {"seat": s, "count": 3}, secret={"cards": [f"h0{s}"]},
                       secret_to=frozenset({s}), barrier=True) for s in range(self.seats)]
        return self.append([(game_started(players), "platform", None)] + [(e, "game", None) for e in dealt],
                           status="active", to_move=[to_move])

    def move(self, seat: int, to_move: list[int], card: str = "h05") -> GameLog:
        from domain.kernel import Event

        return self.append([(Event("CardPlayed", {"seat": seat, "card": card}), "game", seat)],
                           status="active", to_move=to_move)

    def undo(self, seat: int, to_move: list[int]) -> GameLog:
        last = len(self.bodies)
        return self.append([(moves_undone(seat, last, last), "platform", seat)], status="active", to_move=to_move)

    def finish(self, seat: int, winners: list[int], scores: dict[int, int]) -> GameLog:
        from domain.kernel import Event

        outcome = {"winners": winners, "scores": {str(s): v for s, v in scores.items()}, "details": {}}
        return self.append([(Event("GameOver", {"points": {str(s): v for s, v in scores.items()}}), "game", seat)],
                           status="finished", to_move=[], outcome=outcome)

    def envelopes(self) -> list[dict[str, Any]]:
        return [envelope(f"game-{self.game_id}", version, body, self.partition, version)
                for version, body in enumerate(self.bodies, start=1)]


def fold(projection, *logs: GameLog | list[dict[str, Any]]) -> dict[str, Any]:
    model = projection.initial()
    for log in logs:
        for env in (log.envelopes() if isinstance(log, GameLog) else log):
            model = projection.apply(model, env)
    return model


def two_player_game(game_id: str, a: str, b: str, winner: int, scores: dict[int, int], kind: str = "highcard",
                    minute: int = 0) -> GameLog:
    log = GameLog(game_id, kind, 2, minute).join(0, a).join(1, b).start([a, b])
    return log.move(0, [1]).move(1, [0]).finish(0, [winner], scores)
