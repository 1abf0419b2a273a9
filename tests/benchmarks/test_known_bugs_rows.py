"""The known-bugs benchmark's rows (issue 34, item 7) are well formed and readable without
importing them: every row names its package, issue, versions with expected verdicts and the
requirements of each version, and builds its mechanism through the generic adapters."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

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


HAND_WRITTEN = {"NeighborPair", "MixtureLLR"}
"""Public names that build a neighbour pair or a statistic (`dpaudit.NeighborPair`,
`dpaudit.MixtureLLR`): a row that reaches one has hand-written pairs or statistics."""


def _annotations(tree: ast.AST) -> set[int]:
    """Nodes inside type annotations (naming a type there builds nothing)."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            roots.append(node.returns)
    return {id(n) for root in roots for n in ast.walk(root)}


def _constructors(tree: ast.AST, aliases: dict[str, str]) -> set[str]:
    """The hand-written constructors `tree` names outside annotations: `NeighborPair` (or an alias
    from `from dpaudit import NeighborPair as P`) and `dpaudit.NeighborPair` / `anything.MixtureLLR`."""
    skip = _annotations(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Name) and aliases.get(node.id, node.id) in HAND_WRITTEN:
            found.add(aliases.get(node.id, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in HAND_WRITTEN:
            found.add(node.attr)
    return found


def _reached(path: Path, names: set[str] | None = None) -> set[str]:
    """Constructors a row module (names None: all of it) or the named functions of a helper module
    reach, following calls within the helper and imports of other `known_bugs_rows` modules."""
    tree = ast.parse(path.read_text())
    aliases = {
        a.asname: a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names if a.asname
    }
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if names is None:
        todo: list[ast.AST] = [tree]
    else:
        todo = [n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.Import | ast.ImportFrom)]
        seen, stack = set(), [n for n in names if n in functions]
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                todo.append(functions[name])
                called = {
                    c.func.id
                    for c in ast.walk(functions[name])
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                }
                stack += [c for c in called if c in functions]
    found = set()
    for node in todo:
        found |= _constructors(node, aliases)
        for imp in ast.walk(node):
            if isinstance(imp, ast.ImportFrom) and (imp.module or "").startswith("known_bugs_rows."):
                helper = BENCH / "known_bugs_rows" / f"{imp.module.split('.', 1)[1]}.py"
                found |= _reached(helper, {a.name for a in imp.names})
    return found


def test_the_guard_sees_pairs_and_statistics_built_from_public_names(tmp_path: Path) -> None:
    cases = {
        "import dpaudit\ndef mechanism():\n    return dpaudit.MixtureLLR()\n": {"MixtureLLR"},
        "from dpaudit import NeighborPair as P\ndef mechanism():\n    return P()\n": {"NeighborPair"},
        "import dpaudit\ndef f(x: dpaudit.NeighborPair) -> dpaudit.NeighborPair:\n    return x\n": set(),
    }
    for n, (source, expected) in enumerate(cases.items()):
        (tmp_path / f"row{n}.py").write_text(source)
        assert _reached(tmp_path / f"row{n}.py") == expected, source
    # through the shared helper: the labels-fixed rows reach `dpaudit.NeighborPair`, the blind not
    rows_dir = BENCH / "known_bugs_rows"
    assert _reached(rows_dir / "diffprivlib_nb_labels_fixed.py") == {"NeighborPair"}
    assert _reached(rows_dir / "diffprivlib_nb_blind.py") == set()


def test_rows_with_hand_written_pairs_say_so() -> None:
    """A row reaching a pair or statistic constructor declares `PAIRS = "hand-written: …"` (the
    table labels it and counts it apart); a blind row declares nothing and reaches none."""
    for row in known_bugs.rows([]):
        reached = _reached(BENCH / "known_bugs_rows" / f"{row['ROW']}.py")
        declared = str(row.get("PAIRS", ""))
        assert bool(reached) == declared.startswith("hand-written"), (row["ROW"], reached, declared)
        assert known_bugs.pairs_kind(row) == ("hand-written" if reached else known_bugs.BLIND)


def test_the_table_counts_blind_and_hand_written_rows_apart() -> None:
    rows = {str(r["ROW"]): r for r in known_bugs.rows([])}
    blind, fixed = rows["diffprivlib_nb_blind"], rows["diffprivlib_nb_labels_fixed"]
    result = {"verdict": "violation_found", "epsilon_lower_bound": 5.6, "claim": {"epsilon": 1.0}}
    wrong = {**result, "verdict": "no_violation_found"}
    lines = [
        (blind, known_bugs.line(blind, "0.6.6", "violation", result, 8, 25, "1 MiB")),
        (fixed, known_bugs.line(fixed, "0.6.6", "violation", result, 8, 25, "1 MiB")),
        (fixed, known_bugs.line(fixed, "0.6.6", "violation", wrong, 8, 25, "1 MiB")),
        (blind, known_bugs.line(blind, "0.6.6", "violation", "exit 2: boom", 8, 25, "1 MiB")),
    ]
    assert "| `diffprivlib_nb_blind` | blind |" in lines[0][1]
    assert "| `diffprivlib_nb_labels_fixed` | hand-written |" in lines[1][1]
    assert known_bugs.tally(lines) == (
        "blind (dpaudit found the pair): 1 of 2 as expected; "
        "hand-written pairs (the user's): 1 of 2 as expected"
    )


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


def test_rows_pin_public_versions_and_small_budgets_fit_the_full_ones() -> None:
    """Every pip argument is a public specifier (no local wheel name such as `+cpu`), and a
    row's default (small) budget is at most its `--full` budget."""
    for row in known_bugs.rows([]):
        for version, reqs in dict(row["REQUIREMENTS"]).items():  # type: ignore[call-overload]
            for call in known_bugs.pip_calls(list(reqs)):
                assert not any("+" in a or a.endswith(".whl") for a in call), (row["ROW"], version, call)
        small, _ = known_bugs.budget(row, full=False)
        full, _ = known_bugs.budget(row, full=True)
        assert 0 < small <= full == int(str(row["NUM_SAMPLES"])), row["ROW"]


def test_budget_is_small_by_default_and_the_row_s_own_with_full() -> None:
    row = {"NUM_SAMPLES": 20_000, "ARGS": ["--pairs", "registered"], "FAST_NUM_SAMPLES": 1000,
           "FAST_ARGS": ["--sequential"]}
    assert known_bugs.budget(row, full=False) == (1000, ["--pairs", "registered", "--sequential"])
    assert known_bugs.budget(row, full=True) == (20_000, ["--pairs", "registered"])
    assert known_bugs.budget({"NUM_SAMPLES": 300}, full=False) == (300, [])


def _pair(description: str, bound: float, violation: bool) -> dict[str, object]:
    estimate = {"epsilon_lower_bound": bound, "event": "x ≤ 3 | y", "p_count": 480, "p_total": 500,
                "q_count": 2, "q_total": 500}
    return {"description": description, "violation": violation, "estimate": estimate}


def test_the_witness_is_the_violating_pair_with_the_highest_bound() -> None:
    pairs = [_pair("weak", 1.5, True), _pair("not violating", 9.0, False), _pair("strong", 4.0, True)]
    result = {"verdict": "violation_found", "pairs": pairs}
    text = known_bugs.witness(result)
    assert text == "strong: x ≤ 3 \\| y (480/500 vs 2/500)"  # a `|` would split the Markdown cell
    assert known_bugs.witness({**result, "verdict": "no_violation_found"}) == "—"
    long = _pair("long", 2.0, True)
    long["estimate"]["event"] = "x " * 200  # type: ignore[index]
    cut = known_bugs.witness({"verdict": "violation_found", "pairs": [long]})
    assert len(cut) < 150 and "…" in cut


def _fake_rows(folder: Path) -> None:
    folder.mkdir()
    (folder / "bug_row.py").write_text(
        'PACKAGE = "fakelib"\nISSUE = "owner/fakelib#1"\n'
        'VERSIONS = {"1.0": "violation", "1.1": "no violation"}\n'
        'REQUIREMENTS = {"1.0": ["fakelib==1.0"], "1.1": ["fakelib==1.1"]}\nNUM_SAMPLES = 4000\n'
        'FAST_NUM_SAMPLES = 500\nFAST_ARGS = ["--sequential"]\nNOTE = "a fake row"\n'
    )


def _fake_result(violation: bool) -> dict[str, object]:
    return {
        "verdict": "violation_found" if violation else "no_violation_found",
        "epsilon_lower_bound": 3.25 if violation else 0.12,
        "claim": {"epsilon": 1.0, "kind": "proved"},
        "selection_samples": 100,
        "certification_samples": 150,
        "pairs": [_pair("add a record", 3.25, violation)],
        "extra": {},
    }


def test_a_full_run_writes_its_table_between_the_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On fakes (no venv, no install, no audit): every version audited once at the small budget,
    the table, the count and the totals written between the README's markers, the text around them
    kept; `--only` prints and leaves the README alone; `--full` passes the full budget."""
    _fake_rows(tmp_path / "rows")
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{known_bugs.MARKERS[0]}\nold table\n{known_bugs.MARKERS[1]}\nafter\n")
    calls: list[tuple[str, int, list[str]]] = []

    def environment(cache: Path, package: str, version: str, reqs: list[object]) -> tuple[Path, float]:
        assert reqs == [f"fakelib=={version}"]
        return tmp_path / f"{package}-{version}" / "bin" / "python", 12.0

    def audit(python: Path, row: dict[str, object], *_: Any, full: bool = False) -> tuple[Any, float, float]:
        n, extra = known_bugs.budget(row, full=full)
        version = python.parent.parent.name.split("-")[1]
        calls.append((version, n, extra))
        return _fake_result(version == "1.0"), 7.0, 3.0

    monkeypatch.setattr(known_bugs, "ROWS", tmp_path / "rows")
    monkeypatch.setattr(known_bugs, "README", readme)
    monkeypatch.setattr(known_bugs, "environment", environment)
    monkeypatch.setattr(known_bugs, "audit", audit)
    monkeypatch.setattr(known_bugs, "disk", lambda path: "100 MiB")
    assert known_bugs.main(["--cache", str(tmp_path / "cache")]) == 0
    assert calls == [("1.0", 500, ["--sequential"]), ("1.1", 500, ["--sequential"])]
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "old table" not in text
    head = "| fakelib | 1.0 | `bug_row` | blind | owner/fakelib#1 | violation | violation | 3.25 vs 1.00 |"
    tail = " | 250 (500) | 7 (3) | 12 | 100 MiB |"
    assert head + " add a record: x ≤ 3 \\| y (480/500 vs 2/500)" + tail in text
    fixed = "| fakelib | 1.1 | `bug_row` | blind | owner/fakelib#1 | no violation | no violation |"
    assert fixed + " 0.12 vs 1.00 | —" + tail in text
    assert "14 s of audits (6 s of CPU); 2 venvs, installed once in 24 s in all (reused after), " in text
    assert "200 MiB on disk" in text
    assert "blind (dpaudit found the pair): 2 of 2 as expected" in text and "- `bug_row`: a fake row" in text
    readme.write_text("untouched\n")
    assert known_bugs.main(["--cache", str(tmp_path / "cache"), "--only", "bug_row", "--full"]) == 0
    assert readme.read_text() == "untouched\n" and calls[-1] == ("1.1", 4000, [])


def test_an_unexpected_verdict_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_rows(tmp_path / "rows")
    monkeypatch.setattr(known_bugs, "ROWS", tmp_path / "rows")
    monkeypatch.setattr(known_bugs, "environment", lambda *a: (tmp_path / "v" / "bin" / "python", 1.0))
    monkeypatch.setattr(known_bugs, "audit", lambda *a, **k: (_fake_result(False), 1.0, 1.0))
    monkeypatch.setattr(known_bugs, "disk", lambda path: "1 MiB")
    assert known_bugs.main(["--cache", str(tmp_path / "cache"), "--no-write"]) == 1


def test_the_benchmarks_readme_has_the_known_bugs_markers_once() -> None:
    text = (BENCH / "README.md").read_text()
    assert [text.count(m) for m in known_bugs.MARKERS] == [1, 1]
    assert text.index(known_bugs.MARKERS[0]) < text.index(known_bugs.MARKERS[1])


def _fake_datasynthesizer(
    monkeypatch: pytest.MonkeyPatch, description: dict[str, object]
) -> dict[str, object]:
    """A stand-in `DataSynthesizer` package: its describer keeps what it was called with."""
    import types

    seen: dict[str, object] = {}

    class DataDescriber:
        def describe_dataset_in_correlated_attribute_mode(self, csv: str, **kwargs: object) -> None:
            seen["csv"] = Path(csv).read_text()
            seen["domain"] = Path(str(kwargs.pop("categorical_attribute_domain_file"))).read_text()
            seen.update(kwargs)
            print("the library's own chatter")
            self.data_description = description

    privbayes = types.ModuleType("DataSynthesizer.lib.PrivBayes")
    describer = types.ModuleType("DataSynthesizer.DataDescriber")
    describer.DataDescriber = DataDescriber  # type: ignore[attr-defined]
    for name, module in {
        "DataSynthesizer": types.ModuleType("DataSynthesizer"),
        "DataSynthesizer.lib": types.ModuleType("DataSynthesizer.lib"),
        "DataSynthesizer.lib.PrivBayes": privbayes,
        "DataSynthesizer.DataDescriber": describer,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    seen["privbayes"] = privbayes
    return seen


def test_datasynthesizer_row_reads_the_description_as_one_synthetic_row_s_distribution(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The release is [root is b, P(a, b) on the declared 3 × 2 cells], fixed width whatever the
    description's length; the documented call (k = 1, ε, the declared domain file, a seed from
    the Generator); the mutual-information pool runs in process. Needs no DataSynthesizer."""
    import json

    import numpy as np
    import pandas as pd
    from known_bugs_rows import datasynthesizer_privbayes as row

    rooted_at_b = {
        "bayesian_network": [["a", ["b"]]],
        "conditional_probabilities": {"b": [0.25, 0.75], "a": {"[0]": [0.5, 0.5], "[1]": [0.2, 0.3, 0.5]}},
    }
    seen = _fake_datasynthesizer(monkeypatch, rooted_at_b)
    table = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [1.0, 0.0, 1.0]})
    out = row._release(table, np.random.default_rng(0))
    # P(a, b) row-major over a ∈ {0, 1, 2}, b ∈ {0, 1}: P(b) · P(a | b); a = 2 given b = 0 is absent
    assert out == pytest.approx([1.0, 0.125, 0.15, 0.125, 0.225, 0.0, 0.375])
    assert seen["csv"] == "a,b\n0,1\n1,0\n2,1\n" and json.loads(str(seen["domain"])) == row.DOMAIN
    assert seen["k"] == 1 and seen["epsilon"] == row.EPSILON and isinstance(seen["seed"], int)
    with seen["privbayes"].Pool() as pool:  # type: ignore[attr-defined]
        assert pool.map(abs, [-1, 2]) == [1, 2]
    assert capsys.readouterr().out == ""
    shorter = {"bayesian_network": [["b", ["a"]]],
               "conditional_probabilities": {"a": [1.0], "b": {"[0]": [0.4, 0.6]}}}
    _fake_datasynthesizer(monkeypatch, shorter)
    assert row._release(table, np.random.default_rng(0)) == pytest.approx([0.0, 0.4, 0.6, 0, 0, 0, 0])


