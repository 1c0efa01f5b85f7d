"""Undo, time travel, snapshots and portable logs, with Dynasties on real stores."""

from __future__ import annotations

import random

import pytest

from domain.games.dynasties import RULES
from domain.kernel import Command, Event, RuleViolation
from domain.kernel.table import PLATFORM, undone_versions
from service.adapters.memory_store import MemoryStore
from service.adapters.sqlite_store import SqliteStore
from service.play.services import GameService
from service.streams.envelopes import public_event, stream_of
from tests.helpers.play import play_randomly, start_game, unfinished_game

REGISTRY = {"dynasties": RULES}


def fresh_view(store, game_id: str, version: int, seat: int | None):
    """The view at ``version`` computed here from scratch: the first N events, minus those undone."""
    records = store.read(stream_of(game_id), 0, version)
    undone = undone_versions((r.version, r.event) for r in records)
    state = None
    for record in records:
        if record.version in undone or record.event.get("source") == PLATFORM:
            continue
        state = RULES.evolve(state, Event.from_json(record.event))
    return None if state is None else RULES.view(state, seat)


def tribute_phase(service, seats=3):
    game_id, players = start_game(service, "dynasties", seats)
    game = service.load(game_id)
    assert game.state.phase == "tribute"
    return game_id, players


def hand(service, game_id, seat):
    return service.load(game_id).state.hands[seat]


# -- undo ------------------------------------------------------------------------------
def test_undo_gives_back_a_tribute_and_a_different_one_can_be_given():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = tribute_phase(service)
    first, second = hand(service, game_id, 0)[:2]
    service.submit_command(game_id, players[0], Command("SubmitTribute", {"card": first}))
    assert service.load(game_id).state.tribute_commit[0] == first
    service.undo(game_id, players[0])
    assert service.load(game_id).state.tribute_commit[0] is None
    assert first in hand(service, game_id, 0)
    service.submit_command(game_id, players[0], Command("SubmitTribute", {"card": second}))
    assert service.load(game_id).state.tribute_commit[0] == second


def test_undo_is_refused_once_another_seat_has_acted():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = tribute_phase(service)
    service.submit_command(game_id, players[0], Command("SubmitTribute", {"card": hand(service, game_id, 0)[0]}))
    service.submit_command(game_id, players[1], Command("SubmitTribute", {"card": hand(service, game_id, 1)[0]}))
    with pytest.raises(RuleViolation, match="another seat has acted"):
        service.undo(game_id, players[0])
    service.undo(game_id, players[1])  # seat 1's own move is still the latest


def test_undo_is_refused_once_hidden_information_was_revealed_even_to_the_undoer():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = tribute_phase(service, seats=2)
    service.submit_command(game_id, players[0], Command("SubmitTribute", {"card": hand(service, game_id, 0)[0]}))
    # the last Tribute reveals every Tribute: no peek-and-undo
    service.submit_command(game_id, players[1], Command("SubmitTribute", {"card": hand(service, game_id, 1)[0]}))
    with pytest.raises(RuleViolation, match="revealed hidden information or drew cards"):
        service.undo(game_id, players[1])


def test_undo_is_refused_once_randomness_was_drawn():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = start_game(service, "dynasties", 2)
    rng = random.Random(5)
    # play until some seat's move made a card be drawn (a draw is random and secret)
    for _ in range(2000):
        records = service.store.read(stream_of(game_id))
        last_batch = records[-1].event["batch"]
        moved = [r for r in records if r.event["batch"] == last_batch]
        if moved[0].event["actor"] is not None and any(r.event["type"] == "CardDrawn" for r in moved):
            break
        play_randomly(service, game_id, players, rng, max_commands=1)
    else:
        pytest.fail("no move drew a card")
    with pytest.raises(RuleViolation, match="drew cards"):
        service.undo(game_id, players[moved[0].event["actor"]])


