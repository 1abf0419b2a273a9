"""Shared fixtures: every test gets its own seeded generator (no global seeding)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the test's node id: independent across tests, reproducible."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _hypothesis_profile() -> None:
    """Property tests draw the same examples on every run (a CI result reproduces; a failure is
    not a coin flip of which examples were drawn); `HYPOTHESIS_PROFILE=explore` draws afresh."""
    import os

    from hypothesis import settings

    settings.register_profile("reproducible", derandomize=True)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


_hypothesis_profile()
