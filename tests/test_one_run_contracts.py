"""Issue 37: one-run audits keep the contracts `run` keeps. The audit's only claim exceeded is a
violation (exit 1), proved or stated (issue 42: `run`'s one verdict rule), in `one-run`, `scores`
and the gate; a design given to `one-run` is declared before the bits (designs on `scores FILE`:
test_one_run_designs.py); score CSVs are read row by row; the gate's `--resume` key follows the
training function's code."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.app.gate.one_run import code_fingerprint
from dpaudit.engine.one_run import inclusion_bits
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim
from dpaudit.neighbors.base import Relation

HERE = "tests.test_one_run_contracts"


def rr3(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """ε = 3 randomised response per canary: a claim of ε = 1 is exceeded."""
    return (included ^ (rng.random(included.size) < 1 / (1 + math.exp(3.0)))).astype(float)


def rr3_stated(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return rr3(included, rng)


rr3_stated.claim = PrivacyClaim(  # type: ignore[attr-defined]
    epsilon=1.0,
    delta=0.0,
    relation=Relation.ADD_REMOVE_ONE,
    reference="a library's docs",
    kind=ClaimKind.STATED,
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rr3_file(path: Path, m: int = 1000) -> Path:
    bits = inclusion_bits(m, 5)
    scores = rr3(bits, np.random.default_rng(6))
    path.write_text(
        "score,included\n" + "".join(f"{s},{int(b)}\n" for s, b in zip(scores, bits, strict=True))
    )
    return path


# --------------------------------------------------------------------------- stated and proved claims
@pytest.mark.parametrize("method", ["snj", "fdp", "both"])
def test_scores_lone_claim_exceeded_is_a_violation_stated_or_proved(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, method: str
) -> None:
    """Issue 42: the one verdict rule of `run`: the audit's only claim decides, even when stated."""
    f = str(_rr3_file(tmp_path / "rr3.csv"))
    code, out, _ = run(
        capsys, "scores", f, "--epsilon", "1", "--claim-kind", "stated", "--method", method, "--json"
    )
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "violation_found"
    assert data["claims"][0]["exceeded"] is True and data["claims"][0]["kind"] == "stated"
    code, out, _ = run(capsys, "scores", f, "--epsilon", "1", "--method", method, "--json")
    assert code == 1 and json.loads(out)["verdict"] == "violation_found"


def test_one_run_stated_claim_attribute_is_a_violation_of_a_stated_claim(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "one-run", f"{HERE}:rr3_stated", "--canaries", "1000")
    assert code == 1 and "VIOLATION FOUND (violation of a stated claim" in out
    code, out, _ = run(capsys, "one-run", f"{HERE}:rr3_stated", "--canaries", "1000", "--epsilon", "1")
    assert code == 1 and "VIOLATION FOUND" in out and "stated claim" not in out  # --epsilon: proved


def test_gate_stated_claim_exits_1_as_a_proved_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    base = f'[[audit]]\ntrain = "{HERE}:rr3"\ncanaries = 1000\nepsilon = 1\nname = "rr3"\n'
    (tmp_path / "dpaudit.toml").write_text(base + 'claim_kind = "stated"\n')
    code, out, _ = run(capsys, "gate", "--out", "out")
    assert code == 1, out
    result = json.loads((tmp_path / "out" / "rr3.json").read_text())
    assert result["claims"][0]["exceeded"] and result["verdict"] == "violation_found"
    assert "--claim-kind stated" in result["command"]
    (tmp_path / "dpaudit.toml").write_text(base)
    assert run(capsys, "gate", "--out", "out2")[0] == 1


# --------------------------------------------------------------------------- designs after the scores
def test_one_run_design_is_declared_before_the_bits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "one-run", f"{HERE}:rr3", "--canaries", "500", "--epsilon", "9", "--k-plus", "50", "--json"
    )
    assert code == 0
    info = json.loads(out)["extra"]["one_run"]
    assert info["test_level"] == pytest.approx(0.05) and "declared" in info["choice_of_k"]


