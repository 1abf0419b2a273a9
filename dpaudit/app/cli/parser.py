"""The command line's grammar: the `dpaudit` argument parser, its value types and exit codes.

Parsing only: a bad argument raises `UsageError` (exit 2, one line on stderr) instead of
argparse's exit, and every option carries a help string. Nothing here draws samples; the
guarantees of the commands (a certified ε lower bound holds with probability ≥ 1 − β, β the
`--failure-probability`, by Clopper–Pearson bounds and the union bound over the tests) are
established by the engine the commands call.
"""

from __future__ import annotations

import argparse
import math
import os
from decimal import Decimal
from pathlib import Path
from typing import NoReturn

from ... import __version__
from .one_run_parser import add_one_run_commands

EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130
"""After Ctrl-C (128 + SIGINT), as shells report it."""
DEBUG_HELP = "show a traceback instead of the one-line error (exit codes unchanged)"
FORMATS = ("json", "md", "html")


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def all_cores() -> int:
    """The cores this process may run on (its CPU affinity; `os.cpu_count()` where the platform
    has no affinity): the default `--jobs` of `run --all` and `gate`. Results are bit-identical
    for any `--jobs` (every chunk draws from its own seed stream)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _positive_int(text: str) -> int:
    """A positive integer, also written with underscores or as an exact power notation (1e6)."""
    try:
        number = Decimal(text.replace("_", ""))
        if not number.is_finite() or number.adjusted() > 100 or number != number.to_integral_value():
            raise ValueError(text)
        value = int(number)
    except (ValueError, ArithmeticError):
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _count(text: str) -> int:
    """A non-negative integer (0 allowed), written as `_positive_int` accepts."""
    if text.replace("_", "").strip() == "0":
        return 0
    try:
        return _positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected an integer ≥ 0, got {text!r}") from None


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a probability in (0, 1), got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return value


BACKENDS = ("loky", "threading", "dask")
"""The joblib backends `--backend` accepts (dask through joblib's `parallel_config`; joblib's
multiprocessing backend cannot return results as they come, which the runner needs)."""


def _jobs(text: str) -> int:
    error = argparse.ArgumentTypeError(f"expected a number of workers (≥ 1, or -1: all cores), got {text!r}")
    try:
        value = int(text)
    except ValueError:
        raise error from None
    if value < 1 and value != -1:
        raise error
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _float_list(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dpaudit", description="Certified empirical privacy audits of DP mechanisms.")
    p.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    p.add_argument("--version", action="version", version=f"dpaudit {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ls = sub.add_parser("list", help="list registered mechanisms, estimators and pair generators")
    ls.add_argument("--wide", action="store_true", help="every column in full (family, buggy twins)")
    _add_run(sub)
    _add_plan(sub)
    _add_gate(sub)
    _add_report(sub)
    add_one_run_commands(sub, {"int": _positive_int, "probability": _probability, "seed": _seed})
    _add_scan(sub)
    for command in sub.choices.values():  # `dpaudit run X --debug` as well as `dpaudit --debug run X`
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
    return p


def _add_run(sub: argparse._SubParsersAction[_Parser]) -> None:
    r = sub.add_parser("run", help="audit a mechanism (or --all registered correct mechanisms)")
    r.add_argument("mechanism", nargs="?", help="registered name or package.module:attribute")
    every = "audit every registered correct mechanism (not the DP-library family, audited by name)"
    r.add_argument("--all", action="store_true", help=every)
    r.add_argument("--param", action="append", default=[], metavar="K=V", help="mechanism parameter")
    r.add_argument(
        "--num-samples",
        type=_positive_int,
        help="samples per side and pair (with --sequential, a cap); default: the registered "
        "mechanism's budget, or for a user mechanism the budget its measured cost fits in --time-budget",
    )
    r.add_argument(
        "--time-budget",
        type=_seconds,
        metavar="SECONDS",
        help="without --num-samples: time a few samples and size the budget to this much sampling "
        "(default 300 for a user mechanism; registered ones keep their budget unless it is given)",
    )
    r.add_argument(
        "--sequential",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="certify on a confidence sequence and stop once a violation is certified or out of reach "
        "(--num-samples becomes a cap); default on when the budget comes from --time-budget, else off",
    )
    r.add_argument("--seed", type=_seed, default=0, help="seed of every sample stream (default 0)")
    r.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        help="parallel workers (-1: all; default all cores with --all or --backend dask, else 1)",
    )
    r.add_argument(
        "--failure-probability",
        type=_probability,
        default=0.05,
        help="probability that the certified bound is wrong, split over the tests (default 0.05)",
    )
    r.add_argument("--out", type=Path, help="directory for result files")
    r.add_argument(
        "--format",
        default=None,
        help="comma-separated: json,md,html (default all three; needs --out: the files go there)",
    )
    r.add_argument("--json", action="store_true", help="print the result JSON to stdout")
    _add_profile_options(r)
    _add_search_options(r)
    _add_event_options(r)
    r.add_argument(
        "--strict",
        action="store_true",
        help="a candidate pair whose sampling fails is an error (exit 2), not a weakened audit",
    )
    r.add_argument(
        "--resume", action="store_true", help="continue an interrupted run from its checkpoint under --out"
    )
    r.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="stop an audit that takes longer (exit 2, naming the phase); per audit with --all",
    )
    r.add_argument(
        "--backend",
        default="loky",
        choices=BACKENDS,
        help="joblib backend for --jobs (default loky)",
    )
    r.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (with --backend dask)")


def _add_profile_options(r: argparse.ArgumentParser) -> None:
    """`run`'s privacy-profile tests (each one more certified test under the one β split)."""
    r.add_argument(
        "--profile-deltas",
        type=_float_list,
        default=(),
        metavar="D1,D2",
        help="also certify ε at each δ (privacy profile)",
    )
    r.add_argument(
        "--profile-epsilons",
        type=_float_list,
        default=(),
        metavar="E1,E2",
        help="also certify δ at each ε (privacy profile)",
    )


