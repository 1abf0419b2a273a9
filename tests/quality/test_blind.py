"""Slow tier: blind user mechanisms (`tests/blind_mechanisms.py`) audited as a user would audit them.

`dpaudit run tests.blind_mechanisms:NAME` at the default budget and seed 0, no registered pairs:
every threshold-branch bug (t ∈ {3, 5, 10, 20}, box and integer domains) and every region gate
(an interior band, a mixed corner; t ∈ {3, 5, 10}) is flagged with its witness named, and a few
of the other bug classes and correct versions. About 70 s single-core; `benchmarks/blind.py`
runs every row (42) at seeds 0–2. A correct row is flagged with probability
≤ 0.05 (the audit's failure probability): that is each such assertion's false-failure probability.
"""

from __future__ import annotations

import pytest

from dpaudit.app.cli.entry import main
from tests.blind_mechanisms import BY_NAME, REGION_THRESHOLDS, THRESHOLDS

BUGGY = [
    *(f"threshold_{where}_t{t}" for where in ("box", "int") for t in THRESHOLDS),
    "suppress_true_counts",
    "mean_own_size",
    "rr_binary_keep",
    "gaussian_mean_own_size",
    *(f"gate_{where}_t{t}" for where in ("band", "mixed_corner") for t in REGION_THRESHOLDS),
]
CORRECT = [
    "noisy_threshold_box_t3",
    "noisy_threshold_box_t20",
    "noisy_threshold_int_t20",
    "gaussian_mean_public_size",
    *(f"noisy_gate_{where}_t{t}" for where in ("band", "mixed_corner") for t in REGION_THRESHOLDS),
]


@pytest.mark.parametrize("name", BUGGY + CORRECT)
def test_blind_decision(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    row = BY_NAME[name]
    code = main(["run", f"tests.blind_mechanisms:{name}", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == (1 if row.buggy else 0), out
    if name.startswith("threshold_"):
        t = int(name.rsplit("t", 1)[1])
        top = "x = 1" if "_box_" in name else "x = 10"
        assert f"witness: {t} records at {top} vs {t - 1} records at {top}" in out, out
        assert "never on D" in out  # the branch: the event has zero count on one side
    if name.startswith("gate_"):  # the witness sits in the region, where the extremes put none
        t = int(name.rsplit("t", 1)[1])
        inside = "x = 0.5" if "_band_" in name else "x = (1, 0)"
        assert f"witness: {t} records at {inside} vs {t - 1} records at {inside}" in out, out
