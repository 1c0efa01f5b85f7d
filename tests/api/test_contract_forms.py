"""openapi.yaml states the forms the server enforces (issue 37): each game type's seats, options
and bots in ``NewGame``, a webhook's URL and its ``game_id`` with ``scope: game`` in
``NewWebhook``. For each request below the contract's verdict and the server's agree: a body
the contract allows is accepted, one it refuses is refused with a 422 that names the field."""

from __future__ import annotations

import jsonschema_rs
import pytest
import yaml

from service.api.app import committed_spec_path

SPEC = yaml.safe_load(committed_spec_path().read_text())


def contract_allows(component: str, body: dict) -> bool:
    """``body`` against ``#/components/schemas/<component>`` (the bodies here hold no null,
    the one OpenAPI 3.0 keyword JSON Schema does not read)."""
    validator = jsonschema_rs.validator_for({**SPEC, "$ref": f"#/components/schemas/{component}"})
    return validator.is_valid(body)


GAMES = [
    ({"type": "dynasties", "seats": 2}, True),
    ({"type": "dynasties", "seats": 2, "private": False}, True),
    ({"type": "dynasties", "seats": 2, "private": 0}, False),  # a boolean is true or false (schemathesis)
    ({"type": "dynasties", "seats": 1}, False),  # Dynasties is for 2 to 6
    ({"type": "dynasties", "seats": 7}, False),
    ({"type": "pax_pamir", "seats": 1, "options": {"wakhan": True}}, True),
    ({"type": "pax_pamir", "seats": 6}, False),
    ({"type": "dynasties", "seats": 2, "options": {"wakhan": True}}, False),  # Pax Pamir's option
    ({"type": "dynasties", "seats": 2, "options": {"starting_gold": 101}}, False),
    ({"type": "dynasties", "seats": 2, "options": {"seating": "alphabetical"}}, False),
    ({"type": "pax_pamir", "seats": 2, "options": {"deal": {"deck": [1, 2], "loyalty_order": [0, 1]}}}, False),
    ({"type": "pax_pamir", "seats": 2, "options": {"deal": {"deck": list(range(1, 53)), "loyalty_order": [0, 1],
                                                            "note": "x"}}}, False),
    ({"type": "dynasties", "seats": 3, "bots": [{"kind": "mcts", "level": "easy", "seat": 2}]}, True),
    ({"type": "dynasties", "seats": 3, "bots": [{"kind": "mcts", "level": "careful"}]}, False),  # greedy's level
    ({"type": "dynasties", "seats": 3, "bots": [{"kind": "minimax"}]}, False),
    ({"type": "dynasties", "seats": 3, "bots": [{"kind": "random", "seat": 6}]}, False),
]


@pytest.mark.parametrize("body, allowed", GAMES)
def test_a_new_game_the_contract_allows_is_created_and_one_it_refuses_is_refused(live_server, body, allowed):
    assert contract_allows("NewGame", body) is allowed
    _, client = live_server.new_player("maker")
    answer = client.post(f"{live_server.url}/games", json=body)
    assert answer.status_code == (201 if allowed else 422), answer.text
    if not allowed:
        assert answer.json()["code"] in ("invalid_input", "invalid_option", "invalid_bots"), answer.text


def test_options_that_only_go_together_are_the_games_to_refuse(live_server):
    """What JSON Schema cannot state (a relation between two options) the contract allows and
    the game refuses by name: the one kind of 422 positive data may get here."""
    body = {"type": "dynasties", "seats": 2, "options": {"starting_hand": 6, "hand_limit": 4}}
    assert contract_allows("NewGame", body)
    _, client = live_server.new_player("maker")
    answer = client.post(f"{live_server.url}/games", json=body)
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_option"
    assert answer.json()["option"] == "starting_hand"


WEBHOOKS = [
    ({"url": "https://8.8.8.8/hook", "scope": "my_games"}, True),
    ({"url": "https://8.8.8.8/hook", "scope": "my_games", "game_id": "0123456789abcdef"}, True),  # ignored
    ({"url": "https://8.8.8.8/hook", "scope": "game"}, False),  # which game?
    ({"url": "https://user@8.8.8.8/hook", "scope": "my_games"}, False),
    ({"url": "ftp://8.8.8.8/hook", "scope": "my_games"}, False),
    ({"url": "https://8.8.8.8 /hook", "scope": "my_games"}, False),
    ({"url": "https://8.8.8.8/hook\n", "scope": "my_games"}, False),  # Python's $ would take it
    ({"url": "https://\x1c/hook", "scope": "my_games"}, False),  # \s in Python, not in JavaScript (schemathesis)
    ({"url": "https://no-such-host.invalid/hook", "scope": "my_games"}, True),  # refused, for its host
]


@pytest.mark.parametrize("body, allowed", WEBHOOKS)
def test_a_webhook_the_contract_allows_is_subscribed_and_one_it_refuses_is_refused(live_server, body, allowed):
    assert contract_allows("NewWebhook", body) is allowed
    _, client = live_server.new_player("hooker")
    answer = client.post(f"{live_server.url}/webhooks", json=body)
    if "invalid" in body["url"]:
        assert answer.status_code == 422 and answer.json()["code"] == "webhook_host_unknown", answer.text
        return
    assert answer.status_code == (201 if allowed else 422), answer.text
    if not allowed:
        assert answer.json()["code"] == "invalid_input", answer.text
