"""`dpaudit one-run`, `dpaudit scores` and `dpaudit sampler`.

`one-run module:train` draws the canaries' inclusion bits from --seed, calls the user's
`train(included, rng)` once and certifies its scores (audit/one_run/bound.py: Steinke, Nasr &
Jagielski 2023, Thm 5.2, a union bound over a fixed grid of guess counts). `scores FILE`
certifies scores produced elsewhere: with inclusion bits by the one-run bound over the file's
registered designs (else the default grid; a design given after the scores is charged against
every design, audit/one_run/design_choice.py), with "in" and
"out" scores of independent runs by one threshold event chosen on a split and certified with
Clopper–Pearson bounds (audit/one_run/score_split.py). Both give an `AuditResult` (same JSON, reports and
exit codes as `run`: 1 when the certified ε exceeds the claim at its δ, by `run`'s one verdict
rule: the audit's only claim decides, proved or stated). `sampler` tests a
batch sampler against the Poisson sampling an accountant assumes (audit/one_run/sampler_check.py).
`one-run --out DIR` checks DIR is writable before training and saves the scores, bits and
registered designs there before any analysis (audit/one_run/saved.py), printing the `dpaudit
scores` command that re-certifies them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.engine.one_run import (
    DEFAULT_METHOD,
    FILE_ASSUMPTION,
    Design,
    OutputDirError,
    assemble,
    certify_in_out,
    certify_method,
    check_sampler,
    default_registration,
    ensure_writable,
    file_choice,
    one_run,
    one_run_result,
    save_scores,
    scores_path,
)
from dpaudit.engine.types import AuditResult, PrivacyClaim
from dpaudit.mechanisms.base import ClaimKind, CurveKind, MechanismError
from dpaudit.mechanisms.registry import RegistryError, _import_user_module
from dpaudit.neighbors.base import Relation
from dpaudit.reports.schema import dumps

from ..claim_text import ClaimText, parse_claim
from ..one_run_summary import summary
from .commands import output_formats, write_outputs
from .parser import EXIT_OK, EXIT_VIOLATION, UsageError
from .score_files import ScoreFile, ScoreFileError, load_scores

DEFAULT_CANARIES = 1000


def load_attribute(spec: str) -> Any:
    """`package.module:attribute` from the working directory (a failure is exit 2, one line)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected package.module:attribute, got {spec!r}")
    module = _import_user_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{module_name!r} has no attribute {attr!r}") from None


