"""Gate baselines and the privacy-regression test (issue 8, item 2; DESIGN.md "Statistics").

Baseline file
-------------
JSON, `{"kind": "dpaudit-baseline", "baseline_version": 1, "package_version": …, "audits":
{name: {...}}}`. Per configured audit (keyed by its gate name) it stores the mechanism's name,
spec and parameters, and per audited pair the *certified* event of that pair: the event
(`event_spec`, rebuilt with `estimators.event_from_spec`), its direction, the δ it was
certified at, the pair's two datasets (so the event can be re-counted on exactly that pair even
if the registered pairs change or came from a search) and the event's certification counts
(p_count/p_total on the side where the event is likelier, q_count/q_total on the other).
`--update-baseline` writes it from a gate run's results (`baseline_audit_from_result`).

The regression test
-------------------
For an event E and a pair (D, D') with P = P[M(D) ∈ E] (the side named by the direction) and
Q = P[M(D') ∈ E], the privacy loss realised on E is L(E) = ln((P − δ)/Q) (−∞ when P ≤ δ).
Every (ε, δ)-DP mechanism has ε ≥ L(E), so L(E) is a witnessed loss, and a mechanism whose
witnessed loss on the same event grew has become less private on that witness. For each stored
event E of an audit the gate

1. re-counts E on both sides with fresh samples of the *current* mechanism, drawn from the
   stream SeedSequence(seed, spawn_key=(pair, side, REGRESSION_PHASE, chunk)), distinct from every
   stream of the run (phases 0 selection, 1 certification, 2 probe) and of the baseline's run;
2. computes a one-sided LOWER confidence bound on the current loss,
   lo = ln((CP_lo(k_P', n', β_i/4) − δ) / CP_hi(k_Q', n', β_i/4)), which fails
   (lo > L_new(E)) with probability ≤ β_i/2 (union of its two Clopper–Pearson bounds);
3. computes a one-sided UPPER confidence bound on the baseline's loss from the stored counts,
   hi = ln((CP_hi(k_P, n, β_i/4) − δ) / CP_lo(k_Q, n, β_i/4)), which fails (hi < L_base(E))
   with probability ≤ β_i/2;
4. flags a regression when lo > hi.

Why a false alarm has probability ≤ β_i. "No regression" means L_new(E) ≤ L_base(E). If neither
bound fails, lo ≤ L_new(E) ≤ L_base(E) ≤ hi and nothing is flagged, so a false alarm needs a
failed bound: probability ≤ β_i/2 + β_i/2 = β_i. The two bounds are valid *conditionally on E*:
E (and its direction) was chosen on the baseline run's selection split; the stored counts come
from that run's certification split, sampled from streams independent of the selection split,
so given E they are Binomial(n, P_base(E)) and Binomial(n, Q_base(E)); the new counts come from
the fresh REGRESSION_PHASE streams, independent of both, Binomial(n', P_new(E)) and
Binomial(n', Q_new(E)). Averaging the conditional guarantee over E keeps it. With m_a events
compared for audit a, each gets β_i = β_reg,a / m_a (Bonferroni), so the audit's regression
tests all hold together with probability ≥ 1 − β_reg,a. m_a is fixed by the baseline file and
the configuration before any sample is drawn (events whose pair no longer fits the mechanism's
domain are dropped, with a warning, before sampling).

Budget split (audit/gate.py applies it): an audit configured with failure_probability β_a
gives β_a/2 to its violation tests (run_audit at β_a/2, Bonferroni across its pairs inside the
runner) and β_reg,a = β_a/2 to its regression tests, whether or not a baseline is supplied, so
the same configuration and seed produce the same audit result with or without `--baseline`.
The gate then exits 1 wrongly (a violation or a regression that is not there) with
probability ≤ Σ_a β_a over the configured audits.

What a regression does and does not say: the current mechanism's ε is certified above the
baseline's *witnessed* loss on the baseline's own witness event (ε_new ≥ lo > hi ≥ L_base(E)).
A black-box audit cannot upper-bound the baseline's true ε, so a mechanism that grew less private
only on other events is not flagged by this test (the violation test still covers it against
the claim). δ is the one stored in the baseline for both sides, so a changed claim δ does not
move the comparison. With a fixed seed the test is deterministic: an unchanged mechanism gives
the same answer on every CI run; the ≤ β_i guarantee is over the draw of the samples.

Which baseline problems are errors (BaselineError: exit 2, message naming the file): the
file cannot be read, is not JSON, is not a dpaudit baseline, has another `baseline_version`,
or an entry is malformed (missing field, wrong type, unknown event type, invalid dataset). An
audit whose name is in the baseline under a different mechanism is a mismatch (exit 2, raised
by audit/gate.py). A configured audit absent from the baseline is *not* an error: it gets a
warning and no regression test (new audits can be added before the baseline is refreshed), and
baseline audits no longer configured are ignored with a warning.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
from dpaudit.engine.checkpoint import Checkpoint, audit_key
from dpaudit.engine.estimators import Event, event_from_spec
from dpaudit.engine.jsonnum import json_number
from dpaudit.engine.sampling import Task, auto_chunk_size, chunk_sizes, count_events, draw, run_tasks
from dpaudit.engine.types import AuditResult
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation, is_neighbor

BASELINE_KIND = "dpaudit-baseline"
BASELINE_VERSION = 1
REGRESSION_PHASE = 100
"""Spawn-key phase of the regression re-count (the runner uses 0, 1 and 2)."""
DIRECTIONS = ("dataset>neighbor", "neighbor>dataset")


class BaselineError(ValueError):
    """An unusable baseline file (one line, naming the file)."""


# --------------------------------------------------------------------------- bounds
def loss_lower_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, delta: float, failure_probability: float
) -> float:
    """One-sided lower confidence bound on ln((P − δ)/Q): fails with probability ≤ failure_probability."""
    p_lo = cp_lower(p_count, p_total, failure_probability / 2)
    q_hi = cp_upper(q_count, q_total, failure_probability / 2)
    return float(epsilon_from_bounds(p_lo, q_hi, delta=delta))


def loss_upper_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, delta: float, failure_probability: float
) -> float:
    """One-sided upper confidence bound on ln((P − δ)/Q): fails with probability ≤ failure_probability.

    +inf when the Q-side lower bound is 0 (no evidence Q > 0), −inf when P ≤ δ is certain."""
    p_hi = float(cp_upper(p_count, p_total, failure_probability / 2))
    q_lo = float(cp_lower(q_count, q_total, failure_probability / 2))
    if p_hi <= delta:
        return -math.inf
    if q_lo <= 0.0:
        return math.inf
    return math.log(p_hi - delta) - math.log(q_lo)


def point_loss(*, p_count: int, p_total: int, q_count: int, q_total: int, delta: float) -> float:
    """The plug-in estimate ln((k_P/n_P − δ)/(k_Q/n_Q)) (for display only; no guarantee)."""
    p, q = p_count / p_total - delta, q_count / q_total
    if p <= 0:
        return -math.inf
    return math.inf if q == 0 else math.log(p) - math.log(q)


# --------------------------------------------------------------------------- file format
@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineEvent:
    """One pair's certified event and its certification counts."""

    pair_index: int
    description: str
    relation: Relation
    dataset: Dataset
    neighbor: Dataset
    event_spec: dict[str, Any]
    event: str
    direction: str
    delta: float
    p_count: int
    p_total: int
    q_count: int
    q_total: int
    epsilon_lower_bound: float

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {self.direction!r}")
        if not (0 <= self.p_count <= self.p_total and 0 <= self.q_count <= self.q_total):
            raise ValueError("counts must satisfy 0 ≤ count ≤ total")
        if self.p_total < 1 or self.q_total < 1:
            raise ValueError("totals must be ≥ 1")
        if not (math.isfinite(self.delta) and 0 <= self.delta < 1):
            raise ValueError(f"delta must be in [0, 1), got {self.delta}")

    @property
    def pair(self) -> NeighborPair:
        return NeighborPair(
            dataset=self.dataset, neighbor=self.neighbor, relation=self.relation, description=self.description
        )

    def build_event(self) -> Event:
        return event_from_spec(self.event_spec)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair_index": self.pair_index,
            "description": self.description,
            "relation": self.relation.value,
            "dataset": self.dataset.to_dict(),
            "neighbor": self.neighbor.to_dict(),
            "event_spec": self.event_spec,
            "event": self.event,
            "direction": self.direction,
            "delta": self.delta,
            "p_count": self.p_count,
            "p_total": self.p_total,
            "q_count": self.q_count,
            "q_total": self.q_total,
            "epsilon_lower_bound": json_number(self.epsilon_lower_bound),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineAudit:
    name: str
    mechanism: str
    """The mechanism's `name` (what a mismatch is checked against)."""
    spec: str
    parameters: tuple[tuple[str, str], ...]
    seed: int
    num_samples: int
    failure_probability: float
    events: tuple[BaselineEvent, ...]
    skipped: tuple[str, ...] = ()
    """Pairs of the baseline run whose event could not be serialised (not comparable)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism,
            "spec": self.spec,
            "parameters": dict(self.parameters),
            "seed": self.seed,
            "num_samples": self.num_samples,
            "failure_probability": self.failure_probability,
            "events": [e.to_dict() for e in self.events],
            "skipped": list(self.skipped),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Baseline:
    audits: dict[str, BaselineAudit]
    package_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": BASELINE_KIND,
            "baseline_version": BASELINE_VERSION,
            "package_version": self.package_version,
            "audits": {name: a.to_dict() for name, a in self.audits.items()},
        }


def baseline_audit_from_result(
    name: str, spec: str, result: AuditResult, pairs: Sequence[NeighborPair]
) -> BaselineAudit:
    """The baseline entry of one audit: each pair's certified event and counts.

    `pairs[i]` must be the pair of `result.pairs[i]` (the pairs the audit ran on, in order)."""
    if len(pairs) != len(result.pairs):
        raise ValueError(f"{len(pairs)} pairs given for a result with {len(result.pairs)} pairs")
    events, skipped = [], []
    for pr, pair in zip(result.pairs, pairs, strict=True):
        if pr.event_spec is None:
            skipped.append(f"pair {pr.index + 1} ({pr.description}): its event cannot be serialised")
            continue
        e = pr.estimate
        events.append(
            BaselineEvent(
                pair_index=pr.index,
                description=pr.description,
                relation=pair.relation,
                dataset=pair.dataset,
                neighbor=pair.neighbor,
                event_spec=dict(pr.event_spec),
                event=e.event,
                direction=e.direction,
                delta=float(pr.claim.delta),
                p_count=e.p_count,
                p_total=e.p_total,
                q_count=e.q_count,
                q_total=e.q_total,
                epsilon_lower_bound=e.epsilon_lower_bound,
            )
        )
    return BaselineAudit(
        name=name,
        mechanism=result.mechanism,
        spec=spec,
        parameters=tuple(result.parameters),
        seed=result.seed,
        num_samples=result.num_samples,
        failure_probability=result.failure_probability,
        events=tuple(events),
        skipped=tuple(skipped),
    )


_FLAT = re.compile(r"\[\s*([^\[\]{}\"]*?)\s*\]")
_ROWS = re.compile(r"\[\s*(\[[^\[\]{}\"]*\](?:,\s*\[[^\[\]{}\"]*\])*)\s*\]")


def _one_line(match: re.Match[str]) -> str:
    return "[" + re.sub(r"\s*,\s*", ", ", match.group(1)) + "]"


def dumps_baseline(baseline: Baseline) -> str:
    """Indented JSON (reviewable diffs) with numeric arrays, e.g. datasets, kept on one line."""
    text = json.dumps(baseline.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)
    return _ROWS.sub(_one_line, _FLAT.sub(_one_line, text)) + "\n"


def write_baseline(baseline: Baseline, path: Path) -> None:
    """Write atomically (temp file + rename): a crash never leaves a truncated baseline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dumps_baseline(baseline), encoding="utf-8")
    tmp.replace(path)


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, where: str, problem: str) -> BaselineError:
        return BaselineError(f"{self.path}: {where + ': ' if where else ''}{problem}")

    def get(self, d: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
        if key not in d:
            raise self.error(where, f"missing field {key!r}")
        value = d[key]
        bad_bool = isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
        if bad_bool or not isinstance(value, kind):
            raise self.error(where, f"field {key!r} has the wrong type ({type(value).__name__})")
        return value

    def number(self, d: dict[str, Any], key: str, where: str, *, finite: bool = True) -> float:
        """A number field; NaN is never accepted (a NaN threshold would make every comparison
        false and the regression test a silent no-op), ±inf only where `finite` is False."""
        value = self.get(d, key, (int, float, str), where)
        try:
            number = float(value)
        except ValueError:
            raise self.error(where, f"field {key!r} is not a number ({value!r})") from None
        if math.isnan(number) or (finite and math.isinf(number)):
            raise self.error(where, f"field {key!r} must be a finite number, got {value!r}")
        return number

    def dataset(self, d: Any, where: str) -> Dataset:
        if not isinstance(d, dict) or "X" not in d:
            raise self.error(where, "a dataset must be an object with 'X' (and 'y')")
        try:
            y = d.get("y")
            return Dataset(np.asarray(d["X"], dtype=np.float64), None if y is None else np.asarray(y, float))
        except (TypeError, ValueError) as exc:
            raise self.error(where, f"invalid dataset: {str(exc).splitlines()[0]}") from None

    def event(self, d: Any, where: str) -> BaselineEvent:
        if not isinstance(d, dict):
            raise self.error(where, "an event entry must be an object")
        spec = self.get(d, "event_spec", dict, where)
        try:
            event_from_spec(spec)
        except (KeyError, TypeError, ValueError) as exc:
            raise self.error(where, f"unusable event_spec: {type(exc).__name__}: {exc}") from None
        try:
            relation = Relation(self.get(d, "relation", str, where))
        except ValueError:
            raise self.error(where, f"unknown relation {d['relation']!r}") from None
        try:
            return BaselineEvent(
                pair_index=self.get(d, "pair_index", int, where),
                description=self.get(d, "description", str, where),
                relation=relation,
                dataset=self.dataset(d.get("dataset"), where),
                neighbor=self.dataset(d.get("neighbor"), where),
                event_spec=spec,
                event=str(d.get("event", "")),
                direction=self.get(d, "direction", str, where),
                delta=self.number(d, "delta", where),
                p_count=self.get(d, "p_count", int, where),
                p_total=self.get(d, "p_total", int, where),
                q_count=self.get(d, "q_count", int, where),
                q_total=self.get(d, "q_total", int, where),
                epsilon_lower_bound=self.number(d, "epsilon_lower_bound", where, finite=False),
            )
        except ValueError as exc:
            if isinstance(exc, BaselineError):
                raise
            raise self.error(where, str(exc)) from None

    def audit(self, name: str, d: Any) -> BaselineAudit:
        where = f"audit {name!r}"
        if not isinstance(d, dict):
            raise self.error(where, "must be an object")
        params = self.get(d, "parameters", dict, where)
        raw_events = self.get(d, "events", list, where)
        return BaselineAudit(
            name=name,
            mechanism=self.get(d, "mechanism", str, where),
            spec=str(d.get("spec", d["mechanism"])),
            parameters=tuple((str(k), str(v)) for k, v in params.items()),
            seed=self.get(d, "seed", int, where),
            num_samples=self.get(d, "num_samples", int, where),
            failure_probability=self.number(d, "failure_probability", where),
            events=tuple(self.event(e, f"{where} event #{k}") for k, e in enumerate(raw_events, 1)),
            skipped=tuple(str(s) for s in d.get("skipped", ())),
        )


def read_baseline(path: Path) -> Baseline:
    """Read and validate a baseline file (BaselineError naming the file on any problem)."""
    reader = _Reader(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise reader.error(
            "", "cannot read baseline: no such file (create one with --update-baseline)"
        ) from None
    except IsADirectoryError:
        raise reader.error("", "cannot read baseline: is a directory") from None
    except OSError as exc:
        raise reader.error("", f"cannot read baseline: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise reader.error("", "not a dpaudit baseline (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise reader.error("", f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or data.get("kind") != BASELINE_KIND:
        raise reader.error("", f'not a dpaudit baseline (no "kind": "{BASELINE_KIND}")')
    version = data.get("baseline_version")
    if version != BASELINE_VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > BASELINE_VERSION
        hint = "written by a newer dpaudit" if newer else "unsupported"
        raise reader.error(
            "",
            f"baseline_version {version!r} is {hint} (this dpaudit reads version {BASELINE_VERSION}); "
            "regenerate it with --update-baseline",
        )
    audits = data.get("audits")
    if not isinstance(audits, dict):
        raise reader.error("", "field 'audits' must be an object")
    return Baseline(
        audits={str(name): reader.audit(str(name), a) for name, a in audits.items()},
        package_version=str(data.get("package_version", "")),
    )


# --------------------------------------------------------------------------- the test
@dataclass(frozen=True, slots=True, kw_only=True)
class RegressionCheck:
    """One baseline event compared with the current mechanism."""

    audit: str
    pair_index: int
    description: str
    event: str
    direction: str
    delta: float
    baseline_counts: tuple[int, int, int, int]
    """(p_count, p_total, q_count, q_total) stored in the baseline."""
    new_counts: tuple[int, int, int, int]
    baseline_upper: float
    """Upper confidence bound on the baseline's loss on the event (fails w.p. ≤ β_i/2)."""
    new_lower: float
    """Lower confidence bound on the current loss on the event (fails w.p. ≤ β_i/2)."""
    baseline_point: float
    new_point: float
    failure_probability: float
    """β_i: this comparison's false-alarm probability (Bonferroni share of the audit's β_reg)."""
    regression: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit,
            "pair_index": self.pair_index,
            "description": self.description,
            "event": self.event,
            "direction": self.direction,
            "delta": self.delta,
            "baseline_counts": list(self.baseline_counts),
            "new_counts": list(self.new_counts),
            "baseline_upper": json_number(self.baseline_upper),
            "new_lower": json_number(self.new_lower),
            "baseline_point": json_number(self.baseline_point),
            "new_point": json_number(self.new_point),
            "failure_probability": self.failure_probability,
            "regression": self.regression,
        }

    @property
    def stale_reason(self) -> str | None:
        """Why this comparison can no longer detect a regression (None while it can): the stored
        upper bound is +∞ (its event never occurred on the Q side in the baseline), or today's
        lower bound is −∞ (the event no longer occurs often enough on the P side to bound the
        loss). Either way "no regression found" would be true but no check at all."""
        if math.isinf(self.baseline_upper) and self.baseline_upper > 0:
            return "the baseline's bound on its event is +∞ (the event never occurred on one side)"
        if math.isinf(self.new_lower) and self.new_lower < 0:
            p, n = self.new_counts[:2]
            return f"its event no longer shows a measurable loss today ({p:,}/{n:,} on the P side)"
        return None

    def describe(self) -> str:
        verdict = "REGRESSION" if self.regression else "no regression found"
        return (
            f"pair {self.pair_index + 1} ({self.description}), event {self.event}: {verdict}: "
            f"loss now ≥ {self.new_lower:.4g} vs baseline ≤ {self.baseline_upper:.4g} "
            f"(point {self.new_point:.4g} vs {self.baseline_point:.4g}; β_i = {self.failure_probability:.3g})"
        )


def compare(
    base: BaselineEvent, audit: str, new_p: int, new_q: int, n: int, failure_probability: float
) -> RegressionCheck:
    """The regression decision for one event from its stored and new counts (β_i = failure_probability)."""
    half = failure_probability / 2
    upper = loss_upper_bound(
        p_count=base.p_count,
        p_total=base.p_total,
        q_count=base.q_count,
        q_total=base.q_total,
        delta=base.delta,
        failure_probability=half,
    )
    lower = loss_lower_bound(
        p_count=new_p, p_total=n, q_count=new_q, q_total=n, delta=base.delta, failure_probability=half
    )
    return RegressionCheck(
        audit=audit,
        pair_index=base.pair_index,
        description=base.description,
        event=base.event,
        direction=base.direction,
        delta=base.delta,
        baseline_counts=(base.p_count, base.p_total, base.q_count, base.q_total),
        new_counts=(new_p, n, new_q, n),
        baseline_upper=upper,
        new_lower=lower,
        baseline_point=point_loss(
            p_count=base.p_count,
            p_total=base.p_total,
            q_count=base.q_count,
            q_total=base.q_total,
            delta=base.delta,
        ),
        new_point=point_loss(p_count=new_p, p_total=n, q_count=new_q, q_total=n, delta=base.delta),
        failure_probability=failure_probability,
        regression=bool(lower > upper),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RegressionReport:
    audit: str
    checks: tuple[RegressionCheck, ...]
    warnings: tuple[str, ...]
    failure_probability: float
    """β_reg of the audit (split equally over `checks`)."""
    num_samples: int
    stale: tuple[str, ...] = ()
    """One line per baseline pair that no longer informs the test (see `stale_message`)."""

    @property
    def regression(self) -> bool:
        return any(c.regression for c in self.checks)


def stale_message(what: str, reason: str) -> str:
    return f"baseline no longer informative for {what}: {reason}: re-run `dpaudit gate --update-baseline`"


def comparable_events(mechanism: Mechanism, base: BaselineAudit) -> tuple[list[BaselineEvent], list[str]]:
    """Baseline events the current mechanism can be re-counted on (decided before any sampling)."""
    usable, warnings = [], [f"baseline: {s}; not compared" for s in base.skipped]
    for e in base.events:
        pair = e.pair
        reason = None if is_neighbor(pair) else f"not a {pair.relation.value} neighbour pair"
        for side in (pair.dataset, pair.neighbor):
            reason = reason or mechanism.domain.check(side)
        reason = reason or mechanism.domain.check_pair(pair)
        if reason is not None:
            warnings.append(
                stale_message(
                    f"pair {e.pair_index + 1} ({e.description})",
                    f"it no longer fits {mechanism.name!r} ({reason}); not compared",
                )
            )
            continue
        usable.append(e)
    return usable, warnings


def recount(
    mechanism: Mechanism,
    events: Sequence[BaselineEvent],
    *,
    num_samples: int,
    seed: int,
    jobs: int = 1,
    backend: str = "loky",
    checkpoint: Checkpoint | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> list[tuple[int, int]]:
    """(count on the dataset side, count on the neighbor side) of each event on fresh samples.

    Chunk (pair, side, c) draws from SeedSequence(seed, spawn_key=(pair, side, REGRESSION_PHASE, c)):
    bit-identical for any `jobs`, independent of the run's selection/certification streams."""
    if not events:
        return []
    probe = draw(mechanism, events[0].dataset, 2, seed, (events[0].pair_index, 0, REGRESSION_PHASE + 1, 0))
    chunk = auto_chunk_size(int(np.prod(probe.shape[1:], dtype=np.int64)))
    counts = np.zeros((len(events), 2), dtype=np.int64)
    tasks = []
    for j, e in enumerate(events):
        ev = [e.build_event()]
        for s, ds in enumerate((e.dataset, e.neighbor)):
            for c, size in enumerate(chunk_sizes(num_samples, chunk)):
                recorded = checkpoint.chunks.get((j, s, c)) if checkpoint else None
                if recorded is not None:
                    counts[j, s] += recorded[0]
                    continue
                key = (e.pair_index, s, REGRESSION_PHASE, c)
                tasks.append(Task(count_events, (mechanism, ds, ev, size, seed, key), size, (j, s, c)))

    def done(task: Task, k: list[int]) -> None:
        j, s, c = task.tag
        counts[j, s] += k[0]
        if checkpoint is not None:
            checkpoint.record_chunk(j, s, c, [int(k[0])])
        if on_chunk is not None:
            on_chunk(task.size)

    run_tasks(tasks, jobs=jobs, backend=backend, on_done=done)
    return [(int(a), int(b)) for a, b in counts]


def regression_checks(
    mechanism: Mechanism,
    base: BaselineAudit,
    *,
    num_samples: int,
    seed: int,
    failure_probability: float,
    jobs: int = 1,
    backend: str = "loky",
    checkpoint_path: Path | None = None,
    resume: bool = False,
) -> RegressionReport:
    """Run the regression test of one audit against its baseline entry (see the module docstring).

    `failure_probability` is β_reg of the audit, split equally over its comparable events."""
    if not 0 < failure_probability < 1:
        raise ValueError(f"failure_probability must be in (0, 1), got {failure_probability}")
    events, warnings = comparable_events(mechanism, base)
    if not events:
        none_left = stale_message(f"audit {base.name!r}", "no baseline event can be compared")
        return RegressionReport(
            audit=base.name,
            checks=(),
            warnings=(*warnings, none_left),
            failure_probability=failure_probability,
            num_samples=num_samples,
            stale=(*(w for w in warnings if w.startswith("baseline no longer informative")), none_left),
        )
    beta_i = failure_probability / len(events)
    checkpoint = None
    if checkpoint_path is not None:
        key = audit_key(
            {
                "regression": base.to_dict(),
                "mechanism": mechanism.name,
                "seed": seed,
                "num_samples": num_samples,
                "phase": REGRESSION_PHASE,
            }
        )
        checkpoint = Checkpoint(checkpoint_path, key, resume=resume)
    try:
        counts = recount(
            mechanism,
            events,
            num_samples=num_samples,
            seed=seed,
            jobs=jobs,
            backend=backend,
            checkpoint=checkpoint,
        )
    finally:
        if checkpoint is not None:
            checkpoint.close()
    checks = []
    for e, (k_dataset, k_neighbor) in zip(events, counts, strict=True):
        kp, kq = (k_dataset, k_neighbor) if e.direction == "dataset>neighbor" else (k_neighbor, k_dataset)
        checks.append(compare(e, base.name, kp, kq, num_samples, beta_i))
    stale_checks = [
        stale_message(f"pair {c.pair_index + 1} ({c.description})", c.stale_reason)
        for c in checks
        if c.stale_reason is not None
    ]
    stale = (*(w for w in warnings if w.startswith("baseline no longer informative")), *stale_checks)
    return RegressionReport(
        audit=base.name,
        checks=tuple(checks),
        warnings=(*warnings, *stale_checks),
        failure_probability=failure_probability,
        num_samples=num_samples,
        stale=stale,
    )
