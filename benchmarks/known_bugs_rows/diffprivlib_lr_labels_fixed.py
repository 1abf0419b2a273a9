"""diffprivlib models.LogisticRegression with the label set fixed by the user's neighbour relation: the
registered pair removes one class-0 record of nine (three per class), so every class is on both
sides and the #106 witness cannot occur (IBM/differential-privacy-library#106). Built through
`from_estimator`; audited on that pair only (`--pairs registered`), under add/remove."""

from __future__ import annotations

from typing import Any

PACKAGE = "diffprivlib"
ISSUE = "IBM/differential-privacy-library#106"
VERSIONS = {"0.6.6": "no violation"}
REQUIREMENTS = {"0.6.6": ["diffprivlib==0.6.6", "scikit-learn<1.8"]}
NUM_SAMPLES = 1000
FAST_ARGS = ["--sequential"]
ARGS = ["--pairs", "registered"]
PAIRS = "hand-written: the user's neighbour relation (every class on both sides)"
NOTE = "every class on both sides (the user's relation)"


def mechanism() -> Any:
    from dpaudit import Relation
    from known_bugs_rows._diffprivlib import every_class_on_both_sides, lr_mechanism

    relation = Relation.ADD_REMOVE_ONE
    return lr_mechanism("diffprivlib_lr_labels_fixed", relation, every_class_on_both_sides(relation))