def _add_search_options(r: argparse.ArgumentParser) -> None:
    """`run`'s options that choose the pairs: --pairs and the search's budget and sweeps."""
    r.add_argument(
        "--pairs",
        choices=["registered", "search", "all", "templates"],
        default=None,
        help="registered: the mechanism's registered worst-case pairs; templates: its domain's "
        "boundary templates; search: a pilot search over pairs generated from its domain, certifying "
        "the best; all: that search with the registered pairs in its pool; the same total budget "
        "(default: all; registered, or templates without them, with a note, when the mechanism "
        "declares no domain or the budget is too small to search)",
    )
    r.add_argument(
        "--pilot-fraction",
        type=_probability,
        default=None,
        help="share of the search budget spent on the pilot that picks the pairs (default: 0.2 with "
        "registered pairs; more for a blind search of a small-ε claim)",
    )
    r.add_argument(
        "--search-pairs",
        type=_positive_int,
        default=None,
        help="search budget per side = --num-samples × this (default: the number of registered pairs, "
        "else of boundary template pairs, so both routes spend the same)",
    )
    r.add_argument(
        "--sweep-max-count",
        type=_count,
        default=None,
        help="the largest k of the search's count sweeps (k records at one extreme, the neighbour "
        "moving, adding or removing one of them; default 64; 0 turns the sweeps off)",
    )


def _add_event_options(r: argparse.ArgumentParser) -> None:
    """`run`'s options that add tests or events: --gdp, --floating-point."""
    r.add_argument("--gdp", action="store_true", help="also certify a Gaussian-DP μ lower bound")
    r.add_argument(
        "--floating-point",
        action="store_true",
        help="also test the bits of float outputs (lattice events, Mironov 2012) of a mechanism that "
        "does not declare floating_point: its claim is then read as one about its float implementation",
    )


