"""Signed game logs: every export carries an Ed25519 signature anyone can check offline.

The server's **public** keys are published (``GET /signing-keys``, each with its id), so a
player, a tournament or another server checks an export with no server at all
(``python -m service verify FILE --key PUBKEY``). Only a log this server signed can count
for rankings when it is imported; any other may still be imported, unranked.

Keys come from ``GAMES_SIGNING_KEYS``: a comma-separated list of secrets of at least 16
characters (``python -c "import secrets; print(secrets.token_hex(32))"`` makes one); each
is the seed of an Ed25519 key pair (``sha256("game-log-ed25519:" + secret)``). The
**first** key signs; **every** key verifies and is published. To rotate: put the new key
first and keep the old one after it (logs signed before still verify, by their key id),
then drop the old key once those logs need no longer count. Without the setting the
server makes one random secret and keeps it in the store (``secret('signing-key')``), so
every process of a deployment shares it.

What is signed, byte for byte: the header line without its ``signature`` (in canonical
JSON: sorted keys, orjson), a newline, then the file's every byte after the header line.
The header line itself must be in that canonical form, so changing any byte of the file
breaks the signature. Exports made before Ed25519 carry ``HMAC-SHA256`` signatures over
the parsed lines; an import still accepts those made with a configured key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from service.adapters.codec import dumps, loads
from service.adapters.store import SharedStateRecorder

ALGORITHM = "Ed25519"
LEGACY_ALGORITHM = "HMAC-SHA256"
SECRET_NAME = "signing-key"

VALID, MISSING, UNKNOWN_KEY, INVALID = "valid", "missing", "unknown_key", "invalid"


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    """A short public name for a key, computed from the public key alone."""
    return hashlib.sha256(b"game-log-key-id:" + _raw(public)).hexdigest()[:16]


def public_key_text(public: Ed25519PublicKey) -> str:
    """How a public key is published and passed to ``verify --key``: its 32 bytes in base64."""
    return base64.b64encode(_raw(public)).decode()


def parse_public_key(text: str) -> Ed25519PublicKey:
    """A public key as published (base64 of 32 bytes) or as a PEM text; ``ValueError`` if neither."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_public_key(text.encode())
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("the PEM key is not an Ed25519 public key")
        return key
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a public key is the base64 of 32 bytes (as GET /signing-keys lists it) or a PEM") from None
    if len(raw) != 32:
        raise ValueError(f"an Ed25519 public key has 32 bytes, not {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def _split(text: str) -> tuple[str, str]:
    """The header line and everything after it."""
    header_line, _, rest = text.partition("\n")
    return header_line, rest


def signed_message(header: dict[str, Any], rest: str) -> bytes:
    """The bytes a signature covers: the header less its signature, and the lines after it."""
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    return dumps(unsigned, sort=True) + b"\n" + rest.encode()


class Verifier:
    """Checks exports against public keys (offline: no private key, no server)."""

    def __init__(self, public_keys: Sequence[Ed25519PublicKey], legacy_secrets: Sequence[bytes] = ()):
        self._by_id = {key_id(k): k for k in public_keys}
        self._legacy = list(legacy_secrets)

    def check(self, text: str) -> tuple[str, str]:
        """(verdict, reason): ``valid``, ``missing`` (no signature), ``unknown_key`` (none of
        these keys) or ``invalid`` (the file changed after it was signed)."""
        header_line, rest = _split(text)
        try:
            header = loads(header_line)
        except ValueError:
            return INVALID, "the first line is not JSON"
        if not isinstance(header, dict):
            return INVALID, "the first line is not a header object"
        signature = header.get("signature")
        if not signature:
            return MISSING, "the header has no signature"
        if not isinstance(signature, dict) or not isinstance(signature.get("value"), str):
            return INVALID, "the header's signature is not {alg, key_id, value}"
        if signature.get("alg") == LEGACY_ALGORITHM:
            return self._check_legacy(header, rest)
        if signature.get("alg") != ALGORITHM:
            return INVALID, f"the signature's algorithm is {signature.get('alg')!r}, not {ALGORITHM}"
        named = signature.get("key_id")
        public = self._by_id.get(named) if isinstance(named, str) else None
        if public is None:
            return UNKNOWN_KEY, f"the log is signed with key {signature.get('key_id')!r}, which is not given here"
        if header_line.encode() != dumps(header, sort=True):
            return INVALID, "the header line was edited (it is not in the canonical form it was signed in)"
        try:
            value = base64.b64decode(signature["value"], validate=True)
            if base64.b64encode(value).decode() != signature["value"]:  # base64 has spare bits
                raise ValueError("not canonical base64")
            public.verify(value, signed_message(header, rest))
        except (InvalidSignature, binascii.Error, ValueError):
            return INVALID, "the signature does not match: the log changed after it was signed"
        return VALID, f"signed with key {signature['key_id']}"

    def verify(self, text: str) -> str:
        return self.check(text)[0]

    def _check_legacy(self, header: dict[str, Any], rest: str) -> tuple[str, str]:
        """An export from before Ed25519: an HMAC over the parsed header and lines."""
        lines = [loads(line) for line in rest.splitlines() if line.strip()]
        unsigned = {k: v for k, v in header.items() if k != "signature"}
        message = dumps({"header": unsigned, "events": lines}, sort=True)
        for secret in self._legacy:
            if hmac.compare_digest(hmac.new(secret, message, hashlib.sha256).hexdigest(), header["signature"]["value"]):
                return VALID, "signed with this server's HMAC key (an export from before Ed25519)"
        return UNKNOWN_KEY, "an HMAC-signed log (from before Ed25519) with none of this server's keys"


def _private_key(secret: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"game-log-ed25519:" + secret.encode()).digest())


class Signer:
    def __init__(self, keys: Sequence[str]):
        if not keys or any(len(k) < 16 for k in keys):
            raise ValueError("signing keys must be given, each at least 16 characters long")
        self._private = [_private_key(k) for k in keys]
        self.public_keys = [k.public_key() for k in self._private]
        self.verifier = Verifier(self.public_keys, [k.encode() for k in keys])

    def sign(self, header: dict[str, Any], lines: str) -> str:
        """The export: ``header`` (signed, in canonical form) on the first line, then ``lines``."""
        key = self._private[0]
        value = base64.b64encode(key.sign(signed_message(header, lines))).decode()
        signed = {**header, "signature": {"alg": ALGORITHM, "key_id": key_id(key.public_key()), "value": value}}
        return dumps(signed, sort=True).decode() + "\n" + lines

    def verify(self, text: str) -> str:
        return self.verifier.verify(text)

    def published(self) -> list[dict[str, Any]]:
        """The public keys, the one that signs first (``GET /signing-keys``)."""
        return [{"key_id": key_id(k), "alg": ALGORITHM, "public_key": public_key_text(k), "signs": i == 0,
                 "pem": k.public_bytes(serialization.Encoding.PEM,
                                       serialization.PublicFormat.SubjectPublicKeyInfo).decode()}
                for i, k in enumerate(self.public_keys)]


def signer_for(keys: Sequence[str], store: SharedStateRecorder) -> Signer:
    """The configured keys, else the deployment's own key kept in the store."""
    if keys:
        return Signer(list(keys))
    return Signer([store.secret(SECRET_NAME, secrets.token_hex(32))])
