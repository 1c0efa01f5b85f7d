"""Solo and two-player Pax Pamir against Wakhan over real HTTP (rules.md section 20): the
humans' clients use only ``legal-commands`` and ``commands``; Wakhan is never waited for (no
client is ever asked for her seat), her decisions are public events that say why, the view
shows her AI card and discard, and the game ends with her scored like any seat.
"""

from __future__ import annotations

import random

import pytest

from tests.api.test_pax_pamir_http import MAX_COMMANDS, pick


def play_against_wakhan(server, seed: int, humans: int, options: dict | None = None) -> tuple[str, list]:
    rng = random.Random(seed)
    clients = [server.new_player(f"human-{seat}")[1] for seat in range(humans)]
    created = clients[0].post(f"{server.url}/games", json={"type": "pax_pamir", "seats": humans,
                                                           "options": {"wakhan": True, **(options or {})}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for client in clients:
        assert client.post(f"{server.url}/games/{game_id}/join", json={}).status_code == 200
    wakhan = humans  # she sits in the last seat
    events: list = []
    ended, posted = False, 0
    while not ended:
        assert posted < MAX_COMMANDS, f"no end after {posted} commands"
        asked = []
        for seat, client in enumerate(clients):
            body = client.get(f"{server.url}/games/{game_id}/legal-commands").json()
            if body["commands"]:
                asked.append((seat, body["commands"]))
        assert asked, "dead end: no human is asked anything and the game has not ended"
        state = clients[0].get(f"{server.url}/games/{game_id}/state").json()["view"]
        assert wakhan not in state["to_move"], "a client is waited for Wakhan's decision"
        seat, commands = rng.choice(asked)
        answer = clients[seat].post(f"{server.url}/games/{game_id}/commands", json=pick(rng, commands))
        assert answer.status_code == 201, answer.text
        events += answer.json()["events"]
        posted += 1
        ended = any(event["type"] == "GameEnded" for event in answer.json()["events"])
    shuffles = [e for e in events if e["type"] == "WakhanDeckShuffled"]
    assert shuffles and all(set(e["data"]) == {"count"} for e in shuffles), "her AI deck order is nobody's"
    return game_id, clients


@pytest.mark.api
@pytest.mark.parametrize("humans, seed", [(1, 3), (2, 4)])
def test_a_game_against_wakhan_over_http_plays_to_the_end_with_her_scoring(live_server, humans, seed):
    game_id, clients = play_against_wakhan(live_server, seed, humans)
    wakhan = humans
    url = f"{live_server.url}/games/{game_id}"
    view = clients[0].get(f"{url}/state").json()["view"]
    assert view["seats"] == humans + 1 and view["wakhan"]["seat"] == wakhan
    assert view["wakhan"]["ai_card"] in range(1, 25) and view["wakhan"]["ai_discard"][-1] == view["wakhan"]["ai_card"]
    assert view["players"][wakhan]["loyalty"] in ("afghan", "british", "russian")
    summary = clients[0].get(url).json()
    assert summary["status"] == "finished"
    assert set(summary["outcome"]["scores"]) == {str(seat) for seat in range(humans + 1)}
    seen, after = [], 0
    while after is not None:
        page = clients[0].get(f"{url}/events", params={"after": after, "limit": 100}).json()
        seen += page["events"]
        after = page["next_after"]
    decided = [e for e in seen if e["type"] == "WakhanDecided"]
    assert decided and all(e["data"]["seat"] == wakhan and e["data"]["rule"].startswith("AI card ")
                           for e in decided), "every decision of hers says which AI card and rule"
    assert {e["data"]["command"]["type"] for e in decided} & {"Radicalize"}, "she radicalized"
    checks = [e["data"] for e in seen if e["type"] == "DominanceCheckResolved"]
    assert checks, "the game ends through a Dominance Check"
    if checks[-1]["dominant"] is not None:  # a successful check: she always scores (section 20)
        assert wakhan in {score["seat"] for score in checks[-1]["scores"]}
    board = clients[0].get(f"{live_server.url}/scoreboards/pax_pamir").json()
    assert board["total"] == humans and all(row["games_played"] == 1 for row in board["players"]), board
    ended = next(e["data"] for e in seen if e["type"] == "GameEnded")
    assert len(ended["vp"]) == humans + 1 and summary["outcome"]["scores"][str(wakhan)] == ended["vp"][wakhan]


@pytest.mark.api
def test_wakhan_is_refused_for_three_humans_and_one_human_needs_her(live_server):
    _, client = live_server.new_player("ann")
    for seats, options, said in ((3, {"wakhan": True}, "Wakhan plays with 1 or 2 human seats"),
                                 (1, {}, "1 with the option wakhan"),
                                 (2, {"wakhan_steadfast_loyalty": True}, "needs the option wakhan")):
        refused = client.post(f"{live_server.url}/games", json={"type": "pax_pamir", "seats": seats,
                                                                "options": options})
        assert refused.status_code == 422, refused.text
        assert refused.headers["Content-Type"].startswith("application/problem+json")
        assert said in refused.json()["detail"], refused.json()


def test_every_game_types_default_seats_make_a_game_with_its_default_options(live_server):
    """A front end's first choice (default_seats) is always a game the server accepts: Pax
    Pamir plays 1 human seat only against Wakhan, so its default is 2 (R-SET), not its 1."""
    _, client = live_server.new_player("ann")
    types = {t["type"]: t for t in client.get(f"{live_server.url}/game-types").json()}
    assert types["pax_pamir"]["min_seats"] == 1 and types["pax_pamir"]["default_seats"] == 2
    for kind, described in types.items():
        assert described["min_seats"] <= described["default_seats"] <= described["max_seats"]
        made = client.post(f"{live_server.url}/games", json={"type": kind, "seats": described["default_seats"]})
        assert made.status_code == 201, (kind, made.text)
