"""JSON encoding for everything the stores keep (orjson: the decode is the hot path of a load)."""

from __future__ import annotations

import zlib
from typing import Any

import orjson


def dumps(value: Any, sort: bool = False) -> bytes:
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_SORT_KEYS if sort else 0)
    return orjson.dumps(value, option=option)


def kept(raw: bytes) -> bytes:
    """A right-sized copy of ``raw``, for bytes kept long (a cache). orjson's ``dumps`` hands
    back its whole output buffer (orjson 3.12 and later: at least 4 kB, rounded up to a power
    of two; a 3 kB row holds 32 kB), which ``len`` and ``sys.getsizeof`` do not show: a
    cache of many small rows would keep ten times what it counts."""
    return bytes(memoryview(raw))


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)


def digest(value: Any) -> str:
    """A short fingerprint of a JSON value (CRC-32 of its bytes): tells a stored event from
    another one stored at the same place after the store went back in time."""
    return digest_of(dumps(value))


def digest_of(raw: bytes) -> str:
    """``digest`` of the value encoded as ``raw`` (``dumps`` gives the same bytes back)."""
    return format(zlib.crc32(raw), "08x")
