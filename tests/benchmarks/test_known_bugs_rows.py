"""The known-bugs benchmark's rows (issue 34, item 7) are well formed and readable without
importing them: every row names its package, issue, versions with expected verdicts and the
requirements of each version, and builds its mechanism through the generic adapters."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.append(str(BENCH))  # last: benchmarks/opacus.py must not shadow the opacus package

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
    # the user's Opacus training, kept in the package as the preset opacus_make_private_small_n
    "dpaudit.mechanisms.opacus.small_n": {"PINNED_DIVISOR", "opacus_make_private_small_n"},
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
    """Every size the Opacus training's domain allows gets the claim's q from make_private, while
    the divisor int(n·q) changes inside the domain (the #571 witness is reachable); the control
    pins the divisor the nominal size gives. Needs neither torch nor Opacus."""
    from dpaudit.mechanisms.opacus import small_n
    from dpaudit.mechanisms.opacus.common import loader_rates

    row = known_bugs.read_row(BENCH / "known_bugs_rows" / "opacus_expected_batch_size.py")
    pinned = known_bugs.read_row(BENCH / "known_bugs_rows" / "opacus_expected_batch_size_pinned.py")
    b = small_n.BATCH_SIZE
    q, nominal = loader_rates(small_n.NOMINAL_SIZE, b)
    rates = {loader_rates(n, b) for n in range(small_n.MIN_SIZE, small_n.MAX_SIZE + 1)}
    assert {r[0] for r in rates} == {q}
    assert len({r[1] for r in rates}) > 1
    assert nominal == small_n.PINNED_DIVISOR
    assert pinned["REQUIREMENTS"] == row["REQUIREMENTS"] and pinned["VERSIONS"] == {"1.6.0": "no violation"}


def test_opacus_small_n_preset_is_registered_with_opacus() -> None:
    """With Opacus installed, the training is the registered preset, blind (no pair), add/remove."""
    from dpaudit.mechanisms.opacus.common import opacus_available
    from dpaudit.mechanisms.registry import resolve

    if not opacus_available():  # by package metadata: benchmarks/opacus.py is on this test's path
        pytest.skip("needs the opacus extra")

    mech, entry = resolve("opacus_make_private_small_n")
    assert entry is not None and entry.family == "opacus"
    assert mech.claim.relation.value == "add_remove_one" and not mech.neighbor_pairs()


def test_a_stated_claim_violation_is_flagged_and_labelled() -> None:
    """Issue 42: the diffprivlib rows' claims are the library's statements (STATED, the only
    claim): the one verdict rule still flags them, and the table says they are stated claims."""
    row = {"PACKAGE": "diffprivlib", "ROW": "diffprivlib_nb_blind", "ISSUE": "#80", "NUM_SAMPLES": 2000}
    claim = {"epsilon": 1.0, "kind": "stated"}
    flagged = {"verdict": "violation_found", "claim": claim, "epsilon_lower_bound": 3.0}
    text = known_bugs.line(row, "0.6.3", "violation", flagged, 1.0, 1.0, "1 MiB")
    assert "| violation (stated claim) |" in text and "unexpected" not in text
    missed = {"verdict": "no_violation_found", "claim": claim, "epsilon_lower_bound": 0.5}
    assert "no violation (stated claim) (unexpected)" in known_bugs.line(
        row, "0.6.3", "violation", missed, 1.0, 1.0, "1 MiB"
    )
    proved = {**flagged, "claim": {"epsilon": 1.0, "kind": "proved"}}
    assert "| violation |" in known_bugs.line(row, "0.6.3", "violation", proved, 1.0, 1.0, "1 MiB")
