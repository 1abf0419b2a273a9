"""Shared pieces of the `opacus` family that never import torch or Opacus at module level: the
(q, expected batch size) `make_private` derives from a loader, and the check that a training run
used the rates its claim was built for. The claim itself is `mechanisms/accountants/opacus.py`.
"""

from __future__ import annotations

import math
from typing import Any

from ..accountants.opacus import (
    ACCOUNTANTS,
    CLAIM_DELTAS,
    EXTRA,
    INSTALL_MESSAGE,
    accountant_points,
    opacus_available,
    opacus_claim,
    opacus_label,
)

__all__ = [
    "ACCOUNTANTS",
    "CLAIM_DELTAS",
    "EXTRA",
    "INSTALL_MESSAGE",
    "accountant_points",
    "loader_rates",
    "opacus_available",
    "opacus_claim",
    "opacus_label",
    "rates_match",
]


def loader_rates(size: int, batch_size: int) -> tuple[float, int]:
    """(q, expected batch size) that `make_private` derives from a DataLoader of `batch_size` over
    `size` records: q = 1/len(data_loader) = 1/⌈size/B⌉ and int(size·q) (Opacus 1.5–1.6)."""
    batches = math.ceil(size / batch_size)
    q = 1.0 / batches
    return q, int(size * q)


def rates_match(run: Any, *, sample_rate: float, expected_batch_size: int) -> bool:
    """Whether a training `run` used the (q, expected batch size) the claim was built for."""
    return math.isclose(run.sample_rate, sample_rate) and math.isclose(
        run.expected_batch_size, expected_batch_size
    )
