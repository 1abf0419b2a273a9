"""pytest plugin: gate a test suite on privacy (issue 8, item 3).

A library's own tests can assert that a mechanism shows no privacy violation::

    from dpaudit.app.pytest_plugin import assert_no_violation

    def test_my_mechanism_is_private():
        assert_no_violation(my_mechanism, num_samples=200_000)   # or "laplace_sum"

or, equivalently, through the fixture (installed with the package as the pytest11 entry point
``dpaudit``, so no conftest is needed)::

    def test_private(dpaudit_audit):
        result = dpaudit_audit("laplace_sum", num_samples=50_000)

`assert_no_violation` runs the route of `dpaudit run` (`app.route.certify`, its budget guard
included) on the mechanism's registered worst-case pairs (or boundary templates from its domain,
as `dpaudit run --pairs registered|templates` does; or the `pairs` given) and returns the
`AuditResult`. If the certified lower bound exceeds the proved claim on any pair it
raises `AssertionError` naming each violating pair (description, relation), the claim it breaks
(ε, δ, reference, proved/stated), the certified bounds (ε lower bound, δ lower bound at the
claimed ε, confidence, samples per side) and the command that reproduces the audit. As for the
CLI, a bound below the claim is only "no violation found at this power": when the budget cannot
refute the claim at all (claimed ε above what the samples can certify), a `DPAuditPowerWarning`
is emitted, and when the verdict is "inconclusive" (no power, or no event certifying any loss)
the test is skipped with the reason (`InconclusiveAudit`, a `pytest.skip` outcome), so a vacuous
gate never passes silently.

`mechanism` may be a `Mechanism` (e.g. built with `mechanisms.base.from_callable`), a registered
name (`"laplace_sum"`, parameters through `params={"epsilon": 0.5}`), or `"package.module:attr"`.
`num_samples=None` uses the registry's `default_num_samples` for registered mechanisms and
`DEFAULT_NUM_SAMPLES` otherwise.

Command-line options (for CI, e.g. a cheap budget on pull requests and a large one nightly):

``--dpaudit-samples N``
    replace every audit's `num_samples` by N (per side and pair).
``--dpaudit-scale F``
    multiply every audit's `num_samples` by F (applied after ``--dpaudit-samples``; ≥ 200).
``--dpaudit-seed S``
    replace every audit's seed (e.g. a rotating seed in a nightly job).

The overrides apply to the fixture and to direct calls of `assert_no_violation` made while
pytest runs. Tests that use the fixture get the ``dpaudit`` marker automatically (select or
deselect them with ``-m dpaudit`` / ``-m "not dpaudit"``); the marker may also be put on tests
that call `assert_no_violation` directly. With the fixture, the certified bounds are recorded
as the test's ``user_properties`` (they appear in pytest's JUnit XML).

Everything heavy (numpy, the registry, the runner) is imported inside the functions, so the
plugin adds nothing measurable to pytest's start-up.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.outcomes import Skipped  # `pytest.skip.Exception`, importable for a subclass

if TYPE_CHECKING:
    from dpaudit.engine.types import AuditResult, PairResult
    from dpaudit.mechanisms.base import Mechanism, PrivacyClaim
    from dpaudit.neighbors.base import NeighborPair

DEFAULT_NUM_SAMPLES = 100_000
"""Budget for a mechanism the registry does not know (per side and pair)."""

MIN_NUM_SAMPLES = 200  # AuditConfig's minimum


class DPAuditPowerWarning(UserWarning):
    """The audit cannot refute the claim at this budget: "no violation" means nothing here."""


class PrivacyViolationError(AssertionError):
    """A certified privacy violation; `result` is the full `AuditResult`."""

    def __init__(self, message: str, result: AuditResult) -> None:
        super().__init__(message)
        self.result = result


class InconclusiveAudit(Skipped):
    """The audit could not judge the claim (verdict "inconclusive": no power or no evidence): the
    test is skipped with the reason, neither passed nor failed; `result` is the `AuditResult`."""

    def __init__(self, message: str, result: AuditResult) -> None:
        super().__init__(msg=message)
        self.result = result


@dataclasses.dataclass(frozen=True, slots=True)
class _Overrides:
    num_samples: int | None = None
    scale: float | None = None
    seed: int | None = None


_overrides = _Overrides()
_saved_key = pytest.StashKey[_Overrides]()


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.4g}"


def _claim_text(c: PrivacyClaim) -> str:
    return f"ε={_fmt(c.epsilon)} δ={_fmt(c.delta)} ({c.relation.value}; {c.reference}; {c.kind.value})"


def _budget(num_samples: int | None, default: int) -> int:
    n = num_samples if num_samples is not None else default
    if _overrides.num_samples is not None:
        n = _overrides.num_samples
    if _overrides.scale is not None:
        n = round(n * _overrides.scale)
    return max(int(n), MIN_NUM_SAMPLES)


def _resolve(
    mechanism: Mechanism | str, params: Mapping[str, object] | None
) -> tuple[Mechanism, int, list[str] | None]:
    """The mechanism, its default budget and the `dpaudit run` arguments naming it (if any)."""
    from dpaudit.mechanisms.registry import entries, resolve

    if isinstance(mechanism, str):
        raw = {k: str(v) for k, v in (params or {}).items()}
        mech, entry = resolve(mechanism, raw)
        words = [mechanism]
        for k, v in raw.items():
            words += ["--param", f"{k}={v}"]
        return mech, entry.default_num_samples if entry else DEFAULT_NUM_SAMPLES, words
    if params:
        raise TypeError("params= applies to a mechanism given by name; build the object with them instead")
    name = mechanism.name
    entry = entries().get(name)
    if entry is None or not isinstance(entry.factory, type) or not isinstance(mechanism, entry.factory):
        return mechanism, DEFAULT_NUM_SAMPLES, None
    words = [name]
    if dataclasses.is_dataclass(mechanism):
        for f in dataclasses.fields(mechanism):
            if not f.init or f.name == "name" or f.default is dataclasses.MISSING:
                continue
            value = getattr(mechanism, f.name)
            if value != f.default:
                words += ["--param", f"{f.name}={value}"]
    return mechanism, entry.default_num_samples, words


def _pair_text(pr: PairResult) -> str:
    from dpaudit.reports.words import witness_words

    e = pr.estimate
    witness = f" ({witness_words(e)})" if e.infinite_witness else ""
    return (
        f"  pair {pr.index + 1}: {pr.description!r} ({pr.relation.value})\n"
        f"    breaks claim {_claim_text(pr.claim)}\n"
        f"    certified ε ≥ {_fmt(e.epsilon_lower_bound)}, δ ≥ {_fmt(e.delta_lower_bound)} at the claimed "
        f"ε={_fmt(pr.claim.epsilon)}{witness}\n"
        f"    event {e.event} [{e.distinguisher}, {e.direction}]: "
        f"P ≥ {e.p_lower:.4g} ({e.p_count:,}/{e.p_total:,}), "
        f"Q ≤ {e.q_upper:.4g} ({e.q_count:,}/{e.q_total:,})"
    )


def violation_message(result: AuditResult, command: str | None = None) -> str:
    """The assertion message for a result with a violation (also usable on a loaded JSON)."""
    bad = [pr for pr in result.pairs if pr.violation]
    c = result.claim
    lines = [
        f"dpaudit: privacy VIOLATION FOUND for {result.mechanism} "
        f"on {len(bad)} of {len(result.pairs)} pair(s)",
        f"  claim: {_claim_text(c)}",
        f"  certified: ε ≥ {_fmt(result.epsilon_lower_bound)} "
        f"(δ ≥ {_fmt(result.delta_lower_bound)} at the claimed ε), "
        f"confidence {1 - result.failure_probability:g} (failure probability {result.failure_probability:g}, "
        f"{result.test_level:.3g} per test), "
        f"{result.num_samples:,} samples per side and pair ({result.certification_samples:,} certifying), "
        f"seed {result.seed}",
    ]
    lines += [_pair_text(pr) for pr in bad]
    for check in result.claims:
        if check.exceeded and check.claim != c:
            lines.append(
                f"  also exceeded: {_claim_text(check.claim)}, "
                f"certified ε ≥ {_fmt(check.epsilon_lower_bound)}"
            )
    lines += [f"  finding: {f}" for f in result.findings]
    if command:
        lines.append(f"  reproduce: {command}")
    return "\n".join(lines)


def assert_no_violation(
    mechanism: Mechanism | str,
    *,
    pairs: Sequence[NeighborPair] | None = None,
    num_samples: int | None = None,
    seed: int = 0,
    failure_probability: float = 0.05,
    jobs: int = 1,
    backend: str = "loky",
    params: Mapping[str, object] | None = None,
) -> AuditResult:
    """Audit `mechanism`; raise AssertionError if a privacy violation is certified.

    Returns the `AuditResult` when no violation is found (at this power: check
    `result.epsilon_lower_bound` against the claim to see how tight the audit was).
    """
    __tracebackhide__ = True  # the failure points at the caller's test, not at the plugin
    from dpaudit.engine.types import AuditConfig

    from .route import Route, certify

    mech, default_n, words = _resolve(mechanism, params)
    n = _budget(num_samples, default_n)
    if _overrides.seed is not None:
        seed = _overrides.seed
    config = AuditConfig(
        num_samples=n, seed=seed, failure_probability=failure_probability, jobs=jobs, backend=backend
    )
    route = Route(mode="registered") if pairs is None else Route(mode="explicit", pairs=tuple(pairs))
    base = ""
    if words is not None and pairs is None:
        base = shlex.join(
            [
                *("dpaudit", "run", *words),
                *("--num-samples", str(n), "--seed", str(seed)),
                *("--failure-probability", repr(float(failure_probability))),
            ]
        )
    # the one route of `run`, `audit()` and the gate; it appends the `--pairs` it audited
    result = certify(mech, config, route, command=base, show_progress=False).result
    command = result.command if base else None
    if not base:
        result = dataclasses.replace(result, command="")
    for w in result.warnings:
        warnings.warn(f"dpaudit: {result.mechanism}: {w}", DPAuditPowerWarning, stacklevel=2)
    if result.violation:
        raise PrivacyViolationError(violation_message(result, command), result)
    if result.inconclusive:
        reproduce = f"; reproduce: {command}" if command else ""
        raise InconclusiveAudit(
            f"dpaudit: {result.mechanism}: inconclusive: {result.inconclusive_reason}{reproduce}", result
        )
    return result


# --- pytest hooks -------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text.replace("_", ""))
    if value < MIN_NUM_SAMPLES:
        raise ValueError(f"need at least {MIN_NUM_SAMPLES} samples")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise ValueError("need a positive scale")
    return value


def _seed(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("need a non-negative seed")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpaudit", "privacy audits (dpaudit)")
    group.addoption(
        "--dpaudit-samples",
        type=_positive_int,
        default=None,
        metavar="N",
        help="replace the num_samples of every dpaudit audit by N (per side and pair)",
    )
    group.addoption(
        "--dpaudit-scale",
        type=_positive_float,
        default=None,
        metavar="F",
        help="multiply the num_samples of every dpaudit audit by F",
    )
    group.addoption(
        "--dpaudit-seed",
        type=_seed,
        default=None,
        metavar="S",
        help="replace the seed of every dpaudit audit",
    )


def pytest_configure(config: pytest.Config) -> None:
    global _overrides
    config.addinivalue_line("markers", "dpaudit: a privacy audit (dpaudit); select with -m dpaudit")
    config.stash[_saved_key] = _overrides  # restored at unconfigure (pytester runs nest sessions)
    _overrides = _Overrides(
        num_samples=config.getoption("dpaudit_samples", None),
        scale=config.getoption("dpaudit_scale", None),
        seed=config.getoption("dpaudit_seed", None),
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    global _overrides
    _overrides = config.stash.get(_saved_key, _Overrides())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "dpaudit_audit" in getattr(item, "fixturenames", ()):
            item.add_marker("dpaudit")


def pytest_report_header(config: pytest.Config) -> str | None:
    if _overrides == _Overrides():
        return None
    parts = [f"{k}={v}" for k, v in dataclasses.asdict(_overrides).items() if v is not None]
    return "dpaudit overrides: " + ", ".join(parts)


@pytest.fixture
def dpaudit_audit(request: pytest.FixtureRequest) -> Callable[..., AuditResult]:
    """`assert_no_violation`, recording the certified bounds in the test's user_properties."""

    def record(result: AuditResult) -> None:
        request.node.user_properties.extend(
            [
                ("dpaudit_mechanism", result.mechanism),
                ("dpaudit_verdict", result.verdict.value),
                ("dpaudit_epsilon_lower_bound", f"{result.epsilon_lower_bound:.6g}"),
                ("dpaudit_delta_lower_bound", f"{result.delta_lower_bound:.6g}"),
                ("dpaudit_num_samples", str(result.num_samples)),
            ]
        )

    def audit(mechanism: Mechanism | str, **kwargs: Any) -> AuditResult:
        __tracebackhide__ = True
        try:
            result = assert_no_violation(mechanism, **kwargs)
        except (PrivacyViolationError, InconclusiveAudit) as exc:
            record(exc.result)
            raise
        record(result)
        return result

    return audit
