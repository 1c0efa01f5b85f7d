"""The game-agnostic command handling, exercised with the tiny test-only High Card game."""

from __future__ import annotations

import pytest

from domain.kernel import Command, InvalidOptions, RuleViolation
from service.adapters.memory_store import MemoryStore
from service.adapters.sqlite_store import SqliteStore
from service.base.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from service.play.services import GameService
from tests.games.highcard import RULES

REGISTRY = {"highcard": RULES}


def started_game(service: GameService, seats: int = 2):
    players = [service.players.create(f"p{i}") for i in range(seats)]
    game = service.create_game(players[0], "highcard", {}, seats)
    for player in players:
        service.join_game(game.id, player)
    return game.id, players


def to_move(service, game_id, players):
    seat = service.load(game_id).summary()["to_move"][0]
    return seat, players[seat]


def play_first_legal(service, game_id, players, **kwargs):
    seat, player = to_move(service, game_id, players)
    command = RULES.legal_commands(service.load(game_id).state, seat)[0]
    return service.submit_command(game_id, player, command, **kwargs)


@pytest.fixture
def service():
    return GameService(MemoryStore(), REGISTRY)


def test_the_game_starts_when_the_last_seat_is_taken(service):
    game_id, _ = started_game(service, seats=3)
    summary = service.load(game_id).summary()
    assert summary["status"] == "active"
    assert [s["name"] for s in summary["seats"]] == ["p0", "p1", "p2"]


def test_a_seat_cannot_be_taken_twice_nor_by_the_same_player(service):
    a, b, c = (service.players.create(n) for n in "abc")
    game = service.create_game(a, "highcard", {}, 3)
    service.join_game(game.id, a, wanted=1)
    with pytest.raises(Conflict, match="seat 1 is taken"):
        service.join_game(game.id, b, wanted=1)
    with pytest.raises(Conflict, match="already have a seat"):
        service.join_game(game.id, a)
    with pytest.raises(Unprocessable, match="seat must be between 0 and 2"):
        service.join_game(game.id, c, wanted=7)


def test_an_unknown_option_or_seat_count_is_refused_by_name(service):
    player = service.players.create("a")
    with pytest.raises(Exception, match="option 'trics': unknown option"):
        service.create_game(player, "highcard", {"trics": 2}, 2)
    with pytest.raises(InvalidOptions, match="option 'seats': High Card .* is for 2 to 4 seats, not 9") as refused:
        service.create_game(player, "highcard", {}, 9)
    assert refused.value.option == "seats"
    with pytest.raises(Unprocessable, match="unknown game type 'chess'"):
        service.create_game(player, "chess", {}, 2)


def test_a_player_without_a_seat_cannot_command(service):
    game_id, _ = started_game(service)
    stranger = service.players.create("stranger")
    with pytest.raises(Forbidden):
        service.submit_command(game_id, stranger, Command("PlayCard", {"card": "h01"}))
    with pytest.raises(Unauthorized):
        service.submit_command(game_id, None, Command("PlayCard", {"card": "h01"}))


def test_a_command_out_of_turn_is_refused_with_the_reason_and_changes_nothing(service):
    game_id, players = started_game(service)
    seat, _ = to_move(service, game_id, players)
    other = players[1 - seat]
    version = service.load(game_id).version
    with pytest.raises(RuleViolation, match="not your turn"):
        service.submit_command(game_id, other, Command("PlayCard", {"card": "h01"}))
    assert service.load(game_id).version == version


def test_a_stale_expected_version_is_a_conflict_naming_the_current_version(service):
    game_id, players = started_game(service)
    version = service.load(game_id).version
    with pytest.raises(Conflict) as refused:
        play_first_legal(service, game_id, players, expected_version=version - 1)
    assert refused.value.extra["current_version"] == version
    assert service.load(game_id).version == version
    assert play_first_legal(service, game_id, players, expected_version=version)["version"] == version + 1


class RacingStore(MemoryStore):
    """Runs ``race`` once, just before the next append: another writer gets in first."""

    race = None
    appends = 0

    def append(self, *args, **kwargs):
        if not args[0].startswith("game-"):  # a player's feed (its notices follow a game's append)
            return super().append(*args, **kwargs)
        self.appends += 1
        if self.race is not None:
            race, self.race = self.race, None
            race()
        return super().append(*args, **kwargs)