def claim_from(args: argparse.Namespace, default: object = None) -> PrivacyClaim:
    """--epsilon/--delta, --accountant σ,q,T, --gdp μ, or the user's object's `claim` attribute."""
    text = ClaimText(
        epsilon=args.epsilon,
        delta=args.delta,
        accountant=args.accountant,
        gdp=args.gdp,
        relation=Relation(args.relation),
        kind=ClaimKind(args.claim_kind or "proved"),
    )
    try:
        return parse_claim(
            text, spelling=lambda key: f"--{key}", where="on the command line", default=default
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def designs_from(args: argparse.Namespace, m: int) -> tuple[Design, ...] | None:
    if args.k_plus is None and args.k_minus is None:
        return None
    d = Design(k_plus=args.k_plus or 0, k_minus=args.k_minus or 0)
    if d.k_plus < 0 or d.k_minus < 0 or not 1 <= d.guesses <= m:
        raise UsageError(f"--k-plus + --k-minus must be between 1 and the {m} canaries, each ≥ 0")
    return (d,)


def file_designs(
    args: argparse.Namespace, data: ScoreFile
) -> tuple[tuple[Design, ...] | None, int | None, str]:
    """(designs, the family β is split over, what the report says) for a one-run score file: the
    file's registered designs at their registered share, else the default grid; a design given on
    the command line that the file did not register is charged against every design the command
    accepts (audit/one_run/design_choice.py: it may have been picked after seeing the scores)."""
    if args.design_fixed_in_advance:
        raise UsageError(
            "--design-fixed-in-advance was withdrawn: a design typed after the scores cannot be told "
            "from one fixed before them; `dpaudit one-run --out` registers its designs in the score "
            "file it writes, and any other design is charged against every design (β/N)"
        )
    m = data.first.size
    given = designs_from(args, m)
    registered = None
    if data.registered is not None:
        registered = tuple(Design(k_plus=p, k_minus=q) for p, q in data.registered)
    choice = file_choice(m, given=given[0] if given else None, registered=registered)
    return choice.designs, choice.family_size, choice.note


def _finish(result: AuditResult, args: argparse.Namespace) -> int:
    fmts = output_formats(args)
    if args.out:
        write_outputs(result, args.out, fmts)
    if args.json:
        sys.stdout.write(dumps(result))
    else:
        print(summary(result))
    return EXIT_VIOLATION if result.violation else EXIT_OK


def _options(args: argparse.Namespace) -> list[str]:
    parts = ["--seed", str(args.seed), "--failure-probability", repr(float(args.failure_probability))]
    for flag, value in (
        ("--epsilon", args.epsilon),
        ("--delta", args.delta),
        ("--accountant", args.accountant),
        ("--gdp", args.gdp),
        ("--claim-kind", args.claim_kind),
        ("--method", args.method),
        ("--k-plus", args.k_plus),
        ("--k-minus", args.k_minus),
    ):
        if value is not None:
            parts += [flag, str(value)]
    return [*parts, "--relation", args.relation]


def cmd_one_run(args: argparse.Namespace) -> int:
    output_formats(args)
    train = load_attribute(args.train)
    if not callable(train):
        raise UsageError(f"{args.train!r} is not callable: expected train(included, rng) -> scores")
    m = args.canaries or int(getattr(train, "num_canaries", DEFAULT_CANARIES))
    claim = claim_from(args, getattr(train, "claim", None))
    command = shlex.join(["dpaudit", "one-run", args.train, "--canaries", str(m), *_options(args)])
    designs = designs_from(args, m)
    if args.out:
        try:
            ensure_writable(args.out)  # before training: an unwritable --out must not lose it
        except OutputDirError as exc:
            raise UsageError(str(exc)) from None
    result = one_run(
        train,
        num_canaries=m,
        claim=claim,
        seed=args.seed,
        failure_probability=args.failure_probability,
        designs=designs,
        name=args.train,
        command=command,
        method=args.method or DEFAULT_METHOD,
        on_scores=_saver(args, claim, default_registration(m, designs)) if args.out else None,
    )
    return _finish(result, args)


def _saver(
    args: argparse.Namespace, claim: PrivacyClaim, registered: tuple[Design, ...]
) -> Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any]], None]:
    """Save the training's scores, bits and registered designs under --out before any analysis, and
    print (stderr) the `dpaudit scores` command that re-certifies them."""

    def save(included: np.ndarray[Any, Any], scores: np.ndarray[Any, Any]) -> None:
        path = scores_path(args.out, args.train)
        try:
            save_scores(path, scores=scores, included=included, designs=registered)
        except (TypeError, ValueError):
            raise MechanismError(
                f"{args.train}: the training function's scores are not real numbers"
            ) from None
        again = shlex.join(["dpaudit", "scores", str(path), *_scores_options(args, claim)])
        print(f"scores saved before the analysis: {path}; re-certify with: {again}", file=sys.stderr)

    return save


def _scores_options(args: argparse.Namespace, claim: PrivacyClaim) -> list[str]:
    """`dpaudit scores` options that re-certify a saved training as `one-run` did (the designs are
    registered in the file; a claim from the function's `claim` attribute is spelled out)."""
    parts = ["--failure-probability", repr(float(args.failure_probability))]
    given = any(v is not None for v in (args.epsilon, args.accountant, args.gdp))
    flags = _claim_flags(claim)
    if given:
        flags = (("--epsilon", args.epsilon), ("--delta", args.delta), ("--accountant", args.accountant))
        flags += (("--gdp", args.gdp),)
    kind = args.claim_kind if given else claim.kind.value
    for flag, value in (*flags, ("--claim-kind", kind), ("--method", args.method)):
        if value is not None:
            parts += [flag, str(value)]
    return [*parts, "--relation", args.relation if given else claim.relation.value]


def _claim_flags(claim: PrivacyClaim) -> tuple[tuple[str, object], ...]:
    """A claim object as flags: μ-GDP as --gdp, anything else as its headline (ε, δ) point."""
    curve = claim.curve
    if curve is not None and curve.kind is CurveKind.GDP:
        return (("--gdp", repr(float(curve.parameter))), ("--delta", repr(float(claim.delta))))
    return (("--epsilon", repr(float(claim.epsilon))), ("--delta", repr(float(claim.delta))))


