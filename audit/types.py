"""Audit configuration and result types (docs/DESIGN.md, "Contracts": `audit.types`).

All frozen, slotted, keyword-only dataclasses, validated at construction. The verdict is
`VIOLATION_FOUND`, `NO_VIOLATION_FOUND` (a lower bound below the claim proves nothing more than
"no violation found at this power", so there is no "passed") or `INCONCLUSIVE` (no violation, and
the audit could not have judged the claim: no power or no evidence, `runner.verdict`; the reason
in `AuditResult.inconclusive_reason`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from ..mechanisms.base import ClaimCurve, ClaimKind, CurveKind, PrivacyClaim
from ..neighbors.base import Relation

# Re-exported so result consumers (reports/) depend on audit.types only.
__all__ = [
    "AuditConfig",
    "AuditResult",
    "ClaimCheck",
    "ClaimCurve",
    "ClaimKind",
    "CurveKind",
    "EpsilonEstimate",
    "PairResult",
    "PrivacyClaim",
    "ProfilePoint",
    "Relation",
    "Verdict",
]


WEAKENED = "audit weakened"
"""Prefix of a result warning saying the audit lost power (candidate pairs failed while sampling);
reports show such warnings beside the verdict."""


class Verdict(enum.StrEnum):
    VIOLATION_FOUND = "violation_found"
    NO_VIOLATION_FOUND = "no_violation_found"
    INCONCLUSIVE = "inconclusive"
    """No violation, and the claim was beyond what the audit could judge (exit code 0)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditConfig:
    """How much to sample and at what confidence.

    `num_samples` is per side and per pair, *including* the selection split; the selection
    split is `selection_fraction` of it, clipped to [1000, max_selection_samples] and never
    more than half. `chunk_size=None` picks a size from the output width so memory stays
    O(chunk) whatever `num_samples` is.
    """

    num_samples: int = 1_000_000
    seed: int = 0
    failure_probability: float = 0.05
    selection_fraction: float = 0.1
    max_selection_samples: int = 200_000
    chunk_size: int | None = None
    jobs: int = 1
    backend: str = "loky"
    profile_deltas: tuple[float, ...] = ()
    """Also certify ε at each of these δ (the empirical privacy profile)."""
    profile_epsilons: tuple[float, ...] = ()
    """Also certify δ at each of these ε."""
    gdp: bool = False
    """Also certify a Gaussian-DP μ lower bound (refutes μ-GDP claims only)."""
    timeout: float | None = None
    """Wall-clock seconds the whole audit may take (None: unlimited); past it the audit stops
    with `sampling.AuditTimeout`, even inside a sample() call that never returns (SIGALRM: Unix,
    main thread or a worker process's main thread; elsewhere checked before each call)."""
    floating_point: bool = False
    """Also propose the floating-point lattice events (`distinguishers.FLOAT_DISTINGUISHERS`) for a
    mechanism that does not declare `floating_point = True`: audit the bits its implementation
    releases, not the mechanism over the reals (`dpaudit run --floating-point`)."""
    sequential: bool = False
    """Certify on a confidence sequence (`audit.sequential`) and stop as soon as a violation is
    certified or can no longer be reached at the cap: `num_samples` is then a cap. False: the
    fixed-n certification, identical to before the option existed."""
    rounds_stream: int = 0
    """Which independent seed stream a sequential audit's selection rounds draw from
    (`runner_rounds`: keys (pair, side, phase, stream, round, chunk)); the default route's first
    round draws stream 1, so the audits after it never redraw its samples."""
    futility_scale: float = 1.0
    """Sequential certification only: judge futility at this many times the cap (1: the cap).
    The default route's first search round sets it to the second round's budget over its own,
    so the first round stops early, and the route after it, only when its events could not
    certify a violation even on the certification the second round would plan."""
    futility_level: float = 1.0
    """…at the cap's test level times this (the second search round's share of β over the
    first's)."""

    def __post_init__(self) -> None:
        if not isinstance(self.num_samples, int) or self.num_samples < 200:
            raise ValueError(f"num_samples must be an integer ≥ 200, got {self.num_samples}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed}")
        if not 0 < self.failure_probability < 1:
            raise ValueError(f"failure_probability must be in (0, 1), got {self.failure_probability}")
        if not 0 < self.selection_fraction < 1:
            raise ValueError("selection_fraction must be in (0, 1)")
        if self.max_selection_samples < 100:
            raise ValueError("max_selection_samples must be ≥ 100")
        if self.chunk_size is not None and self.chunk_size < 1:
            raise ValueError("chunk_size must be ≥ 1")
        if self.jobs == 0 or self.jobs < -1:
            raise ValueError("jobs must be ≥ 1 (or -1 for all cores)")
        if not (self.futility_scale >= 1 and self.futility_level >= 1):
            raise ValueError("futility_scale and futility_level must be ≥ 1")
        if self.timeout is not None and not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise ValueError(f"timeout must be a positive number of seconds, got {self.timeout}")
        if any(not 0 <= d < 1 for d in self.profile_deltas):
            raise ValueError("profile deltas must be in [0, 1)")
        if any(not (e >= 0 and math.isfinite(e)) for e in self.profile_epsilons):
            raise ValueError("profile epsilons must be finite and ≥ 0")
        object.__setattr__(self, "profile_deltas", tuple(float(d) for d in self.profile_deltas))
        object.__setattr__(self, "profile_epsilons", tuple(float(e) for e in self.profile_epsilons))

    def split(self) -> tuple[int, int]:
        """(selection samples, certification samples) per side."""
        n_sel = math.ceil(self.selection_fraction * self.num_samples)
        n_sel = min(max(n_sel, 1000), self.max_selection_samples, self.num_samples // 2)
        return n_sel, self.num_samples - n_sel


@dataclass(frozen=True, slots=True, kw_only=True)
class EpsilonEstimate:
    """The certified test of one pair: one event, one direction, fresh samples.

    `p_*` refers to the side on which the event is more likely (the "P" of the reduction),
    `q_*` to the other. `direction` is "dataset>neighbor" or "neighbor>dataset".
    """

    epsilon_lower_bound: float
    delta_lower_bound: float
    p_count: int
    p_total: int
    q_count: int
    q_total: int
    p_lower: float
    q_upper: float
    bound_level: float
    infinite_witness: bool
    direction: str
    event: str
    distinguisher: str
    selection_epsilon: float
    assumption: str = ""
    """What the estimator assumes for its bound to hold (e.g. "none: i.i.d. samples, event fixed
    before certification"); recorded so a reader can judge the certificate."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfilePoint:
    """An extra certified test: `objective` ("epsilon" at δ = `parameter`, "delta" at
    ε = `parameter`, or "gdp_mu") with its certified `value` on one pair's chosen event."""

    objective: str
    parameter: float | None
    label: str
    value: float
    pair_index: int
    estimate: EpsilonEstimate
    claimed: float | None = None
    """The proved claim's value at this parameter (`PrivacyClaim.epsilon_at` / `delta_at`, or the
    μ of a GDP curve claim); None when the claim says nothing comparable."""
    exceeds_claim: bool = False
    """`value` > `claimed`: the claim's profile is refuted at this point."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCheck:
    """One claim against the certified intervals of every pair it covers."""

    claim: PrivacyClaim
    epsilon_lower_bound: float
    delta_lower_bound: float
    exceeded: bool
    pairs_checked: int


CANARY_WORDS: dict[str, str] = {
    "gradient": "gradient-space canary: a clipped gradient of norm C along a direction no other record uses",
    "input": "input-space canary: a record built to have a large gradient",
}
"""The canary kinds of DESIGN.md ("Training runs"), in words, by the tag `canary:<kind>`."""


def canary_of(tags: tuple[str, ...]) -> str:
    """The canary a pair's tags name (`canary:<kind>`), in words; empty for a non-canary pair."""
    kind = next((t.split(":", 1)[1] for t in tags if t.startswith("canary:")), "")
    return CANARY_WORDS.get(kind, kind.replace("_", " "))


@dataclass(frozen=True, slots=True, kw_only=True)
class PairResult:
    index: int
    description: str
    relation: Relation
    tags: tuple[str, ...]
    claim: PrivacyClaim
    estimate: EpsilonEstimate
    violation: bool
    claims_exceeded: tuple[int, ...] = ()
    """Indices into AuditResult.claims of the claims this pair's bound exceeds."""
    profile: tuple[ProfilePoint, ...] = ()
    event_spec: dict[str, object] | None = None
    """The certified event, serialised (None if its distinguisher cannot serialise it)."""
    trajectory: tuple[tuple[int, float], ...] = ()
    """(certification samples per side, certified ε lower bound on that prefix) at a few
    prefixes of the certification split. Descriptive (each point valid at the per-test failure
    probability on its own, not jointly): it shows how the bound grows with samples."""
    exact_epsilon: float | None = None
    """White-box reference: the pair's true ε at the claim's δ from the mechanism's oracle
    (`audit.whitebox`), None without one. Descriptive only: never used in the verdict."""
    exact_epsilon_method: str = ""
    """How `exact_epsilon` was computed (e.g. "exact enumeration", or an upper bound's kind);
    when it is None, the oracle's reason for declining (empty: the mechanism has no oracle)."""
    canary: str = ""
    """The record that differs in the pair, in words, when the pair is tagged as a canary
    (`canary:gradient`, `canary:input`; DESIGN.md, "Training runs"); empty otherwise."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditResult:
    mechanism: str
    claim: PrivacyClaim
    claims: tuple[ClaimCheck, ...]
    epsilon_lower_bound: float
    delta_lower_bound: float
    failure_probability: float
    test_level: float
    verdict: Verdict
    num_samples: int
    selection_samples: int
    certification_samples: int
    seed: int
    pairs: tuple[PairResult, ...]
    elapsed_seconds: float
    package_version: str
    epsilon_ceiling: float
    warnings: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()
    parameters: tuple[tuple[str, str], ...] = ()
    command: str = ""
    seedable: bool = True
    profile: tuple[ProfilePoint, ...] = ()
    """Per extra objective, the best certified value over the pairs the verdict claim decides (its
    relation's profile; each pair keeps its own points in `PairResult.profile`)."""
    extra: dict[str, object] = field(default_factory=dict)
    threat_model: str = ""
    """What the adversary sees, as the mechanism declares it (`threat_model`: e.g. every DP-SGD
    iterate, the last iterate only, a canary score); the verdict holds for that view only.
    Empty for a mechanism that declares none (its released output is the view)."""
    inconclusive_reason: str | None = None
    """Why the verdict is `INCONCLUSIVE` (None otherwise): no power or no evidence."""

    @property
    def violation(self) -> bool:
        return self.verdict is Verdict.VIOLATION_FOUND

    @property
    def inconclusive(self) -> bool:
        return self.verdict is Verdict.INCONCLUSIVE

    def to_json(self) -> str:
        """The result file's JSON (what `dpaudit run --out` writes; `reports.schema.read_json`
        reads it back)."""
        from .jsonnum import dumps

        return dumps(self)

    def __repr__(self) -> str:
        """One line: what was audited, the verdict, the certified bound against the claim."""
        c = self.claim
        return (
            f"AuditResult({self.mechanism}: {self.verdict.value}, "
            f"certified ε ≥ {self.epsilon_lower_bound:.4g} against {c.kind.value} "
            f"ε={c.epsilon_at(c.delta):.4g} δ={c.delta:.3g} ({c.relation.value}), "
            f"{len(self.pairs)} pair(s), {self.num_samples:,} samples/side, seed {self.seed})"
        )
