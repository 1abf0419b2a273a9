"""Google's differential privacy library (python-dp, import name `pydp`) as dpaudit mechanisms
(the python-dp part of the `libraries` family).

The claim of each adapter is read from the python-dp object it samples from: its `epsilon`,
`delta` and sensitivity properties, under the neighbour relation that the library's accounting
assumes:

- `LaplaceMechanism(epsilon, sensitivity)` and `GaussianMechanism(epsilon, delta, sensitivity)`
  (`pydp.algorithms.numerical_mechanisms`) on one value in [low, high] with sensitivity
  high − low (L1 for Laplace, L2 for Gaussian, the same on a scalar): replace one record of a
  one-record dataset, at the object's (ε, δ).
- `laplacian.Count`, `BoundedSum`, `BoundedMean`: Google's library accounts for adding or
  removing one *privacy unit* (a user) that contributes to at most `l0_sensitivity` partitions
  with at most `linf_sensitivity` records each (BoundedSum's sensitivity is
  l0 · linf · max(|lower|, |upper|), not upper − lower). The adapters keep the defaults
  l0 = linf = 1, so a privacy unit is one record and the library's claim is ε-DP (δ from the
  object, 0 here) under **add/remove one record**. Replace one is a removal plus an addition:
  the adapters also register it at 2ε (group privacy over two steps; a derived claim, not a
  number python-dp prints). Registered pairs are the worst cases at the bounds: a record at the
  bound of largest magnitude added to records at the other bound (and, for sum and mean, one
  record replaced low → high).

python-dp samples from its own C++ randomness (no seed or generator is accepted from Python), so
these mechanisms are not seedable. Float outputs carry `floating_point = True`: the claims
are about the doubles python-dp returns, which the audit's float lattice events test. Measured
on python-dp 1.1.5: the Laplace noise (and so Count, BoundedSum, BoundedMean) is snapped, the
value rounded to a power-of-two granularity (2^-40 at ε = 1, sensitivity 1) plus a multiple of
it, and is not flagged; `GaussianMechanism.add_noise(double)` is not snapped (its outputs carry
full-precision low bits), so value + noise leaks the value through its low bits (Mironov, CCS
2012) and the audit certifies a violation of its (ε, δ) claim (`pydp_gaussian`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..base import CallableMechanism, PrivacyClaim, from_callable
from .common import library_label, pair

ADD, REPLACE = Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE
Batch = Callable[[Dataset, int, np.random.Generator], NDArray[Any]]


def _reference(built: str) -> str:
    return f"{library_label('python-dp', 'python-dp')} {built}"


def _check_bounds(epsilon: float, low: float, high: float) -> None:
    if not (epsilon > 0 and low < high):
        raise ValueError("need epsilon > 0 and low < high")


# --- numerical mechanisms on a bounded scalar ----------------------------------------------


def _scalar(
    name: str, make: Callable[[], Any], *, built: str, low: float, high: float, float_note: str
) -> CallableMechanism:
    probe = make()
    sensitivity = float(getattr(probe, "sensitivity", None) or probe.l2_sensitivity)
    delta = float(getattr(probe, "delta", 0.0))
    claim = PrivacyClaim(
        epsilon=float(probe.epsilon),
        delta=delta,
        relation=REPLACE,
        reference=_reference(built),
        note=(
            f"the mechanism's epsilon/delta at sensitivity {sensitivity:g}: one value in "
            f"[{low:g}, {high:g}] replaced; a claim about the doubles add_noise returns ({float_note})"
        ),
    )

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        mech, x = make(), float(dataset.X[0, 0])  # python-dp's own RNG: `rng` is unused
        return np.array([mech.add_noise(x) for _ in range(num_samples)], dtype=np.float64)

    return from_callable(
        name=name,
        claim=claim,
        domain=Domain(num_features=1, feature_low=low, feature_high=high, min_size=1, max_size=1),
        seedable=False,
        pairs=(pair([low], [high], REPLACE, "one value low → high"),),
        output_kind="continuous",
        batch_fn=batch,
        floating_point=True,
    )


def pydp_laplace(*, epsilon: float = 1.0, low: float = 0.0, high: float = 1.0) -> CallableMechanism:
    """python-dp `LaplaceMechanism(epsilon, sensitivity=high − low)` on a scalar in [low, high]."""
    _check_bounds(epsilon, low, high)
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    return _scalar(
        "pydp_laplace",
        lambda: LaplaceMechanism(epsilon=epsilon, sensitivity=high - low),
        built=f"numerical_mechanisms.LaplaceMechanism(epsilon={epsilon:g}, sensitivity={high - low:g})",
        low=low,
        high=high,
        float_note="python-dp snaps the value and the noise to a power-of-two granularity",
    )


def pydp_gaussian(
    *, epsilon: float = 0.5, delta: float = 1e-5, low: float = 0.0, high: float = 1.0
) -> CallableMechanism:
    """python-dp `GaussianMechanism(epsilon, delta, sensitivity=high − low)` on a scalar."""
    _check_bounds(epsilon, low, high)
    if not 0 < delta < 1:
        raise ValueError("need 0 < delta < 1")
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    return _scalar(
        "pydp_gaussian",
        lambda: GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=high - low),
        built=(
            f"numerical_mechanisms.GaussianMechanism(epsilon={epsilon:g}, delta={delta:g}, "
            f"sensitivity={high - low:g})"
        ),
        low=low,
        high=high,
        float_note="the value plus Gaussian noise, added in floating point",
    )


# --- aggregations on small datasets (add/remove one privacy unit) --------------------------


def _aggregate(
    name: str,
    make: Callable[[], Any],
    *,
    built: str,
    domain: Domain,
    pairs: tuple[NeighborPair, ...],
    integer_output: bool,
) -> CallableMechanism:
    probe = make()
    eps, delta = float(probe.epsilon), float(probe.delta)
    l0, linf = probe.l0_sensitivity, probe.linf_sensitivity
    if (l0, linf) != (1, 1):
        raise ValueError("the adapters audit one record per privacy unit: l0 = linf = 1")
    unit = f"l0_sensitivity={l0}, linf_sensitivity={linf}: a privacy unit is one record"
    ref = _reference(built)
    claims = (
        PrivacyClaim(
            epsilon=eps,
            delta=delta,
            relation=ADD,
            reference=ref + ": epsilon/delta per privacy unit added or removed",
            note=f"the algorithm's epsilon/delta, {unit}",
        ),
        PrivacyClaim(
            epsilon=2 * eps,
            delta=2 * delta,
            relation=REPLACE,
            reference=ref + ": 2·epsilon by group privacy (replace = remove + add)",
            note=f"derived from the add/remove claim, {unit}",
        ),
    )

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        algo, records = make(), [float(v) for v in dataset.X[:, 0]]  # python-dp's own RNG
        # quick_result resets the algorithm and spends the whole budget on `records`: each call
        # is one independent release.
        return np.array([algo.quick_result(records) for _ in range(num_samples)], dtype=np.float64)

    return from_callable(
        name=name,
        claim=claims[0],
        claims=claims,
        domain=domain,
        seedable=False,
        pairs=pairs,
        output_kind="discrete" if integer_output else "continuous",
        batch_fn=batch,
        floating_point=not integer_output,
    )


def pydp_count(*, epsilon: float = 1.0, size: int = 10) -> CallableMechanism:
    """python-dp `laplacian.Count` (integer output; ε per record added or removed)."""
    if not (epsilon > 0 and size >= 1):
        raise ValueError("need epsilon > 0 and size >= 1")
    from pydp.algorithms.laplacian import Count

    return _aggregate(
        "pydp_count",
        lambda: Count(epsilon=epsilon, dtype="float"),
        built=f"laplacian.Count(epsilon={epsilon:g}, dtype='float')",
        domain=Domain(num_features=1, min_size=1, max_size=size + 1),
        pairs=(pair([0.5] * size, [0.5] * (size + 1), ADD, f"{size} vs {size + 1} records"),),
        integer_output=True,
    )


def _bounded_pairs(low: float, high: float, size: int) -> tuple[NeighborPair, ...]:
    """The record of largest magnitude added to `size` records at the other bound, and one
    record replaced low → high."""
    far, near = (high, low) if abs(high) >= abs(low) else (low, high)
    return (
        pair([near] * size, [near] * size + [far], ADD, f"add a record at {far:g} to {size} at {near:g}"),
        pair(
            [low] * size,
            [low] * (size - 1) + [high],
            REPLACE,
            f"replace one of {size} records {low:g} → {high:g}",
        ),
    )


def _bounded(
    name: str, cls_name: str, *, epsilon: float, low: float, high: float, size: int
) -> CallableMechanism:
    _check_bounds(epsilon, low, high)
    if size < 1:
        raise ValueError("need size >= 1")
    from pydp.algorithms import laplacian

    cls = getattr(laplacian, cls_name)
    return _aggregate(
        name,
        lambda: cls(epsilon=epsilon, lower_bound=low, upper_bound=high, dtype="float"),
        built=(
            f"laplacian.{cls_name}(epsilon={epsilon:g}, lower_bound={low:g}, upper_bound={high:g}, "
            "dtype='float')"
        ),
        domain=Domain(num_features=1, feature_low=low, feature_high=high, min_size=1, max_size=size + 1),
        pairs=_bounded_pairs(low, high, size),
        integer_output=False,
    )


def pydp_sum(
    *, epsilon: float = 1.0, low: float = 0.0, high: float = 1.0, size: int = 10
) -> CallableMechanism:
    """python-dp `laplacian.BoundedSum` on records in [low, high] (float output)."""
    return _bounded("pydp_sum", "BoundedSum", epsilon=epsilon, low=low, high=high, size=size)


def pydp_mean(
    *, epsilon: float = 1.0, low: float = 0.0, high: float = 1.0, size: int = 10
) -> CallableMechanism:
    """python-dp `laplacian.BoundedMean` on records in [low, high] (noisy normalised sum over a
    noisy count, clamped to the bounds; float output)."""
    return _bounded("pydp_mean", "BoundedMean", epsilon=epsilon, low=low, high=high, size=size)


FACTORIES: Mapping[str, tuple[Callable[..., CallableMechanism], str]] = {
    "pydp_laplace": (pydp_laplace, "python-dp LaplaceMechanism on a bounded scalar (ε-DP, float output)"),
    "pydp_gaussian": (
        pydp_gaussian,
        "python-dp GaussianMechanism on a bounded scalar ((ε, δ)-DP, float output)",
    ),
    "pydp_count": (pydp_count, "python-dp Count (ε-DP per record added/removed)"),
    "pydp_sum": (pydp_sum, "python-dp BoundedSum (ε-DP per record added/removed, float output)"),
    "pydp_mean": (pydp_mean, "python-dp BoundedMean (ε-DP per record added/removed, float output)"),
}
