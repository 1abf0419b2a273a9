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

Methods (`method=`): "snj" certifies ε with Steinke, Nasr & Jagielski's bound at the whole β;
"fdp" (the default, `DEFAULT_METHOD`: benchmarks/README.md, "One-run method") tests the claim's
trade-off function with Mahloujifar, Melis & Chaudhuri's f-DP bound (`fdp.py`) at the whole β;
"both" runs each at β/2 (a union bound: a wrong verdict or ε needs one of the two to fail), the
certified ε being the larger of the two and the claim exceeded when either rejects it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ...mechanisms.analytic import gaussian_epsilon
from ...mechanisms.base import MechanismError, decides_verdict
from ...neighbors.base import Relation
from ..runner import inconclusive_reason, package_version, verdict_for
from ..types import AuditResult, ClaimCheck, EpsilonEstimate, PairResult, PrivacyClaim
from .bound import Design, OneRunCertificate, certify
from .fdp import METHOD as FDP_METHOD
from .fdp import FdpCertificate, certify_fdp, from_claim
from .notes import (
    adjusted_tail_bound,
    declared_design_note,
    rejection_findings,
    union_size,
)

INCLUSION_PHASE = 130
"""Seed stream of the inclusion bits: `SeedSequence(seed, spawn_key=(130,))`."""
TRAIN_PHASE = 131
"""Seed stream of the generator handed to the training function."""
METHOD = "Steinke, Nasr & Jagielski 2023, Privacy Auditing with One (1) Training Run, Thm 5.2"
METHODS = ("snj", "fdp", "both")
DEFAULT_METHOD = "fdp"
"""The method when none is given (benchmarks/README.md, "One-run method": chosen by measured power)."""
"""`method=` values: Steinke–Nasr–Jagielski, Mahloujifar–Melis–Chaudhuri (f-DP), or both at β/2 each."""
ASSUMPTION = (
    "one run: canaries included i.i.d. with probability ½ from the audit seed; scores depend on "
    "the trained output only; including or excluding one canary is a neighbouring pair of the claim"
)
FILE_ASSUMPTION = (
    "one run, bits read from a score file: the canaries' inclusion bits were drawn i.i.d. with "
    "probability ½ independently of everything else (dpaudit cannot check this); scores depend on "
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
    except SystemExit as exc:  # sys.exit in the user's code is its failure, not dpaudit's exit code
        raise MechanismError(f"{name}: the training function called sys.exit({exc.code!r})") from None
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
    method: str = DEFAULT_METHOD,
    on_scores: Callable[[np.ndarray[Any, np.dtype[np.bool_]], np.ndarray[Any, Any]], None] | None = None,
) -> AuditResult:
    """Draw the bits, train once, certify; the result's verdict compares ε̂ with the claim at its δ
    (and, with `method` "fdp" or "both", tests the claim's trade-off function).

    `claim` is a `PrivacyClaim` or (ε, δ) under add/remove-one (a canary in or out). `designs`
    (default: `one_run.default_design(num_canaries)`, a union bound) fixes the guess counts.
    `method`: one of `METHODS` (module docstring). `on_scores(included, scores)` is called once
    the training returned and before any analysis (`dpaudit one-run --out` saves them there, so a
    failing analysis never loses the training)."""
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
    check_method(method)
    label = name or getattr(train, "__name__", "train")
    start = time.perf_counter()
    bits = inclusion_bits(num_canaries, seed)
    scores = call_train(train, bits, train_rng(seed), label)
    if on_scores is not None:
        on_scores(bits.copy(), np.asarray(scores))
    try:
        cert = certify_method(
            scores,
            bits,
            claim=claim,
            method=method,
            failure_probability=failure_probability,
            designs=designs,
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
        # dpaudit draws the bits after the design is given: it cannot depend on the scores
        design_choice=declared_design_note(designs[0]) if designs and len(designs) == 1 else "",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class OneRunCertificates:
    """What one run certified under `method`: the SNJ certificate, the f-DP one, or both (each at
    β/2 when both)."""

    method: str
    failure_probability: float
    snj: OneRunCertificate | None = None
    fdp: FdpCertificate | None = None


def check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def certify_method(
    scores: ArrayLike,
    included: ArrayLike,
    *,
    claim: PrivacyClaim,
    method: str,
    failure_probability: float,
    designs: tuple[Design, ...] | None = None,
    family_size: int | None = None,
) -> OneRunCertificates:
    """Certify with SNJ, f-DP or both (β/2 each: a union bound over the two procedures); each
    method's share is split over `family_size` designs (bound.py's `certify`)."""
    check_method(method)
    share = failure_probability / 2 if method == "both" else failure_probability
    snj = fdp = None
    if method in ("snj", "both"):
        snj = certify(
            scores,
            included,
            delta=claim.delta,
            failure_probability=share,
            designs=designs,
            family_size=family_size,
        )
    if method in ("fdp", "both"):
        fdp = certify_fdp(
            scores,
            included,
            claim=from_claim(claim),
            delta=claim.delta,
            failure_probability=share,
            designs=designs,
            family_size=family_size,
        )
    return OneRunCertificates(method=method, failure_probability=failure_probability, snj=snj, fdp=fdp)


def one_run_result(
    cert: OneRunCertificate | OneRunCertificates,
    claim: PrivacyClaim,
    *,
    name: str,
    seed: int = 0,
    elapsed: float = 0.0,
    command: str = "",
    parameters: tuple[tuple[str, str], ...] = (),
    threat_model: str = "",
    assumption: str = ASSUMPTION,
    design_choice: str = "",
) -> AuditResult:
    """The certificate(s) as an `AuditResult`: one pseudo-pair (the m canaries), the ceiling in
    `epsilon_ceiling` and the design in `extra["one_run"]` (the f-DP numbers under its "fdp").
    `assumption` is FILE_ASSUMPTION when the bits came from a score file, not from dpaudit;
    `design_choice` (`declared_design_note` / `posthoc_design_note`) says how a user's design was
    certified (default: the union over the fixed designs, said by `choice_of_k` itself)."""
    certs = (
        cert
        if isinstance(cert, OneRunCertificates)
        else OneRunCertificates(method="snj", failure_probability=cert.failure_probability, snj=cert)
    )
    snj, fdp = certs.snj, certs.fdp
    head = _headline(certs)
    eps, r = head.epsilon, head.design.guesses
    estimate = EpsilonEstimate(
        epsilon_lower_bound=eps,
        delta_lower_bound=0.0,
        p_count=head.correct,
        p_total=r,
        q_count=r - head.correct,
        q_total=r,
        # no test with given error rates is certified (the bound says only "not (ε̂, δ)-DP"): the
        # counts are the correct and the wrong guesses of r, the rates not a number (ARCHITECTURE.md)
        p_lower=math.nan,
        q_upper=math.nan,
        bound_level=head.per_design,
        infinite_witness=False,
        direction="in>out",
        event=f"top {head.design.k_plus} scores guessed in, bottom {head.design.k_minus} guessed out",
        distinguisher="one-run guesses" + (" (f-DP bound)" if head.source == "fdp" else ""),
        selection_epsilon=eps,
        assumption=assumption,
    )
    info = one_run_extra(snj) if snj is not None else {}
    if head.source == "fdp":  # the design fields describe the design behind the headline ε
        assert fdp is not None
        info.update(fdp_design_extra(fdp))
    info["headline_method"] = head.source
    if design_choice:
        info["choice_of_k"] = design_choice
    info["methods"] = certs.method
    if fdp is not None:
        info["fdp"] = fdp_extra(fdp)
    if certs.method == "both":
        info["failure_probability_split"] = "β/2 Steinke–Nasr–Jagielski, β/2 f-DP (union bound)"
    ceilings = [c.ceiling for c in (snj, fdp) if c is not None]
    findings = rejection_findings(fdp)
    return assemble(
        claim,
        estimate,
        name=name,
        seed=seed,
        elapsed=elapsed,
        command=command,
        parameters=parameters,
        threat_model=threat_model,
        num_samples=head.num_canaries,
        ceiling=max(ceilings),
        failure_probability=certs.failure_probability,
        description=f"{head.num_canaries} canaries, each included with probability ½, one run",
        tags=("one_run",),
        extra={"one_run": info},
        rejected=bool(fdp is not None and fdp.claim_rejected),
        refutable=bool(fdp is not None and fdp.claim_refutable),
        findings=findings,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Headline:
    """The design whose ε heads the result (the larger of the methods' bounds)."""

    source: str
    epsilon: float
    design: Design
    correct: int
    per_design: float
    num_canaries: int


def _headline(certs: OneRunCertificates) -> _Headline:
    methods: tuple[tuple[str, OneRunCertificate | FdpCertificate | None], ...] = (
        ("snj", certs.snj),
        ("fdp", certs.fdp),
    )
    rows = [
        _Headline(
            source=source,
            epsilon=cert.best.epsilon,
            design=cert.best.design,
            correct=cert.best.correct,
            per_design=cert.test_level,
            num_canaries=cert.num_canaries,
        )
        for source, cert in methods
        if cert is not None
    ]
    return max(rows, key=lambda h: h.epsilon)  # ties: SNJ first (max keeps the first)


def _design_keys(cert: OneRunCertificate | FdpCertificate, method: str) -> dict[str, object]:
    """The keys of `extra["one_run"]` that describe the designs and the best one."""
    b = cert.best
    n = cert.family_size or len(cert.outcomes)
    return {
        "method": method,
        "choice_of_k": (
            f"union bound over {n} designs fixed before the scores, {cert.failure_probability:g}/{n} each"
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
        "test_level": cert.test_level,
    }


def one_run_extra(cert: OneRunCertificate) -> dict[str, object]:
    designs = [
        {
            "k_plus": o.design.k_plus,
            "k_minus": o.design.k_minus,
            "correct_plus": o.correct_plus,
            "correct_minus": o.correct_minus,
            "epsilon_lower_bound": o.epsilon,
            "ceiling": o.ceiling,
        }
        for o in cert.outcomes
    ]
    return {**_design_keys(cert, METHOD), "designs": designs}


def fdp_design_extra(cert: FdpCertificate) -> dict[str, object]:
    """`one_run_extra`'s keys for an f-DP-only run (the best design by the f-DP ε bound)."""
    return _design_keys(cert, FDP_METHOD)


def fdp_extra(cert: FdpCertificate) -> dict[str, object]:
    """The f-DP numbers: the claim's test, the certified μ (GDP family) and ε at δ ((ε, δ) family),
    their ceilings, per design."""
    return {
        "method": FDP_METHOD,
        "claim_tradeoff": cert.claim.describe(),
        "claim_rejected": cert.claim_rejected,
        "claim_tail_bound": cert.claim_tail_bound,
        "claim_tail_bound_adjusted": adjusted_tail_bound(cert),
        "union_designs": union_size(cert),
        "claim_refutable": cert.claim_refutable,
        "epsilon_lower_bound": cert.epsilon_lower_bound,
        "epsilon_ceiling": cert.ceiling,
        "mu_lower_bound": cert.mu_lower_bound,
        "mu_ceiling": cert.mu_ceiling,
        "epsilon_from_mu": _epsilon_from_mu(cert),
        "mu_assumption": (
            "mu_lower_bound refutes a μ-GDP claim with smaller μ; epsilon_from_mu is the ε at δ of "
            "that Gaussian profile, valid only for a mechanism that is μ-GDP for some μ"
        ),
        "delta": cert.delta,
        "failure_probability": cert.failure_probability,
        "test_level": cert.test_level,
        "designs": [
            {
                "k_plus": o.design.k_plus,
                "k_minus": o.design.k_minus,
                "correct_plus": o.correct_plus,
                "correct_minus": o.correct_minus,
                "claim_rejected": o.claim_rejected,
                "claim_tail_bound": o.claim_tail_bound,
                "claim_refutable": o.claim_refutable,
                "epsilon_lower_bound": o.epsilon,
                "epsilon_ceiling": o.epsilon_ceiling,
                "mu_lower_bound": o.mu,
                "mu_ceiling": o.mu_ceiling,
            }
            for o in cert.outcomes
        ],
    }


def _epsilon_from_mu(cert: FdpCertificate) -> float | None:
    """ε at δ of the certified μ's Gaussian profile (None at δ = 0, where it is infinite)."""
    if cert.delta <= 0:
        return None
    return gaussian_epsilon(cert.delta, cert.mu_lower_bound) if cert.mu_lower_bound > 0 else 0.0


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
    rejected: bool = False,
    refutable: bool = False,
    findings: tuple[str, ...] = (),
) -> AuditResult:
    """An `AuditResult` with one pseudo-pair certified by `estimate`, checked against `claim` at its δ:
    the claim is exceeded iff the certified ε exceeds the ε the claim allows at that δ, or `rejected`
    (another test of the same run, e.g. the f-DP one, rejected the claim; its reason in `findings`).
    A violation by `run`'s one verdict rule (`decides_verdict`): the only claim decides even if STATED."""
    eps = estimate.epsilon_lower_bound
    allowed = claim.epsilon_at(claim.delta)
    exceeded = bool(math.isfinite(allowed) and eps > allowed) or rejected
    # the one verdict rule: a lone claim decides whatever its kind (a STATED one is said so)
    violation = exceeded and decides_verdict(claim, (claim,), claim.relation)
    reason = None
    if not violation:  # `refutable`: the f-DP test could reject the claim above the ε ceiling
        reason = inconclusive_reason(
            claim, epsilon_lower_bound=eps, ceiling=ceiling, pair_bounds=(eps,), refutable=refutable
        )
    pair = PairResult(
        index=0,
        description=description,
        relation=claim.relation,
        tags=tags,
        claim=claim,
        estimate=estimate,
        violation=violation,
        claims_exceeded=(0,) if exceeded else (),
    )
    check = ClaimCheck(
        claim=claim, epsilon_lower_bound=eps, delta_lower_bound=0.0, exceeded=exceeded, pairs_checked=1
    )
    return AuditResult(
        mechanism=name,
        claim=claim,
        claims=(check,),
        epsilon_lower_bound=eps,
        delta_lower_bound=0.0,
        failure_probability=failure_probability,
        test_level=estimate.bound_level,
        verdict=verdict_for(violation=violation, inconclusive_reason=reason),
        inconclusive_reason=reason,
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
        findings=findings,
    )
