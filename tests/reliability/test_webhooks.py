"""Webhooks against a real receiver on 127.0.0.1 that fails half its deliveries: every event
arrives exactly once in effect (by webhook-id), each signature checked by the
standardwebhooks library's own verifier; no subscriber ever gets another seat's hidden
card; a URL outside the allow-list is refused at subscription; dead letters replay."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

import pytest
from standardwebhooks import Webhook
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from service.background.webhooks import URL_PATTERN
from service.streams.envelopes import stream_of
from tests.helpers.play import play_randomly

OPERATOR_TOKEN = "operator-token-for-tests-0123456789"
LOCAL = ("127.0.0.1/32",)


@dataclass
class Receiver:
    """A chat bot's or an integrator's endpoint: checks each signature with the library, keeps
    each webhook-id once, and fails every other request (half before doing anything, half
    after processing, as when an answer is lost)."""

    secrets: dict[str, str] = field(default_factory=dict)  # path -> whsec_ secret
    effective: dict[str, dict[str, dict]] = field(default_factory=dict)  # path -> webhook-id -> payload
    requests: int = 0
    bad_signatures: list[str] = field(default_factory=list)
    failing: set[str] = field(default_factory=set)  # paths that answer 503 to everything
    flaky: bool = True
    flaky_requests: int = 10**9  # the first N requests are flaky, the later ones not
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, environ, start_response):
        request = Request(environ)
        path = request.path.strip("/")
        body = request.get_data(as_text=True)
        with self.lock:
            self.requests += 1
            n = self.requests
        flaky = self.flaky and n <= self.flaky_requests
        if path in self.failing or (flaky and n % 4 == 1):
            return Response("down", status=503)(environ, start_response)
        try:
            payload = Webhook(self.secrets[path]).verify(body, dict(request.headers))
        except Exception as exc:  # noqa: BLE001 - any refusal of the verifier is recorded
            self.bad_signatures.append(f"{path}: {exc!r}")
            return Response("bad signature", status=400)(environ, start_response)
        with self.lock:
            self.effective.setdefault(path, {}).setdefault(request.headers["webhook-id"], payload)
        status = 500 if flaky and n % 4 == 3 else 204  # processed, but the answer says otherwise
        return Response(status=status)(environ, start_response)


@pytest.fixture
def receiver():
    app = Receiver()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app.url = f"http://127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()


def _subscribe(server, receiver, token, path, **body):
    answer = server.client(token).post(f"{server.url}/webhooks", json={"url": f"{receiver.url}/{path}", **body})
    assert answer.status_code == 201, answer.text
    receiver.secrets[path] = answer.json()["secret"]
    return answer.json()


def _wait_idle(server, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.games.deliveries.idle():
            time.sleep(0.05)
            if server.games.deliveries.idle():
                return
        time.sleep(0.02)
    raise AssertionError("the webhook deliveries did not finish")


def _seated_game(server, players):
    service = server.games
    game = service.create_game(players[0], "dynasties", {"starting_gold": 8}, 2)
    for player in players:
        service.join_game(game.id, player)
    table = service.load(game.id).table
    by_id = {p["id"]: p for p in players}
    return game.id, [by_id[table.players[s]] for s in range(2)]


def test_a_receiver_failing_half_its_deliveries_gets_every_event_once_as_its_seat_may_see_it(make_server, receiver):
    server = make_server(webhook_allow=LOCAL, webhook_backoff=0.02, operator_token=OPERATOR_TOKEN)
    ann, _ = server.new_player("ann")
    bob, _ = server.new_player("bob")
    operator = _subscribe(server, receiver, OPERATOR_TOKEN, "operator", scope="public")
    ann_hook = _subscribe(server, receiver, ann["token"], "ann", scope="my_games")
    bob_chat = _subscribe(server, receiver, bob["token"], "bob-chat", scope="my_games", preset="chat")
    game_id, seated = _seated_game(server, [ann, bob])
    ann_seat = next(s for s, p in enumerate(seated) if p["id"] == ann["id"])
    bob_seat = 1 - ann_seat

    play_randomly(server.games, game_id, seated, random.Random(7), max_commands=6)
    assert not server.games.load(game_id).over
    _wait_idle(server)
    stored = {r.version: r.event for r in server.games.store.read(stream_of(game_id))}
    # during play: the operator sees what a spectator sees, Ann what her seat sees, never more
    for path, seat in (("operator", None), ("ann", ann_seat)):
        delivered = receiver.effective[path]
        assert len(delivered) == len(stored)
        for payload in delivered.values():
            event = payload["data"]["event"]
            original = stored[event["version"]]
            if original.get("secret") is not None:
                may_see = seat is not None and seat in original.get("secret_to", ()) and original["source"] == "game"
                assert ("secret" in event) == may_see, (path, event)
                if may_see:
                    assert event["secret"] == original["secret"]

    play_randomly(server.games, game_id, seated, random.Random(8))
    assert server.games.load(game_id).over
    _wait_idle(server)
    assert receiver.bad_signatures == []
    last = server.games.load(game_id).version
    for path, hook in (("operator", operator), ("ann", ann_hook)):
        assert set(receiver.effective[path]) == {f"msg_{hook['id']}_{game_id}_{v}" for v in range(1, last + 1)}
        assert [p["data"]["event"]["version"] for p in receiver.effective[path].values()] == list(range(1, last + 1))
    stored = {r.version: r.event for r in server.games.store.read(stream_of(game_id))}
    # Bob's chat room heard "your turn" each time the game came to him after another seat moved
    turns = [v for v, e in stored.items()
             if e.get("after") and bob_seat in e["after"]["to_move"] and e.get("actor") != bob_seat]
    messages = receiver.effective["bob-chat"]
    assert set(messages) == {f"msg_{bob_chat['id']}_{game_id}_{v}" for v in turns} and turns
    assert all(m["text"].startswith(f"Your turn in game {game_id}") for m in messages.values())
    assert receiver.requests > len(receiver.effective["operator"]) * 1.5  # half of them failed
    log = server.client(OPERATOR_TOKEN).get(f"{server.url}/webhooks/{operator['id']}/deliveries").json()
    assert {"delivered", "failed"} <= {d["outcome"] for d in log["deliveries"]}


def test_dead_letters_are_kept_and_a_replay_delivers_them_with_their_ids(make_server, receiver):
    server = make_server(webhook_allow=LOCAL, webhook_backoff=0.01, webhook_max_attempts=2)
    receiver.flaky = False
    receiver.failing.add("ann")
    ann, client = server.new_player("ann")
    bob, _ = server.new_player("bob")
    hook = _subscribe(server, receiver, ann["token"], "ann", scope="my_games")
    game_id, _ = _seated_game(server, [ann, bob])
    _wait_idle(server)
    log = client.get(f"{server.url}/webhooks/{hook['id']}/deliveries").json()["deliveries"]
    dead = {d["delivery_id"] for d in log if d["outcome"] == "dead_lettered"}
    version = server.games.load(game_id).version
    assert dead == {f"msg_{hook['id']}_{game_id}_{v}" for v in range(1, version + 1)}
    assert "ann" not in receiver.effective
    receiver.failing.clear()
    replayed = client.post(f"{server.url}/webhooks/{hook['id']}/replay")
    assert replayed.status_code == 202 and set(replayed.json()["replayed"]) == dead
    _wait_idle(server)
    assert set(receiver.effective["ann"]) == dead
    assert client.post(f"{server.url}/webhooks/{hook['id']}/replay").json()["replayed"] == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/",
                                 "http://192.168.0.10/x", "http://169.254.169.254/latest/meta-data",
                                 "http://[::1]/x", "http://0.0.0.0/", "ftp://8.8.8.8/", "http://user:pw@8.8.8.8/",
                                 "not a url",
                                 # IPv6 forms carrying a loopback, link-local or private IPv4 address
                                 "http://[::127.0.0.1]/x", "http://[::ffff:127.0.0.1]/x",
                                 "http://[64:ff9b::a9fe:a9fe]/latest/meta-data", "http://[64:ff9b::a00:1]/",
                                 "http://[64:ff9b:1::a00:1]/", "http://[2002:7f00:1::1]/",
                                 "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/"])
def test_a_url_outside_the_allow_list_is_refused_at_subscription(make_server, url):
    server = make_server()
    _, client = server.new_player("mallory")
    answer = client.post(f"{server.url}/webhooks", json={"url": url, "scope": "my_games"})
    assert answer.status_code == 422, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"
    # a URL outside openapi.yaml's pattern is invalid input; one of that form, an address refused
    shaped = re.fullmatch(URL_PATTERN, url) is not None
    assert answer.json()["code"] == ("webhook_url_not_allowed" if shaped else "invalid_input"), answer.text
    assert client.get(f"{server.url}/webhooks").json()["webhooks"] == []


@pytest.mark.parametrize("url", ["http://no-such-host.invalid/hook", "http://[1:2]/x", "http://8.8.8.8:99999/"])
def test_a_url_whose_host_does_not_resolve_is_refused_with_its_own_code(make_server, url):
    """A URL of the contract's form whose host does not resolve (schemathesis' positive data
    acceptance allows this one refusal, tests/api/schemathesis_hooks.py)."""
    server = make_server()
    _, client = server.new_player("mallory")
    assert re.fullmatch(URL_PATTERN, url)
    answer = client.post(f"{server.url}/webhooks", json={"url": url, "scope": "my_games"})
    assert answer.status_code == 422 and answer.json()["code"] == "webhook_host_unknown", answer.text
    assert client.get(f"{server.url}/webhooks").json()["webhooks"] == []


def test_a_public_url_is_accepted_and_only_the_operator_subscribes_to_every_game(make_server):
    server = make_server(operator_token=OPERATOR_TOKEN)
    _, client = server.new_player("ann")
    ok = client.post(f"{server.url}/webhooks", json={"url": "https://8.8.8.8/hook", "scope": "my_games"})
    assert ok.status_code == 201 and ok.json()["secret"].startswith("whsec_")
    assert [w["id"] for w in client.get(f"{server.url}/webhooks").json()["webhooks"]] == [ok.json()["id"]]
    assert "secret" not in client.get(f"{server.url}/webhooks").json()["webhooks"][0]
    refused = client.post(f"{server.url}/webhooks", json={"url": "https://8.8.8.8/all", "scope": "public"})
    assert refused.status_code == 403
    chat = server.client(OPERATOR_TOKEN).post(f"{server.url}/webhooks", json={
        "url": "https://8.8.8.8/all", "scope": "public", "preset": "chat"})
    assert chat.status_code == 403 and "player" in chat.json()["detail"]
    other, other_client = server.new_player("eve")
    assert other_client.get(f"{server.url}/webhooks/{ok.json()['id']}/deliveries").status_code == 404
    assert other_client.delete(f"{server.url}/webhooks/{ok.json()['id']}").status_code == 404
    assert client.delete(f"{server.url}/webhooks/{ok.json()['id']}").status_code == 204
    assert client.get(f"{server.url}/webhooks").json()["webhooks"] == []
    assert json.loads(client.get(f"{server.url}/webhooks").text) == {"webhooks": []}


def test_a_name_that_moves_to_a_private_address_after_the_check_is_refused_on_the_socket(receiver, monkeypatch):
    """DNS rebinding: the name answers a public address to the allow-list check and the
    receiver's loopback address to the connection. The delivery is refused on the socket
    itself, before a byte is sent; with loopback allowed, the same request goes through."""
    import socket

    from service.background import webhooks

    port = int(receiver.url.rsplit(":", 1)[1])
    real = socket.getaddrinfo
    asked: list[str] = []

    def moving(host, *args, **kwargs):
        if host != "rebind.example":
            return real(host, *args, **kwargs)
        asked.append(host)
        address = "93.184.216.34" if len(asked) == 1 else "127.0.0.1"  # public to the check only
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", moving)
    url = f"http://rebind.example:{port}/moved"
    assert webhooks.check_url(url, ()) == url  # the check saw a public address
    with pytest.raises(webhooks.PeerRefused, match="127.0.0.1"), webhooks.checked_session(()) as session:
        session.post(url, data=b"{}", timeout=5)
    assert receiver.requests == 0, "the request reached the private address"
    with webhooks.checked_session(LOCAL) as session:
        session.post(url, data=b"{}", timeout=5)
    assert receiver.requests == 1


def test_a_name_that_moves_to_an_ipv6_form_of_a_private_address_is_refused_at_delivery(make_server, monkeypatch):
    """The name answers a public address at subscription, and NAT64's form of the cloud
    metadata address (169.254.169.254) at delivery: the delivery is refused, with the reason
    in the subscription's log, and nothing is sent."""
    import socket

    real = socket.getaddrinfo
    answers = iter(["93.184.216.34"])

    def moving(host, port, *args, **kwargs):
        if host != "hooks.example":
            return real(host, port, *args, **kwargs)
        address = next(answers, "64:ff9b::a9fe:a9fe")
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)[:4 if ":" in address else 2])]

    monkeypatch.setattr(socket, "getaddrinfo", moving)
    server = make_server(webhook_max_attempts=1)
    ann, client = server.new_player("ann")
    bob, _ = server.new_player("bob")
    hook = client.post(f"{server.url}/webhooks", json={"url": "http://hooks.example/x", "scope": "my_games"})
    assert hook.status_code == 201, hook.text
    _seated_game(server, [ann, bob])
    _wait_idle(server)
    log = client.get(f"{server.url}/webhooks/{hook.json()['id']}/deliveries").json()["deliveries"]
    failed = [d for d in log if d["outcome"] == "failed"]
    assert failed and all("64:ff9b::a9fe:a9fe" in d["error"] and d["status"] is None for d in failed)
    assert not [d for d in log if d["outcome"] == "delivered"]


