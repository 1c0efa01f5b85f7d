"""Exported logs are signed; an import trusts only what it recomputes, and only a log this
server signed, of a game it does not have yet, counts for rankings (once)."""

from __future__ import annotations

import json
import random
import re

import orjson
import pytest

from domain.games import default_registry
from service.adapters.memory_store import MemoryStore
from service.adapters.sqlite_store import SqliteStore
from service.adapters.store import Recorded
from service.background.projections_runner import ProjectionRunner
from service.play.portable_logs import digest as _digest
from service.play.services import GameService
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly, start_game

KEY_A = "a" * 32
KEY_B = "b" * 32


def finished_game(server, seats: int = 2, seed: int = 3):
    service = server.games
    game_id, players = start_game(service, "dynasties", seats, {"starting_gold": 8})
    play_randomly(service, game_id, players, random.Random(seed))
    assert service.load(game_id).over
    return game_id, players


def export(server, game_id) -> str:
    answer = server.client().get(f"{server.url}/games/{game_id}/export")
    assert answer.status_code == 200, answer.text
    return answer.text


def import_log(server, text: str):
    _, client = server.new_player("archivist")
    return client.post(f"{server.url}/games/import", data=text.encode(),
                       headers={"Content-Type": "application/x-ndjson"})


def scoreboard(server) -> dict[str, dict]:
    answer = server.client().get(f"{server.url}/scoreboards/dynasties")
    assert answer.status_code == 200, answer.text
    return {row["player_id"]: row for row in answer.json()["players"]}


def test_the_same_finished_game_imported_three_times_counts_once(make_server):
    server = make_server(signing_keys=(KEY_A,))
    game_id, players = finished_game(server)
    before = scoreboard(server)
    assert {p["id"] for p in players} == set(before)
    log = export(server, game_id)
    for _ in range(3):
        copy = import_log(server, log)
        assert copy.status_code == 201, copy.text
        assert copy.json()["ranked"] is False and copy.json()["id"] != game_id
    after = scoreboard(server)
    assert {p: (r["games_played"], r["wins"], r["score"]) for p, r in after.items()} == \
        {p: (r["games_played"], r["wins"], r["score"]) for p, r in before.items()}
    for player in players:
        history = server.client().get(f"{server.url}/players/{player['id']}/games").json()["games"]
        assert [g["game_id"] for g in history] == [game_id]


def test_a_log_signed_here_of_a_game_not_here_comes_back_ranked_under_its_id_once(make_server):
    origin = make_server(signing_keys=(KEY_A,))
    game_id, players = finished_game(origin)
    log = export(origin, game_id)
    header = json.loads(log.splitlines()[0])
    assert header["signature"]["alg"] == "Ed25519" and header["game_id"] == game_id

    restored = make_server(signing_keys=(KEY_A,))  # a new store, the same key (a migration)
    first = import_log(restored, log)
    assert first.status_code == 201, first.text
    assert first.json()["id"] == game_id and first.json()["ranked"] is True
    again = import_log(restored, log)
    assert again.status_code == 201 and again.json()["ranked"] is False and again.json()["id"] != game_id
    board = scoreboard(restored)
    assert {p["id"] for p in players} <= set(board)
    assert all(board[p["id"]]["games_played"] == 1 for p in players)


def test_rotation_old_logs_verify_while_the_old_key_is_listed_second(make_server):
    origin = make_server(signing_keys=(KEY_A,))
    game_id, _ = finished_game(origin)
    log = export(origin, game_id)
    rotated = make_server(signing_keys=(KEY_B, KEY_A))
    assert import_log(rotated, log).json()["ranked"] is True
    new_log = export(rotated, game_id)
    assert json.loads(new_log.splitlines()[0])["signature"]["key_id"] != \
        json.loads(log.splitlines()[0])["signature"]["key_id"]  # the first key signs
    dropped = make_server(signing_keys=(KEY_B,))
    answer = import_log(dropped, log)
    assert answer.status_code == 201 and answer.json()["ranked"] is False
    assert import_log(dropped, new_log).json()["ranked"] is True


