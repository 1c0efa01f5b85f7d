"""Verifiable fairness over real HTTP: a game commits to its seed at creation, reveals it at
the end, and `python -m service verify-fairness FILE` recomputes every shuffle, deal and
draw of the exported game from that seed, failing on any difference."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from domain.games import default_registry
from service.play.fairness import Unfair, verify_fairness
from tests.helpers.play import play_randomly, start_game

ROOT = Path(__file__).resolve().parents[2]
#: a short game of each type, with the seat order shuffled by the platform too
GAMES = {"dynasties": (3, {"seating": "random", "starting_gold": 8}), "pax_pamir": (3, {"seating": "random"})}


def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service", "verify-fairness", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def _finish(live_server, kind: str) -> tuple[str, dict]:
    """A finished game of ``kind`` played by random legal moves; its resource before the end."""
    service = live_server.games
    seats, options = GAMES[kind]
    game_id, players = start_game(service, kind, seats, options)
    during = live_server.client().get(f"{live_server.url}/games/{game_id}").json()
    seated = {p["id"]: p for p in players}
    by_seat = [seated[service.load(game_id).table.players[s]] for s in range(seats)]
    play_randomly(service, game_id, by_seat, random.Random(11))
    assert service.load(game_id).over
    return game_id, during


@pytest.fixture(params=sorted(GAMES))
def exported(request, live_server, tmp_path):
    """(kind, resource during play, resource at the end, the export's lines)."""
    game_id, during = _finish(live_server, request.param)
    finished = live_server.client().get(f"{live_server.url}/games/{game_id}").json()
    export = live_server.client().get(f"{live_server.url}/games/{game_id}/export")
    assert export.status_code == 200
    return request.param, during, finished, [json.loads(line) for line in export.text.splitlines()]


def _text(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _unfair(lines: list[dict]) -> str:
    with pytest.raises(Unfair) as refused:
        verify_fairness(_text(lines), default_registry())
    return str(refused.value)


def test_a_game_publishes_its_seed_commitment_at_creation_and_opens_it_at_the_end(live_server, exported):
    _, during, finished, lines = exported
    commitment = during["fairness"]["seed_commitment"]
    assert len(commitment) == 64 and during["fairness"]["seed"] is None and during["fairness"]["salt"] is None
    revealed = finished["fairness"]
    assert revealed["seed_commitment"] == commitment
    # each of seed and salt is 128 bits, and the commitment is sha256(salt || seed) of their bytes
    assert len(bytes.fromhex(revealed["seed"])) == len(bytes.fromhex(revealed["salt"])) == 16
    assert hashlib.sha256(bytes.fromhex(revealed["salt"]) + bytes.fromhex(revealed["seed"])).hexdigest() \
        == commitment
    created, reveal = lines[1], lines[-1]
    assert created["data"]["seed_commitment"] == commitment
    assert reveal["type"] == "SeedRevealed" and reveal["data"] == {"seed": revealed["seed"], "salt": revealed["salt"]}


def test_a_spectator_never_sees_the_seed_before_the_game_ends(live_server):
    service = live_server.games
    game_id, players = start_game(service, "dynasties", 2)
    play_randomly(service, game_id, players, random.Random(3), max_commands=10)
    assert not service.load(game_id).over
    body = live_server.client().get(f"{live_server.url}/games/{game_id}/events?after=0&limit=100").text
    seed, salt = service.load(game_id).table.seed, service.load(game_id).table.salt
    assert seed not in body and salt not in body and "SeedRevealed" not in body
    assert "seed_commitment" in body


def test_the_verifier_recomputes_a_finished_game_of_each_type_from_its_revealed_seed(exported, tmp_path):
    kind, _, _, lines = exported
    path = tmp_path / "game.jsonl"
    path.write_text(_text(lines))
    checked = _cli(path)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(f"fair: the {kind} game's seed opens its commitment")
    verdict = verify_fairness(_text(lines), default_registry())
    moves = {line["batch"] for line in lines[1:] if line["source"] == "game" and line["actor"] is not None}
    assert verdict.openings == 1 and verdict.moves == len(moves) > 10


def _first(lines: list[dict], predicate) -> dict:
    return next(line for line in lines[1:] if predicate(line))


def test_a_tampered_shuffle_fails_the_check(exported):
    _, _, _, lines = exported
    shuffle = _first(lines, lambda line: line["type"] in ("DeckShuffled", "DeckBuilt"))
    pile = shuffle["secret"]["order" if "order" in shuffle["secret"] else "deck"]
    pile[0], pile[1] = pile[1], pile[0]
    assert "the opening" in _unfair(lines)


def test_a_tampered_draw_during_play_fails_the_check(exported):
    kind, _, _, lines = exported
    opening = _first(lines, lambda line: line["type"] == "GameStarted")["batch"]
    deck = _first(lines, lambda line: line["type"] in ("DeckShuffled", "DeckBuilt"))["secret"]
    cards = deck.get("order") or deck["deck"]
    if kind == "dynasties":  # a card drawn (or given) during play, from the shuffled deck
        drawn = [line for line in lines[1:] if line["batch"] != opening and "card" in (line.get("secret") or {})]
        drawn[-1]["secret"]["card"] = next(c for c in cards if c != drawn[-1]["secret"]["card"])
    else:  # a market card dealt during play
        drawn = [line for line in lines[1:] if line["type"] == "CardDealt" and line["batch"] != opening]
        drawn[-1]["data"]["card"] = next(c for c in cards if c != drawn[-1]["data"]["card"])
    assert f"(seat {drawn[-1]['actor']}) are not what any legal move" in _unfair(lines)


def test_a_tampered_seat_order_fails_the_check(exported):
    _, _, _, lines = exported
    started = _first(lines, lambda line: line["type"] == "GameStarted")
    started["data"]["players"].reverse()
    assert "the opening" in _unfair(lines)


def test_a_revealed_seed_that_does_not_open_the_commitment_fails_the_check(exported, tmp_path):
    _, _, _, lines = exported
    seed = lines[-1]["data"]["seed"]
    lines[-1]["data"]["seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]
    path = tmp_path / "tampered.jsonl"
    path.write_text(_text(lines))
    checked = _cli(path)
    assert checked.returncode == 1
    assert "differs from the commitment published at creation" in checked.stderr


def test_a_seed_chosen_after_the_fact_with_a_matching_commitment_fails_the_check(exported):
    """An operator who swaps in another seed (and forges the commitment to match) is caught by
    the outcomes: they are not the ones that seed makes."""
    _, _, _, lines = exported
    seed, salt = "ab" * 16, "cd" * 16
    lines[1]["data"]["seed_commitment"] = hashlib.sha256(bytes.fromhex(salt) + bytes.fromhex(seed)).hexdigest()
    lines[1]["secret"]["seed"] = seed
    lines[-1]["data"] = {"seed": seed, "salt": salt}
    assert "differs from the one the revealed seed makes" in _unfair(lines)


def test_an_export_made_during_play_cannot_be_checked_and_says_why(live_server):
    service = live_server.games
    game_id, players = start_game(service, "dynasties", 2)
    for player in players:
        service.consent_to_export(game_id, player)
    assert "exported during play" in _unfair([json.loads(line) for line in
                                              service.export(game_id, players[0]).splitlines()])
