"""A projection's tables as the runner hands them to ``apply``: rows stored one by one,
loaded on first touch, and the changes of one catch-up collected for one atomic save.

``Session``: one catch-up of one projection (its tables, what changed). ``StoredTable``:
a table as a mapping whose rows come from the store the first time a key is read.
``RowCache``: the rows a runner saved last, kept between catch-ups (bounded in rows and bytes), valid while
the stored checkpoints are the ones it saved.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

from projections import Projection
from projections.base import indexes_of
from service.adapters.codec import dumps, kept, loads
from service.adapters.store import IndexWrite, ReadModelStore, RowWrite

_ABSENT = object()


#: what one cached row costs beyond its bytes: the key's tuple and strings, the dict's slot, the
#: bytes object's header (measured with tracemalloc: about 280 for a key of 17 characters)
ROW_OVERHEAD = 280


class RowCache:
    """Rows as last saved by this runner (JSON bytes, or None for "no row"), least recently used
    out once it holds more than ``size`` rows or more than ``budget`` bytes (a row's own bytes:
    ``put`` keeps a right-sized copy, see ``codec.kept``). The bytes bound is
    the one that holds on a long run: finished games' rows stop being touched but would
    otherwise stay until ``size`` rows of every size had passed through (issue 38)."""

    def __init__(self, size: int, budget: int):
        self.size = size
        self.budget = budget
        self.rows: OrderedDict[tuple[str, str], bytes | None] = OrderedDict()
        self.bytes = 0  # what the rows held cost, by ``_cost``
        self.checkpoints: dict[int, int] | None = None  # what the cached rows are valid for

    @staticmethod
    def _cost(table: str, key: str, raw: bytes | None) -> int:
        return ROW_OVERHEAD + len(table) + len(key) + (0 if raw is None else len(raw))

    def get(self, table: str, key: str) -> Any:
        found = self.rows.get((table, key), _ABSENT)
        if found is not _ABSENT:
            self.rows.move_to_end((table, key))
        return found

    def put(self, table: str, key: str, raw: bytes | None) -> None:
        raw = None if raw is None else kept(raw)  # the row's bytes alone, not orjson's buffer
        if (table, key) in self.rows:
            self.bytes -= self._cost(table, key, self.rows[(table, key)])
        self.rows[(table, key)] = raw
        self.rows.move_to_end((table, key))
        self.bytes += self._cost(table, key, raw)
        while self.rows and (len(self.rows) > self.size or self.bytes > self.budget):
            (old_table, old_key), old = self.rows.popitem(last=False)
            self.bytes -= self._cost(old_table, old_key, old)

    def clear(self) -> None:
        self.rows.clear()
        self.bytes = 0
        self.checkpoints = None


class Session:
    """The rows of one projection touched since the last save, and the tables ``apply`` sees."""

    def __init__(self, store: ReadModelStore, projection: Projection, cache: RowCache):
        self.store = store
        self.projection = projection
        self.cache = cache
        self.tables = {name: StoredTable(self, name) for name in projection.initial()}
        self.model: dict[str, Any] = dict(self.tables)

    def changes(self) -> tuple[list[RowWrite], list[IndexWrite], list[tuple[str, str, bytes | None]]]:
        rows: list[RowWrite] = []
        index: list[IndexWrite] = []
        cached: list[tuple[str, str, bytes | None]] = []
        for table in self.tables.values():
            for key, (raw, before) in table.loaded.items():
                row = table.rows.get(key)
                new = None if row is None else dumps(row)
                cached.append((table.name, key, new))
                if new == raw:
                    continue
                rows.append((table.name, key, new))
                after = {} if row is None else indexes_of(self.projection, table.name, key, row)
                for idx, score in after.items():
                    if before.get(idx) != score:
                        index.append((idx, key, score))
                index.extend((idx, key, None) for idx in before if idx not in after)
        return rows, index, cached

    def saved(self, cached: list[tuple[str, str, bytes | None]]) -> None:
        """After a successful save: the touched rows become the cache's; start afresh."""
        for table, key, raw in cached:
            self.cache.put(table, key, raw)
        for stored in self.tables.values():
            stored.reset()


class StoredTable(MutableMapping):
    """One table of a stored read model as ``apply`` sees it: a dict whose rows load on first
    access. Every row handed out counts as touched (``apply`` may change it in place) and is
    compared with what was stored when the session saves. A table cannot be iterated (that
    would read it whole); ``scan`` walks an index instead."""

    def __init__(self, session: Session, name: str):
        self.session = session
        self.name = name
        self.rows: dict[str, Any] = {}  # key -> row now (None: no row)
        self.loaded: dict[str, tuple[bytes | None, dict[str, float]]] = {}  # key -> (stored, its indexes)

    def reset(self) -> None:
        """Forget the rows of the catch-up that was saved (the same dicts, emptied)."""
        self.rows.clear()
        self.loaded.clear()

    def _load(self, key: str) -> Any:
        if key in self.rows:
            return self.rows[key]
        session = self.session
        raw = session.cache.get(self.name, key)
        if raw is _ABSENT:
            (raw,) = session.store.get_rows(session.projection.name, self.name, [key])
        row = None if raw is None else loads(raw)
        before = {} if row is None else indexes_of(session.projection, self.name, key, row)
        self.loaded[key] = (raw, before)
        self.rows[key] = row
        return row

    def preload(self, keys: Iterable[str]) -> None:
        """Load many rows with one store read (a scan's rows)."""
        session = self.session
        missing = [k for k in keys if k not in self.rows and session.cache.get(self.name, k) is _ABSENT]
        if missing:
            for key, raw in zip(missing, session.store.get_rows(session.projection.name, self.name, missing),
                                strict=True):
                session.cache.put(self.name, key, raw)

    def __getitem__(self, key: str) -> Any:
        row = self._load(key)
        if row is None:
            raise KeyError(key)
        return row

    def get(self, key: str, default: Any = None) -> Any:
        row = self._load(key)
        return default if row is None else row

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._load(key) is not None

    def __setitem__(self, key: str, row: Any) -> None:
        self._load(key)
        self.rows[key] = row

    def __delitem__(self, key: str) -> None:
        if self._load(key) is None:
            raise KeyError(key)
        self.rows[key] = None

    def __iter__(self) -> Iterator[str]:
        raise TypeError(f"table {self.name!r} of a stored read model cannot be iterated: scan an index")

    def __len__(self) -> int:
        raise TypeError(f"table {self.name!r} of a stored read model has no cheap length: count an index")

    def scan(self, index: str) -> list[str]:
        """The keys in ``index`` by (score, key): the stored order, with this session's
        unsaved changes merged in."""
        session = self.session
        entries = dict(session.store.index_entries(session.projection.name, index))
        for key, (_, before) in self.loaded.items():
            row = self.rows[key]
            after = {} if row is None else indexes_of(session.projection, self.name, key, row)
            if index in after:
                entries[key] = after[index]
            elif index in before:
                entries.pop(key, None)
        keys = sorted(entries, key=lambda k: (entries[k], k))
        self.preload(keys)
        return keys
