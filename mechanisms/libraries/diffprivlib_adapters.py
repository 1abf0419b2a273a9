"""diffprivlib mechanisms, tools and a model as dpaudit mechanisms (the diffprivlib half of the
`libraries` family).

The claim of each adapter is the one diffprivlib states for the object: the `epsilon` (and
`delta`) it is built with, under the neighbour relation its sensitivity is calibrated to:

- `mechanisms.Laplace`, `Gaussian`, `Geometric` on one value in [low, high] with sensitivity
  high − low: replace one record of a one-record dataset;
- `mechanisms.Exponential` with utilities = counts of each candidate and sensitivity 1: both
  relations (a count changes by at most 1 either way);
- `tools.mean`, `tools.var`, `tools.sum`: sensitivities (U − L)/n, the variance bound and U − L
  on data of a fixed size n, with truncation to ranges that depend on n: replace one, n fixed;
- `tools.histogram`: `GeometricTruncated` with sensitivity 1 per bin: add/remove one; a
  replacement moves one record between two bins, so replace one holds at 2ε (composition);
- `models.GaussianNB`: the library documents ε without naming the relation; registered as a
  STATED replace-one claim (a feature value replaced, labels fixed).

diffprivlib accepts `random_state`; each batch draws a 32-bit seed from the audit's Generator
and passes a `numpy.random.RandomState` built from it, so runs reproduce from a seed. The
sampling code is the same as with the default (`secrets`-backed) source: only the uniform
variates' source differs. Float-valued claims are claims about the doubles diffprivlib
returns (`floating_point = True`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..base import CallableMechanism, ClaimKind, PrivacyClaim, from_callable
from .common import int_seed, library_label, pair

ADD, REPLACE = Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE
FLOAT_NOTE = (
    "; a claim about the doubles returned: the release is value − scale·noise computed in floating "
    "point, whose low bits depend on the value (Mironov, On significance of the least significant "
    "bits for differential privacy, CCS 2012), which the audit's float lattice events test"
)
Batch = Callable[[Dataset, int, np.random.Generator], NDArray[Any]]


def _claim(
    built: str,
    epsilon: float,
    delta: float,
    relation: Relation,
    note: str,
    kind: ClaimKind = ClaimKind.PROVED,
) -> PrivacyClaim:
    ref = f"{library_label('diffprivlib', 'diffprivlib')} {built}"
    return PrivacyClaim(epsilon=epsilon, delta=delta, relation=relation, reference=ref, note=note, kind=kind)


def _state(rng: np.random.Generator) -> np.random.RandomState:
    return np.random.RandomState(int_seed(rng))


def _scalar(
    name: str,
    make: Callable[[np.random.RandomState], Any],
    *,
    built: str,
    low: float,
    high: float,
    integer: bool = False,
) -> CallableMechanism:
    probe = make(np.random.RandomState(0))
    claim = _claim(
        built,
        float(probe.epsilon),
        float(probe.delta),
        REPLACE,
        f"the mechanism's epsilon/delta at sensitivity {high - low:g}: "
        f"one value in [{low:g}, {high:g}] replaced" + ("" if integer else FLOAT_NOTE),
    )
    cast = int if integer else float

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        mech, x = make(_state(rng)), cast(dataset.X[0, 0])
        return np.array([mech.randomise(x) for _ in range(num_samples)], dtype=np.float64)

    return from_callable(
        name=name,
        claim=claim,
        domain=Domain(
            num_features=1,
            feature_low=low,
            feature_high=high,
            integer_features=integer,
            min_size=1,
            max_size=1,
        ),
        pairs=(pair([low], [high], REPLACE, "one value low → high"),),
        output_kind="discrete" if integer else "continuous",
        batch_fn=batch,
        floating_point=not integer,
    )


def diffprivlib_laplace(*, epsilon: float = 1.0, low: float = 0.0, high: float = 1.0) -> CallableMechanism:
    from diffprivlib.mechanisms import Laplace

    return _scalar(
        "diffprivlib_laplace",
        lambda rs: Laplace(epsilon=epsilon, sensitivity=high - low, random_state=rs),
        built=f"mechanisms.Laplace(epsilon={epsilon:g}, sensitivity={high - low:g})",
        low=low,
        high=high,
    )


def diffprivlib_gaussian(
    *, epsilon: float = 0.5, delta: float = 1e-5, low: float = 0.0, high: float = 1.0
) -> CallableMechanism:
    from diffprivlib.mechanisms import Gaussian

    return _scalar(
        "diffprivlib_gaussian",
        lambda rs: Gaussian(epsilon=epsilon, delta=delta, sensitivity=high - low, random_state=rs),
        built=f"mechanisms.Gaussian(epsilon={epsilon:g}, delta={delta:g}, sensitivity={high - low:g})",
        low=low,
        high=high,
    )


def diffprivlib_geometric(*, epsilon: float = 1.0, high: int = 1) -> CallableMechanism:
    from diffprivlib.mechanisms import Geometric

    return _scalar(
        "diffprivlib_geometric",
        lambda rs: Geometric(epsilon=epsilon, sensitivity=high, random_state=rs),
        built=f"mechanisms.Geometric(epsilon={epsilon:g}, sensitivity={high})",
        low=0.0,
        high=float(high),
        integer=True,
    )


def diffprivlib_exponential(*, epsilon: float = 1.0, candidates: int = 3) -> CallableMechanism:
    """Exponential mechanism over `candidates` categories, utility = count of each category."""
    from diffprivlib.mechanisms import Exponential

    def make(utility: list[float], rs: np.random.RandomState) -> Any:
        return Exponential(epsilon=epsilon, sensitivity=1.0, utility=utility, random_state=rs)

    def utility(dataset: Dataset) -> list[float]:
        idx = np.clip(np.rint(dataset.X[:, 0]).astype(int), 0, candidates - 1)
        return [float(c) for c in np.bincount(idx, minlength=candidates)]

    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        mech = make(utility(dataset), _state(rng))
        return np.array([mech.randomise() for _ in range(num_samples)], dtype=np.float64)

    built = f"mechanisms.Exponential(epsilon={epsilon:g}, sensitivity=1, utility=category counts)"
    note = "utility = count per category: sensitivity 1 under add/remove and replace one"
    claims = tuple(_claim(built, epsilon, 0.0, r, note) for r in (REPLACE, ADD))
    pairs = (
        pair([0.0], [1.0], REPLACE, "one record category 0 → 1"),
        pair([0.0] * 3, [0.0] * 3 + [1.0], ADD, "add a category-1 record to three category-0 records"),
    )
    return from_callable(
        name="diffprivlib_exponential",
        claim=claims[0],
        claims=claims,
        domain=Domain(
            num_features=1, feature_low=0.0, feature_high=float(candidates - 1), integer_features=True
        ),
        pairs=pairs,
        output_kind="discrete",
        batch_fn=batch,
    )


def _tool(
    name: str,
    call: Callable[[NDArray[np.float64], np.random.RandomState], Any],
    *,
    claims: tuple[PrivacyClaim, ...],
    pairs: tuple[NeighborPair, ...],
    domain: Domain,
    output_kind: str,
    floating_point: bool,
) -> CallableMechanism:
    def batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        rs, x = _state(rng), np.asarray(dataset.X[:, 0])
        return np.array([np.asarray(call(x, rs), dtype=np.float64) for _ in range(num_samples)])

    return from_callable(
        name=name,
        claim=claims[0],
        claims=claims,
        domain=domain,
        pairs=pairs,
        output_kind=output_kind,
        batch_fn=batch,
        floating_point=floating_point,
    )


def _sized_tool(name: str, fn_name: str, *, epsilon: float, size: int) -> CallableMechanism:
    from diffprivlib import tools

    fn = getattr(tools, fn_name)
    built = f"tools.{fn_name}(epsilon={epsilon:g}, bounds=(0, 1)) on {size} records"
    note = f"sensitivity calibrated to one of n = {size} records replaced (n is public)" + FLOAT_NOTE
    return _tool(
        name,
        lambda x, rs: fn(x, epsilon=epsilon, bounds=(0.0, 1.0), random_state=rs),
        claims=(_claim(built, epsilon, 0.0, REPLACE, note),),
        pairs=(
            pair([0.0] * size, [0.0] * (size - 1) + [1.0], REPLACE, f"replace one of {size} records 0 → 1"),
        ),
        domain=Domain(num_features=1, min_size=size, max_size=size),
        output_kind="continuous",
        floating_point=True,
    )


def diffprivlib_mean(*, epsilon: float = 1.0, size: int = 10) -> CallableMechanism:
    return _sized_tool("diffprivlib_mean", "mean", epsilon=epsilon, size=size)


def diffprivlib_var(*, epsilon: float = 1.0, size: int = 10) -> CallableMechanism:
    return _sized_tool("diffprivlib_var", "var", epsilon=epsilon, size=size)


def diffprivlib_sum(*, epsilon: float = 1.0, size: int = 10) -> CallableMechanism:
    return _sized_tool("diffprivlib_sum", "sum", epsilon=epsilon, size=size)


def diffprivlib_histogram(*, epsilon: float = 1.0, bins: int = 2, size: int = 5) -> CallableMechanism:
    from diffprivlib import tools

    built = f"tools.histogram(epsilon={epsilon:g}, bins={bins}, range=(0, 1))"
    claims = (
        _claim(
            built, epsilon, 0.0, ADD, "GeometricTruncated(sensitivity=1) per bin: one record added or removed"
        ),
        _claim(
            built,
            2 * epsilon,
            0.0,
            REPLACE,
            "a replacement moves one record between two bins: 2ε by composition",
        ),
    )
    pairs = (
        pair(
            [0.25] * size, [0.25] * size + [0.75], ADD, f"add a record to the empty bin ({size} in the other)"
        ),
        pair([0.25] * size, [0.25] * (size - 1) + [0.75], REPLACE, "move one record to the other bin"),
    )
    return _tool(
        "diffprivlib_histogram",
        lambda x, rs: tools.histogram(x, epsilon=epsilon, bins=bins, range=(0.0, 1.0), random_state=rs)[0],
        claims=claims,
        pairs=pairs,
        domain=Domain(num_features=1, min_size=1),
        output_kind="discrete",
        floating_point=False,
    )


def diffprivlib_gaussian_nb(*, epsilon: float = 1.0) -> CallableMechanism:
    """GaussianNB(epsilon, bounds=(0, 1)) fitted on four labelled points; the output is the
    fitted class means and variances (`theta_`, `var_`)."""
    from diffprivlib.models import GaussianNB

    labels = np.array([0, 1, 0, 1])

    def fit(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        rs, out = _state(rng), []
        for _ in range(num_samples):
            model = GaussianNB(epsilon=epsilon, bounds=(0.0, 1.0), random_state=rs).fit(dataset.X, labels)
            out.append(np.concatenate([model.theta_.ravel(), model.var_.ravel()]))
        return np.array(out, dtype=np.float64)

    built = f"models.GaussianNB(epsilon={epsilon:g}, bounds=(0, 1))"
    claim = _claim(
        built,
        epsilon,
        0.0,
        REPLACE,
        "the documented ε; the documentation names no neighbour relation, so the claim is STATED",
        kind=ClaimKind.STATED,
    )
    base = [0.0, 1.0, 0.2, 0.8]
    return from_callable(
        name="diffprivlib_gaussian_nb",
        claim=claim,
        domain=Domain(num_features=1, min_size=4, max_size=4),
        pairs=(pair(base, [1.0, 1.0, 0.2, 0.8], REPLACE, "first record's feature 0 → 1, labels fixed"),),
        output_kind="continuous",
        batch_fn=fit,
    )


FACTORIES: Mapping[str, tuple[Callable[..., CallableMechanism], str]] = {
    "diffprivlib_laplace": (
        diffprivlib_laplace,
        "diffprivlib mechanisms.Laplace on a bounded value (ε-DP, float)",
    ),
    "diffprivlib_gaussian": (
        diffprivlib_gaussian,
        "diffprivlib mechanisms.Gaussian on a bounded value ((ε, δ)-DP)",
    ),
    "diffprivlib_geometric": (
        diffprivlib_geometric,
        "diffprivlib mechanisms.Geometric on an integer value (ε-DP)",
    ),
    "diffprivlib_exponential": (
        diffprivlib_exponential,
        "diffprivlib mechanisms.Exponential on category counts",
    ),
    "diffprivlib_mean": (diffprivlib_mean, "diffprivlib tools.mean with bounds (ε-DP, replace one)"),
    "diffprivlib_var": (diffprivlib_var, "diffprivlib tools.var with bounds (ε-DP, replace one)"),
    "diffprivlib_sum": (diffprivlib_sum, "diffprivlib tools.sum with bounds (ε-DP, replace one)"),
    "diffprivlib_histogram": (diffprivlib_histogram, "diffprivlib tools.histogram (ε-DP add/remove one)"),
    "diffprivlib_gaussian_nb": (diffprivlib_gaussian_nb, "diffprivlib models.GaussianNB (stated ε)"),
}
