"""dpaudit/app/baseline/marginals.py: stored coordinate marginals and the events a gate run
chooses from them; and the empty-dataset round trip the stored pairs rely on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.app.baseline.core import (
    Baseline,
    BaselineError,
    baseline_audit_from_result,
    read_baseline,
    recount,
    regression_checks,
    write_baseline,
)
from dpaudit.app.baseline.marginals import MARGINAL_PHASE, edges_from, pair_marginals
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import CallableMechanism, from_callable
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset, Relation


def _two_columns(leak_column: int, scale: float, name: str = "two") -> CallableMechanism:
    """(x₀, x₁): the sum of the records plus Laplace(`scale`) in `leak_column`, the other column
    data-independent noise."""
    base = LaplaceSum()

    def batch(ds: Dataset, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
        out = rng.laplace(size=(n, 2))
        out[:, leak_column] = ds.X.sum() + rng.laplace(scale=scale, size=n)
        return out

    return from_callable(
        name=name,
        claim=base.claim,
        claims=base.claims,
        domain=base.domain,
        pairs=base.neighbor_pairs(),
        batch_fn=batch,
    )


def _entry(mechanism: CallableMechanism, n: int = 4000, seed: int = 0) -> Any:
    pairs = mechanism.neighbor_pairs()
    result = run_audit(mechanism, pairs, AuditConfig(num_samples=n, seed=seed), show_progress=False)
    return baseline_audit_from_result("m", mechanism.name, result, pairs, mechanism)


def test_an_empty_dataset_keeps_its_width_through_json() -> None:
    empty = Dataset(np.zeros((0, 2)), np.zeros(0))
    back = Dataset.from_dict(json.loads(json.dumps(empty.to_dict())))
    assert back.X.shape == (0, 2) and back.equals(empty)
    legacy = {"X": [], "y": []}  # a file written before "features" existed
    assert Dataset.from_dict(legacy).X.shape == (0, 1)


def test_edges_are_values_that_occurred_at_most_32_per_coordinate() -> None:
    rows = np.column_stack([np.arange(100.0), np.ones(100), np.r_[np.zeros(50), np.full(50, 3.0)]])
    coords, edges = edges_from(rows)
    assert coords == (0, 2)  # the constant column has no informative threshold
    assert len(edges[0]) <= 32 and set(edges[0]) <= set(rows[:, 0]) and edges[1] == (0.0, 3.0)


def test_marginal_counts_are_the_threshold_events_counts() -> None:
    """The stored count of {x_c ≥ e} / {x_c ≤ e} is what re-counting `ThresholdEvent` on the same
    stream gives."""
    m = _two_columns(0, 1.0)
    entry = _entry(m)
    marg = pair_marginals(m, entry.events[0], num_samples=3000, seed=5)
    assert marg is not None and marg.coordinates == (0, 1)
    from dpaudit.app.baseline.core import BaselineEvent

    probes = []
    for j, i, upper in ((0, 3, True), (1, 10, False), (1, 0, True)):
        spec = {
            "type": "threshold",
            "threshold": marg.edges[j][i],
            "upper": upper,
            "coordinate": marg.coordinates[j],
        }
        probes.append((j, i, upper, BaselineEvent(**{**_fields(entry.events[0]), "event_spec": spec})))
    counts = recount(m, [p[3] for p in probes], num_samples=3000, seed=5, phase=MARGINAL_PHASE)
    for (j, i, upper, _), (k_dataset, k_neighbor) in zip(probes, counts, strict=True):
        table = marg.at_least if upper else marg.at_most
        assert (table[0][j][i], table[1][j][i]) == (k_dataset, k_neighbor)


def _fields(e: Any) -> dict[str, Any]:
    return {f: getattr(e, f) for f in e.__dataclass_fields__}


def test_a_regression_the_stored_witness_cannot_see_is_caught_by_an_event_chosen_today() -> None:
    """Baseline: the leak in column 0 (witnesses there). Today: column 0 no longer depends on the
    data and column 1 leaks at ε ≈ 5. The stored witnesses see no rise; the event chosen from
    the baseline's column-1 marginals does, and it is never reported as stale."""
    entry = _entry(_two_columns(0, 1.0))
    assert entry.marginals and all(m.coordinates == (0, 1) for m in entry.marginals)
    report = regression_checks(
        _two_columns(1, 0.2), entry, num_samples=4000, seed=1, failure_probability=0.05
    )
    stored = [c for c in report.checks if not c.chosen_today]
    today = [c for c in report.checks if c.chosen_today]
    assert len(stored) == len(today) == 2
    assert not any(c.regression for c in stored)
    assert all(c.regression and "x[1]" in c.event for c in today)
    assert all(c.test_level == pytest.approx(0.05 / 4) for c in report.checks)
    assert all("chosen today" not in line for line in report.stale)
    same = regression_checks(_two_columns(0, 1.0), entry, num_samples=4000, seed=1, failure_probability=0.05)
    assert not same.regression and sum(c.chosen_today for c in same.checks) == 2


