"""Writes and checks `accountants/accountant_table.json` (see `accountants/table.py`): the registered DP-SGD
presets' accountant curves, recomputed with the installed dp_accounting.

    python -m dpaudit.mechanisms.dpsgd.accountant_table --write
    python -m dpaudit.mechanisms.dpsgd.accountant_table --check   # exit 1 on a difference
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from ..accountants.table import PATH, Key, key_text, stored_curves


def registered_keys() -> list[Key]:
    """Every curve the registered DP-SGD presets and twins build (recorded while building them)."""
    from ..accountants import dp_accounting as accountant
    from ..base import claims_of
    from . import REGISTRY_ENTRIES, reference

    reference._claims.cache_clear()  # so that every preset's curves are asked for again
    accountant.RECORDED.clear()
    for entry in REGISTRY_ENTRIES:
        claims_of(entry.build())
    return sorted(accountant.RECORDED)


def _compute(keys: Iterable[Key]) -> dict[str, list[list[float]]]:
    from ..accountants import dp_accounting as accountant

    out = {}
    for key in keys:
        out[key_text(key)] = [[d, e] for d, e in accountant.compute_points(key)]
    return out


def main(argv: list[str] | None = None) -> int:
    from ..accountants import dp_accounting as accountant

    ap = argparse.ArgumentParser(description="write or check the shipped DP-SGD accountant curves")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    keys = registered_keys()
    curves = _compute(keys)
    if args.write:
        doc = {
            "dp_accounting": accountant.accountant_version(),
            "value_discretization_interval": accountant.VALUE_DISCRETIZATION,
            "curves": curves,
        }
        PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(curves)} curves to {PATH}")
        return 0
    stored = stored_curves()
    differ = [k for k, v in curves.items() if stored.get(k) != v]
    print(f"{len(curves)} curves, {len(differ)} differ from the table")
    return 1 if differ and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
