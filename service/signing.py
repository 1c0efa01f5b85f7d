"""Signed game logs: an export carries an HMAC-SHA256 of its content made with the server's key.

Only a log this server (or a server sharing its key) signed can count for rankings; any
other log may still be imported, for replay and study, as an unranked game.

Keys come from ``GAMES_SIGNING_KEYS``: a comma-separated list. The **first** key signs;
**every** key verifies. To rotate: put the new key first and keep the old one after it
(logs signed before the rotation still verify), then drop the old key once those logs no
longer need to count. Without the setting the server makes one random key and keeps it
in the store (``secret('signing-key')``), so every process of a deployment shares it; a
deployment that moves its data (SQLite to Redis, say) and wants old exports to stay
ranked should set the key explicitly.

What is signed: the header without its ``signature`` field and every event line, as
canonical JSON (sorted keys, orjson), so reformatting a line does not break a signature
but changing any value does.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any

from service.adapters.codec import dumps
from service.adapters.store import SharedStateRecorder

ALGORITHM = "HMAC-SHA256"
SECRET_NAME = "signing-key"

VALID, MISSING, UNKNOWN_KEY, INVALID = "valid", "missing", "unknown_key", "invalid"


def key_id(key: bytes) -> str:
    """A short public name for a key (it says which key signed, and reveals nothing of it)."""
    return hashlib.sha256(b"game-log-key-id:" + key).hexdigest()[:16]


def payload(header: dict[str, Any], lines: Sequence[dict[str, Any]]) -> bytes:
    """The bytes a signature covers: the header less its signature, and every line."""
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    return dumps({"header": unsigned, "events": list(lines)}, sort=True)


class Signer:
    def __init__(self, keys: Sequence[bytes]):
        if not keys or any(len(k) < 16 for k in keys):
            raise ValueError("signing keys must be given, each at least 16 bytes long")
        self.keys = list(keys)
        self._by_id = {key_id(k): k for k in self.keys}

    def sign(self, header: dict[str, Any], lines: Sequence[dict[str, Any]]) -> dict[str, str]:
        key = self.keys[0]
        mac = hmac.new(key, payload(header, lines), hashlib.sha256).hexdigest()
        return {"alg": ALGORITHM, "key_id": key_id(key), "value": mac}

    def verify(self, header: dict[str, Any], lines: Sequence[dict[str, Any]]) -> str:
        """``valid``, ``missing`` (no signature), ``unknown_key`` (not one of ours) or ``invalid``."""
        signature = header.get("signature")
        if not signature:
            return MISSING
        if not isinstance(signature, dict) or signature.get("alg") != ALGORITHM \
                or not isinstance(signature.get("value"), str):
            return INVALID
        key_id = signature.get("key_id")
        key = self._by_id.get(key_id) if isinstance(key_id, str) else None
        if key is None:
            return UNKNOWN_KEY
        expected = hmac.new(key, payload(header, lines), hashlib.sha256).hexdigest()
        return VALID if hmac.compare_digest(expected, signature["value"]) else INVALID


def parse_keys(text: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in text.split(",") if k.strip())


def signer_for(keys: Sequence[str], store: SharedStateRecorder) -> Signer:
    """The configured keys, else the deployment's own key kept in the store."""
    if keys:
        return Signer([k.encode() for k in keys])
    return Signer([store.secret(SECRET_NAME, secrets.token_hex(32)).encode()])
