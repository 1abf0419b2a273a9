"""diffprivlib models.GaussianNB with the label set fixed by the user's neighbour relation: the
registered pair moves one class-0 record of nine (three per class) to the corner (1, 1), labels
and n fixed, so every class is on both sides and neither the #106 witness nor the exact count-sum
can tell the datasets apart (IBM/differential-privacy-library#106). Audited on that pair only."""

from __future__ import annotations

from typing import Any

PACKAGE = "diffprivlib"
ISSUE = "IBM/differential-privacy-library#106"
VERSIONS = {"0.6.6": "no violation"}
REQUIREMENTS = {"0.6.6": ["diffprivlib==0.6.6", "scikit-learn<1.8"]}
NUM_SAMPLES = 4000
FAST_NUM_SAMPLES = 2000
FAST_ARGS = ["--sequential"]
ARGS = ["--pairs", "registered"]
PAIRS = "hand-written: the user's neighbour relation (every class on both sides)"
NOTE = "every class on both sides, one record replaced (n fixed, so the count-sum leak is moot)"


def mechanism() -> Any:
    from dpaudit import Relation
    from known_bugs_rows._diffprivlib import every_class_on_both_sides, nb_mechanism

    relation = Relation.REPLACE_ONE
    return nb_mechanism("diffprivlib_nb_labels_fixed_replace", relation, every_class_on_both_sides(relation))
