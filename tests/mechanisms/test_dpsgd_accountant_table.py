"""The shipped accountant curves equal dp_accounting's, and cover every registered DP-SGD preset."""

from __future__ import annotations

import dpaudit.mechanisms.accountants.dp_accounting as accountant
import dpaudit.mechanisms.accountants.table as accountant_table
import dpaudit.mechanisms.dpsgd.accountant_table as accountant_build


def test_every_registered_curve_is_shipped_and_equals_the_accountant() -> None:
    keys = accountant_build.registered_keys()
    assert keys, "the DP-SGD presets build no accountant curve"
    version = accountant.accountant_version()
    for key in keys:
        stored = accountant_table.lookup(key, version=version, interval=accountant.VALUE_DISCRETIZATION)
        assert stored is not None, f"curve {key[:4]} is not in accountant_table.json: rebuild it"
        assert stored == accountant.compute_points(key), f"curve {key[:4]} differs from dp_accounting"


def test_another_accountant_version_is_not_read() -> None:
    key = accountant_build.registered_keys()[0]
    assert accountant_table.lookup(key, version="0.0.0", interval=accountant.VALUE_DISCRETIZATION) is None
    assert accountant_table.lookup(key, version=accountant.accountant_version(), interval=1e-3) is None
