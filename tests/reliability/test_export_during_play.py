"""A game in play leaves the server only as one seated player's copy, with what that seat
may not see left out, and only while every seat consents; a seat may take consent back."""

from __future__ import annotations

import json
import random

from tests.helpers.play import play_randomly, start_game


def consented_game(server):
    service = server.games
    game_id, players = start_game(service, "dynasties", 3, {"starting_gold": 40})
    play_randomly(service, game_id, players, random.Random(6), max_commands=12)
    assert not service.load(game_id).over
    for player in players:
        answer = server.client(player["token"]).post(f"{server.url}/games/{game_id}/export-consent")
        assert answer.status_code == 201, answer.text
    assert answer.json()["may_export"] is True
    return game_id, players


def test_a_consented_game_in_play_is_not_exported_to_anyone_without_a_seat(make_server):
    server = make_server()
    game_id, _ = consented_game(server)
    anonymous = server.client().get(f"{server.url}/games/{game_id}/export")
    assert anonymous.status_code == 401 and anonymous.headers["Content-Type"] == "application/problem+json"
    _, stranger = server.new_player("stranger")
    assert stranger.get(f"{server.url}/games/{game_id}/export").status_code == 403


def test_each_seats_copy_hides_what_that_seat_may_not_see(make_server):
    server = make_server()
    game_id, players = consented_game(server)
    stored = server.games.store.read(f"game-{game_id}")
    hidden_somewhere = 0
    for seat, player in enumerate(players):
        answer = server.client(player["token"]).get(f"{server.url}/games/{game_id}/export")
        assert answer.status_code == 200, answer.text
        header, *lines = [json.loads(line) for line in answer.text.splitlines()]
        assert header["redacted_for"] == seat and header["finished"] is False
        assert len(lines) == len(stored)
        for line, record in zip(lines, stored, strict=True):
            secret = record.event.get("secret")
            if secret is None:
                continue
            if seat in record.event.get("secret_to", []):
                assert line["secret"] == secret
            else:
                hidden_somewhere += 1
                assert "secret" not in line and line["redacted"] is True
                assert json.dumps(secret, sort_keys=True) not in answer.text
        created = lines[0]
        assert created["type"] == "GameCreated" and "secret" not in created  # the seed stays home
    assert hidden_somewhere > 0


def test_a_seats_copy_cannot_be_imported_as_the_whole_game(make_server):
    server = make_server()
    game_id, players = consented_game(server)
    copy = server.client(players[0]["token"]).get(f"{server.url}/games/{game_id}/export").text
    answer = server.client(players[1]["token"]).post(f"{server.url}/games/import", data=copy.encode(),
                                                     headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 422 and "during play" in answer.json()["detail"]


def test_consent_can_be_withdrawn_and_export_closes_again(make_server):
    server = make_server()
    game_id, players = consented_game(server)
    seat1 = server.client(players[1]["token"])
    withdrawn = seat1.delete(f"{server.url}/games/{game_id}/export-consent")
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json()["consented"] == [0, 2] and withdrawn.json()["may_export"] is False
    refused = server.client(players[0]["token"]).get(f"{server.url}/games/{game_id}/export")
    assert refused.status_code == 409 and "[1]" in refused.json()["detail"]
    again = seat1.post(f"{server.url}/games/{game_id}/export-consent")
    assert again.json()["may_export"] is True
    assert server.client(players[0]["token"]).get(f"{server.url}/games/{game_id}/export").status_code == 200


def test_once_over_the_whole_game_is_exported_to_anyone(make_server):
    server = make_server()
    service = server.games
    game_id, players = start_game(service, "dynasties", 2, {"starting_gold": 8})
    play_randomly(service, game_id, players, random.Random(2))
    answer = server.client().get(f"{server.url}/games/{game_id}/export")
    assert answer.status_code == 200
    header, *lines = [json.loads(line) for line in answer.text.splitlines()]
    assert header["finished"] is True and header["redacted_for"] is None
    assert "seed" in lines[0]["secret"]
