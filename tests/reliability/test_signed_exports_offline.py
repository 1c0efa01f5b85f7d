"""Exports signed with Ed25519: the public keys are published at GET /signing-keys, and
`python -m service verify FILE --key PUBKEY` checks a file with no server; any byte
changed fails; rotation is by key id; imports still rank only what this server signed."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import sys
from pathlib import Path

import orjson

from service.streams.signing import INVALID, UNKNOWN_KEY, VALID, Verifier, parse_public_key
from tests.helpers.play import play_randomly, start_game

ROOT = Path(__file__).resolve().parents[2]
KEY_A = "a" * 32
KEY_B = "b" * 32


def _finished_export(server) -> tuple[str, str]:
    service = server.games
    game_id, players = start_game(service, "dynasties", 2, {"starting_gold": 8})
    play_randomly(service, game_id, players, random.Random(4))
    assert service.load(game_id).over
    answer = server.client().get(f"{server.url}/games/{game_id}/export")
    assert answer.status_code == 200
    return game_id, answer.text


def _keys(server) -> list[dict]:
    answer = server.client().get(f"{server.url}/signing-keys")
    assert answer.status_code == 200, answer.text
    return answer.json()["keys"]


def _verify(path: Path, *keys: str) -> subprocess.CompletedProcess[str]:
    args = [a for key in keys for a in ("--key", key)]
    return subprocess.run([sys.executable, "-m", "service", "verify", str(path), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_an_export_verifies_offline_with_the_published_public_key(make_server, tmp_path):
    server = make_server(signing_keys=(KEY_A,))
    _, text = _finished_export(server)
    (published,) = _keys(server)
    header = json.loads(text.splitlines()[0])
    assert header["signature"]["alg"] == "Ed25519" and header["signature"]["key_id"] == published["key_id"]
    assert published["signs"] is True
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    checked = _verify(path, published["public_key"])
    assert checked.returncode == 0, checked.stderr
    assert f"signed with key {published['key_id']}" in checked.stdout
    pem = tmp_path / "key.pem"
    pem.write_text(published["pem"])
    assert _verify(path, str(pem)).returncode == 0  # the same key as a PEM file


def test_changing_any_byte_of_an_export_breaks_its_signature(make_server, tmp_path):
    server = make_server(signing_keys=(KEY_A,))
    _, text = _finished_export(server)
    verifier = Verifier([parse_public_key(_keys(server)[0]["public_key"])])
    assert verifier.verify(text) == VALID
    for position, char in enumerate(text):  # every byte, one at a time (the export is ASCII)
        changed = text[:position] + ("x" if char != "x" else "y") + text[position + 1:]
        assert verifier.verify(changed) != VALID, f"a change at byte {position} ({text[position - 20:position + 20]!r})"
    lines = text.splitlines(keepends=True)
    reformatted = [json.dumps(json.loads(line)) + "\n" for line in lines[:2]]  # same values, other spacing
    for changed in (text + "\n", text.rstrip("\n"), reformatted[0] + "".join(lines[1:]),
                    lines[0] + reformatted[1] + "".join(lines[2:]), text.replace("\n", "\r\n")):
        assert changed != text and verifier.verify(changed) != VALID
    path = tmp_path / "game.jsonl"
    path.write_text(text.replace('"seat":0', '"seat":1', 1))
    refused = _verify(path, _keys(server)[0]["public_key"])
    assert refused.returncode == 1 and "changed after it was signed" in refused.stderr


def test_a_key_that_did_not_sign_the_export_is_told_apart(make_server, tmp_path):
    server = make_server(signing_keys=(KEY_A,))
    other = make_server(signing_keys=(KEY_B,))
    _, text = _finished_export(server)
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    refused = _verify(path, _keys(other)[0]["public_key"])
    assert refused.returncode == 1 and "unknown_key" in refused.stderr
    assert Verifier([parse_public_key(_keys(other)[0]["public_key"])]).verify(text) == UNKNOWN_KEY
    assert _verify(path, "not a key").returncode == 2


def test_rotation_publishes_every_key_by_id_and_old_exports_still_verify(make_server, tmp_path):
    origin = make_server(signing_keys=(KEY_A,))
    game_id, old = _finished_export(origin)
    rotated = make_server(signing_keys=(KEY_B, KEY_A))
    keys = _keys(rotated)
    assert [k["signs"] for k in keys] == [True, False]
    assert keys[1]["key_id"] == _keys(origin)[0]["key_id"]
    imported = rotated.client().post(f"{rotated.url}/games/import", data=old.encode(),
                                     headers={"Content-Type": "application/x-ndjson",
                                              "Authorization": f"Bearer {rotated.new_player('a')[0]['token']}"})
    assert imported.status_code == 201 and imported.json()["ranked"] is True
    new = rotated.client().get(f"{rotated.url}/games/{game_id}/export").text
    assert json.loads(new.splitlines()[0])["signature"]["key_id"] == keys[0]["key_id"]
    for text in (old, new):  # each verifies offline with the published keys, by its key id
        path = tmp_path / "game.jsonl"
        path.write_text(text)
        assert _verify(path, *(k["public_key"] for k in keys)).returncode == 0


def test_an_hmac_signed_export_from_before_ed25519_still_imports_ranked_with_its_key(make_server):
    origin = make_server(signing_keys=(KEY_A,))
    _, text = _finished_export(origin)
    lines = [orjson.loads(line) for line in text.splitlines()]
    header = {k: v for k, v in lines[0].items() if k != "signature"}
    message = orjson.dumps({"header": header, "events": lines[1:]}, option=orjson.OPT_SORT_KEYS)
    header["signature"] = {"alg": "HMAC-SHA256", "key_id": "legacy",
                           "value": hmac.new(KEY_A.encode(), message, hashlib.sha256).hexdigest()}
    legacy = "".join(orjson.dumps(line).decode() + "\n" for line in [header, *lines[1:]])
    restored = make_server(signing_keys=(KEY_A,))
    player, _ = restored.new_player("archivist")
    answer = restored.client(player["token"]).post(f"{restored.url}/games/import", data=legacy.encode(),
                                                   headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 201 and answer.json()["ranked"] is True
    tampered = legacy.replace('"starting_gold":8', '"starting_gold":9', 1)
    assert Verifier([], [KEY_A.encode()]).verify(tampered) != VALID
    assert Verifier([], [KEY_B.encode()]).verify(legacy) == UNKNOWN_KEY
    assert INVALID == Verifier([parse_public_key(_keys(origin)[0]["public_key"])]).verify(
        text.replace(text.splitlines()[0], text.splitlines()[0].replace("Ed25519", "Ed448")))
