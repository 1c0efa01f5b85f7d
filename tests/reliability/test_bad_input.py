"""The bad-input catalogue: every malformed body, header, query or option gets a 4xx
application/problem+json answer, never a 500, and nothing is stored."""

from __future__ import annotations

import json
import random
import socket

import requests

from tests.helpers.play import start_game

DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 5000 + b"1" + b"}" * 5000
HUGE_INT = b"1" + b"0" * 5000
JSON = {"Content-Type": "application/json"}


def bodies(kind: str) -> list[bytes]:
    """Hostile JSON bodies; ``kind`` is where they go (a player, a game, a command, a join)."""
    common = [
        DEEP, DEEP_OBJECT, b"[" * 40 + b"]" * 40, HUGE_INT, b"-" + HUGE_INT, b"1e400", b"NaN", b"Infinity",
        b'"\\ud800"', b'{"name": "\\ud800"}', b'{"name": "\\udfff\\ud800"}', b"\xff\xfe", b"\xed\xa0\x80",
        b'{"a": 1,}', b"{", b"", b"null", b"[]", b"7", b'"text"', b"\x00", b'{"\x00": 1}',
        b'{"type": ' + HUGE_INT + b"}", b'{"seats": ' + HUGE_INT + b"}", b'{"seat": 18446744073709551616}',
        b'{"seat": -9223372036854775809}', b'{"seat": 1e308}', b'{"seat": "0"}', b'{"seat": true}',
        b'{"name": ' + b'"x"' * 3 + b"}",
    ]
    specific = {
        "player": [b'{"name": "Ann\\u0000"}', b'{"name": "\\u202eevil"}', b'{"name": "a\\u2066b"}',
                   b'{"name": "\\u0007bell"}', b'{"name": "' + b"x" * 65 + b'"}', b'{"name": "   "}',
                   b'{"name": "\\u200b"}', b'{"name": " padded "}', b'{"name": "line\\u2028break"}',
                   b'{"name": "tab\\tname"}', b'{"name": 5}', b'{"name": null}', b'{"name": ["a"]}'],
        "game": [b'{"type": "dynasties", "seats": 2, "options": {"legacy": 18446744073709551615}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"legacy": 18446744073709551616}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"starting_gold": 9223372036854775808}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"starting_gold": ' + HUGE_INT + b"}}",
                 b'{"type": "dynasties", "seats": 2, "options": {"starting_gold": 1e300}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"starting_gold": -1}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"starting_gold": {"a": 1}}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"\\ud800": 1}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"' + b"o" * 10_000 + b'": 1}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"seating": "' + b"r" * 10_000 + b'"}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"max_tie_break_turns": 4294967296}}',
                 b'{"type": "dynasties", "seats": 2, "options": {"hand_limit": 99999999999}}',
                 b'{"type": "dynasties", "seats": 9999999999999}',
                 b'{"type": "' + b"t" * 100_000 + b'", "seats": 2}',
                 b'{"type": "dynasties", "seats": 2, "options": [1, 2]}',
                 b'{"type": "dynasties", "seats": 2, "options": null}'],
        "command": [b'{"type": "Tribute", "args": {"card": "\\ud800"}}',
                    b'{"type": "Tribute", "args": {"card": "' + b"c" * 100_000 + b'"}}',
                    b'{"type": "Tribute", "args": {"cards": [' + b'"a",' * 10_000 + b'"a"]}}',
                    b'{"type": "Tribute", "args": {"card": "coppe-01"}, "expected_version": ' + HUGE_INT + b"}",
                    b'{"type": "Tribute", "args": {"card": "coppe-01"}, "expected_version": -1}',
                    b'{"type": "Tribute", "args": {"card": "coppe-01"}, "expected_version": 1e20}',
                    b'{"type": ["Tribute"], "args": {}}', b'{"type": {"a": 1}, "args": {}}',
                    b'{"type": "Tribute", "args": "card"}', b'{"type": "Tribute", "args": {"card": null}}'],
        "join": [b'{"seat": 64}', b'{"seat": -1}', b'{"seat": 9223372036854775807}', b'{"extra": 1}'],
    }
    return common + specific[kind]


