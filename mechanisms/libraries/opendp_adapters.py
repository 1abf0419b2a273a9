"""OpenDP measurements as dpaudit mechanisms (the OpenDP half of the `libraries` family).

Each adapter builds an OpenDP measurement from a transformation chain and reads its claim
from the measurement itself: the privacy map `meas.map(d_in)` at the `d_in` that the input
metric assigns to each neighbour relation (`relations_of`):

- `SymmetricDistance` on unsized data: add/remove one record is d_in = 1, replace one is
  d_in = 2 (a removal plus an insertion);
- `SymmetricDistance` on sized data (`vector_domain(..., size=n)`): only replace one, d_in = 2;
- `ChangeOneDistance`: replace one, d_in = 1;
- `AbsoluteDistance` on a bounded scalar: dpaudit sees a one-record dataset with the record in
  [low, high], so replace one is d_in = high − low.

A `MaxDivergence` measure gives a pure ε claim; a `ZeroConcentratedDivergence` measure a ρ-zCDP
curve claim whose headline (ε, δ) point is OpenDP's own conversion
(`make_zCDP_to_approxDP` then `make_fix_delta`). OpenDP samples from its own cryptographic
RNG, so these mechanisms are not seedable. Claims on float outputs cover the doubles OpenDP
releases (its float Laplace and Gaussian sample exactly on a lattice and account for the
rounding in the map), so they declare `floating_point = True`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..base import CallableMechanism, ClaimCurve, CurveKind, PrivacyClaim, from_callable
from .common import library_label, pair

ADD, REPLACE = Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE
ZCDP_DELTA = 1e-6
"""δ of the headline (ε, δ) point of a zCDP claim (the curve covers every δ)."""


def _dp() -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def relations_of(meas: Any, *, span: float = 1.0) -> dict[Relation, float]:
    """Neighbour relation → d_in, from the measurement's input metric and domain (module docstring)."""
    metric = str(meas.input_metric)
    if metric.startswith("SymmetricDistance"):
        sized = getattr(meas.input_domain, "size", None) is not None
        return {REPLACE: 2} if sized else {ADD: 1, REPLACE: 2}
    if metric.startswith("ChangeOneDistance"):
        return {REPLACE: 1}
    if metric.startswith("AbsoluteDistance"):
        return {REPLACE: span}
    raise ValueError(f"no dpaudit neighbour relation for the OpenDP input metric {metric}")


def claims_of_measurement(meas: Any, *, built: str, span: float = 1.0) -> tuple[PrivacyClaim, ...]:
    """One claim per relation the input metric supports, read from `meas.map(d_in)`."""
    dp = _dp()
    measure = str(meas.output_measure)
    out = []
    for relation, d_in in relations_of(meas, span=span).items():
        where = f"{library_label('opendp', 'OpenDP')} {built}: privacy map at d_in = {d_in:g} ({measure})"
        note = f"read from the measurement: {meas.input_metric!s} d_in = {d_in:g} is {relation.value}"
        if measure.startswith("MaxDivergence"):
            eps = float(meas.map(d_in))
            out.append(PrivacyClaim(epsilon=eps, relation=relation, reference=where, note=note))
        elif measure.startswith("ZeroConcentratedDivergence"):
            rho = float(meas.map(d_in))
            approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), ZCDP_DELTA)
            eps, delta = approx.map(d_in)
            out.append(
                PrivacyClaim(
                    epsilon=float(eps),
                    delta=float(delta),
                    relation=relation,
                    reference=where + "; (ε, δ) by OpenDP's make_zCDP_to_approxDP",
                    note=note + f"; {rho:g}-zCDP",
                    curve=ClaimCurve(kind=CurveKind.ZCDP, parameter=rho),
                )
            )
        else:
            raise ValueError(f"unsupported OpenDP output measure {measure}")
    return tuple(out)


def _per_call(
    meas: Any, encode: Callable[[Dataset], Any]
) -> Callable[[Dataset, int, np.random.Generator], NDArray[Any]]:
    """batch_fn calling the measurement once per sample (OpenDP's RNG: `rng` is unused)."""

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        arg = encode(dataset)
        return np.array([meas(arg) for _ in range(num_samples)], dtype=np.float64)

    return batch


def _vectorised(vector_meas: Any) -> Callable[[Dataset, int, np.random.Generator], NDArray[Any]]:
    """batch_fn for a scalar mechanism: the vector form of the same noise measurement applied to
    num_samples copies of the record (independent noise per coordinate, the same sampler)."""

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        x = float(dataset.X[0, 0])
        return np.asarray(vector_meas([x] * num_samples), dtype=np.float64)

    return batch


def _records(dataset: Dataset) -> list[float]:
    return [float(v) for v in dataset.X[:, 0]]


def _scalar(name: str, kind: str, *, scale: float, low: float, high: float) -> CallableMechanism:
    if not (scale > 0 and low < high):
        raise ValueError("need scale > 0 and low < high")
    dp = _dp()
    atom = dp.atom_domain(T=float, nan=False)
    make = dp.m.make_laplace if kind == "laplace" else dp.m.make_gaussian
    scalar_metric = dp.absolute_distance(T=float)
    vector_metric = dp.l1_distance(T=float) if kind == "laplace" else dp.l2_distance(T=float)
    meas = make(atom, scalar_metric, scale=scale)
    vector = make(dp.vector_domain(atom), vector_metric, scale=scale)
    built = f"make_{kind}(atom_domain(T=f64), absolute_distance(T=f64), scale={scale:g})"
    claims = claims_of_measurement(meas, built=built, span=high - low)
    pairs = (pair([low], [high], REPLACE, "one record low → high"),)
    return from_callable(
        name=name,
        claim=claims[0],
        claims=claims,
        domain=Domain(num_features=1, feature_low=low, feature_high=high, min_size=1, max_size=1),
        seedable=False,
        pairs=pairs,
        output_kind="continuous",
        batch_fn=_vectorised(vector),
        floating_point=True,
    )


