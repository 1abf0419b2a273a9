"""The registered pairs' white-box ε, computed once and shipped with the registry.

`whitebox_cache.json` (next to this module, package data) holds, for every registered mechanism
(DP-library family excepted) at its registered parameters and every registered pair, the value of
its `exact_epsilon` oracle at the δ the runner audits that pair at (the applicable claim's). An
audit reads it instead of calling the oracle (`audit/whitebox.py`): the geometric oracles take up
to a minute of one core on some registered pairs, and a cached value is the same on every machine.

An entry is keyed by a digest of the mechanism's class, name and dataclass fields, the pair's
relation and data (both sides, X and y), and δ, so a changed preset or pair simply misses the
cache and the oracle runs (under its work budget, `oracle_budget.py`). The values are only as
current as the oracles: `tests/mechanisms/test_whitebox_cache.py` recomputes them (every entry
whose oracle is within its live budget; a sample of the rest) and checks that every registered
pair has one. After changing an oracle, a preset or a registered pair, rebuild:

    python -m dpaudit.mechanisms.whitebox_cache --write   # all entries (minutes: the geometric ones)
    python -m dpaudit.mechanisms.whitebox_cache --check   # recompute all; exit 1 on a difference
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..neighbors.base import Dataset, NeighborPair
from .base import Mechanism, applicable_claim, claims_of
from .oracle_budget import enforced

CACHE_FILE = Path(__file__).with_name("whitebox_cache.json")
FORMAT = 1


def _canon(value: Any) -> Any:
    """A JSON-able, exact encoding of a parameter value (floats by their hex, arrays by bytes)."""
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        return {
            "dtype": str(arr.dtype),
            "shape": list(arr.shape),
            "sha": hashlib.sha256(arr.tobytes()).hexdigest(),
        }
    if isinstance(value, np.generic):
        return _canon(value.item())
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _canon(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if hasattr(value, "name") and hasattr(type(value), "__members__"):  # an Enum
        return f"{type(value).__name__}.{value.name}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canon(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)


def _dataset(ds: Dataset) -> Any:
    return [_canon(np.asarray(ds.X, dtype=np.float64)), None if ds.y is None else _canon(np.asarray(ds.y))]


def cache_key(mechanism: Mechanism, pair: NeighborPair, delta: float) -> str | None:
    """The entry's digest, or None for a mechanism that is not a dataclass (never cached)."""
    if not dataclasses.is_dataclass(mechanism) or isinstance(mechanism, type):
        return None
    cls = type(mechanism)
    doc = {
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "name": mechanism.name,
        "params": _canon(mechanism),
        "relation": pair.relation.name,
        "pair": [_dataset(pair.dataset), _dataset(pair.neighbor)],
        "delta": float(delta).hex(),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Cached:
    """A shipped oracle outcome: its value, or None with the oracle's reason for declining."""

    epsilon: float | None
    note: str = ""


@cache
def _table() -> Mapping[str, Cached]:
    try:
        raw = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if raw.get("format") != FORMAT:
        return {}
    out = {}
    for e in raw.get("entries", ()):
        value = e["exact_epsilon"]
        out[e["key"]] = Cached(None if value is None else float(value), e.get("note", ""))
    return out


def lookup(mechanism: Mechanism, pair: NeighborPair, delta: float) -> Cached | None:
    """The shipped outcome for this mechanism, pair and δ, or None (not a registered pair)."""
    try:
        key = cache_key(mechanism, pair, delta)
    except Exception:  # an exotic parameter: no cache, the oracle runs
        return None
    return None if key is None else _table().get(key)


def registered_cases() -> Iterator[tuple[str, int, Mechanism, NeighborPair, float]]:
    """(name, pair index, mechanism, pair, audited δ) for every registered pair with an oracle."""
    from .libraries import FAMILY as LIBRARIES
    from .registry import entries

    for name, entry in entries().items():
        if entry.family == LIBRARIES:
            continue
        mech = entry.build()
        if not callable(getattr(mech, "exact_epsilon", None)):
            continue
        for i, pair in enumerate(getattr(mech, "neighbor_pairs", lambda: ())()):
            claim = applicable_claim(claims_of(mech), pair.relation)
            if claim is not None:
                yield name, i, mech, pair, claim.delta


def compute(mech: Mechanism, pair: NeighborPair, delta: float) -> tuple[Cached, dict[str, float]]:
    """The oracle's outcome without a budget (a decline's reason as `audit/whitebox.py` words it)
    and its work per budget unit."""
    with enforced(math.inf) as spent:
        try:
            value = float(mech.exact_epsilon(pair, delta=delta))  # type: ignore[attr-defined]
        except NotImplementedError as exc:
            return Cached(None, one_line(exc)), dict(spent)
        except Exception as exc:
            return Cached(None, f"oracle failed: {type(exc).__name__}: {one_line(exc)}"), dict(spent)
    if math.isnan(value):
        return Cached(None, "oracle returned NaN"), dict(spent)
    return Cached(value), dict(spent)


def one_line(exc: BaseException) -> str:
    """An exception as one line of at most 200 characters (the reference's note)."""
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__


def build(*, verbose: bool = True) -> dict[str, Any]:
    """Every registered pair's entry (the oracle run without a budget)."""
    out = []
    for name, i, mech, pair, delta in registered_cases():
        start = time.process_time()
        got, spent = compute(mech, pair, delta)
        if verbose:
            print(f"{name} pair {i}: {got} ({time.process_time() - start:.2f} s cpu)", file=sys.stderr)
        value = got.epsilon
        entry = {
            "mechanism": name,
            "pair": i,
            "description": pair.description,
            "delta": delta,
            "work": spent,
            "exact_epsilon": value if value is None or math.isfinite(value) else str(value),
            "key": cache_key(mech, pair, delta),
        }
        out.append(entry if value is not None else {**entry, "note": got.note})
    return {"format": FORMAT, "entries": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="rebuild the shipped white-box cache of registered pairs")
    ap.add_argument("--write", action="store_true", help=f"write {CACHE_FILE.name} (else print it)")
    ap.add_argument("--check", action="store_true", help="recompute every entry; exit 1 on a difference")
    args = ap.parse_args(argv)
    built = build()
    if args.check:
        shipped = json.loads(CACHE_FILE.read_text(encoding="utf-8"))["entries"]
        old = {e["key"]: e["exact_epsilon"] for e in shipped}
        new = {e["key"]: e["exact_epsilon"] for e in built["entries"]}
        differ = sorted(k for k in old.keys() | new.keys() if old.get(k, "absent") != new.get(k, "absent"))
        for e in built["entries"]:
            if e["key"] in differ:
                print(f"differs: {e['mechanism']} pair {e['pair']}: shipped {old.get(e['key'], 'absent')}")
        print(f"{len(new)} entries recomputed, {len(differ)} differ from {CACHE_FILE.name}")
        return 1 if differ else 0
    text = json.dumps(built, indent=1, ensure_ascii=False) + "\n"
    if args.write:
        CACHE_FILE.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
