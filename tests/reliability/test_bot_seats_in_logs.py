"""Bot seats and portable logs: a bot seat never stands in the way of its people's consent
to export during play (it has nothing of its own to keep, and a seat's copy still leaves
its hidden cards out); an imported log may only seat this server's bots, at their levels;
and a game imported in play goes on here with its bot seats moving by themselves."""

from __future__ import annotations

import json
import random
import time

import orjson
import pytest

from domain.games import default_registry
from domain.kernel.events import EVERYONE
from service.adapters.memory_store import MemoryStore
from service.adapters.store import Recorded
from service.background.bot_seats import prompted_bots
from service.play.portable_logs import digest
from service.play.services import GameService
from service.streams.envelopes import stream_of
from tests.helpers.bots_http import play_against_bots


def game_against_a_bot(server, kind: str = "pax_pamir", bot: str = "greedy"):
    """A person and one bot seat, the game started; the person's client and the game id."""
    _, client = server.new_player("person")
    created = client.post(f"{server.url}/games", json={"type": kind, "seats": 2, "options": {},
                                                        "bots": [{"kind": bot}]})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    joined = client.post(f"{server.url}/games/{game_id}/join", json={})
    assert joined.status_code == 200, joined.text
    return client, game_id, joined.json()["seat"]


def play_until_the_bot_is_asked(server, client, game_id: str, rng: random.Random) -> None:
    for _ in range(200):
        if prompted_bots(server.games.load(game_id)):
            return
        legal = client.get(f"{server.url}/games/{game_id}/legal-commands").json()
        assert legal["commands"], "the person is asked something while the bot is not"
        command = rng.choice(legal["commands"])
        posted = client.post(f"{server.url}/games/{game_id}/commands",
                             json={**command, "expected_version": legal["version"]})
        assert posted.status_code == 201, posted.text
    raise AssertionError("the bot was never asked anything")


def test_a_person_alone_against_bots_may_consent_and_export_their_copy(make_server):
    server = make_server(bot_think_seconds=0)
    client, game_id, seat = game_against_a_bot(server, "dynasties", "random")
    refused = client.get(f"{server.url}/games/{game_id}/export")
    assert refused.status_code == 409 and f"[{seat}]" in refused.json()["detail"]  # the person's, not the bot's
    consent = client.post(f"{server.url}/games/{game_id}/export-consent")
    assert consent.status_code == 201, consent.text
    assert consent.json()["may_export"] is True and consent.json()["consented"] == [0, 1]
    copy = client.get(f"{server.url}/games/{game_id}/export")
    assert copy.status_code == 200, copy.text
    header, *lines = [json.loads(line) for line in copy.text.splitlines()]
    assert header["redacted_for"] == seat
    bots_secrets = [record.event["secret"] for record in server.games.store.read(stream_of(game_id))
                    if record.event.get("secret") and seat not in record.event.get("secret_to", [])]
    assert bots_secrets, "the bot holds hidden cards"
    for secret in bots_secrets:
        assert json.dumps(secret, sort_keys=True) not in copy.text
    withdrawn = client.delete(f"{server.url}/games/{game_id}/export-consent")
    assert withdrawn.json()["may_export"] is False and withdrawn.json()["consented"] == [1 - seat]


def _reforged(text: str, bot) -> str:
    """The log with its bot seat's ``bot`` replaced, its digest recomputed (a hostile file)."""
    header, *bodies = [orjson.loads(line) for line in text.splitlines()]
    seated = [body for body in bodies if body["type"] == "SeatTaken" and "bot" in body["data"]]
    assert seated, "the log seats a bot"
    seated[0]["data"]["bot"] = bot
    envelopes = [{k: v for k, v in b.items() if k != "version"} for b in bodies]
    folder = GameService(MemoryStore(), default_registry())
    try:
        game = folder.loader.fold("f" * 16, [Recorded(stream_of("f" * 16), i + 1, e) for i, e in enumerate(envelopes)])
    except ValueError:  # no game folds from it: the import must refuse it before its digest anyway
        pass
    else:
        header["digest"] = digest(game, envelopes)
    return "".join(orjson.dumps(line).decode() + "\n" for line in [header, *bodies])


@pytest.mark.parametrize(("bot", "reason"), [
    ({"kind": "oracle", "level": "normal"}, "has no bot kind 'oracle'"),
    ({"kind": "mcts", "level": "grandmaster"}, "mcts has no level 'grandmaster'"),
    ({"kind": "random"}, "two fields, kind and level"),
    ("random", "two fields, kind and level"),
    ({"kind": ["random"], "level": "normal"}, "has no bot kind"),
])
def test_an_imported_log_seats_only_this_servers_bots(make_server, bot, reason):
    server = make_server(bot_think_seconds=0)
    played = play_against_bots(server, "dynasties", 2, [{"kind": "random"}], {"starting_gold": 8}, seed=4)
    exported = server.client().get(f"{server.url}/games/{played['summary']['id']}/export")
    assert exported.status_code == 200, exported.text
    _, archivist = server.new_player("archivist")
    before = server.games.store.set_members("bot-games")
    answer = archivist.post(f"{server.url}/games/import", data=_reforged(exported.text, bot).encode(),
                            headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 422 and answer.headers["Content-Type"] == "application/problem+json"
    detail = answer.json()["detail"]
    assert "field data.bot" in detail and reason in detail, detail
    assert "Traceback" not in detail and "KeyError" not in detail
    assert server.games.store.set_members("bot-games") == before
    # the untouched log still comes in
    again = archivist.post(f"{server.url}/games/import", data=exported.text.encode(),
                           headers={"Content-Type": "application/x-ndjson"})
    assert again.status_code == 201, again.text


def test_a_game_imported_in_play_goes_on_with_its_bot_seat_moving_by_itself(make_server):
    origin = make_server(bot_think_seconds=60)  # its bot is still thinking when the game leaves
    client, game_id, seat = game_against_a_bot(origin)
    play_until_the_bot_is_asked(origin, client, game_id, random.Random(2))
    assert client.post(f"{origin.url}/games/{game_id}/export-consent").json()["may_export"] is True
    whole = origin.games.logs.export(origin.games.load(game_id), EVERYONE)  # the operator's copy

    here = make_server(bot_think_seconds=0)
    _, archivist = here.new_player("archivist")
    answer = archivist.post(f"{here.url}/games/import", data=whole.encode(),
                            headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 201, answer.text
    copy_id, imported_at = answer.json()["id"], answer.json()["version"]
    assert copy_id in here.games.store.set_members("bot-games")
    deadline = time.monotonic() + 30
    while here.games.load(copy_id).version == imported_at:
        assert time.monotonic() < deadline, "the imported game's bot never moved"
        time.sleep(0.05)
    moved = [r.event for r in here.games.store.read(stream_of(copy_id), imported_at)]
    assert moved[0]["actor"] == 1 - seat and moved[0]["bot"] == "greedy:default"