def catalogue(base: str, game_id: str, token: str):
    """(method, url, headers, body) of every hostile request in the catalogue."""
    auth = {"Authorization": f"Bearer {token}"}
    game = f"{base}/games/{game_id}"
    for body in bodies("player"):
        yield "POST", f"{base}/players", JSON, body
    for body in bodies("game"):
        yield "POST", f"{base}/games", {**JSON, **auth}, body
    for body in bodies("command"):
        yield "POST", f"{game}/commands", {**JSON, **auth}, body
        yield "POST", f"{game}/commands", {**JSON, **auth, "Idempotency-Key": "k1"}, body
    for body in bodies("join"):
        yield "POST", f"{game}/join", {**JSON, **auth}, body
    for body in [DEEP, HUGE_INT, b'{"format": "game-log", "events": 1}\n' + DEEP, b"\xed\xa0\x80\n1",
                 b'{"format": "game-log", "events": 1, "game_type": "dynasties"}\n{"version": 1, "type": "GameCreated",'
                 b' "source": "platform", "data": {"game_type": "dynasties", "seats": 2, "created_by": "x", '
                 b'"options": {"legacy": 18446744073709551615}}}',
                 b'{"format": "game-log", "events": 1, "game_type": "dynasties"}\n{"version": 1, "type": "GameCreated",'
                 b' "source": "platform", "data": {"game_type": "dynasties", "seats": 1e400}}']:
        yield "POST", f"{base}/games/import", {"Content-Type": "application/x-ndjson", **auth}, body
        yield "POST", f"{base}/games/import", {**JSON, **auth}, body
    # queries: unknown parameters, out-of-range and malformed values, everywhere
    for path in ["/games", f"/games/{game_id}", f"/games/{game_id}/state", f"/games/{game_id}/events",
                 f"/games/{game_id}/replay", f"/games/{game_id}/legal-commands", f"/games/{game_id}/export",
                 "/game-types", "/scoreboards/dynasties", "/projections", "/health", "/players/nobody/games"]:
        for query in ["?unknown=1", "?limit=99999999999999999999999", "?limit=-1", "?after=abc", "?at=0",
                      "?offset=" + "9" * 5000, "?after=%00", "?status=%ED%A0%80", "?type=" + "x" * 3000,
                      "?__proto__=1", "?limit=1&limit=2&bogus"]:
            yield "GET", f"{base}{path}{query}", auth, None
    # headers (too many header fields: the werkzeug test server refuses them itself; gunicorn's
    # refusal is checked below)
    bad_auth = [{"Authorization": "Bearer " + "x" * 5000}, {"Authorization": "Basic abc"},
                {"Authorization": "Bearer"}, {"Authorization": "Bearer \x01\x02"}, {"X-Big": "v" * 20_000}]
    for headers in bad_auth:
        yield "GET", f"{game}/state", headers, None
        yield "GET", f"{game}/stream", headers, None
    for headers in [*bad_auth, {"Idempotency-Key": "k" * 201}, {"Idempotency-Key": "\x7f\x01"},
                    {"Idempotency-Key": "ключ".encode().decode("latin-1")},
                    {"Content-Type": "application/json; charset=utf-16"}, {"Content-Type": "text/plain"}]:
        yield "POST", f"{game}/commands", {**auth, **headers}, b'{"type": "Tribute", "args": {"card": "x"}}'
    for value in ["99999999999999999999999", "-5", "abc", "1e3"]:
        yield "GET", f"{game}/stream", {"Last-Event-ID": value}, None
    yield "GET", f"{base}/games/{'a' * 5000}", {}, None
    yield "GET", f"{base}/{'x' * 5000}", {}, None
    yield "GET", f"{base}/games?type={'%ff' * 2000}", {}, None


def test_the_hostile_catalogue_gets_4xx_problems_and_never_a_500(make_server):
    server = make_server()
    service = server.games
    game_id, players = start_game(service, "dynasties", 2)
    before = [service.store.log_head(0), len(service.store.read(f"game-{game_id}"))]
    tried, failures = 0, []
    session = requests.Session()
    for method, url, headers, body in catalogue(server.url, game_id, players[0]["token"]):
        tried += 1
        answer = session.request(method, url, headers=headers, data=body, timeout=30)
        ok = 400 <= answer.status_code < 500 and answer.headers.get("Content-Type") == "application/problem+json"
        if not ok:
            failures.append((answer.status_code, method, url[:120], (body or b"")[:80], answer.text[:200]))
    print(f"hostile requests tried: {tried}; answered other than 4xx problem+json: {len(failures)}; "
          f"500s: {sum(1 for f in failures if f[0] >= 500)}")
    assert not failures, "\n".join(map(repr, failures))
    assert [service.store.log_head(0), len(service.store.read(f"game-{game_id}"))] == before
    assert tried > 300


def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


