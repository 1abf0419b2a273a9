from __future__ import annotations

import json
import math

from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.buggy import AboveThresholdNoQueryNoise
from mechanisms.reference import LaplaceSum
from reports.markdown import render_markdown
from reports.schema import dumps, from_json_dict, to_json_dict


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


def test_infinite_witness_reported() -> None:
    m = AboveThresholdNoQueryNoise()
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=20_000, seed=0))
    assert r.violation
    assert r.pairs[0].estimate.infinite_witness
    assert math.isfinite(r.epsilon_lower_bound)  # finite only because n is
    assert "infinite witness" in render_markdown(r)
