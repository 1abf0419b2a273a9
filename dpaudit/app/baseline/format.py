"""The baseline file: its JSON format, atomic writing, and reading with validation.

A baseline is JSON, `{"kind": "dpaudit-baseline", "baseline_version": 2, "package_version": …,
"audits": {name: {...}}}`: per configured audit the mechanism's name, spec and parameters, and
per audited pair its *witness*: the event the run reported (`event_spec`, rebuilt with
`events.event_from_spec`), direction, δ, the pair's two datasets (so the event is re-counted on
exactly that pair) and the event's counts (p on the side where it is likelier, q on the other).
Those counts are NOT the run's certification counts: the reported event is the best of up to k
certified events chosen *on* their certification counts, so given the event those counts are not
binomial. `baseline.baseline_audit_from_result` re-counts each witness on fresh streams
(`baseline.BASELINE_PHASE`) that the run never drew from, so given the witness the stored counts
are Binomial(n, P_base(E)) and Binomial(n, Q_base(E)) and the Clopper–Pearson upper bound on the
baseline's loss computed from them is valid. Per pair, `marginals` (optional) holds coordinate
threshold counts from which a gate run chooses one more witness (`baseline_marginals`). Version 1
files stored the certification counts and are refused. A file that cannot be read, is not JSON
or not a dpaudit baseline, has another `baseline_version`, or holds a malformed entry (missing
field, wrong type, unknown event type, invalid dataset) raises BaselineError (exit 2, naming the
file).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from dpaudit.engine.events import Event, event_from_spec, event_spec
from dpaudit.engine.jsonnum import json_number, parse_number
from dpaudit.engine.types import AuditResult
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation

BASELINE_KIND = "dpaudit-baseline"

BASELINE_VERSION = 2
"""2: counts are a fresh re-count of the witness (1 stored the biased certification counts)."""

DIRECTIONS = ("dataset>neighbor", "neighbor>dataset")


class BaselineError(ValueError):
    """An unusable baseline file (one line, naming the file)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BaselineEvent:
    """One pair's witness event and its counts on fresh samples (`p_*` on the likelier side)."""

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
    """The run's certified ε on the event (descriptive; the test uses only the counts)."""

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
class PairMarginals:
    """Counts of {x_c ≥ e} and {x_c ≤ e} for a grid of edges e on the first output coordinates c,
    on both sides of one stored pair (`baseline_marginals`: how they are drawn and used)."""

    pair_index: int
    coordinates: tuple[int, ...]
    edges: tuple[tuple[float, ...], ...]
    """Per coordinate, increasing edges (values seen on a separate edge sample)."""
    at_least: tuple[tuple[tuple[int, ...], ...], ...]
    """[side][coordinate][edge]: #{x_c ≥ e} (side 0 the dataset, 1 the neighbor)."""
    at_most: tuple[tuple[tuple[int, ...], ...], ...]
    """[side][coordinate][edge]: #{x_c ≤ e}."""
    total: int
    ranking_at_least: tuple[tuple[tuple[int, ...], ...], ...] = ()
    """The same counts on other samples (`ranking_total` per side), which only rank events."""
    ranking_at_most: tuple[tuple[tuple[int, ...], ...], ...] = ()
    ranking_total: int = 0
    """0 when the entry has no ranking counts (events are then ranked on today's samples alone)."""

    def __post_init__(self) -> None:
        if len(self.coordinates) != len(self.edges) or self.total < 1 or self.ranking_total < 0:
            raise ValueError("marginals need one edge list per coordinate and total ≥ 1")
        tables = [(self.at_least, self.total), (self.at_most, self.total)]
        if self.ranking_total:
            tables += [
                (self.ranking_at_least, self.ranking_total),
                (self.ranking_at_most, self.ranking_total),
            ]
        for table, total in tables:
            if len(table) != 2 or any(
                len(side) != len(self.edges)
                or any(
                    len(row) != len(e) or any(not 0 <= k <= total for k in row)
                    for row, e in zip(side, self.edges, strict=True)
                )
                for side in table
            ):
                raise ValueError("marginal counts must be [side][coordinate][edge] with 0 ≤ count ≤ total")

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair_index": self.pair_index,
            "coordinates": list(self.coordinates),
            "edges": [list(e) for e in self.edges],
            "at_least": [[list(r) for r in side] for side in self.at_least],
            "at_most": [[list(r) for r in side] for side in self.at_most],
            "total": self.total,
            "ranking_at_least": [[list(r) for r in side] for side in self.ranking_at_least],
            "ranking_at_most": [[list(r) for r in side] for side in self.ranking_at_most],
            "ranking_total": self.ranking_total,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairMarginals:
        """Raises KeyError / TypeError / ValueError on a malformed entry (the reader names it)."""

        def ints(rows: Any) -> tuple[tuple[int, ...], ...]:
            if any(isinstance(k, bool) or not isinstance(k, int) for r in rows for k in r):
                raise TypeError("counts must be integers")
            return tuple(tuple(r) for r in rows)

        edges = tuple(tuple(float(x) for x in e) for e in d["edges"])
        if any(not math.isfinite(x) for e in edges for x in e):
            raise ValueError("edges must be finite")
        return cls(
            pair_index=int(d["pair_index"]),
            coordinates=tuple(int(c) for c in d["coordinates"]),
            edges=edges,
            at_least=tuple(ints(side) for side in d["at_least"]),
            at_most=tuple(ints(side) for side in d["at_most"]),
            total=int(d["total"]),
            ranking_at_least=tuple(ints(side) for side in d.get("ranking_at_least", ())),
            ranking_at_most=tuple(ints(side) for side in d.get("ranking_at_most", ())),
            ranking_total=int(d.get("ranking_total", 0)),
        )


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
    marginals: tuple[PairMarginals, ...] = ()
    """Per stored pair, coordinate marginals for witnesses chosen at gate time (may be absent)."""

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
            "marginals": [m.to_dict() for m in self.marginals],
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


