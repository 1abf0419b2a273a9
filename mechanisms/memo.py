"""A few recent results of a deterministic computation, kept for the next call that asks again.

A mechanism is sampled chunk after chunk on the same dataset (the certification's chunks, the
pilot's rounds on one candidate), and some spend a fixed cost per call before drawing anything: the
set-cover learner reduces the dataset to its table and builds the table's search guide
(`geometric/scl.py`, `geometric/scl_fast.py`). Those steps are functions of the mechanism and the
dataset alone, so their result can be reused: a call answered from here returns the very object an
earlier call computed, and every draw after it is the same to the last bit.

Keys are the identity of the objects read (held here, so no id is reused while its entry lives)
and hashable values (a dataset's content hash, `Dataset.key`). At most `size` entries, the least
recently used dropped first; a lock keeps concurrent threads (a threaded Dask worker) consistent.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["Memo"]


class Memo:
    """`get(objects, extra, make)`: `make()` once per key (identities of `objects`, `extra`)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], tuple[tuple[object, ...], Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, objects: tuple[object, ...], extra: Hashable, make: Callable[[], T]) -> T:
        key = (*(id(o) for o in objects), extra)
        with self._lock:
            kept = self._items.get(key)
            if kept is not None:
                self._items.move_to_end(key)
                return kept[1]
        value = make()
        with self._lock:
            self._items[key] = (objects, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