def test_marginals_round_trip_and_malformed_ones_name_the_file(tmp_path: Path) -> None:
    entry = _entry(LaplaceSum())
    path = tmp_path / "b.json"
    write_baseline(Baseline(audits={"lap": entry}), path)
    back = read_baseline(path).audits["lap"]
    assert back.marginals == entry.marginals and len(back.marginals) == 2
    n_rank = max(entry.events[0].p_total // 4, 2000)  # n/4 ranking samples per side, at least 2,000
    assert all(m.ranking_total == n_rank for m in back.marginals)
    data = json.loads(path.read_text())
    unranked = json.loads(json.dumps(data))
    for m in unranked["audits"]["lap"]["marginals"]:  # ranking counts are optional
        for key in ("ranking_at_least", "ranking_at_most", "ranking_total"):
            del m[key]
    path.write_text(json.dumps(unranked))
    plain = read_baseline(path).audits["lap"]
    assert all(m.ranking_total == 0 for m in plain.marginals)
    report = regression_checks(LaplaceSum(), plain, num_samples=3000, seed=1, failure_probability=0.05)
    assert sum(c.chosen_today for c in report.checks) == 2 and not report.regression
    data["audits"]["lap"]["marginals"][0]["at_least"][0][0][0] = 10**9  # count above the total
    path.write_text(json.dumps(data))
    with pytest.raises(BaselineError, match=r"b\.json: audit 'lap' marginals #1"):
        read_baseline(path)
    del data["audits"]["lap"]["marginals"]  # a baseline without marginals still reads
    path.write_text(json.dumps(data))
    assert read_baseline(path).audits["lap"].marginals == ()


def test_pairs_with_an_empty_side_stay_comparable_after_a_round_trip(tmp_path: Path) -> None:
    """A pair 'one record vs ∅' is still an add/remove pair once read back from the file (the
    empty side keeps its width), so its witness is compared rather than reported stale."""
    base = LaplaceSum()
    one, empty = Dataset(np.ones((1, 1))), Dataset(np.zeros((0, 1)))
    from dpaudit.neighbors.base import NeighborPair

    pair = NeighborPair(dataset=one, neighbor=empty, relation=Relation.ADD_REMOVE_ONE, description="one vs ∅")
    m = from_callable(
        name="lap_ar",
        claim=base.claim,
        claims=base.claims,
        domain=base.domain,
        batch_fn=lambda ds, n, rng: ds.X.sum() + rng.laplace(size=n),
    )
    result = run_audit(m, (pair,), AuditConfig(num_samples=4000, seed=0), show_progress=False)
    entry = baseline_audit_from_result("m", "lap_ar", result, (pair,), m)
    write_baseline(Baseline(audits={"m": entry}), tmp_path / "b.json")
    back = read_baseline(tmp_path / "b.json").audits["m"]
    report = regression_checks(m, back, num_samples=3000, seed=1, failure_probability=0.05)
    assert not report.stale and len(report.checks) == 2
