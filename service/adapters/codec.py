"""JSON encoding for everything the stores keep (orjson: the decode is the hot path of a load)."""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)
