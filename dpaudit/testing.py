"""Conformance checks for a new plug-in, as scikit-learn's `check_estimator` (issue 43).

`check_mechanism(m)` checks the `Mechanism` contract (mechanisms/base.py) on the mechanism's own
pairs (or the pairs given): a name, PrivacyClaims (`claims`, or a bare `claim`), a `Domain`, each
pair a pair under its relation; `sample` returns `num_samples` finite numeric rows, of one shape
per dataset whatever `num_samples`; a `seedable` mechanism draws the same outputs from the same
seed (the harness's resumed and parallel runs rest on it: every chunk is a pure function of its
seed); and the mechanism survives the pickling that ships it to a worker process (cloudpickle, as
joblib does), drawing the same outputs there.

`check_distinguisher(d)` checks the `Distinguisher` contract (audit/distinguishers/base.py) on
synthetic selection splits (or the outputs given): a name; `propose` returns None or candidates
whose counts on each side are finite, non-negative, at most the side's size (up to rounding: the
learned ones rescale held-out counts), and the same on a second call (the choice must be a
function of the selection split); every event it builds has a vectorised boolean `indicator`, a
`describe`, a spec of a registered type (one of the distinguisher's declared `event_types` when
it is registered) that rebuilds an event with the same indicator, and it pickles (certification
counts events in worker processes).

Both raise `AssertionError` naming the mechanism or distinguisher and what failed, and return
nothing; they are cheap (small `num_samples`), so a project can run them over every registered
plug-in (tests/test_conformance.py does).
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.distinguishers import capabilities_of
from dpaudit.engine.events import EVENT_TYPES, as_rows, event_from_spec, event_spec
from dpaudit.mechanisms.base import MechanismError, PrivacyClaim, claims_of, validate_output
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, is_neighbor
from dpaudit.neighbors.generators import BoundaryPairs

__all__ = ["check_distinguisher", "check_mechanism"]


def _cloudpickle() -> Any:
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - joblib vendors it
        from joblib.externals import cloudpickle
    return cloudpickle


def _draw(m: Any, dataset: Dataset, num_samples: int, seed: int) -> NDArray[Any]:
    out = m.sample(dataset, num_samples, rng=np.random.default_rng(seed))
    try:
        return validate_output(m.name, out, num_samples)
    except MechanismError as exc:
        raise AssertionError(str(exc)) from exc


def _check_contract(m: Any) -> str:
    name = getattr(m, "name", None)
    assert isinstance(name, str) and name, f"{type(m).__name__}: `name` must be a non-empty str"
    try:
        claims = claims_of(m)
    except MechanismError as exc:
        raise AssertionError(str(exc)) from exc
    assert claims and all(isinstance(c, PrivacyClaim) for c in claims), f"{name}: no PrivacyClaim"
    assert isinstance(m.domain, Domain), f"{name}: `domain` must be a Domain"
    assert isinstance(m.seedable, bool), f"{name}: `seedable` must be a bool"
    return name


def _pairs_of(m: Any) -> list[NeighborPair]:
    """The mechanism's registered pairs, else the boundary templates of its domain (as `run`)."""
    registered = getattr(m, "neighbor_pairs", None)
    pairs: list[NeighborPair] = list(registered()) if callable(registered) else []
    if not pairs:
        for relation in dict.fromkeys(c.relation for c in claims_of(m)):
            pairs += BoundaryPairs().pairs(m.domain, relation)
    return pairs


def check_mechanism(
    m: Any, *, pairs: Sequence[NeighborPair] | None = None, num_samples: int = 8, seed: int = 0
) -> None:
    """Check `m` against the Mechanism contract (see the module docstring) on `pairs` (default:
    the first two of its `neighbor_pairs()`, else of its domain's boundary templates)."""
    name = _check_contract(m)
    chosen = list(pairs) if pairs is not None else _pairs_of(m)[:2]
    assert chosen, f"{name}: no neighbour pair to sample (pass pairs=...)"
    try:
        shipped = _cloudpickle().loads(_cloudpickle().dumps(m))
    except Exception as exc:  # what a worker pool would raise, named
        raise AssertionError(f"{name}: does not pickle to a worker process: {exc}") from exc
    for pair in chosen:
        assert is_neighbor(pair), f"{name}: pair {pair.description!r} is not a pair under {pair.relation}"
        for dataset in (pair.dataset, pair.neighbor):
            out = _draw(m, dataset, num_samples, seed)
            one = _draw(m, dataset, 1, seed)
            assert one.shape[1:] == out.shape[1:], (
                f"{name}: one sample has shape {one.shape[1:]}, {num_samples} have {out.shape[1:]}"
            )
            if m.seedable:
                again = _draw(m, dataset, num_samples, seed)
                assert np.array_equal(out, again), f"{name}: the same seed drew different outputs"
                there = _draw(shipped, dataset, num_samples, seed)
                assert np.array_equal(out, there), f"{name}: a pickled copy draws different outputs"