def test_a_log_signed_by_another_server_is_imported_unranked(make_server):
    home = make_server(signing_keys=(KEY_A,))
    elsewhere = make_server(signing_keys=(KEY_B,))
    game_id, players = finished_game(elsewhere)
    answer = import_log(home, export(elsewhere, game_id))
    assert answer.status_code == 201, answer.text
    copy = answer.json()
    assert copy["ranked"] is False and copy["status"] == "finished"
    assert scoreboard(home) == {}
    lobby = home.client().get(f"{home.url}/games").json()["games"]
    assert [(g["id"], g["ranked"]) for g in lobby] == [(copy["id"], False)]


def _forge(text: str, victim: dict, seats_replaced: str, score: int) -> str:
    """An attacker's edit: seat ``victim`` in place of a player, write a huge score into the
    public facts, and recompute the (unkeyed) digest so the log looks whole."""
    lines = [orjson.loads(line) for line in text.splitlines()]
    header, bodies = lines[0], lines[1:]
    for body in bodies:
        if body["type"] == "SeatTaken" and body["data"]["player_id"] == seats_replaced:
            body["data"]["player_id"], body["data"]["name"] = victim["id"], victim["name"]
        if body["type"] == "GameStarted" and body["source"] == "platform":
            body["data"]["players"] = [victim["id"] if p == seats_replaced else p for p in body["data"]["players"]]
        if body.get("after") and body["after"].get("outcome"):
            body["after"]["outcome"]["scores"] = {k: score for k in body["after"]["outcome"]["scores"]}
            body["after"]["outcome"]["winners"] = [0, 1]
    envelopes = [{k: v for k, v in b.items() if k != "version"} for b in bodies]
    folder = GameService(MemoryStore(), default_registry())
    game = folder.loader.fold("f" * 16, [Recorded(stream_of("f" * 16), i + 1, e) for i, e in enumerate(envelopes)])
    header["digest"] = _digest(game, envelopes)
    return "".join(orjson.dumps(line).decode() + "\n" for line in [header, *bodies])


def test_a_forged_log_seating_a_stranger_with_a_huge_score_never_reaches_rankings(make_server):
    server = make_server(signing_keys=(KEY_A,))
    game_id, players = finished_game(server)
    victim, _ = server.new_player("never-played")
    before = scoreboard(server)
    forged = _forge(export(server, game_id), victim, players[1]["id"], 1_000_000)
    answer = import_log(server, forged)
    assert answer.status_code == 201, answer.text
    copy = answer.json()
    assert copy["ranked"] is False
    # public facts come from the events, not from the file's `after`
    original = server.client().get(f"{server.url}/games/{game_id}").json()
    assert copy["outcome"] == original["outcome"]
    assert 1_000_000 not in copy["outcome"]["scores"].values()
    assert scoreboard(server) == before
    history = server.client().get(f"{server.url}/players/{victim['id']}/games").json()["games"]
    assert history == []


def test_a_log_whose_options_are_out_of_bounds_is_refused(make_server):
    server = make_server(signing_keys=(KEY_A,))
    game_id, _ = finished_game(server)
    lines = [orjson.loads(line) for line in export(server, game_id).splitlines()]
    lines[1]["data"]["options"]["legacy"] = 2**64 - 1
    text = "".join(orjson.dumps(line).decode() + "\n" for line in lines)
    answer = import_log(server, text)
    assert answer.status_code == 422 and answer.headers["Content-Type"] == "application/problem+json"
    assert "legacy" in answer.json()["detail"]


def test_scoreboard_totals_cannot_overflow_on_sqlite(tmp_path):
    """Two finished games with scores of 2^64 - 1 (the most a stored integer can say)."""
    store = SqliteStore(str(tmp_path / "events.db"))
    for n in range(2):
        stream = stream_of(f"{n:016x}")
        store.append(stream, 0, [
            {"type": "GameCreated", "source": "platform", "actor": None, "at": f"2026-01-0{n + 1}T00:00:00Z",
             "data": {"game_type": "dynasties", "options": {}, "seats": 2, "created_by": "p0"}},
            {"type": "SeatTaken", "source": "platform", "actor": None, "at": "", "v": 2, "data": {
                "seat": 0, "player_id": "p0", "name": "zero"}},
            {"type": "GameStarted", "source": "platform", "actor": None, "at": "", "data": {"players": ["p0", "p1"]}},
            {"type": "GameEnded", "source": "game", "actor": 0, "at": f"2026-01-0{n + 1}T01:00:00Z", "data": {},
             "after": {"status": "finished", "to_move": [],
                       "outcome": {"winners": [0], "scores": {"0": 2**64 - 1, "1": 0}, "details": {}}}},
        ])
    runner = ProjectionRunner(store)
    runner.catch_up("scoreboard")
    standing = runner.model("scoreboard")["standings"]["dynasties/p0"]
    assert standing["games_played"] == 2 and 0 < standing["score"] <= 2**63 - 1
    runner.rebuild("scoreboard")
    assert runner.model("scoreboard")["standings"]["dynasties/p0"] == standing


