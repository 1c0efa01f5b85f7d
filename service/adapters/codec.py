"""JSON encoding for everything the stores keep (orjson: the decode is the hot path of a load)."""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any, sort: bool = False) -> bytes:
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_SORT_KEYS if sort else 0)
    return orjson.dumps(value, option=option)


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)
