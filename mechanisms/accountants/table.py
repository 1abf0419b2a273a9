"""The registered DP-SGD presets' accountant curves, computed once and shipped with the registry.

`accountant_table.json` (next to this module, package data) holds, per (σ, q, T, relation, δ
grid), the (δ, ε(δ)) points `accountant.accountant_curve` tabulates, with the dp_accounting version
and discretisation interval that produced them. Building a preset's claim reads it instead of
composing T subsampled Gaussian steps and inverting the profile 30 times (0.3–3 s a curve on an
idle core; `dpaudit list` builds every preset). A table written by another dp_accounting version,
or a curve not in it, is computed live, so the claim is always the installed accountant's.
`tests/mechanisms/test_dpsgd_accountant_table.py` recomputes every entry and checks that every
registered preset's curves are in the table. After changing a preset, rebuild:

    python -m dpaudit.mechanisms.dpsgd.accountant_table --write
    python -m dpaudit.mechanisms.dpsgd.accountant_table --check   # exit 1 on a difference
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("accountant_table.json")

Key = tuple[float, float, int, str, tuple[float, ...]]
"""(σ, q, T, relation value, δ grid): what a tabulated curve depends on."""


def key_text(key: Key) -> str:
    sigma, q, steps, relation, deltas = key
    return json.dumps([sigma, q, steps, relation, list(deltas)])


@functools.cache
def _table() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def lookup(key: Key, *, version: str, interval: float) -> tuple[tuple[float, float], ...] | None:
    """The stored points for `key`, if the table was written by this accountant and interval."""
    table = _table()
    if table.get("dp_accounting") != version or table.get("value_discretization_interval") != interval:
        return None
    points = table.get("curves", {}).get(key_text(key))
    return None if points is None else tuple((float(d), float(e)) for d, e in points)


def stored_curves() -> dict[str, Any]:
    """The table's curves as stored (key text → [[δ, ε], ...])."""
    curves: dict[str, Any] = _table().get("curves", {})
    return curves