def test_every_integer_option_of_every_game_has_bounds_that_keep_values_sane(make_server):
    server = make_server()
    types = server.client().get(f"{server.url}/game-types").json()
    for game_type in types:
        for option in game_type["options"]:
            if option["type"] == "int":
                assert "minimum" in option and "maximum" in option, (game_type["type"], option["name"])
                assert -(2**31) < option["minimum"] <= option["maximum"] < 2**31


@pytest.mark.parametrize("options", [{"legacy": 2**64 - 1}, {"starting_gold": 2**63}, {"legacy": 2**64},
                                     {"starting_gold": 10**30}, {"coronation_bonus": 2**62}])
def test_huge_option_values_are_refused_with_422(make_server, options):
    server = make_server()
    _, client = server.new_player("host")
    body = json.dumps({"type": "dynasties", "seats": 2, "options": options})
    answer = client.post(f"{server.url}/games", data=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_a_restored_games_players_exist_wherever_it_is_listed(make_server, request, store):
    """Audit (issue 18): after a restore onto a new store the scoreboard listed players that
    GET /players/{id} answered 404 for."""
    settings = {"signing_keys": (KEY_A,)}
    if store == "redis":
        url, prefix = request.getfixturevalue("redis_url")
        settings.update(store_url=url, redis_prefix=prefix, redis_partitions=2)
    origin = make_server(signing_keys=(KEY_A,))
    game_id, players = finished_game(origin, seats=3)
    restored = make_server(**settings)
    answer = import_log(restored, export(origin, game_id))
    assert answer.status_code == 201 and answer.json()["ranked"] is True, answer.text
    client = restored.client()
    listed = {row["player_id"] for row in client.get(f"{restored.url}/scoreboards/dynasties").json()["players"]}
    seated = {seat["player_id"] for seat in answer.json()["seats"]}
    assert listed == seated == {p["id"] for p in players}
    for player in players:
        profile = client.get(f"{restored.url}/players/{player['id']}")
        assert profile.status_code == 200 and profile.json() == {"id": player["id"], "name": player["name"]}
        history = client.get(f"{restored.url}/players/{player['id']}/games").json()
        assert [entry["game_id"] for entry in history["games"]] == [game_id]
        # restored players have no token here: the origin's token does not work on this store
        assert restored.client(player["token"]).post(f"{restored.url}/players/me/token").status_code == 401


#: Python's own words for what went wrong: an import refusal must never show them
PYTHON_TEXT = re.compile(r"\w+Error\b|Traceback|NoneType|object has no attribute|not in list|"
                         r"unsupported operand|indices must|not subscriptable|not iterable|\w+\(['\"]")


def test_every_import_refusal_names_the_line_and_field_never_python_text(make_server):
    """Audit (issue 18): refusals showed ValueError('list.remove(x): x not in list'). Every
    field of every event line of a real export is altered (null, another type, a number out
    of range, removed; a seeded sample): each altered log is refused 422 invalid_log with a
    reason that names its line (and for most, the field), and no Python error text."""
    # up to 400 imports from one token, as fast as the server answers them: on the compiled
    # engine that is over the per-token rate limit (300 a second), which is not what this tests
    server = make_server(limit_per_token="")
    game_id, _ = finished_game(server, seats=3)
    lines = export(server, game_id).splitlines()
    mutations = []
    for number in range(2, len(lines) + 1):
        event = json.loads(lines[number - 1])
        for part in ("data", "secret"):
            for name, value in (event.get(part) or {}).items():
                for new in (None, "x", 10**6, [], {}, "<removed>"):
                    if new != value:
                        mutations.append((number, part, name, new))
    rng = random.Random(18)
    sample = rng.sample(mutations, min(400, len(mutations)))
    _, client = server.new_player("archivist")
    unnamed_field, refused = [], 0
    for number, part, name, new in sample:
        event = json.loads(lines[number - 1])
        if new == "<removed>":
            del event[part][name]
        else:
            event[part][name] = new
        text = "\n".join([*lines[:number - 1], json.dumps(event), *lines[number:]]) + "\n"
        answer = client.post(f"{server.url}/games/import", data=text.encode(),
                             headers={"Content-Type": "application/x-ndjson"})
        assert answer.status_code == 422, (number, part, name, new, answer.text[:300])
        problem = answer.json()
        assert problem["code"] == "invalid_log"
        detail = problem["detail"]
        assert not PYTHON_TEXT.search(detail), (number, part, name, new, detail)
        assert re.match(r"line \d+\b", detail), detail
        assert "field" in detail, detail  # the field at fault, or the line's fields when it cannot tell
        refused += 1
        if "field " not in detail:
            unnamed_field.append(detail)
    print(f"{refused} altered logs refused; {len(unnamed_field)} name the line's fields rather than one, "
          f"e.g. {unnamed_field[:1]}")
    assert refused == len(sample)


#: Hostile rewrites of a Pax Pamir log's frame record (``StepsChanged``, rules version 5): the
#: kept depth and the frames on top of it, each of another type, out of range or naming a step
#: the game does not have
FORGED_STACKS = [
    ("kept", "x"), ("kept", -1), ("kept", 10**6), ("kept", None),
    ("frames", 7), ("frames", [5]), ("frames", [{"step": "no_such_step", "seat": 0, "locals": {}}]),
    ("frames", [{"step": "turn", "seat": "x", "locals": 5}]), ("frames", [{"seat": 0}]),
]


def test_a_forged_frame_record_is_refused_at_its_line_or_imported_unranked_never_a_500(make_server):
    """An attacker rewrites the first frame record of a finished Pax Pamir game and recomputes
    the digest where the altered log still folds: the import refuses it with its line, or takes
    it as an unranked game whose pages all answer; never a 500, never Python's text."""
    server = make_server(signing_keys=(KEY_A,), limit_per_token="")
    service = server.games
    game_id, players = start_game(service, "pax_pamir", 2, {})
    play_randomly(service, game_id, players, random.Random(5))
    assert service.load(game_id).over
    lines = [orjson.loads(line) for line in export(server, game_id).splitlines()]
    at = next(i for i, body in enumerate(lines) if i and body["type"] == "StepsChanged" and body["data"]["frames"])
    outcomes = []
    for field, value in FORGED_STACKS:
        header, *bodies = json.loads(json.dumps(lines))
        bodies[at - 1]["data"][field] = value
        envelopes = [{k: v for k, v in b.items() if k != "version"} for b in bodies]
        try:  # the attacker's digest, where the altered events still fold and show
            folder = GameService(MemoryStore(), default_registry())
            game = folder.loader.fold("f" * 16, [Recorded(stream_of("f" * 16), i + 1, e)
                                                 for i, e in enumerate(envelopes)])
            header["digest"] = _digest(game, envelopes)
        except Exception:
            pass  # it does not fold here either: the server must refuse it
        answer = import_log(server, "".join(orjson.dumps(line).decode() + "\n" for line in [header, *bodies]))
        assert answer.status_code in (201, 422), (field, value, answer.text[:300])
        if answer.status_code == 422:
            detail = answer.json()["detail"]
            assert answer.json()["code"] == "invalid_log" and re.match(r"line \d+\b", detail), (field, value, detail)
            assert not PYTHON_TEXT.search(detail), (field, value, detail)
        else:
            copy = answer.json()
            assert copy["ranked"] is False, (field, value)
            for page in ("", "/state", "/events", "/replay", f"/replay?after={at}&limit=50"):
                shown = server.client().get(f"{server.url}/games/{copy['id']}{page}")
                assert shown.status_code < 500, (field, value, page, shown.text[:300])
        outcomes.append(answer.status_code)
    kinds = {field: [code for (f, _), code in zip(FORGED_STACKS, outcomes, strict=True) if f == field]
             for field in ("kept", "frames")}
    assert kinds["kept"] == [422] * 4, "a depth that is not one of the stack's is refused"
    assert 422 in kinds["frames"], "frames that cannot be made are refused"
