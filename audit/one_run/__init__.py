"""The one-run wing: audits from one training run, score files, and the sampler check.

`bound` is Steinke, Nasr & Jagielski, "Privacy Auditing with One (1) Training Run", Theorem 5.2,
with its designs; `fdp` is Mahloujifar, Melis & Chaudhuri, "Auditing f-Differential Privacy in
One Run"; `procedure` runs `train` once and assembles the result; `design_choice` says which
designs a score file's certificate covers and at what share of β (registered before the scores,
or charged against every design); `saved` keeps one training's scores on disk before its
analysis; `score_split` certifies files of in/out scores from independent runs; `sampler_check`
tests a batch sampler against what the Poisson accountant assumes. This module is the wing's
only door.
"""

from .bound import Design, certify, default_design
from .design_choice import (
    DesignChoice,
    charged_choice,
    default_registration,
    family_size,
    file_choice,
    registered_choice,
)
from .fdp import TradeOff, approx_dp, certify_fdp, gdp
from .notes import declared_design_note
from .procedure import (
    DEFAULT_METHOD,
    FILE_ASSUMPTION,
    METHODS,
    assemble,
    certify_method,
    inclusion_bits,
    one_run,
    one_run_result,
    train_rng,
)
from .sampler_check import check_sampler
from .saved import OutputDirError, ensure_writable, save_scores, scores_path
from .score_split import certify_in_out

__all__ = [
    "DEFAULT_METHOD",
    "FILE_ASSUMPTION",
    "METHODS",
    "Design",
    "DesignChoice",
    "OutputDirError",
    "TradeOff",
    "approx_dp",
    "assemble",
    "certify",
    "certify_fdp",
    "certify_in_out",
    "certify_method",
    "charged_choice",
    "check_sampler",
    "declared_design_note",
    "default_design",
    "default_registration",
    "ensure_writable",
    "family_size",
    "file_choice",
    "gdp",
    "inclusion_bits",
    "one_run",
    "one_run_result",
    "registered_choice",
    "save_scores",
    "scores_path",
    "train_rng",
]
