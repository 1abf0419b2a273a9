"""The slow tier: statistical power and calibration (still run by CI)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/quality/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.slow)