GUNICORN_CASES = [
    (b"GET /games?type=" + b"x" * 10_000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 414),
    (b"GET /" + b"y" * 5000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 414),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " + b"v" * 10_000 + b"\r\n\r\n", 431),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
     + b"".join(b"X-H%d: v\r\n" % i for i in range(200)) + b"\r\n", 431),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
     + b"".join(b"X-Mid%d: " % i + b"v" * 7000 + b"\r\n" for i in range(3)) + b"\r\n", 431),
    (b"BREW /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
    (b"GET /health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
    (b"GET /\x00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
]


def test_gunicorn_refusals_are_problem_json_too(server_process, tmp_path):
    """414 and 431 (and gunicorn's other refusals) from `python -m service serve`."""
    server = server_process(f"sqlite:///{tmp_path}/events.db")
    for request_bytes, status in GUNICORN_CASES:
        got, headers, body = raw_request(server.port, request_bytes)
        assert got == status, (request_bytes[:60], body[:300])
        assert headers["content-type"] == "application/problem+json", (request_bytes[:60], body[:300])


def test_random_bytes_as_bodies_never_give_a_500(make_server):
    # 150 attempts at POST /players, 750 requests with one token as fast as they go: limits off
    server = make_server(limit_registrations_per_ip="", limit_per_token="", limit_per_ip="")
    game_id, players = start_game(server.games, "dynasties", 2)
    rng = random.Random(11)
    auth = {"Authorization": f"Bearer {players[0]['token']}", **JSON}
    statuses = set()
    for _ in range(150):
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        for path in ["/players", "/games", f"/games/{game_id}/commands", f"/games/{game_id}/join", "/games/import"]:
            answer = requests.post(f"{server.url}{path}", data=body, headers=auth, timeout=10)
            statuses.add(answer.status_code)
            assert answer.status_code < 500, (path, body, answer.text)
    assert statuses <= {401, 409, 422}


def _raw_post(port: int, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict]:
    """A POST sent byte for byte (requests refuses a header value of spaces)."""
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    status, _, answer = raw_request(port, (f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{lines}"
                                           f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    return status, json.loads(answer)


def test_a_blank_idempotency_key_is_refused_with_the_reason_and_nothing_is_made(make_server):
    """Audit (issue 18): a whitespace-only key was taken as no key (201, no retry protection)."""
    server = make_server()
    port = int(server.url.rsplit(":", 1)[1])
    service = server.games
    game_id, players = start_game(service, "dynasties", 2)
    token = players[0]["token"]
    auth = {"Authorization": f"Bearer {token}", **JSON}
    version = service.load(game_id).version
    waiting = service.read_models.lobby(status="waiting")["total"]
    command = requests.get(f"{server.url}/games/{game_id}/legal-commands", headers=auth, timeout=5).json()
    sends = [
        ("/games", b'{"type": "dynasties", "seats": 2}'),
        (f"/games/{game_id}/commands", json_bytes(command["commands"][0]) if command["commands"] else b"{}"),
        (f"/games/{game_id}/undo", b"{}"),
    ]
    for blank in ["   ", "", "\t \t"]:
        for path, body in sends:
            status, answer = _raw_post(port, path, {**auth, "Idempotency-Key": blank}, body)
            assert status == 422, (path, blank, answer)
            assert answer["code"] == "invalid_input" and "Idempotency-Key header is blank" in answer["detail"]
            assert "Idempotency-Key" in answer["errors"]
    assert service.load(game_id).version == version
    assert service.read_models.lobby(status="waiting")["total"] == waiting
    # an operation that does not take a key says so instead of ignoring it
    status, answer = _raw_post(port, "/players", {**JSON, "Idempotency-Key": "retry-1"}, b'{"name": "Cy"}')
    assert status == 422 and "does not take an Idempotency-Key" in answer["detail"], answer
    # a good key still works, and its retry gets the first answer
    first = requests.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2},
                          headers={**auth, "Idempotency-Key": "make-1"}, timeout=5)
    again = requests.post(f"{server.url}/games", json={"type": "dynasties", "seats": 2},
                          headers={**auth, "Idempotency-Key": "make-1"}, timeout=5)
    assert first.status_code == again.status_code == 201 and first.json()["id"] == again.json()["id"]


def json_bytes(value) -> bytes:
    return json.dumps(value).encode()


def test_a_body_declared_in_a_charset_other_than_utf8_is_refused(make_server):
    """Audit (issue 18): a UTF-8 body sent as charset=utf-16 was accepted."""
    server = make_server()
    body = '{"name": "Zoë"}'
    for charset in ["utf-16", "UTF-16LE", "latin-1", "iso-8859-1", "koi8-r", "x-unknown"]:
        for encoded in (body.encode(), body.encode("utf-16") if charset.lower().startswith("utf-16") else b""):
            if not encoded:
                continue
            answer = requests.post(f"{server.url}/players", data=encoded, timeout=5,
                                   headers={"Content-Type": f"application/json; charset={charset}"})
            assert answer.status_code == 415, (charset, answer.text)
            assert answer.headers["Content-Type"] == "application/problem+json"
            problem = answer.json()
            assert problem["code"] == "unsupported_media_type" and f"charset={charset}" in problem["detail"]
            assert "UTF-8" in problem["detail"]
    _, client = server.new_player("host")
    log = requests.post(f"{server.url}/games/import", data=b"{}\n", timeout=5,
                        headers={"Content-Type": "application/x-ndjson; charset=utf-16",
                                 "Authorization": client.headers["Authorization"]})
    assert log.status_code == 415
    for charset in ["utf-8", "UTF-8", "utf8"]:
        made = requests.post(f"{server.url}/players", data=body.encode(), timeout=5,
                             headers={"Content-Type": f"application/json; charset={charset}"})
        assert made.status_code == 201 and made.json()["name"] == "Zoë"
