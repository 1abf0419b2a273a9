"""One-run audits as `AuditResult`s: dpaudit draws the inclusion bits, calls the user's training
function once, certifies its canary scores (`one_run.certify`) and assembles the result.

The training function (`TrainFunction`):

    train(included, rng) -> scores

- `included`: bool array (m,), canary i is in the training set iff `included[i]`; drawn i.i.d.
  Bernoulli(½) from the audit seed (stream `(INCLUSION_PHASE,)`), never shown to anything else;
- `rng`: a `numpy.random.Generator` for the training's own randomness (stream `(TRAIN_PHASE,)`,
  independent of the bits), so a seeded audit is reproducible when the training uses only it;
- returns m finite real scores, higher = "more likely included", computed from what the threat
  model's adversary sees (the trained model, the released iterates), never from `included`.

Validity needs exactly that last point plus the claim's relation: including or excluding one
canary must be a neighbouring pair under the claim (add/remove one record; for a replace-one
claim, train on a fixed filler record in place of each excluded canary). Everything else (the
bound's proof, the choice of k) is in `one_run.py`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dpaudit.engine.one_run import Design, OneRunCertificate, certify
from dpaudit.engine.runner_checkpoint import package_version
from dpaudit.engine.types import AuditResult, ClaimCheck, EpsilonEstimate, PairResult, PrivacyClaim, Verdict
from dpaudit.mechanisms.base import MechanismError
from dpaudit.neighbors.base import Relation

INCLUSION_PHASE = 130
"""Seed stream of the inclusion bits: `SeedSequence(seed, spawn_key=(130,))`."""
TRAIN_PHASE = 131
"""Seed stream of the generator handed to the training function."""
METHOD = "Steinke, Nasr & Jagielski 2023, Privacy Auditing with One (1) Training Run, Thm 5.2"
ASSUMPTION = (
    "one run: canaries included i.i.d. with probability ½ from the audit seed; scores depend on "
    "the trained output only; including or excluding one canary is a neighbouring pair of the claim"
)


class TrainFunction(Protocol):
    def __call__(self, included: np.ndarray[Any, Any], rng: np.random.Generator) -> ArrayLike: ...


def inclusion_bits(num_canaries: int, seed: int) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Canary i is included iff bit i: i.i.d. Bernoulli(½) from the audit seed."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(INCLUSION_PHASE,)))
    return rng.random(num_canaries) < 0.5


def train_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(TRAIN_PHASE,)))


def call_train(
    train: Callable[..., ArrayLike], included: np.ndarray[Any, Any], rng: np.random.Generator, name: str
) -> ArrayLike:
    """The user's training run; any failure is the user's code failing (`MechanismError`, exit 2)."""
    try:
        scores = train(included.copy(), rng)
        arr = np.asarray(scores)
    except Exception as exc:
        message = " ".join(str(exc).split())[:300]
        raise MechanismError(
            f"{name}: the training function raised {type(exc).__name__}: {message}"
        ) from None
    if arr.shape != included.shape:
        raise MechanismError(
            f"{name}: the training function returned scores of shape {arr.shape}, expected ({included.size},)"
        )
    return arr


def one_run(
    train: Callable[..., ArrayLike],
    *,
    num_canaries: int,
    claim: PrivacyClaim | tuple[float, float],
    seed: int = 0,
    failure_probability: float = 0.05,
    designs: tuple[Design, ...] | None = None,
    name: str = "",
    command: str = "",
    parameters: tuple[tuple[str, str], ...] = (),
) -> AuditResult:
    """Draw the bits, train once, certify; the result's verdict compares ε̂ with the claim at its δ.

    `claim` is a `PrivacyClaim` or (ε, δ) under add/remove-one (a canary in or out). `designs`
    (default: `one_run.default_design(num_canaries)`, a union bound) fixes the guess counts."""
    if not isinstance(claim, PrivacyClaim):
        eps, delta = claim
        claim = PrivacyClaim(
            epsilon=float(eps),
            delta=float(delta),
            relation=Relation.ADD_REMOVE_ONE,
            reference="the claim given to dpaudit.one_run",
        )
    if num_canaries < 1:
        raise ValueError(f"need at least one canary, got {num_canaries}")
    label = name or getattr(train, "__name__", "train")
    start = time.perf_counter()
    bits = inclusion_bits(num_canaries, seed)
    scores = call_train(train, bits, train_rng(seed), label)
    try:
        cert = certify(
            scores, bits, delta=claim.delta, failure_probability=failure_probability, designs=designs
        )
    except ValueError as exc:
        raise MechanismError(f"{label}: {exc}") from None
    return one_run_result(
        cert,
        claim,
        name=label,
        seed=seed,
        elapsed=time.perf_counter() - start,
        command=command,
        parameters=parameters,
    )


def one_run_result(
    cert: OneRunCertificate,
    claim: PrivacyClaim,
    *,
    name: str,
    seed: int = 0,
    elapsed: float = 0.0,
    command: str = "",
    parameters: tuple[tuple[str, str], ...] = (),
    threat_model: str = "",
) -> AuditResult:
    """The certificate as an `AuditResult`: one pseudo-pair (the m canaries), the ceiling in
    `epsilon_ceiling` and the design in `extra["one_run"]`."""
    eps, best = cert.epsilon_lower_bound, cert.best
    r = best.design.guesses
    estimate = EpsilonEstimate(
        epsilon_lower_bound=eps,
        delta_lower_bound=0.0,
        p_count=best.correct,
        p_total=r,
        q_count=r - best.correct,
        q_total=r,
        p_lower=float(special.expit(eps)),  # ln(p_lower / q_upper) = ε̂: the ε-RR accuracy certified
        q_upper=float(special.expit(-eps)),
        failure_probability=cert.per_design_failure_probability,
        infinite_witness=False,
        direction="in>out",
        event=f"top {best.design.k_plus} scores guessed in, bottom {best.design.k_minus} guessed out",
        distinguisher="one-run guesses",
        selection_epsilon=eps,
        assumption=ASSUMPTION,
    )
    extra: dict[str, object] = {"one_run": one_run_extra(cert)}
    return assemble(
        claim,
        estimate,
        name=name,
        seed=seed,
        elapsed=elapsed,
        command=command,
        parameters=parameters,
        threat_model=threat_model,
        num_samples=cert.num_canaries,
        ceiling=cert.ceiling,
        failure_probability=cert.failure_probability,
        description=f"{cert.num_canaries} canaries, each included with probability ½, one run",
        tags=("one_run",),
        extra=extra,
    )


def one_run_extra(cert: OneRunCertificate) -> dict[str, object]:
    b = cert.best
    return {
        "method": METHOD,
        "choice_of_k": (
            f"union bound over {len(cert.outcomes)} fixed designs (a function of m only), "
            f"β/{len(cert.outcomes)} each"
        ),
        "m": cert.num_canaries,
        "included": cert.included,
        "delta": cert.delta,
        "k_plus": b.design.k_plus,
        "k_minus": b.design.k_minus,
        "correct_plus": b.correct_plus,
        "correct_minus": b.correct_minus,
        "correct": b.correct,
        "guesses": b.design.guesses,
        "ceiling": cert.ceiling,
        "per_design_failure_probability": cert.per_design_failure_probability,
        "designs": [
            {
                "k_plus": o.design.k_plus,
                "k_minus": o.design.k_minus,
                "correct_plus": o.correct_plus,
                "correct_minus": o.correct_minus,
                "epsilon_lower_bound": o.epsilon,
                "ceiling": o.ceiling,
            }
            for o in cert.outcomes
        ],
    }


def assemble(
    claim: PrivacyClaim,
    estimate: EpsilonEstimate,
    *,
    name: str,
    seed: int,
    elapsed: float,
    command: str,
    parameters: tuple[tuple[str, str], ...],
    threat_model: str,
    num_samples: int,
    ceiling: float,
    failure_probability: float,
    description: str,
    tags: tuple[str, ...],
    extra: dict[str, object],
    selection_samples: int = 0,
) -> AuditResult:
    """An `AuditResult` with one pseudo-pair certified by `estimate`, checked against `claim` at its δ:
    a violation iff the certified ε exceeds the ε the claim allows at that δ."""
    eps = estimate.epsilon_lower_bound
    allowed = claim.epsilon_at(claim.delta)
    violation = bool(math.isfinite(allowed) and eps > allowed)
    pair = PairResult(
        index=0,
        description=description,
        relation=claim.relation,
        tags=tags,
        claim=claim,
        estimate=estimate,
        violation=violation,
        claims_exceeded=(0,) if violation else (),
    )
    check = ClaimCheck(
        claim=claim, epsilon_lower_bound=eps, delta_lower_bound=0.0, exceeded=violation, pairs_checked=1
    )
    return AuditResult(
        mechanism=name,
        claim=claim,
        claims=(check,),
        epsilon_lower_bound=eps,
        delta_lower_bound=0.0,
        failure_probability=failure_probability,
        per_test_failure_probability=estimate.failure_probability,
        verdict=Verdict.VIOLATION_FOUND if violation else Verdict.NO_VIOLATION_FOUND,
        num_samples=num_samples,
        selection_samples=selection_samples,
        certification_samples=num_samples - selection_samples,
        seed=seed,
        pairs=(pair,),
        elapsed_seconds=elapsed,
        package_version=package_version(),
        epsilon_ceiling=ceiling,
        parameters=parameters,
        command=command,
        extra=extra,
        threat_model=threat_model,
    )
