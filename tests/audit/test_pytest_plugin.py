"""The pytest plugin (audit/pytest_plugin.py): fixture, assertion message, CI options.

Every audit here is seeded, so each outcome is deterministic. Statistically: a correct
mechanism is flagged with probability ≤ its `failure_probability` for any seed (the audit's
certified guarantee); the buggy twin laplace_sum_range_bug (true ε = 2 on the full-range
pair, claim ε = 1) is certified at ε ≥ 1.9 with 20,000 samples, far from the boundary, so
its detection does not hinge on the seed.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from dpaudit.app import pytest_plugin
from dpaudit.app.pytest_plugin import (
    DPAuditPowerWarning,
    InconclusiveAudit,
    PrivacyViolationError,
    assert_no_violation,
    violation_message,
)
from dpaudit.engine.types import Verdict
from dpaudit.mechanisms.base import from_callable
from dpaudit.mechanisms.buggy import LaplaceSumRangeBug
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset

pytest_plugins = ["pytester"]

INNER_TESTS = """
from dpaudit.app.pytest_plugin import assert_no_violation

def test_correct(dpaudit_audit):
    result = dpaudit_audit("laplace_sum", num_samples=20_000, failure_probability=1e-3)
    print("BUDGET", result.num_samples, result.seed)

def test_buggy(dpaudit_audit):
    dpaudit_audit("laplace_sum_range_bug", num_samples=20_000)

def test_direct_call():
    assert_no_violation("laplace_sum", num_samples=20_000, failure_probability=1e-3)
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester project that loads the plugin explicitly (whether or not the pytest11 entry
    point is installed in this environment: autoloading is off, so it is never loaded twice)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_privacy=INNER_TESTS)
    return pytester