@dataclass
class Recorder:
    """A receiver that keeps every request's headers and body and answers 204."""

    seen: list[tuple[dict, str]] = field(default_factory=list)

    def __call__(self, environ, start_response):
        request = Request(environ)
        self.seen.append((dict(request.headers), request.get_data(as_text=True)))
        return Response(status=204)(environ, start_response)

    def take(self) -> list[tuple[dict, str]]:
        taken, self.seen = self.seen, []
        return taken


@pytest.fixture
def recorder():
    app = Recorder()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app.url = f"http://127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()


def _verifies(secret: str, headers: dict, body: str) -> bool:
    from standardwebhooks.webhooks import WebhookVerificationError

    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return False
    return True


def test_a_rotated_secret_signs_beside_the_new_one_for_its_grace_period_then_the_new_one_alone(make_server, recorder):
    server = make_server(webhook_allow=LOCAL, webhook_secret_grace=3.0)
    ann, client = server.new_player("ann")
    bob, _ = server.new_player("bob")
    hook = client.post(f"{server.url}/webhooks", json={"url": f"{recorder.url}/ann", "scope": "my_games"}).json()
    old = hook["secret"]
    game_id, seated = _seated_game(server, [ann, bob])
    _wait_idle(server)
    before = recorder.take()
    assert before and all(_verifies(old, h, b) and h["Webhook-Signature"].count("v1,") == 1 for h, b in before)

    rotated = client.post(f"{server.url}/webhooks/{hook['id']}/rotate-secret")
    assert rotated.status_code == 200, rotated.text
    new, until = rotated.json()["secret"], rotated.json()["previous_secret_valid_until"]
    assert new.startswith("whsec_") and new != old and rotated.json()["id"] == hook["id"]
    listed = client.get(f"{server.url}/webhooks").json()["webhooks"]
    assert [w["id"] for w in listed] == [hook["id"]] and new not in json.dumps(listed)  # shown once
    grace_ends = datetime.fromisoformat(until.replace("Z", "+00:00")).timestamp()

    rng = random.Random(5)
    play_randomly(server.games, game_id, seated, rng, max_commands=2)
    _wait_idle(server)
    during = recorder.take()
    time.sleep(max(0.0, grace_ends + 1.0 - time.time()))
    play_randomly(server.games, game_id, seated, rng, max_commands=2)
    _wait_idle(server)
    after = recorder.take()
    assert during and after
    for headers, body in during + after:
        sent = int(headers["Webhook-Timestamp"])
        assert _verifies(new, headers, body), "the new secret signs every delivery after the rotation"
        if sent < grace_ends - 1:  # within the grace period: the replaced secret signs too
            assert headers["Webhook-Signature"].count("v1,") == 2 and _verifies(old, headers, body)
        elif sent > grace_ends:
            assert headers["Webhook-Signature"].count("v1,") == 1 and not _verifies(old, headers, body)
    assert any(int(h["Webhook-Timestamp"]) < grace_ends - 1 for h, _ in during), "no delivery within the grace"
    assert all(int(h["Webhook-Timestamp"]) > grace_ends for h, _ in after)

    _, eve = server.new_player("eve")
    assert eve.post(f"{server.url}/webhooks/{hook['id']}/rotate-secret").status_code == 404
    assert client.delete(f"{server.url}/webhooks/{hook['id']}").status_code == 204
    gone = client.post(f"{server.url}/webhooks/{hook['id']}/rotate-secret")
    assert gone.status_code == 404 and gone.headers["Content-Type"] == "application/problem+json"