def _scores_one_run(
    args: argparse.Namespace, data: ScoreFile, claim: PrivacyClaim, *, command: str, start: float
) -> AuditResult:
    """`scores FILE` with inclusion bits: the one-run bound over the file's designs."""
    designs, family, design_choice = file_designs(args, data)
    try:
        cert = certify_method(
            data.first,
            data.second,
            claim=claim,
            method=args.method or DEFAULT_METHOD,
            failure_probability=args.failure_probability,
            designs=designs,
            family_size=family,
        )
    except ValueError as exc:
        raise ScoreFileError(f"{args.file}: {exc}") from None
    return one_run_result(
        cert,
        claim,
        name=args.file.name,
        seed=args.seed,
        elapsed=time.perf_counter() - start,
        command=command,
        assumption=FILE_ASSUMPTION,
        design_choice=design_choice,
    )


def cmd_scores(args: argparse.Namespace) -> int:
    output_formats(args)
    data = load_scores(args.file)
    claim = claim_from(args)
    command = shlex.join(["dpaudit", "scores", str(args.file), *_options(args)])
    start = time.perf_counter()
    name = args.file.name
    if data.kind == "one_run":
        return _finish(_scores_one_run(args, data, claim, command=command, start=start), args)
    if args.k_plus is not None or args.k_minus is not None or args.design_fixed_in_advance:
        raise UsageError(
            "--k-plus/--k-minus/--design-fixed-in-advance apply to one-run score files "
            "(scores + included) only"
        )
    if args.method is not None:
        raise UsageError("--method applies to one-run score files (scores + included) only")
    try:
        split = certify_in_out(
            data.first,
            data.second,
            delta=claim.delta,
            failure_probability=args.failure_probability,
            seed=args.seed,
        )
    except ValueError as exc:
        raise ScoreFileError(f"{args.file}: {exc}") from None
    n_in, n_out = data.first.size, data.second.size
    extra: dict[str, object] = {
        "scores": {
            "route": "many runs: a threshold event chosen on a seeded half per side, certified on the rest",
            "in_runs": n_in,
            "out_runs": n_out,
            "selection": list(split.selection),
            "certification": list(split.certification),
            "threshold": split.threshold,
            "event": split.estimate.event,
            "ceiling": split.ceiling,
        }
    }
    result = assemble(
        claim,
        split.estimate,
        name=name,
        seed=args.seed,
        elapsed=time.perf_counter() - start,
        command=command,
        parameters=(),
        threat_model="",
        num_samples=min(n_in, n_out),
        ceiling=split.ceiling,
        failure_probability=args.failure_probability,
        description=f"{n_in} runs with the canary, {n_out} without (independent runs)",
        tags=("scores",),
        extra=extra,
        selection_samples=min(split.selection),
    )
    return _finish(result, args)


def cmd_sampler(args: argparse.Namespace) -> int:
    factory: Callable[..., Any] = load_attribute(args.sampler)
    if not callable(factory):
        raise UsageError(
            f"{args.sampler!r} is not callable: expected batches(num_examples, sample_rate, steps, rng)"
        )
    rng = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(134,)))
    try:
        batches = list(itertools.islice(factory(args.examples, args.rate, args.steps, rng), args.steps))
    except SystemExit as exc:  # sys.exit in the user's code is its failure, not dpaudit's exit code
        raise MechanismError(f"{args.sampler}: the sampler called sys.exit({exc.code!r})") from None
    except Exception as exc:  # the user's sampler failing is an input error (exit 2)
        message = " ".join(str(exc).split())[:300]
        raise MechanismError(f"{args.sampler}: the sampler raised {type(exc).__name__}: {message}") from None
    check = check_sampler(
        batches,
        num_examples=args.examples,
        steps=args.steps,
        sample_rate=args.rate,
        failure_probability=args.failure_probability,
        seed=args.seed,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "sampler": args.sampler,
                    "departure_found": check.departure_found,
                    "num_examples": check.num_examples,
                    "steps": check.steps,
                    "sample_rate": check.sample_rate,
                    "failure_probability": check.failure_probability,
                    "defects": list(check.defects),
                    "tests": [
                        {
                            "name": t.name,
                            "statistic": t.statistic,
                            "expected": t.expected,
                            "p_low": t.p_low,
                            "p_high": t.p_high,
                            "threshold": t.threshold,
                            "rejected": t.rejected,
                        }
                        for t in check.tests
                    ],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print(f"{args.sampler}: {check.describe()}")
    return EXIT_VIOLATION if check.departure_found else EXIT_OK
