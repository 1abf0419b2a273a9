from __future__ import annotations

import dataclasses
import json
import math

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.buggy import AboveThresholdNoQueryNoise
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.reports.markdown import render_markdown
from dpaudit.reports.schema import dumps, from_json_dict, to_json_dict
from tests.reports.fixtures import make_result


def test_round_trip_including_infinities() -> None:
    for m in (LaplaceSum(), AboveThresholdNoQueryNoise()):
        r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=5000, seed=2))
        text = dumps(r)
        data = json.loads(text)  # strict JSON: no NaN/Infinity literals
        assert from_json_dict(data) == r or to_json_dict(from_json_dict(data)) == data
        assert to_json_dict(from_json_dict(data)) == data
        assert "Infinity" not in text
        md = render_markdown(from_json_dict(data))
        assert m.name in md


def test_one_sided_witness_reported() -> None:
    m = AboveThresholdNoQueryNoise()
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=20_000, seed=0))
    assert r.violation
    assert r.pairs[0].estimate.infinite_witness
    assert math.isfinite(r.epsilon_lower_bound)  # finite only because n is
    e = r.pairs[0].estimate
    assert f"one-sided witness (0 of {e.q_total:,} on D′)" in render_markdown(r)


def test_non_finite_extra_written_as_strict_json() -> None:
    """A diagnostic ±∞/NaN anywhere in `extra` (e.g. a search candidate whose pilot bound is
    −∞) must not make the result unwritable; it is encoded as "-inf"/"inf"/"nan"."""
    r = dataclasses.replace(
        make_result(),
        extra={"search": {"candidates": [{"pilot_epsilon_lower_bound": -math.inf, "s": (math.nan, 1.5)}]}},
    )
    data = json.loads(dumps(r))
    cand = data["extra"]["search"]["candidates"][0]
    assert cand == {"pilot_epsilon_lower_bound": "-inf", "s": ["nan", 1.5]}
    assert "search" in render_markdown(from_json_dict(data)).lower()
