"""One-run audits in `dpaudit gate` (an `[[audit]]` with `train`; config in gate_one_run_config.py).

The gate calls the training function once through the engine's `one_run` (the same bits, streams,
designs and bound as `dpaudit one-run`), and the result is an ordinary `AuditResult`: written as
`<name>.json`/`<name>.md` by the same writer, counted in `gate.json`, `gate.md` and `junit.xml`,
and a violation makes the gate exit 1. What differs from a mechanism audit, and why:

- **Verdict only.** A regression test re-counts a stored witness event on fresh samples of the
  current mechanism (baseline.py). A one-run audit has no samples to re-count: its evidence is the
  guesses of one training, and another training is another experiment, not a fresh count of the
  same event. So it never gets a regression test (status `ONE_RUN_STATUS`, with or without a
  baseline), and `--update-baseline` leaves it out of the baseline file (format 2 stores witness
  counts, which it has none of; its verdict and ε̂ are in `gate.json` and its result file).
- **Its whole failure probability β_a goes to the verdict**, there being no regression test to
  fund: the gate's bound (it exits 1 wrongly with probability ≤ Σ_a β_a) is unchanged, and the
  result's `command`, `dpaudit one-run … --failure-probability β_a`, reproduces it exactly.
- **Resume.** The finished result is reused under `--resume` when its key (everything that
  determines it: the training function's spec *and a hash of its code* (gate/code_key.py: a
  partial's function and arguments, an instance's state, the defining module's source file),
  canaries, claim, method, designs, seed, β_a, version) matches; editing the training function
  or a helper in its module, or changing its arguments or settings, changes the key.
- **Scores first.** With `--out`, the directory is checked writable before the training and the
  scores, inclusion bits and registered designs are saved as `<name>.scores.npz` before any
  analysis (`dpaudit scores` re-certifies them; audit/one_run/saved.py).
- **Errors.** The training function raising (or calling sys.exit) is a `MechanismError` (exit 2,
  one line); a `timeout` stops it like a mechanism's sampling (`AuditTimeout`, exit 2).

This module does not import reports/ (the gate's dependency direction): the console summary comes
through `GateIO.summary`, which the CLI and the API give `dpaudit one-run`'s own summary for these.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.engine.checkpoint import audit_key
from dpaudit.engine.one_run import default_registration, ensure_writable, one_run, save_scores, scores_path
from dpaudit.engine.runner import package_version
from dpaudit.engine.sampling import audit_session
from dpaudit.engine.types import AuditResult

from .code_key import code_fingerprint
from .one_run_config import OneRunSpec

ONE_RUN_STATUS = "one run: verdict only (no regression test)"
"""The regression status of every one-run audit (gate.json's `regression_status`)."""
TRAINING_LABEL = "in the training function"
"""Where a one-run audit's timeout strikes (the timeout message's last words)."""


def one_run_command(spec: OneRunSpec) -> str:
    """The `dpaudit one-run` command that reproduces the audit's result (its options in that
    command's own order, so re-running it records the same command)."""
    parts = ["dpaudit", "one-run", spec.train_spec, "--canaries", str(spec.canaries)]
    parts += ["--seed", str(spec.seed), "--failure-probability", repr(float(spec.failure_probability))]
    for flag, value in spec.claim_flags:
        parts += [flag, value]
    return shlex.join(parts)


def one_run_key(spec: OneRunSpec) -> str:
    """Hash of everything that determines the audit's result (to reuse it on --resume)."""
    return audit_key(
        {
            "kind": "one_run",
            "name": spec.name,
            "train": spec.train_spec,
            "train_code": code_fingerprint(spec.train),
            "canaries": spec.canaries,
            "claim": spec.claim.to_dict(),
            "flags": [list(f) for f in spec.claim_flags],
            "method": spec.method,
            "seed": spec.seed,
            "failure_probability": spec.failure_probability,
            "version": package_version(),
        }
    )


def run_one_run(spec: OneRunSpec, *, key: str, config_path: Path, out: Path | None = None) -> AuditResult:
    """Train once and certify (under the audit's timeout); the result carries `extra["gate"]`.
    With `out`, the directory is checked writable before training and the scores, bits and
    registered designs are saved there (`<name>.scores.npz`) before any analysis."""
    on_scores = None
    if out is not None:
        ensure_writable(out)  # an OutputDirError (exit 2) before the training it would lose
        path, registered = scores_path(out, spec.name), default_registration(spec.canaries, spec.designs)

        def on_scores(included: np.ndarray[Any, Any], scores: np.ndarray[Any, Any]) -> None:
            save_scores(path, scores=scores, included=included, designs=registered)

    with audit_session(spec.train_spec, timeout=spec.timeout) as session:
        session.label = TRAINING_LABEL
        result = one_run(
            spec.train,
            num_canaries=spec.canaries,
            claim=spec.claim,
            seed=spec.seed,
            failure_probability=spec.failure_probability,
            designs=spec.designs,
            name=spec.train_spec,
            command=one_run_command(spec),
            method=spec.method,
            on_scores=on_scores,
        )
    gate_extra = {
        "audit": spec.name,
        "kind": "one_run",
        "key": key,
        "config": str(config_path),
        "failure_probability": spec.failure_probability,
        "violation_failure_probability": spec.failure_probability,
        "regression_failure_probability": 0.0,
    }
    return dataclasses.replace(result, extra={**result.extra, "gate": gate_extra})