WITNESS_CHOICES = ("reported", "certified")
"""`witnesses` of a baseline entry: each pair's reported event, or every event its primary test
certified (the reported one first; the regression test splits β_reg across all of them)."""


def witness_entry_from_result(
    name: str, spec: str, result: AuditResult, pairs: Sequence[NeighborPair], *, witnesses: str = "reported"
) -> BaselineAudit:
    """Each pair's witnesses with the run's *certification* counts: not a valid baseline
    (see the module docstring) until `baseline.baseline_audit_from_result` replaces the counts.

    `pairs[i]` must be the pair of `result.pairs[i]` (the pairs the audit ran on, in order).
    `witnesses="certified"` adds the other events the pair's primary test certified
    (`result.extra["certified_events"]`), so a regression that one event misses may show on
    another, at β_reg split over more events."""
    if len(pairs) != len(result.pairs):
        raise ValueError(f"{len(pairs)} pairs given for a result with {len(result.pairs)} pairs")
    if witnesses not in WITNESS_CHOICES:
        raise ValueError(f"witnesses must be one of {', '.join(WITNESS_CHOICES)}, got {witnesses!r}")
    events, skipped = [], []
    for pr, pair in zip(result.pairs, pairs, strict=True):
        if pr.event_spec is None:
            skipped.append(f"pair {pr.index + 1} ({pr.description}): its event cannot be serialised")
            continue
        e = pr.estimate
        reported = BaselineEvent(
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
        events.append(reported)
        if witnesses == "certified":
            events.extend(_other_certified(result, reported))
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


def _other_certified(result: AuditResult, reported: BaselineEvent) -> list[BaselineEvent]:
    """The other serialisable events of the reported event's primary test, as witnesses of the
    same pair (counts are placeholders until the fresh re-count)."""
    tests = cast("Sequence[dict[str, Any]]", result.extra.get("certified_events", ()))
    records = [
        r
        for t in tests
        if t.get("primary") and t.get("pair") == reported.pair_index
        for r in t["events"]
        if not r.get("reported") and r.get("spec") is not None
    ]
    return [
        dataclasses.replace(
            reported,
            event_spec=dict(r["spec"]),
            event=str(r["event"]),
            direction=str(r["direction"]),
            epsilon_lower_bound=parse_number(r["certified"]),
        )
        for r in records
    ]


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


def _nan_field(value: Any, path: str = "") -> str:
    """The path of the first NaN in a JSON-like value ("threshold", "projection[2]"), or "".
    A string reading as NaN counts (`event_from_spec` parses numbers with `float`)."""
    if isinstance(value, dict):
        return next(
            (f for k, v in value.items() if (f := _nan_field(v, f"{path}.{k}" if path else str(k)))), ""
        )
    if isinstance(value, list | tuple):
        return next((f for i, v in enumerate(value) if (f := _nan_field(v, f"{path}[{i}]"))), "")
    if isinstance(value, float | str) and not isinstance(value, bool):
        try:
            return path or "value" if math.isnan(float(value)) else ""
        except ValueError:
            return ""
    return ""


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
            return Dataset.from_dict(d)
        except (TypeError, ValueError) as exc:
            raise self.error(where, f"invalid dataset: {str(exc).splitlines()[0]}") from None

    def event(self, d: Any, where: str) -> BaselineEvent:
        if not isinstance(d, dict):
            raise self.error(where, "an event entry must be an object")
        spec = self.get(d, "event_spec", dict, where)
        try:
            rebuilt = event_spec(event_from_spec(spec))
        except (KeyError, TypeError, ValueError) as exc:
            raise self.error(where, f"unusable event_spec: {type(exc).__name__}: {exc}") from None
        nan_at = _nan_field(spec) or _nan_field(rebuilt or {})
        if nan_at:  # a NaN threshold never holds: the witness would silently stop occurring
            raise self.error(where, f"event_spec field {nan_at!r} must be a number, got NaN")
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
            marginals=self.marginals(d.get("marginals", []), where),
        )

    def marginals(self, raw: Any, where: str) -> tuple[PairMarginals, ...]:
        if not isinstance(raw, list):
            raise self.error(where, "field 'marginals' must be a list")
        out = []
        for k, m in enumerate(raw, 1):
            try:
                out.append(PairMarginals.from_dict(m))
            except (KeyError, TypeError, ValueError) as exc:
                raise self.error(f"{where} marginals #{k}", f"{type(exc).__name__}: {exc}") from None
        return tuple(out)


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
        if version == 1:
            hint = "unsupported (its counts are the certification counts of the reported event, which the "
            hint += "regression test's proof cannot use)"
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
