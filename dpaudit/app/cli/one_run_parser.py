"""Options of `dpaudit one-run`, `dpaudit scores` and `dpaudit sampler` (parsing only).

`cli_parser.build_parser` calls `add_one_run_commands` with its value types, so this module
imports nothing from the other CLI modules (no import cycle).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Types = Mapping[str, Callable[[str], Any]]


def _claim_options(p: argparse.ArgumentParser, types: Types) -> None:
    p.add_argument("--epsilon", type=float, help="the claimed ε (with --delta; else the function's `claim`)")
    p.add_argument("--delta", type=float, default=None, help="the claimed δ (default 0 with --epsilon)")
    p.add_argument(
        "--accountant",
        metavar="SIGMA,Q,T",
        help="claim: dp_accounting's ε(δ) for T Poisson-subsampled Gaussian steps (noise multiplier, rate)",
    )
    p.add_argument(
        "--gdp",
        type=float,
        metavar="MU",
        help="claim: μ-GDP (the whole Gaussian trade-off curve; headline point at --delta, default 1e-5)",
    )
    p.add_argument(
        "--relation",
        choices=["add_remove_one", "replace_one"],
        default="add_remove_one",
        help="the claim's neighbour relation (default add_remove_one: a canary in or out)",
    )
    p.add_argument(
        "--claim-kind",
        choices=["proved", "stated"],
        default=None,
        help="proved (default) or stated (the paper's or library's statement); exceeding either is "
        "a violation, exit 1: the audit's only claim decides, as in `dpaudit run` (the report "
        "says 'violation of a stated claim')",
    )
    p.add_argument(
        "--seed", type=types["seed"], default=0, help="seed of the inclusion bits and splits (default 0)"
    )
    p.add_argument(
        "--failure-probability",
        type=types["probability"],
        default=0.05,
        help="probability that the certified bound is wrong (default 0.05)",
    )
    p.add_argument(
        "--method",
        choices=["snj", "fdp", "both"],
        default=None,
        help="one-run bound: fdp (default: Mahloujifar, Melis & Chaudhuri's f-DP bound, which also "
        "tests the claim's trade-off curve), snj (Steinke, Nasr & Jagielski), both (β/2 each)",
    )
    p.add_argument(
        "--k-plus",
        type=int,
        default=None,
        help="one design: guess 'in' on the K highest scores (on `scores`, a design the file did not "
        "register is charged against every design, β/N, N = (m+1)(m+2)/2 − 1)",
    )
    p.add_argument("--k-minus", type=int, default=None, help="one design: guess 'out' on the K lowest scores")
    p.add_argument(
        "--out",
        type=Path,
        help="directory for result files (one-run: checked writable before training; the scores are "
        "saved there first, as NAME.scores.npz)",
    )
    p.add_argument(
        "--format",
        default=None,
        help="comma-separated: json,md,html (default all three; needs --out: the files go there)",
    )
    p.add_argument("--json", action="store_true", help="print the result JSON to stdout")


def add_one_run_commands(sub: argparse._SubParsersAction[Any], types: Types) -> None:
    o = sub.add_parser(
        "one-run",
        help="one-run audit (Steinke, Nasr & Jagielski 2023): canaries in at random, train once, certify",
    )
    o.add_argument(
        "train",
        help="package.module:attribute, a function train(included, rng) -> one score per canary",
    )
    o.add_argument(
        "--canaries",
        type=types["int"],
        default=None,
        help="number of canaries m (default: the function's `num_canaries`, else 1000)",
    )
    _claim_options(o, types)

    s = sub.add_parser("scores", help="certify canary scores produced elsewhere (CSV, NPZ or JSON)")
    s.add_argument(
        "file", type=Path, help="scores + included (one run) or in_scores + out_scores (many runs)"
    )
    _claim_options(s, types)
    s.add_argument(  # withdrawn (issue 42): kept to explain itself, exit 2
        "--design-fixed-in-advance", action="store_true", help=argparse.SUPPRESS
    )

    sm = sub.add_parser(
        "sampler", help="test that a batch sampler is the Poisson sampler its accountant assumes"
    )
    sm.add_argument(
        "sampler", help="package.module:attribute, batches(num_examples, sample_rate, steps, rng)"
    )
    sm.add_argument("--examples", type=types["int"], default=1000, help="examples n (default 1000)")
    sm.add_argument("--steps", type=types["int"], default=500, help="steps T recorded (default 500)")
    sm.add_argument(
        "--rate", type=types["probability"], required=True, help="the rate q the accountant assumes"
    )
    sm.add_argument("--seed", type=types["seed"], default=0, help="seed of the sampler and of the null draws")
    sm.add_argument(
        "--failure-probability",
        type=types["probability"],
        default=0.05,
        help="probability of flagging a Poisson sampler (false alarm) (default 0.05)",
    )
    sm.add_argument("--json", action="store_true", help="print the check as JSON")
