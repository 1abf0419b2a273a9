"""The DataSynthesizer#34 row on the user's tables with every category present: the registered
pair is a table with each of the six (a, b) cells three times (n = 18) and the same table with one
more record at (0, 0) (add/remove). Every category is on both sides, so the noisy table has its
full width on both and the width leak of `datasynthesizer_privbayes` cannot occur; what remains
is #34 itself (DataResponsibly/DataSynthesizer#34). In 0.1.6 the counts get Laplace noise of scale
2(d − k)/(n·ε/2) = 4/n (0.21 here) for a count that moves by 1: far above the claim. 0.1.7 noises
them at (d − k)/(ε/2) = 2, which is (ε/2)-DP for the conditional distributions under add/remove
(the network, with two attributes, is the uniform draw of the root): not flagged. The same
describer and release as the blind row (`from_release`), audited on that pair only
(`--pairs registered`)."""

from __future__ import annotations

from typing import Any

PACKAGE = "DataSynthesizer"
ISSUE = "DataResponsibly/DataSynthesizer#34 (fixed in 0.1.7)"
VERSIONS = {"0.1.6": "violation", "0.1.7": "no violation"}
REQUIREMENTS = {  # as `datasynthesizer_privbayes` (the same venvs)
    "0.1.6": [
        ["DataSynthesizer==0.1.6", "--no-deps"],
        ["pandas<2", "numpy<2", "scikit-learn", "python-dateutil"],
    ],
    "0.1.7": [
        ["DataSynthesizer==0.1.7", "--no-deps"],
        ["pandas<2", "numpy<2", "scikit-learn", "python-dateutil"],
    ],
}
NUM_SAMPLES = 4000
ARGS = ["--pairs", "registered"]
FAST_NUM_SAMPLES = 600
FAST_ARGS = ["--sequential"]
PAIRS = "hand-written: the user's tables (every category present on both sides)"
NOTE = "every (a, b) cell three times, the neighbour one more (0, 0): the width leak is moot, #34 remains"
CELLS = [(a, b) for a in (0, 1, 2) for b in (0, 1)]


def mechanism() -> Any:
    import dpaudit
    from dpaudit import Relation, TabularSpace
    from known_bugs_rows.datasynthesizer_privbayes import columns
    from known_bugs_rows.datasynthesizer_privbayes import mechanism as describer

    space = TabularSpace(columns=tuple(columns()))
    rows = CELLS * 3
    table = {"a": [a for a, _ in rows], "b": [b for _, b in rows]}
    more = {"a": [*table["a"], 0], "b": [*table["b"], 0]}
    pair = dpaudit.NeighborPair(
        dataset=space.encode(table),
        neighbor=space.encode(more),
        relation=Relation.ADD_REMOVE_ONE,
        description="every (a, b) cell three times; the neighbour adds one at (0, 0)",
    )
    return describer(name="datasynthesizer_privbayes_all_categories", pairs=(pair,))
