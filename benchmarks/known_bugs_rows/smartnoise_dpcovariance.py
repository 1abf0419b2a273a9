"""smartnoise-synth `DPcovariance.release` computes the covariance on unclipped data
(opendp/smartnoise-sdk#622, fixed by #624 in 1.0.6).

The row audits `DPcovariance(n, cols, bounds, global_eps=1).release(table)` on two numeric
columns declared in [0, 1], through `dpaudit.from_release` over a tabular space whose records
reach outside the declared bounds (the library says it clips): the blind search, not a pair
written for the bug, has to put a row outside the bounds. `REQUIREMENTS` follows the shape in
`known_bugs_rows/__init__.py`: smartnoise-synth without its GPU stack (torch, opacus, pac-synth
are not needed for `DPcovariance`), then smartnoise-sql 1.0.7 (opendp < 0.13) and what
`snsynth` imports.
"""

from __future__ import annotations

import dpaudit
from dpaudit import NumericColumn
from dpaudit.mechanisms.libraries.smartnoise_adapters import CovarianceRelease, covariance_claim

PACKAGE = "smartnoise-synth"
ISSUE = "opendp/smartnoise-sdk#622 (fixed by #624)"
VERSIONS = {"1.0.5": "violation", "1.0.6": "no violation"}
REQUIREMENTS = {
    "1.0.5": [["smartnoise-synth==1.0.5", "--no-deps"], ["smartnoise-sql==1.0.7", "Faker", "scikit-learn"]],
    "1.0.6": [["smartnoise-synth==1.0.6", "--no-deps"], ["smartnoise-sql==1.0.7", "Faker", "scikit-learn"]],
}
NUM_SAMPLES = 20_000
FAST_NUM_SAMPLES = 2000
FAST_ARGS = ["--sequential"]
NOTE = (
    "DPcovariance draws its noise from the global numpy.random state: not seedable, so a rerun "
    "at the same --seed draws other noise (the verdict is the same)."
)

COLUMNS = ("a", "b")


def mechanism() -> dpaudit.Mechanism:
    """DPcovariance at ε = 1 on columns a, b declared in [0, 1], as a user would call it."""
    return dpaudit.from_release(
        CovarianceRelease(COLUMNS, 0.0, 1.0, 1.0),
        columns=[NumericColumn(name=c, low=0.0, high=1.0) for c in COLUMNS],
        claim=covariance_claim(1.0),
        name="smartnoise_dpcovariance",
        min_size=2,
        max_size=32,
        seedable=False,
    )
