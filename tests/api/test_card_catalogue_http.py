"""The Pax Pamir card catalogue over real HTTP: every card's face (actions, impact icons in printed
order, special ability, event sides) for a front end to draw, versioned and conditional (ETag, 304)."""

from __future__ import annotations

from collections import Counter

import requests


def _catalogue(live_server):
    answer = requests.get(f"{live_server.url}/game-types/pax_pamir/cards", timeout=10)
    assert answer.status_code == 200
    return answer


def test_every_card_says_what_it_does(live_server):
    cards = _catalogue(live_server).json()["cards"]
    assert len(cards) == 116 and sorted(map(int, cards)) == list(range(1, 117))
    court = [c for c in cards.values() if c["kind"] == "court"]
    assert len(court) == 100
    # the totals the card table was checked against (shared/rules/paxpamir/cards.yaml's header)
    actions = Counter(a for c in court for a in c["actions"])
    assert actions == {"tax": 31, "gift": 22, "build": 23, "move": 37, "betray": 22, "battle": 31}
    icons = Counter(i for c in court for i in c["impact_icons"])
    assert (icons["army"], icons["spy"], icons["road"], icons["tribe"], icons["leverage"]) == (55, 51, 45, 28, 13)
    assert sum(c["special_ability"] is not None for c in court) == 22
    assert [c["number"] for c in court if not c["actions"]] == [7, 76]
    # printed order, not sorted: Jan-Fishan Khan reads spy, spy, army, then the military suit
    assert cards["2"]["actions"] == ["battle", "move"]
    assert cards["2"]["impact_icons"] == ["spy", "spy", "army", "favored_suit_military"]
    mohan = cards["1"]
    assert (mohan["name"], mohan["rank"], mohan["prize"]) == ("Mohan Lal", 3, "russian")
    assert mohan["special_ability"]["name"] == "Indispensable Advisors" and mohan["special_ability"]["text"]
    assert cards["17"]["special_ability"]["name"] == "Citadel"  # Citadel of Ghazni guards Kabul's tribes
    assert "Kabul" in cards["17"]["special_ability"]["text"]
    events = [c for c in cards.values() if c["kind"] == "event"]
    assert len(events) == 12 and all(e["if_purchased"]["text"] and e["if_discarded"]["text"] for e in events)
    assert cards["111"]["purchasable"] is False and cards["111"]["if_purchased"]["name"] == "Public Withdrawal"
    assert [c["number"] for c in cards.values() if c["kind"] == "dominance_check"] == [101, 102, 103, 104]


def test_every_action_and_icon_has_its_words(live_server):
    catalogue = _catalogue(live_server).json()
    assert set(catalogue["actions"]) == {"tax", "gift", "build", "move", "betray", "battle"}
    used = {i for c in catalogue["cards"].values() for i in c.get("impact_icons", [])}
    assert used == set(catalogue["impact_icons"])
    assert all(words["name"] and words["text"] for words in [*catalogue["actions"].values(),
                                                              *catalogue["impact_icons"].values()])


def test_the_catalogue_is_versioned_and_conditional(live_server):
    first = _catalogue(live_server)
    tag = first.headers["ETag"]
    assert tag == f'"{first.json()["version"]}"' and first.headers["Cache-Control"] == "no-cache"
    again = requests.get(f"{live_server.url}/game-types/pax_pamir/cards", headers={"If-None-Match": tag}, timeout=10)
    assert again.status_code == 304 and again.content == b""
    stale = requests.get(f"{live_server.url}/game-types/pax_pamir/cards", headers={"If-None-Match": '"0-old"'},
                         timeout=10)
    assert stale.status_code == 200 and stale.json() == first.json()


def test_game_types_point_to_it_and_other_games_have_none(live_server):
    types = {t["type"]: t for t in requests.get(f"{live_server.url}/game-types", timeout=10).json()}
    assert types["pax_pamir"]["cards_url"] == "/game-types/pax_pamir/cards"
    assert types["dynasties"]["cards_url"] is None
    for kind in ("dynasties", "nope", "%00", "x" * 300):
        answer = requests.get(f"{live_server.url}/game-types/{kind}/cards", timeout=10)
        assert answer.status_code == 404, kind
        assert answer.headers["Content-Type"].startswith("application/problem+json") and answer.json()["detail"]