def _run(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    before = pytest_plugin._overrides
    result = p.runpytest("-p", "dpaudit.app.pytest_plugin", "-p", "no:cacheprovider", *args)
    assert pytest_plugin._overrides == before  # the inner session restores the outer's options
    return result


def test_fixture_passes_correct_and_fails_buggy_naming_pair_and_bounds(inner: pytest.Pytester) -> None:
    result = _run(inner, "-s")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "test_privacy.py::test_buggy FAILED" in out or "FAILED test_privacy.py::test_buggy" in out
    assert "BUDGET 20000 0" in out
    # The failure message names the violating pair, the claim and the certified bounds.
    result.stdout.fnmatch_lines(
        [
            "*privacy VIOLATION FOUND for laplace_sum_range_bug*",
            "*claim: ε=1 δ=0 (replace_one; *Dwork & Roth 2014, Thm 3.6*; proved)*",
            "*certified: ε ≥ * (δ ≥ * at the claimed ε), confidence 0.95*20,000 samples per side*",
            "*pair 1: 'replace one record low → high (full range)' (replace_one)*",
            "*certified ε ≥ *, δ ≥ * at the claimed ε=1*",
            "*reproduce: dpaudit run laplace_sum_range_bug --num-samples 20000 --seed 0*",
        ]
    )
    # The traceback ends in the user's test, not inside the plugin.
    assert "pytest_plugin.py" not in out


def test_cli_options_override_budget_and_seed(inner: pytest.Pytester) -> None:
    result = _run(inner, "-s", "-k", "correct", "--dpaudit-samples", "4000", "--dpaudit-seed", "7")
    result.assert_outcomes(passed=1, deselected=2)
    assert "BUDGET 4000 7" in result.stdout.str()
    result.stdout.fnmatch_lines(["dpaudit overrides: num_samples=4000, seed=7"])

    scaled = _run(inner, "-s", "-k", "correct", "--dpaudit-scale", "0.25")
    scaled.assert_outcomes(passed=1, deselected=2)
    assert "BUDGET 5000 0" in scaled.stdout.str()


def test_bad_cli_option_is_a_usage_error(inner: pytest.Pytester) -> None:
    result = _run(inner, "--dpaudit-samples", "10")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_fixture_tests_get_the_marker_and_junit_properties(inner: pytest.Pytester) -> None:
    deselected = _run(inner, "-m", "not dpaudit")
    deselected.assert_outcomes(passed=1, deselected=2)  # only the direct call remains

    _run(inner, "-k", "correct", "--junitxml=out.xml")
    xml = (inner.path / "out.xml").read_text(encoding="utf-8")
    assert 'name="dpaudit_verdict" value="no_violation_found"' in xml
    match = re.search(r'name="dpaudit_epsilon_lower_bound" value="([^"]+)"', xml)
    assert match is not None and float(match.group(1)) < 1.0


# --- direct calls ---------------------------------------------------------------------------


def test_correct_mechanism_object_returns_result() -> None:
    # false failure ≤ 1e-3 for any seed (certified), deterministic at this seed
    result = assert_no_violation(LaplaceSum(), num_samples=20_000, seed=3, failure_probability=1e-3)
    assert result.verdict is Verdict.NO_VIOLATION_FOUND
    assert result.num_samples == 20_000 and result.seed == 3
    assert result.command.startswith("dpaudit run laplace_sum --num-samples 20000 --seed 3")


def test_buggy_object_raises_with_pair_claim_bounds_and_command() -> None:
    with pytest.raises(AssertionError) as info:
        assert_no_violation(LaplaceSumRangeBug(epsilon=0.5), num_samples=20_000)
    err = info.value
    assert isinstance(err, PrivacyViolationError)
    message = str(err)
    result = err.result
    bad = [pr for pr in result.pairs if pr.violation]
    assert bad
    for pr in bad:
        assert repr(pr.description) in message and f"({pr.relation.value})" in message
        assert f"certified ε ≥ {pr.estimate.epsilon_lower_bound:.4g}" in message
    assert f"ε ≥ {result.epsilon_lower_bound:.4g}" in message
    assert f"δ ≥ {result.delta_lower_bound:.4g}" in message
    assert "ε=0.5 δ=0 (replace_one;" in message and "; proved)" in message
    assert "confidence 0.95" in message and "20,000 samples per side" in message
    assert "--param epsilon=0.5" in message  # non-default parameters are part of the command
    assert message == violation_message(result, result.command)


def test_registered_name_with_params() -> None:
    result = assert_no_violation(
        "laplace_sum", params={"epsilon": 0.5}, num_samples=10_000, failure_probability=1e-3
    )
    assert result.claim.epsilon == 0.5
    assert "--param epsilon=0.5" in result.command
    with pytest.raises(PrivacyViolationError, match="laplace_sum_range_bug"):
        assert_no_violation("laplace_sum_range_bug", num_samples=10_000)


def test_from_callable_mechanism_with_explicit_pairs() -> None:
    ref = LaplaceSum()

    def leaky_sum(dataset: Dataset, rng: np.random.Generator) -> float:
        return float(dataset.X.sum()) + rng.laplace(0.0, 0.5)  # half the noise ε=1 needs

    def private_sum(dataset: Dataset, rng: np.random.Generator) -> float:
        return float(dataset.X.sum()) + rng.laplace(0.0, ref.scale)

    pairs = ref.neighbor_pairs()[:1]
    common: dict[str, Any] = {"claim": ref.claim, "domain": ref.domain, "claims": ref.claims}
    ok = from_callable(private_sum, name="my_private_sum", **common)
    result = assert_no_violation(ok, pairs=pairs, num_samples=4000, failure_probability=1e-3)
    assert len(result.pairs) == 1 and result.command == ""

    leaky = from_callable(leaky_sum, name="my_leaky_sum", **common)
    with pytest.raises(PrivacyViolationError) as info:
        assert_no_violation(leaky, pairs=pairs, num_samples=4000)
    assert "my_leaky_sum" in str(info.value) and "reproduce:" not in str(info.value)


def test_unrefutable_claim_warns_and_skips_as_inconclusive() -> None:
    # ε = 20 is above what 300 samples can certify: "no violation" would be vacuous (issue 42).
    with (
        pytest.warns(DPAuditPowerWarning, match="cannot find a violation at this budget"),
        pytest.raises(InconclusiveAudit, match="inconclusive: no power") as info,
    ):
        assert_no_violation(LaplaceSum(epsilon=20.0), num_samples=300)
    assert info.value.result.verdict.value == "inconclusive"
    assert "--pairs registered" in str(info.value)


def test_params_with_object_is_an_error() -> None:
    with pytest.raises(TypeError, match="params"):
        assert_no_violation(LaplaceSum(), params={"epsilon": 2})
