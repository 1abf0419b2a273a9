"""DataSynthesizer's PrivBayes (correlated attribute mode) noises the conditional distributions'
*counts* with the scale PrivBayes' Algorithm 1 gives for *probabilities*, 2(d − k)/(n·ε), n times
too little noise (DataResponsibly/DataSynthesizer#34; fixed in 0.1.7, whose changes to the library
are that scale, now (d − k)/ε on the counts, and the k-th attribute's conditional read from the same
noisy joint as the first k).

The row is what a user writes following the documentation: a two-column CSV of categorical
attributes (a ∈ {0, 1, 2}, b ∈ {0, 1}, their domains declared in a
`categorical_attribute_domain_file` so that nothing about the categories is read from the data, and
the records keep to them: `allow_unseen=False`; an undeclared value would widen the domain the
library reads from the data), then
`DataDescriber().describe_dataset_in_correlated_attribute_mode(csv, k=1, epsilon=1, seed=…)`,
wrapped with `dpaudit.from_release` over tables of 2 to 24 rows (no pair, no statistic). The release
is what `DataGenerator` samples the synthetic table from in this mode, the Bayesian network (which
attribute is the root) and the noisy conditional distributions, read as the distribution of one
synthetic row over the declared cells (a post-processing of the description of fixed width; the
description's own length changes with the root drawn). With two attributes and k = 1 the network has
one edge, so its choice is the uniform draw of the root; only the conditional distributions (ε/2 of
the budget) depend on data.

Both versions also size the noisy table by the largest encoded value present in the data
(`get_noisy_distribution_of_attributes`: `range(int(encoded[attr].max()) + 1)`), so a table without
the last declared category publishes a shorter distribution (probability 0 for the missing
category's cells, whatever the noise). That is not #34 and is not fixed in 0.1.7; the table's
witness column says which of the two each verdict rests on.

`greedy_bayes` opens a `multiprocessing.Pool` per call to compute the candidates' mutual
information; the row runs those same worker calls in process (`_InProcess`: `pool.map(f, tasks)` is
`list(map(f, tasks))`, the same deterministic values), which takes a release from about 1.8 s to
0.16 s here. Nothing random or private happens in the workers.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "DataSynthesizer"
ISSUE = "DataResponsibly/DataSynthesizer#34 (fixed in 0.1.7)"
VERSIONS = {"0.1.6": "violation", "0.1.7": "violation"}
REQUIREMENTS = {  # without matplotlib and seaborn (ModelInspector only); 0.1.x calls DataFrame.append
    "0.1.6": [
        ["DataSynthesizer==0.1.6", "--no-deps"],
        ["pandas<2", "numpy<2", "scikit-learn", "python-dateutil"],
    ],
    "0.1.7": [
        ["DataSynthesizer==0.1.7", "--no-deps"],
        ["pandas<2", "numpy<2", "scikit-learn", "python-dateutil"],
    ],
}
NUM_SAMPLES = 2000
FAST_NUM_SAMPLES = 500
FAST_ARGS = ["--sequential"]
NOTE = (
    "0.1.7 fixes #34 and is still flagged: the noisy table's width is the largest encoded value "
    "present plus one (range(max + 1)), so a table missing the last category publishes fewer "
    "cells (not #34; unreported as far as we found)"
)
DOMAIN = {"a": [0, 1, 2], "b": [0, 1]}
EPSILON = 1.0


class _InProcess:
    """`with Pool() as pool: pool.map(worker, tasks)` without worker processes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Any, tasks: Any) -> list[Any]:
        return list(map(fn, tasks))


def _release(table: Any, rng: Any) -> list[float]:
    """One description, made as the documentation's correlated-mode example makes it, read as the
    distribution `DataGenerator` samples each synthetic row from: the root (0 for a, 1 for b), then
    P(a, b) = P(root) · P(child | root) on the declared 3 × 2 cells (0 where the description has
    no entry). A fixed width: the description's own length changes with the root drawn."""
    import DataSynthesizer.lib.PrivBayes as privbayes
    from DataSynthesizer.DataDescriber import DataDescriber

    privbayes.Pool = _InProcess  # the mutual-information workers, in process (see the docstring)
    with tempfile.TemporaryDirectory() as tmp:
        csv, domain = Path(tmp) / "data.csv", Path(tmp) / "domain.json"
        table.astype(int).to_csv(csv, index=False)
        domain.write_text(json.dumps(DOMAIN))
        describer = DataDescriber()
        with contextlib.redirect_stdout(io.StringIO()):  # it prints the network it builds
            describer.describe_dataset_in_correlated_attribute_mode(
                str(csv),
                k=1,
                epsilon=EPSILON,
                attribute_to_datatype={c: "Integer" for c in DOMAIN},
                attribute_to_is_categorical={c: True for c in DOMAIN},
                categorical_attribute_domain_file=str(domain),
                seed=int(rng.integers(2**31)),
            )
    [(child, [root])] = describer.data_description["bayesian_network"]
    given = describer.data_description["conditional_probabilities"]
    joint = [[0.0] * len(DOMAIN["b"]) for _ in DOMAIN["a"]]
    for r, p_root in enumerate(given[root]):
        for c, p_child in enumerate(given[child].get(str([r]), [])):
            at = {root: r, child: c}
            joint[at["a"]][at["b"]] = float(p_root) * float(p_child)
    return [float(root == "b"), *(p for row in joint for p in row)]


def columns() -> list[Any]:
    """The declared columns: the categories of `DOMAIN`, and no other value."""
    from dpaudit import CategoricalColumn

    return [CategoricalColumn(name=c, categories=tuple(v), allow_unseen=False) for c, v in DOMAIN.items()]


def mechanism(*, name: str = "datasynthesizer_privbayes", pairs: tuple[Any, ...] = ()) -> Any:
    """The describer through `from_release` (blind unless the caller passes the user's `pairs`)."""
    from importlib.metadata import version

    import dpaudit
    from dpaudit import ClaimKind, PrivacyClaim, Relation

    claim = PrivacyClaim(
        epsilon=EPSILON,
        relation=Relation.ADD_REMOVE_ONE,
        reference=f"DataSynthesizer {version('DataSynthesizer')} correlated attribute mode, ε = {EPSILON:g}",
        kind=ClaimKind.STATED,
        note="the documented ε; the documentation names no neighbour relation (add/remove: n is not public)",
    )
    return dpaudit.from_release(
        _release, columns=columns(), claim=claim, name=name, min_size=2, max_size=24, pairs=pairs
    )