def test_inconclusive_is_not_flagged_and_a_refuted_curve_point_is_shown() -> None:
    """An inconclusive audit (exit 0) meets an expected "no violation"; a violation of a claimed
    curve at another δ, whose headline bound is below the claim's ε, names the refuted point."""
    row = {"PACKAGE": "fakelib", "ROW": "bug_row", "ISSUE": "#1", "NUM_SAMPLES": 1000}
    claim = {"epsilon": 2.06, "kind": "proved"}
    quiet = {"verdict": "inconclusive", "claim": claim, "epsilon_lower_bound": -0.01}
    text = known_bugs.line(row, "1.0", "no violation", quiet, 1.0, 1.0, "1 MiB")
    assert "| no violation (inconclusive) |" in text and "unexpected" not in text
    assert "unexpected" in known_bugs.line(row, "1.0", "violation", quiet, 1.0, 1.0, "1 MiB")
    points = [
        {"objective": "epsilon", "parameter": 0.01, "value": 3.9, "claimed": 0.93, "exceeds_claim": True},
        {"objective": "epsilon", "parameter": 0.1, "value": 0.5, "claimed": 0.2, "exceeds_claim": True},
        {"objective": "epsilon", "parameter": 1e-5, "value": 1.33, "claimed": 2.06, "exceeds_claim": False},
    ]
    curve = {"verdict": "violation_found", "claim": claim, "epsilon_lower_bound": 1.33, "profile": points}
    assert "| 1.33 vs 2.06; ε(δ = 0.01) 3.90 vs 0.93 |" in known_bugs.line(
        row, "1.0", "violation", curve, 1.0, 1.0, "1 MiB"
    )
    assert known_bugs.refuted_point({**curve, "epsilon_lower_bound": 2.5}) == ""


def test_the_float_row_takes_the_mechanisms_past_a_failing_package_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diffprivlib 0.4.1's `__init__` raises ImportError after importing its mechanisms (its models
    need an old scikit-learn): the row still gets `Laplace`, and a package without mechanisms still
    raises. A stand-in package, no diffprivlib needed."""
    from known_bugs_rows import diffprivlib_laplace_float as row

    package = tmp_path / "diffprivlib"
    package.mkdir()
    (package / "mechanisms.py").write_text("class Laplace:\n    pass\n")
    (package / "__init__.py").write_text("from . import mechanisms\nraise ImportError('old sklearn')\n")
    for name in [m for m in sys.modules if m == "diffprivlib" or m.startswith("diffprivlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert row._laplace().__module__ == "diffprivlib.mechanisms"
    assert row._laplace() is row._laplace()
    monkeypatch.delitem(sys.modules, "diffprivlib.mechanisms")
    (package / "__init__.py").write_text("raise ImportError('broken')\n")
    with pytest.raises(ImportError, match="broken"):
        row._laplace()