def test_an_undone_move_is_not_shown_as_standing_in_the_event_history():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = tribute_phase(service)
    card = hand(service, game_id, 0)[0]
    service.submit_command(game_id, players[0], Command("SubmitTribute", {"card": card}))
    service.undo(game_id, players[0])
    events = service.events(game_id, players[0])["events"]
    undo = events[-1]
    assert undo["type"] == "MovesUndone" and undo["data"]["seat"] == 0
    assert undo["data"]["first_version"] == undo["data"]["last_version"] == undo["version"] - 1


# -- time travel and snapshots --------------------------------------------------------------
@pytest.mark.parametrize("snapshot_every", [0, 7])
@pytest.mark.parametrize("seed", [11, 12])
def test_the_view_at_every_version_is_a_fresh_fold_of_the_first_n_events(tmp_path, snapshot_every, seed):
    store = SqliteStore(str(tmp_path / "events.db"))
    service = GameService(store, REGISTRY, snapshot_every=snapshot_every)
    game_id, players = start_game(service, "dynasties", 3, {"starting_gold": 40})
    play_randomly(service, game_id, players, random.Random(seed), undo_chance=0.2, max_commands=300)
    final = service.load(game_id).version
    reader = GameService(store, REGISTRY, snapshot_every=snapshot_every)  # a cold cache
    over = service.load(game_id).over
    for version in range(1, final + 1):
        for seat in (0, 2):
            got = reader.state(game_id, players[seat], at=version)["view"]
            # after Game Over looking back reveals everything; during play only the seat's view
            assert got == fresh_view(store, game_id, version, "everyone" if over else seat), version
        assert reader.state(game_id, None, at=version)["view"] == fresh_view(
            store, game_id, version, "everyone" if over else None)


def test_deleting_every_snapshot_changes_no_answer(tmp_path):
    store = SqliteStore(str(tmp_path / "events.db"))
    service = GameService(store, REGISTRY, snapshot_every=5)
    game_id, players = start_game(service, "dynasties", 4, {"starting_gold": 30})
    play_randomly(service, game_id, players, random.Random(3), undo_chance=0.1, max_commands=200)
    with_snapshots = GameService(store, REGISTRY, snapshot_every=5)
    answers = [with_snapshots.state(game_id, players[1], at=v) for v in range(1, service.load(game_id).version + 1)]
    assert store.load_snapshot(stream_of(game_id), with_snapshots.loader.snapshot_schema(RULES)) is not None
    store.delete_snapshots()
    without = GameService(store, REGISTRY, snapshot_every=5)
    assert answers == [without.state(game_id, players[1], at=v) for v in range(1, len(answers) + 1)]


# -- portable logs ---------------------------------------------------------------------------
def finished_game(service, seats=3, seed=21):
    game_id, players = start_game(service, "dynasties", seats, {"starting_gold": 8})
    play_randomly(service, game_id, players, random.Random(seed), undo_chance=0.05)
    assert service.load(game_id).over
    return game_id, players


@pytest.mark.integration
def test_export_then_import_from_sqlite_into_redis_gives_identical_states_and_views(tmp_path, redis_url):
    from service.adapters.redis_store import RedisStore

    url, namespace = redis_url
    source = GameService(SqliteStore(str(tmp_path / "events.db")), REGISTRY)
    target = GameService(RedisStore(url, partitions=4, prefix=namespace), REGISTRY)
    game_id, players = finished_game(source)
    imported = target.import_game(source.export(game_id))
    original = source.load(game_id)
    assert imported.state == original.state
    assert imported.version == original.version
    for seat in [None, 0, 1, 2]:
        assert RULES.view(imported.state, seat) == RULES.view(original.state, seat)
    assert target.state(imported.id, None) == source.state(game_id, None)
    assert target.events(imported.id, None)["events"] == source.events(game_id, None)["events"]


