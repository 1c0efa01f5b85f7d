"""Pax Pamir on the platform: registered by default, described by ``GET /game-types``, its
options checked at creation, its commands distinct from every other game's, and its
folded states snapshotted under its ``rules_version``."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace

import pytest

from domain.games import default_registry
from domain.games.pax_pamir import RULES
from domain.kernel.rules import fold
from service.adapters.memory_store import MemoryStore
from service.api.app import create_app
from service.api.commands import command_schemas
from service.base.config import Config
from service.play.services import GameService
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly, start_game


@pytest.fixture
def client():
    return create_app(Config(store_url="memory://", projections="inline")).test_client()


def token(client, name="ann"):
    return {"Authorization": f"Bearer {client.post('/players', json={'name': name}).get_json()['token']}"}


def test_pax_pamir_is_a_game_type_with_its_options_commands_and_argument_kinds(client):
    types = {t["type"]: t for t in client.get("/game-types").get_json()}
    assert {"dynasties", "pax_pamir"} <= set(types)
    pax = types["pax_pamir"]
    assert (pax["title"], pax["min_seats"], pax["max_seats"]) == ("Pax Pamir (2nd edition)", 1, 5)  # 1: Wakhan
    options = {o["name"]: o for o in pax["options"]}
    assert {"seating", "open_information", "open_hands", "first_chooser"} <= set(options)
    assert options["open_hands"]["type"] == "bool" and options["open_hands"]["default"] is False
    assert options["first_chooser"]["choices"] == ["random", "seat_0"]
    commands = {c["type"]: c for c in pax["commands"]}
    assert {"ChooseLoyalty", "Purchase", "Play", "EndTurn", "Tax", "Gift", "Build", "Move", "Betray", "Battle",
            "ChooseSide", "PlaceRoad", "PlaceSpy", "TakePiece", "Discard"} <= set(commands)
    assert commands["EndTurn"]["arguments"] == [] and commands["EndTurn"]["args"] == {}
    assert commands["Purchase"]["arguments"] == [{"name": "card", "kind": "card", "type": "integer",
                                                  "list": False, "description": "a card number"}]
    assert commands["ChooseLoyalty"]["arguments"][0]["kind"] == "coalition"
    assert commands["PlaceRoad"]["arguments"][0]["kind"] == "border"
    assert commands["TakePiece"]["arguments"][0]["type"] == "string"
    assert all(c["description"] for c in pax["commands"])


def test_no_command_type_is_shared_by_two_hosted_games():
    seen: dict[str, str] = {}
    for kind, rules in default_registry().items():
        for verb in rules.commands:
            assert verb.type not in seen, f"{verb.type} is a command of both {seen[verb.type]} and {kind}"
            seen[verb.type] = kind


def test_two_games_giving_one_command_type_different_arguments_are_refused_at_startup():
    from domain.games.dynasties import RULES as DYNASTIES

    place_noble = next(v for v in DYNASTIES.commands if v.type == "PlaceNoble")
    purchase = next(v for v in RULES.commands if v.type == "Purchase")
    twin = SimpleNamespace(kind="twin", commands=(place_noble,))
    impostor = SimpleNamespace(kind="impostor", commands=(replace(purchase, type="PlaceNoble"),))
    command_schemas({"dynasties": DYNASTIES, "twin": twin})  # the same shape twice is one command
    with pytest.raises(ValueError, match="different arguments"):
        command_schemas({"dynasties": DYNASTIES, "impostor": impostor})


def test_a_pax_pamir_game_is_created_with_checked_options_and_seats(client):
    ann = token(client)
    made = client.post("/games", headers=ann, json={"type": "pax_pamir", "seats": 5,
                                                    "options": {"open_hands": True}})
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["options"]["open_hands"] is True
    assert made.get_json()["options"]["first_chooser"] == "random"
    for seats, said in ((1, "1 with the option wakhan"), (6, "1 to 5 seats")):
        refused = client.post("/games", headers=ann, json={"type": "pax_pamir", "seats": seats})
        assert refused.status_code == 422 and said in refused.get_json()["detail"], refused.get_json()
    for options, named in (({"open_hands": "yes"}, "open_hands"), ({"first_chooser": "seat_9"}, "first_chooser"),
                           ({"wakhan": True, "stray": 1}, "stray"), ({"wakhan": "yes"}, "wakhan"),
                           ({"wakhan_savvy_purchasing": True}, "wakhan_savvy_purchasing")):
        refused = client.post("/games", headers=ann, json={"type": "pax_pamir", "seats": 2, "options": options})
        assert refused.status_code == 422 and named in refused.get_json()["detail"], refused.get_json()


def test_a_command_of_another_game_is_refused_by_a_pax_pamir_game(client):
    ann, bob = token(client, "ann"), token(client, "bob")
    game = client.post("/games", headers=ann, json={"type": "pax_pamir", "seats": 2}).get_json()["id"]
    for who in (ann, bob):
        client.post(f"/games/{game}/join", headers=who, json={})
    for who in (ann, bob):
        refused = client.post(f"/games/{game}/commands", headers=who,
                              json={"type": "PlaceNoble", "args": {"card": "coppe-01"}})
        assert refused.status_code == 422 and "unknown command 'PlaceNoble'" in refused.get_json()["detail"]
    legal = [client.get(f"/games/{game}/legal-commands", headers=who).get_json() for who in (ann, bob)]
    asked = [body for body in legal if body["commands"]]
    assert len(asked) == 1 and {c["type"] for c in asked[0]["commands"]} == {"ChooseLoyalty"}


def test_snapshots_of_a_pax_pamir_game_fold_to_the_same_state_and_are_keyed_by_rules_version(monkeypatch):
    store = MemoryStore()
    service = GameService(store, default_registry(), snapshot_every=40)
    game_id, players = start_game(service, "pax_pamir", 3)
    play_randomly(service, game_id, players, random.Random(5))
    game = service.load(game_id)
    assert game.over
    schema = f"pax_pamir:{RULES.rules_version}:pickle"
    assert any(key[0] == stream_of(game_id) and key[1].startswith(schema) for key in store._data.snapshots)
    from_events = fold(RULES, [e for e in _game_events(store, game_id)])
    service.loader._cache.clear()
    assert service.load(game_id).state == from_events == game.state
    for at in (120, 333, game.version - 1):  # time travel lands between snapshots too
        service.loader._cache.clear()
        assert service.load(game_id, at).state == fold(RULES, _game_events(store, game_id, at))
    monkeypatch.setattr(type(RULES), "rules_version", "not-" + RULES.rules_version)
    assert service.loader._load_snapshot(game_id, None) is None, "a snapshot of other rules is never read"
    service.loader._cache.clear()
    assert service.load(game_id).state == from_events


def _game_events(store, game_id: str, at: int | None = None):
    from domain.kernel.events import Event

    return [Event.from_json(r.event) for r in store.read(stream_of(game_id), 0, at)
            if r.event.get("source") != "platform"]