def opendp_laplace(*, scale: float = 1.0, low: float = 0.0, high: float = 1.0) -> CallableMechanism:
    """OpenDP `make_laplace` on a scalar in [low, high] (ε = (high − low)/scale)."""
    return _scalar("opendp_laplace", "laplace", scale=scale, low=low, high=high)


def opendp_gaussian(*, scale: float = 2.0, low: float = 0.0, high: float = 1.0) -> CallableMechanism:
    """OpenDP `make_gaussian` on a scalar in [low, high] (ρ = ((high − low)/scale)²/2 zCDP)."""
    return _scalar("opendp_gaussian", "gaussian", scale=scale, low=low, high=high)


def _chain(
    name: str,
    meas: Any,
    built: str,
    *,
    domain: Domain,
    pairs: tuple[NeighborPair, ...],
    output_kind: str,
    floating_point: bool,
) -> CallableMechanism:
    claims = claims_of_measurement(meas, built=built)
    return from_callable(
        name=name,
        claim=claims[0],
        claims=claims,
        domain=domain,
        seedable=False,
        pairs=pairs,
        output_kind=output_kind,
        batch_fn=_per_call(meas, _records),
        floating_point=floating_point,
    )


def opendp_count(*, scale: float = 1.0, size: int = 10) -> CallableMechanism:
    """OpenDP `then_count` → `then_laplace` (integer discrete Laplace, ε = 1/scale per record added)."""
    dp = _dp()
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())
    meas = space >> dp.t.then_count() >> dp.m.then_laplace(scale)
    built = (
        f"then_count() >> then_laplace({scale:g}) on vector_domain(atom_domain(T=f64)), symmetric_distance()"
    )
    pairs = (pair([0.5] * size, [0.5] * (size + 1), ADD, f"{size} vs {size + 1} records"),)
    domain = Domain(num_features=1, min_size=1, max_size=size + 1)
    return _chain(
        "opendp_count", meas, built, domain=domain, pairs=pairs, output_kind="discrete", floating_point=False
    )


def opendp_sum(
    *, scale: float = 1.0, low: float = 0.0, high: float = 1.0, size: int = 10
) -> CallableMechanism:
    """OpenDP `then_clamp` → `then_sum` → `then_laplace` on unsized data (add/remove and replace)."""
    dp = _dp()
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())
    meas = space >> dp.t.then_clamp((low, high)) >> dp.t.then_sum() >> dp.m.then_laplace(scale)
    built = f"then_clamp(({low:g}, {high:g})) >> then_sum() >> then_laplace({scale:g}), symmetric_distance()"
    pairs = (
        pair([low] * size, [low] * size + [high], ADD, f"add a record at {high:g} to {size} at {low:g}"),
        pair(
            [low] * size,
            [low] * (size - 1) + [high],
            REPLACE,
            f"replace one of {size} records {low:g} → {high:g}",
        ),
    )
    domain = Domain(num_features=1, feature_low=low, feature_high=high, min_size=1, max_size=size + 1)
    return _chain(
        "opendp_sum", meas, built, domain=domain, pairs=pairs, output_kind="continuous", floating_point=True
    )


def opendp_mean(
    *, scale: float = 0.1, low: float = 0.0, high: float = 1.0, size: int = 10
) -> CallableMechanism:
    """OpenDP `then_mean` → `then_laplace` on sized bounded data (replace one, d_in = 2)."""
    dp = _dp()
    atom = dp.atom_domain(bounds=(low, high), nan=False)
    space = (dp.vector_domain(atom, size=size), dp.symmetric_distance())
    meas = space >> dp.t.then_mean() >> dp.m.then_laplace(scale)
    built = (
        f"then_mean() >> then_laplace({scale:g}) on vector_domain(atom_domain(bounds=({low:g}, {high:g})), "
        f"size={size}), symmetric_distance()"
    )
    pairs = (
        pair(
            [low] * size,
            [low] * (size - 1) + [high],
            REPLACE,
            f"replace one of {size} records {low:g} → {high:g}",
        ),
    )
    domain = Domain(num_features=1, feature_low=low, feature_high=high, min_size=size, max_size=size)
    return _chain(
        "opendp_mean", meas, built, domain=domain, pairs=pairs, output_kind="continuous", floating_point=True
    )


FACTORIES: Mapping[str, tuple[Callable[..., CallableMechanism], str]] = {
    "opendp_laplace": (opendp_laplace, "OpenDP make_laplace on a bounded scalar (ε-DP, float output)"),
    "opendp_gaussian": (opendp_gaussian, "OpenDP make_gaussian on a bounded scalar (ρ-zCDP, float output)"),
    "opendp_count": (opendp_count, "OpenDP count → discrete Laplace (ε-DP)"),
    "opendp_sum": (opendp_sum, "OpenDP clamp → sum → Laplace (ε-DP, float output)"),
    "opendp_mean": (opendp_mean, "OpenDP sized bounded mean → Laplace (ε-DP, replace one)"),
}
