"""Shared fixtures: every test gets its own seeded generator (no global seeding)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the test's node id: independent across tests, reproducible."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