def _add_plan(sub: argparse._SubParsersAction[_Parser]) -> None:
    pl = sub.add_parser("plan", help="estimate from a pilot the samples needed to certify a target ε")
    pl.add_argument("mechanism", help="registered name or package.module:attribute")
    pl.add_argument("--target-epsilon", type=float, required=True, help="the ε the audit should certify")
    pl.add_argument("--param", action="append", default=[], metavar="K=V", help="mechanism parameter")
    pl.add_argument(
        "--pilot-samples",
        type=_positive_int,
        default=20_000,
        help="pilot samples per side and pair (default 20000)",
    )
    pl.add_argument("--seed", type=_seed, default=0, help="seed of the pilot's sample streams (default 0)")
    pl.add_argument(
        "--failure-probability",
        type=_probability,
        default=0.05,
        help="failure probability of the planned audit (default 0.05)",
    )
    pl.add_argument("--json", action="store_true", help="print the plan as JSON")


def _add_gate(sub: argparse._SubParsersAction[_Parser]) -> None:
    g = sub.add_parser(
        "gate",
        help="run the audits configured in dpaudit.toml / [tool.dpaudit]; exit 1 on violation or regression",
        description="Run the audits configured in dpaudit.toml / [tool.dpaudit]: an [[audit]] names a "
        "`mechanism` (tested against the baseline for regressions) or a one-run `train = "
        '"module:attr"` with `canaries` and a claim (verdict only). Exit 1 on a violation or regression.',
    )
    g.add_argument(
        "config_file", nargs="?", type=Path, metavar="CONFIG", help="config file (same as --config)"
    )
    g.add_argument("--config", type=Path, help="dpaudit.toml or pyproject.toml (default: found in the cwd)")
    g.add_argument("--baseline", type=Path, help="baseline JSON to test for privacy regressions against")
    g.add_argument("--update-baseline", action="store_true", help="write the baseline from this run")
    g.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 when a baseline no longer informs its regression test (stale: re-run --update-baseline)",
    )
    g.add_argument("--out", type=Path, help="directory for results, gate.json, gate.md and junit.xml")
    g.add_argument("--resume", action="store_true", help="continue an interrupted gate from --out")
    g.add_argument("--jobs", type=_jobs, default=None, help="parallel workers (-1 or default: all cores)")


def _add_scan(sub: argparse._SubParsersAction[_Parser]) -> None:
    s = sub.add_parser(
        "scan",
        help="audit every export of an installed DP library, blind; exit 1 if any is flagged",
        description="Audit every export of an installed DP library (diffprivlib, opendp, smartnoise-synth) "
        "through the generic adapters, blind, at one budget; print one table. Exit 1 if anything is flagged.",
    )
    s.add_argument("library", help="diffprivlib, opendp or smartnoise-synth (alias smartnoise)")
    s.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="scan only exports whose name contains TEXT (repeatable)")
    s.add_argument("--budget", type=_positive_int, default=None, metavar="N",
                   help="samples per side for each audit, as given (default 4,000 for diffprivlib, 1,000 "
                   "otherwise, each lowered to what fits the --timeout at the export's measured cost)")
    s.add_argument("--seed", type=_seed, default=0)
    level = s.add_mutually_exclusive_group()
    level.add_argument("--confidence", type=_probability, default=0.95,
                       help="for the whole table (β is split over the audits; default 0.95)")
    level.add_argument("--row-failure-probability", type=_probability, default=None, metavar="BETA",
                       help="each audit's own failure probability instead of the split (what a row's "
                       "reproduce command passes)")
    s.add_argument("--timeout", type=_seconds, default=300.0, metavar="SECONDS",
                   help="per export: one not decided by then is a 'timed out' row (default 300)")
    s.add_argument("--jobs", type=_jobs, default=None,
                   help="exports audited side by side (default: all cores)")
    s.add_argument("--out", type=Path, help="directory for scan.json and scan.txt")


def _add_report(sub: argparse._SubParsersAction[_Parser]) -> None:
    rep = sub.add_parser("report", help="render a result JSON")
    rep.add_argument("result", type=Path, help="result JSON written by `dpaudit run` or `dpaudit gate`")
    rep.add_argument(
        "--format", default="md", choices=["md", "html", "junit", "json"], help="output format (default md)"
    )
    rep.add_argument("--out", type=Path, help="write here instead of stdout")
