"""The control of `opacus_expected_batch_size` (meta-pytorch/opacus#571, #819): the same user
training, domain and claim, with the optimizer's `expected_batch_size` pinned after
`make_private` to int(8 · 1/2) = 4, what the nominal 8 records give, whatever the private n. The
divisor no longer depends on the data, so the release is the Poisson-subsampled Gaussian
mechanism Opacus' accountant composes (q = 1/2 at every n in 5..8, T = 2), and the claim holds:
the row must not be flagged. Built through `dpaudit.from_callable` like the row it controls."""

from __future__ import annotations

from typing import Any

PACKAGE = "opacus"
ISSUE = "meta-pytorch/opacus#571 (and #819)"
VERSIONS = {"1.6.0": "no violation"}
REQUIREMENTS = {"1.6.0": [["torch==2.13.0"], ["opacus==1.6.0"]]}
NUM_SAMPLES = 20_000
FAST_NUM_SAMPLES = 1000
FAST_ARGS = ["--sequential"]
NOTE = "control: expected_batch_size pinned to 4 after make_private (a divisor independent of n)"


def mechanism() -> Any:
    from dpaudit.mechanisms.opacus.small_n import PINNED_DIVISOR, opacus_make_private_small_n

    return opacus_make_private_small_n(divisor=PINNED_DIVISOR, name="opacus_expected_batch_size_pinned")