def test_without_an_expected_version_a_conflict_is_retried_against_the_new_state():
    store = RacingStore()
    first, second = GameService(store, REGISTRY), GameService(store, REGISTRY)
    game_id, players = started_game(first)
    seat, player = to_move(first, game_id, players)
    legal = RULES.legal_commands(first.load(game_id).state, seat)
    store.race = lambda: first.submit_command(game_id, player, legal[0])
    store.appends = 0
    # second decided on the old state; its append loses, it reloads and decides again:
    # the same card is gone now, so the retry is refused for the reason the new state gives
    with pytest.raises(RuleViolation, match="not your turn"):
        second.submit_command(game_id, player, legal[0])
    assert store.appends == 2  # the race's append, and second's losing append; no more
    events = [r.event["type"] for r in store.read(f"game-{game_id}")]
    assert events.count("CardPlayed") == 1


def test_an_idempotent_retry_returns_the_first_answer_and_acts_once(tmp_path):
    path = str(tmp_path / "events.db")
    service = GameService(SqliteStore(path), REGISTRY)
    game_id, players = started_game(service)
    seat, player = to_move(service, game_id, players)
    command = RULES.legal_commands(service.load(game_id).state, seat)[0]
    first = service.submit_command(game_id, player, command, idempotency_key="k-1")
    again = service.submit_command(game_id, player, command, idempotency_key="k-1")
    restarted = GameService(SqliteStore(path), REGISTRY)  # a new process on the same file
    after_restart = restarted.submit_command(game_id, player, command, idempotency_key="k-1")
    assert first == again == after_restart
    assert restarted.load(game_id).version == first["version"]
    with pytest.raises(Unprocessable, match="already used for a different request"):
        restarted.submit_command(game_id, player, Command("PlayCard", {"card": "h99"}), idempotency_key="k-1")


def test_undo_takes_back_the_latest_move_and_a_different_move_can_follow(service):
    game_id, players = started_game(service)
    seat, player = to_move(service, game_id, players)
    before = service.state(game_id, player)["view"]
    legal = RULES.legal_commands(service.load(game_id).state, seat)
    service.submit_command(game_id, player, legal[0])
    service.undo(game_id, player)
    assert service.state(game_id, player)["view"] == before
    result = service.submit_command(game_id, player, legal[1])
    assert result["events"][0]["data"]["card"] == legal[1].args["card"]
    assert sorted(service.load(game_id).state.hands[seat]) == sorted(
        {c.args["card"] for c in legal} - {legal[1].args["card"]})


def test_undo_is_refused_once_another_seat_has_acted(service):
    game_id, players = started_game(service)
    first_seat, first = to_move(service, game_id, players)
    play_first_legal(service, game_id, players)
    play_first_legal(service, game_id, players)  # the other seat answers
    with pytest.raises(RuleViolation, match="another seat has acted"):
        service.undo(game_id, first)


def test_undo_with_nothing_to_undo_is_refused(service):
    game_id, players = started_game(service)
    with pytest.raises(RuleViolation, match="no move to undo|another seat"):
        service.undo(game_id, players[0])


def test_time_travel_gives_each_version_as_a_fresh_fold_of_the_first_n_events(service):
    game_id, players = started_game(service)
    while not service.load(game_id).over:
        play_first_legal(service, game_id, players)
    final = service.load(game_id).version
    fresh = GameService(service.store, REGISTRY)
    for version in range(1, final + 1):
        assert service.load(game_id, at=version).version == version
        assert service.state(game_id, players[0], at=version) == fresh.state(game_id, players[0], at=version)
    with pytest.raises(NotFound):
        service.load(game_id, at=final + 1)


def test_an_unknown_game_is_not_found(service):
    with pytest.raises(NotFound):
        service.load("0123456789abcdef")


def test_concurrent_joins_without_a_seat_choice_each_get_a_different_open_seat():
    store = RacingStore()
    first, second = GameService(store, REGISTRY), GameService(store, REGISTRY)
    a, b, c = (first.players.create(n) for n in "abc")
    game = first.create_game(a, "highcard", {}, 3)
    second.load(game.id)
    store.race = lambda: first.join_game(game.id, a)  # takes seat 0 while b is joining
    _, seat = second.join_game(game.id, b)
    assert seat == 1
    _, last = second.join_game(game.id, c)
    assert last == 2 and second.load(game.id).table.started


