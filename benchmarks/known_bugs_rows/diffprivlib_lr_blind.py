"""diffprivlib models.LogisticRegression, blind: the label set is read from the data
(IBM/differential-privacy-library#106), so removing the only record of a class changes what is
published (the output's width, or a raise on one-class data). Built through `from_estimator` only; the search
proposes the pairs from the domain (features in [-1, 1]^2, labels {0, 1, 2})."""

from __future__ import annotations

from typing import Any

PACKAGE = "diffprivlib"
ISSUE = "IBM/differential-privacy-library#106"
VERSIONS = {"0.6.6": "violation"}
REQUIREMENTS = {"0.6.6": ["diffprivlib==0.6.6", "scikit-learn<1.8"]}
NUM_SAMPLES = 1000
FAST_ARGS = ["--sequential"]
NOTE = "blind (no registered pairs): the label-set witness"


def mechanism() -> Any:
    from dpaudit import Relation
    from known_bugs_rows._diffprivlib import lr_mechanism

    return lr_mechanism("diffprivlib_lr_blind", Relation.ADD_REMOVE_ONE)