def _samples(seed: int, n: int) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Synthetic selection splits: continuous scalars, small integers, 4-dimensional vectors."""
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(0.0, 1.0, (n, 1)), rng.normal(1.0, 1.0, (n, 1))),
        (rng.integers(0, 4, (n, 1)).astype(float), rng.integers(1, 5, (n, 1)).astype(float)),
        (rng.normal(0.0, 1.0, (n, 4)), rng.normal(0.3, 1.2, (n, 4))),
    ]


def _check_event(name: str, event: Any, rows: NDArray[np.float64], event_types: Sequence[str] | None) -> None:
    hit = np.asarray(event.indicator(rows))
    assert hit.shape == (rows.shape[0],) and hit.dtype == bool, (
        f"{name}: indicator gave {hit.dtype} of shape {hit.shape} for {rows.shape[0]} rows"
    )
    assert isinstance(event.describe(), str), f"{name}: describe() must be a str"
    spec = event_spec(event)
    assert spec is not None, f"{name}: {type(event).__name__} has no to_spec()"
    kind = spec.get("type")
    assert kind in EVENT_TYPES, f"{name}: event type {kind!r} is not registered (@event_type)"
    if event_types is not None:
        assert kind in event_types, f"{name}: proposes {kind!r}, declares {tuple(event_types)}"
    rebuilt = event_from_spec(spec)
    assert np.array_equal(rebuilt.indicator(rows), hit), f"{name}: {kind!r} does not survive its spec"
    unpickled = pickle.loads(pickle.dumps(event))
    assert np.array_equal(unpickled.indicator(rows), hit), f"{name}: {kind!r} does not survive pickling"


def check_distinguisher(
    d: Any,
    *,
    samples: Sequence[tuple[NDArray[Any], NDArray[Any]]] | None = None,
    num_samples: int = 400,
    seed: int = 0,
    events: int = 4,
) -> int:
    """Check `d` against the Distinguisher contract (see the module docstring) on `samples`
    (pairs of outputs, side a and side b; default: synthetic ones), checking up to `events`
    candidate events per proposal. Returns how many of the samples it proposed on."""
    name = getattr(d, "name", None)
    assert isinstance(name, str) and name, f"{type(d).__name__}: `name` must be a non-empty str"
    caps = capabilities_of(d)
    declared = caps.event_types if caps is not None else None
    proposed = 0
    for a_raw, b_raw in samples if samples is not None else _samples(seed, num_samples):
        a, b = as_rows(np.asarray(a_raw)), as_rows(np.asarray(b_raw))
        cand = d.propose(a, b)
        if cand is None:
            continue
        proposed += 1
        again = d.propose(a, b)
        assert again is not None, f"{name}: proposed, then did not on the same outputs"
        for counts, again_counts, n, side in (
            (cand.counts_a, again.counts_a, a.shape[0], "a"),
            (cand.counts_b, again.counts_b, b.shape[0], "b"),
        ):
            c = np.asarray(counts, dtype=float)
            assert c.ndim == 1 and c.size > 0, f"{name}: counts of side {side} must be a non-empty vector"
            assert np.all(np.isfinite(c)) and np.all(c >= 0), f"{name}: counts of side {side} not in [0, n]"
            assert np.all(c <= n * (1 + 1e-9) + 1), f"{name}: counts of side {side} exceed its {n} rows"
            assert np.array_equal(c, np.asarray(again_counts, dtype=float)), (
                f"{name}: two proposals on the same outputs differ"
            )
        assert np.shape(cand.counts_a) == np.shape(cand.counts_b), (
            f"{name}: counts of a and b differ in length"
        )
        size = int(np.size(cand.counts_a))
        for i in sorted({0, size - 1, *range(0, size, max(1, size // events))})[: events + 1]:
            event = cand.make_event(i)
            for rows in (a, b):
                _check_event(name, event, rows, declared)
    return proposed
