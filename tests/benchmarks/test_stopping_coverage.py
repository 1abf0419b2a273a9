"""`benchmarks/stopping_coverage.py --route`: seeded audits through the whole sequential default
route. Its audits must reach the pair search (a fallback to the registered pairs would not test
the search's selection), and a correct mechanism at its exact ε is not flagged."""

from __future__ import annotations

import pytest

from benchmarks.stopping_coverage import _route_audit, route_coverage


@pytest.mark.parametrize("name", ["laplace_sum", "randomized_response"])
def test_route_audits_search_and_do_not_flag_the_exact_claim(name: str) -> None:
    violation, epsilon, searched, second = _route_audit(name, 3, 0.5, 30_000)
    assert searched and not violation and epsilon <= 1.0
    assert not second  # at 30,000 per side the search is one round (route.SEARCH_ROUNDS_MIN)


def test_route_audits_at_a_larger_budget_search_in_two_rounds() -> None:
    violation, epsilon, searched, second = _route_audit("randomized_response", 3, 0.5, 150_000)
    assert searched and second and not violation and epsilon <= 1.0


def test_route_coverage_prints_one_row_per_level(capsys: pytest.CaptureFixture[str]) -> None:
    route_coverage(2, 30_000, 1, rows=("laplace_sum",))
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 0.")]
    assert [r.split(" | ")[0] for r in rows] == ["| 0.05", "| 0.5"]
    assert all(r.endswith("| 2/2 | 0/2 |") for r in rows)  # both audits searched, in one round
