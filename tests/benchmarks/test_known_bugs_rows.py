"""The known-bugs benchmark's rows (issue 34, item 7) are well formed and readable without
importing them: every row names its package, issue, versions with expected verdicts and the
requirements of each version, and builds its mechanism through the generic adapters."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import known_bugs  # noqa: E402


def test_every_row_is_complete() -> None:
    rows = known_bugs.rows([])
    assert len(rows) >= 5
    for row in rows:
        versions, reqs = row["VERSIONS"], row["REQUIREMENTS"]
        assert isinstance(versions, dict) and isinstance(reqs, dict)
        assert set(versions) == set(reqs), row["ROW"]
        assert set(versions.values()) <= {"violation", "no violation"}, row["ROW"]
        assert "#" in str(row["ISSUE"]) and int(str(row["NUM_SAMPLES"])) >= 200


# Beyond the public names: claim curves, and the smartnoise call with its claim (the library's
# `DPcovariance(...).release(table)` and the Laplace claim; no pair and no statistic).
ALLOWED = {
    "dpaudit.mechanisms.base": {"ClaimCurve", "CurveKind"},
    "dpaudit.mechanisms.libraries.smartnoise_adapters": {"CovarianceRelease", "covariance_claim"},
    # Opacus' own accountant replayed as the claim, and the q make_private derives from a loader
    "dpaudit.mechanisms.opacus.common": {"loader_rates", "opacus_claim"},
}


def test_rows_use_only_the_generic_adapters() -> None:
    """No row imports a dpaudit module other than the public names and the generic adapters."""
    for path in sorted((BENCH / "known_bugs_rows").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpaudit."):
                assert node.module in ALLOWED, (path.name, node.module)
                assert {a.name for a in node.names} <= ALLOWED[node.module], path.name


def test_rows_run_outside_benchmarks(tmp_path: Path) -> None:
    """The rows' import root links to `known_bugs_rows` only, so `benchmarks/opacus.py` cannot
    shadow the `opacus` package in a row's venv; a second call keeps the link."""
    home = known_bugs.rows_folder(tmp_path)
    assert known_bugs.rows_folder(tmp_path) == home
    assert sorted(p.name for p in home.iterdir()) == ["known_bugs_rows"]
    assert (home / "known_bugs_rows").resolve() == known_bugs.ROWS
    assert not (home / "opacus.py").exists()


def test_only_unknown_row_is_a_usage_error() -> None:
    with pytest.raises(SystemExit, match="no row named"):
        known_bugs.rows(["no_such_row"])


def test_diffprivlib_blind_row_builds_with_the_library() -> None:
    pytest.importorskip("diffprivlib")
    from known_bugs_rows import diffprivlib_nb_blind

    mech = diffprivlib_nb_blind.mechanism()
    assert mech.claim.kind.value == "stated" and mech.domain.labels == (0.0, 1.0, 2.0)


def test_opacus_row_domain_straddles_a_divisor_step_at_one_rate() -> None:
    """Every size the Opacus row's domain allows gets the claim's q from make_private, while the
    divisor int(n·q) changes inside the domain (the #571 witness is reachable); the control pins
    the divisor the nominal size gives. Needs neither torch nor Opacus."""
    from dpaudit.mechanisms.opacus.common import loader_rates

    row = known_bugs.read_row(BENCH / "known_bugs_rows" / "opacus_expected_batch_size.py")
    pinned = known_bugs.read_row(BENCH / "known_bugs_rows" / "opacus_expected_batch_size_pinned.py")
    b, low, high = int(row["BATCH_SIZE"]), int(row["MIN_SIZE"]), int(row["MAX_SIZE"])  # type: ignore[call-overload]
    q, nominal = loader_rates(int(row["NOMINAL_SIZE"]), b)  # type: ignore[call-overload]
    rates = {loader_rates(n, b) for n in range(low, high + 1)}
    assert {r[0] for r in rates} == {q}
    assert len({r[1] for r in rates}) > 1
    assert pinned["DIVISOR"] == nominal
    assert pinned["REQUIREMENTS"] == row["REQUIREMENTS"] and pinned["VERSIONS"] == {"1.6.0": "no violation"}
