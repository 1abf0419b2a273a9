"""Contracts for audited mechanisms (docs/DESIGN.md, "Contracts": `mechanisms.base`).

A mechanism is a black box that carries its privacy claim(s). The audit only ever calls
`sample(dataset, num_samples, rng=...)`, which returns `num_samples` independent releases
stacked on axis 0, encoded numerically (a number, a vector, or a hypothesis encoded by its
parameters or its predictions on a fixed probe set).

Claims (docs/specs/ERRATA.md, "Which claim decides the verdict"): a mechanism may carry several, each
marked as the paper's *statement* or as *proved* (by the proof, or a derivation in the
docstring). The verdict uses the proved claim for the pair's relation; a certified bound
above only a stated claim is a finding about the paper, not a violation.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ..neighbors.base import Dataset, Domain, NeighborPair, Relation
from .outcomes import (
    DEFAULT_PAYLOAD_WIDTH,
    NoAnswerError,
    OutcomeCoding,
    OutcomeLog,
    check_exceptions,
    run_logged,
)


class ClaimKind(enum.StrEnum):
    PROVED = "proved"
    """Supported by the paper's proof or a derivation in the mechanism's docstring."""
    STATED = "stated"
    """The paper's statement as written; may be stronger than its proof supports."""


class CurveKind(enum.StrEnum):
    GDP = "gdp"
    """μ-Gaussian DP (Dong, Roth & Su): ε(δ) is the Gaussian profile of Balle & Wang (2018)."""
    ZCDP = "zcdp"
    """ρ-zCDP (Bun & Steinke 2016, Prop 1.3): ε(δ) ≤ ρ + 2√(ρ ln(1/δ))."""
    ACCOUNTANT = "accountant"
    """A privacy profile computed by a named accountant (e.g. dp_accounting's PLD accountant for
    DP-SGD) and carried as a table of (δ, ε(δ)) points; `source` names the accountant."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCurve:
    """A claim stated as a whole privacy profile (a curve ε(δ)), not one (ε, δ) point.

    `epsilon_at(δ)` is an ε the curve guarantees at δ. For zCDP it is the standard conversion
    (an upper bound on the best conversion), so comparing a certified ε(δ) against it can
    only under-report a violation, never invent one. For an accountant's table it is the ε of
    the largest tabulated δ' ≤ δ: a privacy profile is non-increasing in δ, so that value is at
    least the accountant's ε(δ) (exact at every tabulated δ, conservative between them), and the
    comparison again can only under-report.
    """

    kind: CurveKind
    parameter: float = 0.0
    """μ for GDP, ρ for zCDP; unused (0) for an accountant's table."""
    points: tuple[tuple[float, float], ...] = ()
    """ACCOUNTANT only: (δ, ε(δ)) pairs, δ strictly increasing in (0, 1), ε non-increasing."""
    source: str = ""
    """ACCOUNTANT only: the accountant, its version and what it composed (shown to users)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", CurveKind(self.kind))
        if self.kind is CurveKind.ACCOUNTANT:
            self._check_points()
        elif not (self.parameter > 0 and math.isfinite(self.parameter)):
            raise ValueError(f"curve parameter must be finite and > 0, got {self.parameter}")

    def _check_points(self) -> None:
        pts = tuple((float(d), float(e)) for d, e in self.points)
        object.__setattr__(self, "points", pts)
        if not pts or not self.source:
            raise ValueError("an accountant curve needs its (δ, ε) points and the accountant's name")
        deltas = [d for d, _ in pts]
        eps = [e for _, e in pts]
        if not all(0 < d < 1 for d in deltas) or any(b <= a for a, b in itertools.pairwise(deltas)):
            raise ValueError("accountant curve: δ values must increase strictly within (0, 1)")
        if not all(e >= 0 and math.isfinite(e) for e in eps) or any(
            b > a for a, b in itertools.pairwise(eps)
        ):
            raise ValueError("accountant curve: ε(δ) must be finite, ≥ 0 and non-increasing in δ")

    def epsilon_at(self, delta: float) -> float:
        if delta <= 0:
            return math.inf
        if self.kind is CurveKind.ACCOUNTANT:
            below = [e for d, e in self.points if d <= delta]
            return below[-1] if below else math.inf
        if self.kind is CurveKind.GDP:
            from .analytic import gaussian_epsilon

            return gaussian_epsilon(delta, self.parameter)
        rho = self.parameter
        return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))

    def delta_at(self, epsilon: float) -> float:
        if self.kind is CurveKind.ACCOUNTANT:
            # the smallest tabulated δ whose ε(δ) ≤ epsilon bounds δ(epsilon) (monotone profile)
            return next((d for d, e in self.points if e <= epsilon), 1.0)
        if self.kind is CurveKind.GDP:
            from .analytic import gaussian_delta

            return gaussian_delta(epsilon, self.parameter)
        # invert ε = ρ + 2√(ρ ln 1/δ) (for ε ≥ ρ; below ρ the conversion says nothing: δ ≤ 1)
        rho = self.parameter
        if epsilon <= rho:
            return 1.0
        return math.exp(-((epsilon - rho) ** 2) / (4.0 * rho))

    def label(self) -> str:
        if self.kind is CurveKind.ACCOUNTANT:
            return "accountant's ε(δ) curve"
        return f"{self.parameter:g}-GDP" if self.kind is CurveKind.GDP else f"{self.parameter:g}-zCDP"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "parameter": self.parameter}
        if self.kind is CurveKind.ACCOUNTANT:
            out["points"] = [[d, e] for d, e in self.points]
            out["source"] = self.source
        return out

    @staticmethod
    def from_dict(d: dict[str, Any], number: Callable[[Any], float] = float) -> ClaimCurve:
        """Inverse of `to_dict` (`number` parses JSON numbers written as strings)."""
        points = tuple((number(p[0]), number(p[1])) for p in d.get("points", ()))
        return ClaimCurve(
            kind=d["kind"],
            parameter=number(d.get("parameter", 0.0)),
            points=points,
            source=d.get("source", ""),
        )


def profile_points(
    deltas: Sequence[float], epsilon_at: Callable[[float], float]
) -> tuple[tuple[float, float], ...]:
    """An accountant's (δ, ε(δ)) at increasing `deltas`, each ε capped at the previous one: a
    privacy profile is non-increasing in δ, and an accountant's rounding can break ties the
    other way (`ClaimCurve` refuses a curve that rises)."""
    points: list[tuple[float, float]] = []
    for d in deltas:
        eps = epsilon_at(d)
        points.append((d, eps if not points else min(eps, points[-1][1])))
    return tuple(points)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivacyClaim:
    """A claimed (ε, δ)-DP guarantee under `relation`, with its source.

    `reference` names the paper by authors, title and theorem, e.g. "Bun, Carmosino & Sorrell,
    Efficient, Noise-Tolerant, and Private Learning via Boosting, Thm 30" (no internal file names
    or design-document tags: it is shown to users).
    """

    epsilon: float
    delta: float = 0.0
    relation: Relation
    reference: str
    kind: ClaimKind = ClaimKind.PROVED
    note: str = ""
    curve: ClaimCurve | None = None
    """Set when the claim is a whole profile (GDP, zCDP); (`epsilon`, `delta`) is then one
    point of it, the one the headline verdict uses."""

    def __post_init__(self) -> None:
        if not (self.epsilon >= 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"claim epsilon must be finite and ≥ 0, got {self.epsilon}")
        if not 0 <= self.delta < 1:
            raise ValueError(f"claim delta must be in [0, 1), got {self.delta}")
        if not isinstance(self.relation, Relation):
            raise TypeError(f"relation must be a Relation, got {self.relation!r}")
        if not self.reference:
            raise ValueError("a privacy claim needs a reference (paper title and theorem, or a design doc)")
        object.__setattr__(self, "kind", ClaimKind(self.kind))

    def covers(self, relation: Relation) -> bool:
        return relation.is_covered_by(self.relation)

    def epsilon_at(self, delta: float) -> float:
        """The largest ε at `delta` this claim allows (its privacy profile, inverted).

        The privacy region of a point claim (ε, δ) (Kairouz, Oh & Viswanath 2015) has
        δ(ε') = 1 − (1 − δ)(1 + e^ε')/(1 + e^ε) for ε' ≤ ε and δ beyond, so at δ' ≥ δ it allows
        e^ε' = (1 − δ')(1 + e^ε)/(1 − δ) − 1 (ε' ≤ ε, floored at 0) and at δ' < δ any ε.
        A curve claim asserts both its curve and its headline point: the smaller of the two.
        """
        if delta < self.delta:
            point = math.inf
        else:
            ratio = (1.0 - delta) * (1.0 + math.exp(self.epsilon)) / (1.0 - self.delta) - 1.0
            point = min(self.epsilon, math.log(ratio)) if ratio > 1.0 else 0.0
        return point if self.curve is None else min(point, self.curve.epsilon_at(delta))

    def delta_at(self, epsilon: float) -> float:
        """The largest δ at `epsilon` this claim allows (same region as `epsilon_at`)."""
        if epsilon >= self.epsilon:
            point = self.delta
        else:
            point = 1.0 - (1.0 - self.delta) * (1.0 + math.exp(epsilon)) / (1.0 + math.exp(self.epsilon))
        return point if self.curve is None else min(point, self.curve.delta_at(epsilon))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "relation": self.relation.value,
            "reference": self.reference,
            "kind": self.kind.value,
            "note": self.note,
        }
        if self.curve is not None:
            out["curve"] = self.curve.to_dict()
        return out


class MechanismError(Exception):
    """A mechanism misbehaved (raised, returned NaN, wrong shape). Message is one line."""


@runtime_checkable
class Mechanism(Protocol):
    """The black-box contract every audited mechanism satisfies: `name`, `claims` (every claim it
    makes, the headline first), `domain`, `seedable`, `sample`.

    `claim` (the headline claim) comes from `ClaimFromClaims` (`claims[0]`); a user's mechanism
    may give a single `claim` instead of `claims` (the README's form): `claims_of` reads both, and
    `is_mechanism` is the runtime check that accepts both.

    Optional extras, looked up with getattr:
    `neighbor_pairs()` (registered worst-case pairs), `output_kind` ("continuous" or
    "discrete", a hint for the distinguisher), `exact_epsilon(pair, delta=...)` (a white-box
    oracle used by tests and benchmarks, never by the audit itself), `max_block` (the most
    samples per `sample` call: a mechanism whose working arrays are much wider than its output
    sets it, and the harness then fills a chunk with successive calls on the chunk's generator,
    so peak memory follows the block, not the chunk; see `block_sizes`), `per_sample_streams`
    (True for a mechanism that is not vectorised, one release per call at a real cost: a fit, a
    synthesizer, a training; the harness then draws every sample from its own seed stream, so its
    results do not depend on how the samples are cut into chunks, and cuts them by the measured
    cost of one sample; see `uses_sample_streams` and `engine/sampling.py`).
    """

    @property
    def name(self) -> str: ...

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]: ...

    @property
    def domain(self) -> Domain: ...

    @property
    def seedable(self) -> bool: ...

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]: ...


class ClaimFromClaims:
    """Mixin: the headline `claim` is the first of `claims` (the contract asks for `claims` only)."""

    __slots__ = ()

    @property
    def claim(self) -> PrivacyClaim:
        claims: tuple[PrivacyClaim, ...] = self.claims  # type: ignore[attr-defined]
        if not claims:
            raise AttributeError(f"{type(self).__name__} has no claims")
        return claims[0]


def primary_first(primary: PrivacyClaim, claims: Iterable[PrivacyClaim]) -> tuple[PrivacyClaim, ...]:
    """`primary`, then the other claims in their order (how `claims_of` orders them)."""
    return (primary, *(c for c in claims if c != primary))


def is_mechanism(obj: object) -> bool:
    """Whether `obj` meets the contract at runtime: `Mechanism`, or its single-`claim` form."""
    basics = all(hasattr(obj, a) for a in ("name", "domain", "seedable", "sample"))
    return basics and (hasattr(obj, "claims") or hasattr(obj, "claim"))


def block_sizes(mechanism: Mechanism, num_samples: int) -> list[int]:
    """The `sample` calls that produce `num_samples` outputs: one call, or blocks of at most the
    mechanism's `max_block` (the last one shorter)."""
    block = getattr(mechanism, "max_block", None)
    if block is None or num_samples <= block:
        return [num_samples]
    if int(block) < 1:
        raise MechanismError(f"mechanism {mechanism.name!r} declares max_block = {block}: must be ≥ 1")
    full, rest = divmod(num_samples, int(block))
    return [int(block)] * full + ([rest] if rest else [])


def uses_sample_streams(mechanism: object) -> bool:
    """Whether `mechanism` declares `per_sample_streams = True` (`Mechanism`'s optional extras).
    Absent means False: a vectorised mechanism keeps one stream per chunk, as before."""
    return getattr(mechanism, "per_sample_streams", False) is True


def claims_of(mechanism: Any) -> tuple[PrivacyClaim, ...]:
    """Every claim a mechanism carries, the headline `claim` first: its `claims` (the contract),
    with a `claim` it also carries put first, or its single `claim` (a user's simple form). A claim
    that is not a PrivacyClaim is a MechanismError naming the mechanism."""
    name = getattr(mechanism, "name", type(mechanism).__name__)
    raw = getattr(mechanism, "claims", ()) or ()
    if isinstance(raw, dict | str | bytes) or not isinstance(raw, Iterable):
        raise MechanismError(
            f"mechanism {name!r}: claims must be a sequence of PrivacyClaim, got {type(raw).__name__}"
        )
    extra = tuple(raw)
    bad = next((c for c in extra if not isinstance(c, PrivacyClaim)), None)
    if bad is not None:
        raise MechanismError(
            f"mechanism {name!r}: every claim must be a PrivacyClaim, got {type(bad).__name__}"
        )
    primary = getattr(mechanism, "claim", None) if hasattr(mechanism, "claim") or not extra else extra[0]
    if not isinstance(primary, PrivacyClaim):
        got = "no 'claim' attribute" if not hasattr(mechanism, "claim") else type(primary).__name__
        raise MechanismError(f"mechanism {name!r}: claim must be a PrivacyClaim, got {got}")
    return primary_first(primary, extra)


def applicable_claim(claims: Sequence[PrivacyClaim], relation: Relation) -> PrivacyClaim | None:
    """The claim that decides the verdict for a pair under `relation`.

    The verdict rule (`decides_verdict`): proved claims win over stated ones, a STATED claim
    deciding only where no PROVED claim covers the relation; among them the tightest: the
    smallest ε each allows at the audited δ, taken as the largest δ among them (where every one
    of them allows a finite ε, `PrivacyClaim.epsilon_at`). A pure (T·ε̂, 0) composition claim
    thus beats a looser (2ε, δ) one, and a claim with a smaller headline ε but a much larger δ
    does not win by its headline alone. Ties: the smaller δ (the stronger statement), then an
    exact relation match over a covering one (a replace-one claim covers relabel-one pairs).
    """
    covering = [c for c in claims if c.covers(relation)]
    if not covering:
        return None
    proved = [c for c in covering if c.kind is ClaimKind.PROVED] or covering
    audited = max(c.delta for c in proved)
    return min(proved, key=lambda c: (c.epsilon_at(audited), c.delta, c.relation is not relation))


def verdict_claim(mechanism: Mechanism) -> PrivacyClaim:
    """The claim a mechanism's headline verdict is about (`run`'s report, `dpaudit list`): the
    `applicable_claim` for its primary claim's relation (the tightest PROVED, else STATED)."""
    claims = claims_of(mechanism)
    return applicable_claim(claims, claims[0].relation) or claims[0]


def decides_verdict(claim: PrivacyClaim, claims: Sequence[PrivacyClaim], relation: Relation) -> bool:
    """The one verdict rule (`run`, `one-run` and its file re-check, the gate, the pytest plugin): is
    exceeding `claim` on a `relation` pair a violation?

    Yes for a PROVED claim. A STATED claim decides only when no PROVED claim among `claims` covers
    `relation` (a library model audited at its documented ε, a one-run claim given as stated): the
    mechanism then has nothing else to be held to, so its statement is the claim, and the report
    says so (`reports.markdown.stated_verdict_words`). A STATED claim beside a PROVED one is a
    finding about the statement when exceeded, never a violation. `applicable_claim` picks the
    verdict claim by the same rule (the tightest PROVED, else the tightest STATED)."""
    if claim.kind is ClaimKind.PROVED:
        return True
    return not any(c.kind is ClaimKind.PROVED and c.covers(relation) for c in claims)


def validate_output(name: str, out: object, num_samples: int) -> NDArray[Any]:
    """Check a `sample` result: an ndarray, axis 0 = samples, numeric and finite."""
    if not isinstance(out, np.ndarray):
        raise MechanismError(f"mechanism {name!r} returned {type(out).__name__}, expected a numpy array")
    if out.ndim == 0 or out.shape[0] != num_samples:
        raise MechanismError(
            f"mechanism {name!r} returned shape {out.shape} for {num_samples} samples "
            "(axis 0 must be the sample axis)"
        )
    if not (np.issubdtype(out.dtype, np.number) or out.dtype == np.bool_):
        raise MechanismError(f"mechanism {name!r} returned non-numeric dtype {out.dtype}")
    if np.issubdtype(out.dtype, np.inexact) and not np.all(np.isfinite(out)):
        bad = int(np.size(out) - np.count_nonzero(np.isfinite(out)))
        raise MechanismError(
            f"mechanism {name!r} returned {bad} NaN/infinite values (if a NaN is its way of giving no "
            "answer, declare it an outcome: from_callable(..., no_answer=True))"
        )
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class CallableMechanism:
    """Adapts a one-release-at-a-time function `fn(dataset, rng) -> output` (any black box), or a
    vectorised `batch_fn(dataset, num_samples, rng) -> outputs` (axis 0 = samples).

    The per-sample Python loop is the price of a black box. With `chunk_size` the samples are
    drawn in chunks of that many, chunk i on the i-th child of `rng` (`Generator.spawn`), and with
    `n_jobs` ≠ 1 the chunks run on joblib workers: the outputs depend on `rng` and `chunk_size`
    only, never on `n_jobs`. Without either, one loop on `rng` itself (the original behaviour).
    `seedable=False` marks a function that ignores `rng` (results then do not reproduce from a
    seed, and the report says so). `floating_point=True` declares that the claim covers the
    doubles released (the audit then adds the floating-point lattice events). `threat_model`
    says in words what the adversary sees (e.g. "all iterates"), shown in reports; `statistics`
    are scalar statistics the user knows to be the likelihood ratio of their pairs (e.g. DP-SGD's
    gradient-canary `MixtureLLR`), offered to the audit as Neyman–Pearson events.
    `exceptions` declares exception types that are outputs, not failures: each release is then
    the fixed-width row of `mechanisms/outcomes.py` ([outcome, size, first `payload_width`
    values]); only with `fn` (a raise must be attributable to one release). `no_answer=True`
    declares that a release of None (or with a NaN) is an answer of its own, coded −1 in the same
    rows. `variable_length=True` codes every release so, for a release whose length varies from
    call to call (its length is then a coordinate like any other). The first message of each
    such outcome per dataset is kept in `outcome_log`, for the witness text only.
    `per_sample_streams=True` (with `fn` only) declares an expensive function (a fit per call):
    the audit then draws each sample from its own stream and sizes its chunks by the measured
    cost of one sample (`Mechanism`); the adapters that fit once per release (`from_estimator`,
    `from_synthesizer`, `from_release`) set it.
    """

    fn: Callable[[Dataset, np.random.Generator], Any] | None
    name: str
    claim: PrivacyClaim
    domain: Domain
    seedable: bool = True
    claims: tuple[PrivacyClaim, ...] = ()
    pairs: tuple[NeighborPair, ...] = ()
    output_kind: str | None = None
    batch_fn: Callable[[Dataset, int, np.random.Generator], Any] | None = None
    chunk_size: int | None = None
    n_jobs: int = 1
    floating_point: bool = False
    threat_model: str = ""
    statistics: tuple[Any, ...] = ()
    exceptions: tuple[type[BaseException], ...] = ()
    payload_width: int = DEFAULT_PAYLOAD_WIDTH
    no_answer: bool = False
    per_sample_streams: bool = False
    variable_length: bool = False
    outcome_log: OutcomeLog = field(default_factory=OutcomeLog, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.fn is None) == (self.batch_fn is None):
            raise ValueError("give exactly one of fn (one release per call) and batch_fn (vectorised)")
        check_exceptions(self.exceptions, self.payload_width)
        if self.outcome_coding is not None and self.fn is None:
            raise ValueError(
                "exceptions, no_answer and variable_length need fn (one release per call), not batch_fn"
            )
        if self.per_sample_streams and self.fn is None:
            raise ValueError("per_sample_streams needs fn (one release per call), not batch_fn")
        if self.chunk_size is not None and self.chunk_size < 1:
            raise ValueError("chunk_size must be ≥ 1")

    def _draw(self, dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        if self.batch_fn is not None:
            out = np.asarray(self.batch_fn(dataset, num_samples, rng))
            return validate_output(self.name, out, num_samples)
        fn = self.fn
        assert fn is not None
        if self.outcome_coding is not None:
            return self._draw_coded(fn, dataset, num_samples, rng)
        outs = [np.asarray(fn(dataset, rng)) for _ in range(num_samples)]
        if any(o.dtype == object and o.ndim == 0 and o.item() is None for o in outs):
            raise MechanismError(
                f"mechanism {self.name!r} returned None: if no answer is its answer on such data, "
                "declare it an outcome: from_callable(..., no_answer=True)"
            )
        if not outs:
            return np.empty((0,))
        try:
            return np.stack(outs)
        except ValueError as exc:
            raise MechanismError(
                f"mechanism {self.name!r} returned outputs of varying shape (if its length varies by "
                "design, declare variable_length=True)"
            ) from exc

    @property
    def outcome_coding(self) -> OutcomeCoding | None:
        """What the coded rows hold, or None when releases are not coded (nothing declared)."""
        if not (self.exceptions or self.no_answer or self.variable_length):
            return None
        return OutcomeCoding(self.exceptions, self.no_answer, self.payload_width)

    def _draw_coded(
        self,
        fn: Callable[[Dataset, np.random.Generator], Any],
        dataset: Dataset,
        num_samples: int,
        rng: np.random.Generator,
    ) -> NDArray[np.float64]:
        rows, key = [], None
        for _ in range(num_samples):
            try:
                row, said = run_logged(
                    lambda: fn(dataset, rng), self.exceptions, self.payload_width, no_answer=self.no_answer
                )
            except NoAnswerError as exc:
                raise MechanismError(f"mechanism {self.name!r} {exc}") from None
            if said is not None:
                key = key or dataset.key()
                self.outcome_log.note(key, int(row[0]), said)
            rows.append(row)
        return np.stack(rows) if rows else np.empty((0, 2 + self.payload_width))

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        if self.chunk_size is None and self.n_jobs == 1:
            return self._draw(dataset, num_samples, rng)
        size = self.chunk_size or max(1, -(-num_samples // 64))
        sizes = [min(size, num_samples - i) for i in range(0, num_samples, size)]
        children = rng.spawn(len(sizes))
        if self.n_jobs == 1:
            parts = [self._draw(dataset, k, g) for k, g in zip(sizes, children, strict=True)]
        else:
            from joblib import Parallel, delayed

            parts = Parallel(n_jobs=self.n_jobs)(
                delayed(self._draw)(dataset, k, g) for k, g in zip(sizes, children, strict=True)
            )
        if not parts:
            return np.empty((0,))
        try:
            return np.concatenate(parts)
        except ValueError as exc:
            raise MechanismError(
                f"mechanism {self.name!r} returned outputs of varying shape (if its length varies by "
                "design, declare variable_length=True)"
            ) from exc

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return self.pairs


def from_callable(
    fn: Callable[[Dataset, np.random.Generator], Any] | None = None,
    *,
    name: str,
    claim: PrivacyClaim,
    domain: Domain,
    seedable: bool = True,
    claims: Sequence[PrivacyClaim] = (),
    pairs: Sequence[NeighborPair] = (),
    output_kind: str | None = None,
    batch_fn: Callable[[Dataset, int, np.random.Generator], Any] | None = None,
    chunk_size: int | None = None,
    n_jobs: int = 1,
    floating_point: bool = False,
    threat_model: str = "",
    statistics: Sequence[Any] = (),
    exceptions: Sequence[type[BaseException]] = (),
    payload_width: int = DEFAULT_PAYLOAD_WIDTH,
    no_answer: bool = False,
    per_sample_streams: bool = False,
    variable_length: bool = False,
) -> CallableMechanism:
    """Wrap `fn(dataset, rng) -> one output` (or `batch_fn(dataset, num_samples, rng)`) as a
    `Mechanism`; `chunk_size` / `n_jobs` spread the draws over chunks and joblib workers.
    `exceptions=(ValueError,)` makes a raise of those types an output of its own (a category
    certified like any event) instead of a failure (exit 2), and `no_answer=True` does the same for a
    release of None or NaN; `variable_length=True` codes releases whose length varies between calls
    as [0, length, first `payload_width` values]; see `mechanisms/outcomes.py`.
    `per_sample_streams=True` declares an
    expensive `fn` (`CallableMechanism`)."""
    return CallableMechanism(
        fn=fn,
        name=name,
        claim=claim,
        domain=domain,
        seedable=seedable,
        claims=tuple(claims),
        pairs=tuple(pairs),
        output_kind=output_kind,
        batch_fn=batch_fn,
        chunk_size=chunk_size,
        n_jobs=n_jobs,
        floating_point=floating_point,
        threat_model=threat_model,
        statistics=tuple(statistics),
        exceptions=tuple(exceptions),
        payload_width=payload_width,
        no_answer=no_answer,
        per_sample_streams=per_sample_streams,
        variable_length=variable_length,
    )