def test_a_tampered_or_truncated_log_is_refused_and_nothing_is_written():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, _ = finished_game(service, seats=2, seed=8)
    log = service.export(game_id)
    lines = log.splitlines()
    head = service.store.log_head(0)
    placed = next(i for i, line in enumerate(lines) if '"NoblePlaced"' in line)
    tampered = lines[:placed] + [lines[placed].replace('"activated":true', '"activated":false')
                                 if '"activated":true' in lines[placed]
                                 else lines[placed].replace('"activated":false', '"activated":true')] + lines[placed + 1:]
    from service.base.errors import Unprocessable

    with pytest.raises(Unprocessable, match="altered"):
        service.import_game("\n".join(tampered))
    with pytest.raises(Unprocessable, match="truncated"):
        service.import_game("\n".join(lines[:-5]))
    with pytest.raises(Unprocessable, match="is not JSON"):
        service.import_game(log[: len(log) // 2])
    assert service.store.log_head(0) == head


# -- event versions ----------------------------------------------------------------------------
def test_an_old_seat_taken_event_is_upcast_when_read_and_never_rewritten():
    store = MemoryStore()
    service = GameService(store, REGISTRY)
    creator = service.players.create("creator")
    game = service.create_game(creator, "dynasties", {}, 2)
    old = {"type": "SeatTaken", "data": {"seat": 0, "player": "0123456789abcdef"}, "source": PLATFORM,
           "actor": None, "at": "2025-01-01T00:00:00.000Z", "batch": 2}  # no "v": version 1
    store.append(stream_of(game.id), 1, [old])
    summary = GameService(store, REGISTRY).load(game.id).summary()
    assert summary["seats"][0] == {"seat": 0, "player_id": "0123456789abcdef", "name": "0123456789abcdef"}
    assert store.read(stream_of(game.id), 1, 2)[0].event["data"] == {"seat": 0, "player": "0123456789abcdef"}



@pytest.mark.parametrize("kind", ["dynasties", "pax_pamir"])
def test_a_stream_stored_with_the_games_old_game_started_name_loads_as_before_and_reads_setup_started(kind):
    from domain.games import default_registry

    service = GameService(MemoryStore(), default_registry())
    game_id, players = start_game(service, kind, 3)
    play_randomly(service, game_id, players, random.Random(3), max_commands=15)
    records = service.store.read(stream_of(game_id))
    setup = next(i for i, r in enumerate(records) if r.event["source"] == "game")
    assert records[setup].event["type"] == "SetupStarted"
    bodies = [dict(r.event) for r in records]
    bodies[setup] = {k: v for k, v in bodies[setup].items() if k != "v"} | {"type": "GameStarted"}  # as stored then
    old_store = MemoryStore()
    old_store.append(stream_of(game_id), 0, bodies)
    old = GameService(old_store, default_registry())
    assert old.load(game_id).state == service.load(game_id).state
    assert old.state(game_id, players[0]) == service.state(game_id, players[0])
    stored = old_store.read(stream_of(game_id))[setup]
    assert stored.event["type"] == "GameStarted"  # never rewritten
    # every reader of the game sees the new name (read through the game's own schema history)
    assert public_event(stored, None, old.load(game_id).rules.upcasters)["type"] == "SetupStarted"
    assert old.events(game_id, None)["events"][setup]["type"] == "SetupStarted"


def test_during_play_looking_back_reveals_nothing_the_seat_could_not_see_then():
    service = GameService(MemoryStore(), REGISTRY)
    # a deal may end within 20 commands (about 1 in 3000 do): unfinished_game draws another then
    game_id, players = unfinished_game(service, "dynasties", 3, {"starting_gold": 40}, seed=4, commands=20)
    assert not service.load(game_id).over
    checked = 0
    for version in range(1, service.load(game_id).version + 1):
        view = service.state(game_id, players[1], at=version)["view"]
        if view is None:  # before the deal: only seats being taken
            continue
        assert "revealed" not in view
        assert sorted(view["hand"]) == sorted(service.load(game_id, at=version).state.hands[1])
        assert service.state(game_id, None, at=version)["view"]["hand"] is None
        checked += 1
    assert checked > 20


def test_after_game_over_anyone_steps_through_the_game_with_everything_revealed():
    service = GameService(MemoryStore(), REGISTRY)
    game_id, _ = finished_game(service, seats=3, seed=9)
    middle = service.load(game_id).version // 2
    hands_then = service.load(game_id, at=middle).state.hands
    revealed = service.state(game_id, None, at=middle)["view"]["revealed"]
    assert [sorted(h) for h in revealed["hands"]] == [sorted(h) for h in hands_then]
    steps = service.replay(game_id, None, after=middle - 1, limit=1)["steps"]
    assert steps[0]["view"]["revealed"]["hands"] == revealed["hands"]


def _every_step(service, game_id, player, **query):
    steps, after = [], 0
    while after is not None:
        page = service.replay(game_id, player, after=after, limit=40, **query)
        steps += page["steps"]
        after = page["next_after"]
    return steps


@pytest.mark.parametrize("finished", [False, True])
def test_a_replay_lists_its_steps_without_views_and_gives_the_views_asked_for(finished):
    """The web client opens a long replay by listing its steps with no view (``view_every=0``) and
    asking for views where it looks: the same steps, and each view given is the one every step
    carried before (what the caller may see then, nothing more), undone moves left out."""
    service = GameService(MemoryStore(), REGISTRY)
    if finished:
        game_id, players = finished_game(service, seats=2, seed=5)
        caller = None
    else:
        game_id, players = unfinished_game(service, "dynasties", 2, {"starting_gold": 40}, seed=8, commands=30,
                                           undo_chance=0.1)
        caller = players[1]
    whole = {s["event"]["version"]: s for s in _every_step(service, game_id, caller)}
    listed = _every_step(service, game_id, caller, view_every=0)
    assert [s["event"] for s in listed] == [s["event"] for s in whole.values()]
    assert not {s["event"]["version"] for s in listed} & service.load(game_id).undone
    assert not any("view" in s for s in listed)
    sparse = _every_step(service, game_id, caller, view_every=7)
    last = max(whole)
    with_view = {s["event"]["version"] for s in sparse if "view" in s}
    assert with_view == {v for v in whole if v % 7 == 0 or v == last}
    assert all(s["view"] == whole[s["event"]["version"]]["view"] for s in sparse if "view" in s)
    page = service.replay(game_id, caller, after=0, limit=1000)  # a page ends at its 200th view
    assert len(page["steps"]) == min(200, len(whole))
    assert (page["next_after"] is None) == (len(whole) <= 200)
    if not finished:  # the views are the seat's own: seat 0's hand never shows
        hands = {v: service.load(game_id, at=v).state.hands[0] for v in with_view}
        assert all(not set(hands[v]) & set(s["view"]["hand"] or []) for s in sparse
                   if "view" in s and s["view"] and (v := s["event"]["version"]) in hands and s["view"].get("hand"))
        assert all("revealed" not in (s["view"] or {}) for s in sparse if "view" in s)


def test_an_unfinished_game_is_exported_only_once_every_seat_consents_and_only_as_the_seat_sees_it():
    from service.base.errors import Conflict, Unprocessable

    service = GameService(MemoryStore(), REGISTRY)
    game_id, players = start_game(service, "dynasties", 3, {"starting_gold": 40})
    play_randomly(service, game_id, players, random.Random(6), max_commands=15)
    with pytest.raises(Conflict, match=r"seats \[0, 1, 2\] have not consented"):
        service.export(game_id, players[0])
    service.consent_to_export(game_id, players[0])
    service.consent_to_export(game_id, players[2])
    with pytest.raises(Conflict, match=r"seats \[1\] have not consented"):
        service.export(game_id, players[0])
    assert service.consent_to_export(game_id, players[1])["may_export"]
    copy = service.export(game_id, players[0])
    assert '"redacted_for":0' in copy
    # seat 0's copy is not the whole game: it cannot be imported as one
    with pytest.raises(Unprocessable, match="exported during play"):
        service.import_game(copy)