def test_random_seating_shuffles_who_sits_where_when_the_game_starts():
    from domain.games.dynasties import RULES as DYNASTIES

    service = GameService(MemoryStore(), {"dynasties": DYNASTIES})
    orders = set()
    for _ in range(12):
        players = [service.players.create(f"p{i}") for i in range(4)]
        game = service.create_game(players[0], "dynasties", {"seating": "random"}, 4)
        for player in players:
            service.join_game(game.id, player)
        seated = service.load(game.id).table.players
        assert sorted(seated.values()) == sorted(p["id"] for p in players)
        orders.add(tuple(next(i for i, p in enumerate(players) if p["id"] == seated[s]) for s in range(4)))
    assert len(orders) > 1, "random seating never changed the join order"


def test_a_command_of_another_game_is_refused_naming_the_commands_this_game_accepts(service):
    game_id, players = started_game(service)
    seat, player = to_move(service, game_id, players)
    version = service.load(game_id).version
    with pytest.raises(RuleViolation, match="unknown command 'PlaceNoble'; High Card .* knows PlayCard"):
        service.submit_command(game_id, player, Command("PlaceNoble", {"card": "h01"}))
    assert service.load(game_id).version == version


def test_a_process_whose_cached_game_is_behind_decides_again_on_the_newest_instead_of_refusing(tmp_path):
    store = SqliteStore(str(tmp_path / "events.db"))
    first, second = GameService(store, REGISTRY), GameService(store, REGISTRY)  # two processes' caches
    game_id, players = started_game(first)
    cached = first.load(game_id)  # the first process caches the game now
    while second.load(game_id).summary()["to_move"] == cached.summary()["to_move"]:
        play_first_legal(second, game_id, players)  # the other process moves the game on
    seat, player = to_move(second, game_id, players)
    command = RULES.legal_commands(second.load(game_id).state, seat)[0]
    before = second.load(game_id).version
    answer = first.submit_command(game_id, player, command)  # legal now, not in the cached game
    assert answer["version"] > before
    with pytest.raises(RuleViolation):  # a real refusal is still a refusal
        first.submit_command(game_id, player, command)


def test_the_platforms_secrets_reach_nobody_even_in_a_game_of_open_information():
    from domain.games import default_registry

    service = GameService(MemoryStore(), default_registry())
    players = [service.players.create(name) for name in ("ann", "bob")]
    game = service.create_game(players[0], "dynasties", {"open_information": True}, 2)
    for player in players:
        service.join_game(game.id, player)
    seed = service.load(game.id).table.seed
    shown = service.events(game.id, players[1])
    assert shown["events"][0]["type"] == "GameCreated" and shown["events"][0].get("redacted") is True
    assert seed not in str(shown)
    assert any("secret" in e for e in shown["events"][1:])  # the game's own secrets are open to all


@pytest.mark.parametrize("options", [{}, {"clock_bank_seconds": 60}], ids=["no clock", "clock"])
def test_a_move_leaves_the_game_it_was_decided_on_as_it_was(options):
    """A cached game is never changed by the append of a move decided on it (the new game
    may share what the move does not change, as its table when no clock runs), up to the
    move that ends the game, which reveals the seed on the new game only."""
    service = GameService(MemoryStore(), REGISTRY)
    players = [service.players.create(f"p{i}") for i in range(2)]
    game_id = service.create_game(players[0], "highcard", options, 2).id
    for player in players:
        service.join_game(game_id, player)
    while not service.load(game_id).over:
        before = service.load(game_id)
        table = before.table
        kept = (before.version, table.finished, table.revealed, dict(table.players),
                table.clocks.to_json(table.seats) if table.has_clock else None)
        play_first_legal(service, game_id, players)
        after = service.load(game_id)
        assert after.version > before.version
        assert (before.version, table.finished, table.revealed, dict(table.players),
                table.clocks.to_json(table.seats) if table.has_clock else None) == kept
        assert before.table is table and not before.over
    assert after.table.finished and after.table.revealed is not None
