from __future__ import annotations

import pickle

import numpy as np

from audit.estimators import (
    HistogramDistinguisher,
    SetEvent,
    ThresholdDistinguisher,
    ThresholdEvent,
    as_rows,
    choose_event,
)


def test_threshold_selection_finds_laplace_optimum(rng: np.random.Generator) -> None:
    a = as_rows(rng.laplace(0.0, 1.0, 100_000))
    b = as_rows(1.0 + rng.laplace(0.0, 1.0, 100_000))
    sel = choose_event(a, b, certify_total=900_000, delta=0.0, failure_probability=0.025)
    assert isinstance(sel.event, ThresholdEvent)
    # the optimal events are the half-lines beyond the shift ({x ≤ 0} for a > b or {x ≥ 1});
    # the projected certified ε must be close to the true ε = 1
    assert 0.97 < sel.projected < 1.0
    assert (sel.event.upper and sel.event.threshold > 0.5) or (
        not sel.event.upper and sel.event.threshold < 0.5
    )


def test_histogram_on_vectors_and_set_event(rng: np.random.Generator) -> None:
    a = as_rows(rng.integers(0, 2, size=(20_000, 3)))
    b = as_rows((rng.random((20_000, 3)) < [0.9, 0.5, 0.5]).astype(int))
    cand = HistogramDistinguisher().propose(a, b)
    assert cand is not None
    sel = choose_event(a, b, certify_total=100_000, delta=0.0, failure_probability=0.05)
    assert sel.distinguisher == "histogram"
    assert isinstance(sel.event, SetEvent)
    # the event is about the first coordinate: its indicator matches a direct check
    ind = sel.event.indicator(a)
    assert ind.shape == (a.shape[0],) and ind.dtype == bool
    members = {tuple(v) for v in sel.event.values}
    assert np.array_equal(ind, np.array([tuple(r) in members for r in a]))


def test_histogram_declines_continuous_outputs(rng: np.random.Generator) -> None:
    a = as_rows(rng.normal(size=10_000))
    assert HistogramDistinguisher().propose(a, a) is None
    assert ThresholdDistinguisher().propose(a, a) is not None


def test_events_pickle_and_describe() -> None:
    for ev in (
        ThresholdEvent(threshold=1.5, upper=True),
        ThresholdEvent(threshold=-1.0, upper=False, projection=(1.0, -0.5)),
        SetEvent(((1.0, 0.0), (0.0, 1.0))),
        SetEvent(((3.0,),)),
    ):
        clone = pickle.loads(pickle.dumps(ev))
        assert clone == ev
        assert ev.describe()


def test_negative_zero_equals_zero() -> None:
    ev = SetEvent(((0.0,),))
    assert ev.indicator(np.array([-0.0, 0.0, 1.0])).tolist() == [True, True, False]


def test_histogram_ignores_values_seen_once(rng: np.random.Generator) -> None:
    """Regression: 2,000 continuous outputs per side are < max_bins distinct values; a set of
    singletons fits the selection noise and never recurs, so the histogram must decline."""
    a = as_rows(rng.laplace(0.0, 1.0, 2000))
    b = as_rows(1.0 + rng.laplace(0.0, 1.0, 2000))
    assert HistogramDistinguisher().propose(a, b) is None
    sel = choose_event(a, b, certify_total=18_000, delta=0.0, failure_probability=0.025)
    assert sel.distinguisher == "threshold"


def test_small_budget_continuous_twin_is_flagged() -> None:
    from audit.runner import run_audit
    from audit.types import AuditConfig
    from mechanisms.buggy import LaplaceSumRangeBug

    m = LaplaceSumRangeBug()
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=20_000, seed=3))
    assert r.violation and r.epsilon_lower_bound > 1.5