# --------------------------------------------------------------------------- score CSVs, row by row
@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("score,included\n1.0,1\n,0\n2.0,\n3.0,1\n", 3, "empty"),  # the shifted columns
        ("score,included\n1.0,1\n2.0,\n", 3, "'included' cell is empty"),
        ("score,included\n1.0,1\nnan,0\n", 3, "not a finite number"),
        ("score,included\n1.0,1\n2.0,0\ninf,1\n", 4, "not a finite number"),
        ("score,included\n-inf,1\n", 2, "not a finite number"),
        ("score,included\n1.0,1\n2.0,2\n", 3, "expected 0/1"),
        ("score,included\n1.0,-1\n", 2, "expected 0/1"),
        ("score,included\n1.0,0.5\n", 2, "expected 0/1"),
        ("score,included\nabc,1\n", 2, "not a number"),
        ("in_score,out_score\n1,2\n,3\n4,5\n", 4, "after its empty cell on line 3"),
        ("in_score,out_score\n1,2\nnan,3\n", 3, "not a finite number"),
        ("score,included\n1.0,1\n\n2.0,0\n", 3, "is blank"),  # a fully blank row is not dropped
        ("score,included\n1.0,1\n , \n2.0,0\n", 3, "is blank"),
        ("in_score,out_score\n1,2\n\n3,4\n\n", 3, "is blank"),
    ],
)
def test_score_csv_defects_exit_2_naming_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, line: int, needle: str
) -> None:
    (tmp_path / "s.csv").write_text(text)
    code, out, err = run(capsys, "scores", str(tmp_path / "s.csv"), "--epsilon", "1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "s.csv" in err and f"line {line}" in err and needle in err, err


def test_blank_lines_after_the_last_row_are_the_files_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = "".join(f"{i},{i % 2}\n" for i in range(40))
    (tmp_path / "a.csv").write_text("score,included\n" + rows)
    (tmp_path / "b.csv").write_text("score,included\n" + rows + "\n\n")
    first = run(capsys, "scores", str(tmp_path / "a.csv"), "--epsilon", "1", "--json")
    second = run(capsys, "scores", str(tmp_path / "b.csv"), "--epsilon", "1", "--json")
    assert first[0] == second[0] == 0
    assert json.loads(first[1])["epsilon_lower_bound"] == json.loads(second[1])["epsilon_lower_bound"]


def test_header_only_score_csv_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "s.csv").write_text("score,included\n")
    code, _, err = run(capsys, "scores", str(tmp_path / "s.csv"), "--epsilon", "1")
    assert code == 2 and "s.csv" in err and "no data rows" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- --resume key
def _train_a(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return included.astype(float)


def _train_b(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return included.astype(float) + rng.standard_normal(included.size)


def test_resume_key_follows_the_training_code() -> None:
    assert code_fingerprint(_train_a) == code_fingerprint(_train_a) != ""
    assert code_fingerprint(_train_a) != code_fingerprint(_train_b)
    namespace: dict[str, object] = {}
    exec("def f(included, rng):\n    return included * 1.0\n", namespace)  # no source file
    exec("def g(included, rng):\n    return included * 2.0\n", namespace)
    assert code_fingerprint(namespace["f"]) not in ("", code_fingerprint(namespace["g"]))


# --------------------------------------------------------------------------- what a report calls certified
def test_one_run_reports_certify_no_rates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    f = str(_rr3_file(tmp_path / "rr3.csv"))
    out_dir = tmp_path / "out"
    code, _, _ = run(capsys, "scores", f, "--epsilon", "1", "--out", str(out_dir))
    assert code == 1
    data = json.loads((out_dir / "rr3.csv.json").read_text())
    estimate = data["pairs"][0]["estimate"]
    assert estimate["p_lower"] == "nan" and estimate["q_upper"] == "nan"  # no certified rate
    info = data["extra"]["one_run"]
    assert (estimate["p_count"], estimate["p_total"]) == (info["correct"], info["guesses"])
    md = (out_dir / "rr3.csv.md").read_text()
    assert "P (lower)" not in md and "Q (upper)" not in md and "no rate certified" in md
    assert f"{info['correct']} of {info['guesses']} guesses right" in md and "Certified (one run)" in md
    page = (out_dir / "rr3.csv.html").read_text()
    assert "certified corner" not in page and "P: count, lower bound" not in page
    assert "Trade-off curves (one run)" in page and "not (ε̂ = " in page
    assert f"{info['correct']} of {info['guesses']} guesses right" in page


def test_run_reports_keep_their_region(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    code, _, _ = run(
        capsys,
        "run",
        "randomized_response",
        "--num-samples",
        "2000",
        "--out",
        str(tmp_path),
        "--format",
        "html",
    )
    page = next(tmp_path.glob("*.html")).read_text()
    assert code in (0, 1) and "Empirical privacy region" in page and "Trade-off curves (one run)" not in page
