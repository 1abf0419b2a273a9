"""diffprivlib models.KMeans, blind: `_update_centers` skips a cluster with no member (`if
cluster not in labels: continue`), so its centre keeps its data-independent initial value with no
noise, and whether a cluster was empty is released exactly (under add/remove and replace-one
alike). One record at (1, 1) beside 63 at (−1, −1) fills the second cluster; without it that
cluster is empty. `benchmarks/diffprivlib_kmeans.py` audits the same class with that line fixed
(every cluster gets its noisy count and sum): not flagged (benchmarks/README.md). Built through
`from_estimator` only; the search proposes the pairs from the domain (features in [-1, 1]^2)."""

from __future__ import annotations

from typing import Any

PACKAGE = "diffprivlib"
ISSUE = "none found (IBM/differential-privacy-library#104 lists a k-means item, not readable here)"
VERSIONS = {"0.6.6": "violation"}
REQUIREMENTS = {"0.6.6": ["diffprivlib==0.6.6", "scikit-learn<1.8"]}
NUM_SAMPLES = 4000
FAST_NUM_SAMPLES = 4000
NOTE = (
    "blind (no registered pairs): an empty cluster's centre, released without noise; "
    "no fixed version (0.6.6 is the latest release)"
)


def mechanism() -> Any:
    from dpaudit import Relation
    from known_bugs_rows._diffprivlib import kmeans_mechanism

    return kmeans_mechanism("diffprivlib_kmeans_blind", Relation.REPLACE_ONE)
