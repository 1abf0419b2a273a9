"""`dpaudit one-run`, `dpaudit scores`, `dpaudit sampler`: exit codes, JSON contract, input errors."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.engine.one_run.procedure import inclusion_bits
from dpaudit.reports.schema import REQUIRED_KEYS

HERE = "tests.test_cli_one_run"


def rr4(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """ε = 4 randomised response per canary."""
    return (included ^ (rng.random(included.size) < 1 / (1 + math.exp(4.0)))).astype(float)


rr4.num_canaries = 1000  # type: ignore[attr-defined]


def boom(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    raise RuntimeError("training diverged\nat step 3")


def exits(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    sys.exit(1)  # exit 1 is the verdict code: it must become the user's failure, exit 2


def exits_sampler(n: int, q: float, steps: int, rng: np.random.Generator):
    sys.exit(1)


def poisson(n: int, q: float, steps: int, rng: np.random.Generator):
    for _ in range(steps):
        yield rng.random(n) < q


def fixed(n: int, q: float, steps: int, rng: np.random.Generator):
    for _ in range(steps):
        yield rng.choice(n, size=round(n * q), replace=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_one_run_verdicts_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "one-run", f"{HERE}:rr4", "--epsilon", "1")
    assert code == 1 and "VIOLATION FOUND" in out and "ceiling" in out
    code, out, _ = run(capsys, "one-run", f"{HERE}:rr4", "--epsilon", "5", "--json", "--out", str(tmp_path))
    assert code == 0
    data = json.loads(out)
    assert all(k in data for k in REQUIRED_KEYS)
    d = data["extra"]["one_run"]
    assert d["m"] == 1000 and d["correct"] <= d["guesses"] and d["ceiling"] == data["epsilon_ceiling"]
    assert 0 < data["epsilon_lower_bound"] <= d["ceiling"]
    assert (tmp_path / f"{HERE}_rr4.json").exists() or any(tmp_path.glob("*.json"))
    code, out, _ = run(
        capsys, "one-run", f"{HERE}:rr4", "--epsilon", "1", "--k-plus", "500", "--k-minus", "500"
    )
    assert code == 1 and "k₊=500" in out


def test_one_run_input_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in (
        (["one-run", f"{HERE}:boom", "--epsilon", "1"], "raised RuntimeError"),
        (["one-run", f"{HERE}:exits", "--epsilon", "1"], "the training function called sys.exit(1)"),
        (["one-run", f"{HERE}:rr4"], "no claim"),
        (["one-run", f"{HERE}:missing", "--epsilon", "1"], "no attribute"),
        (["one-run", f"{HERE}:rr4", "--epsilon", "1", "--k-plus", "2000"], "--k-plus"),
        (["one-run", f"{HERE}:rr4", "--epsilon", "1", "--accountant", "1,2"], "--accountant"),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (argv, err)


def _one_run_scores(n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    bits = inclusion_bits(n, 7)
    return 3.0 * bits + np.random.default_rng(1).standard_normal(n), bits


def test_scores_one_run_in_three_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scores, bits = _one_run_scores()
    np.savez(tmp_path / "s.npz", scores=scores, included=bits)
    (tmp_path / "s.json").write_text(
        json.dumps({"scores": scores.tolist(), "included": bits.astype(int).tolist()})
    )
    lines = [
        "score,included",
        *[f"{float(s)!r},{'true' if b else 'false'}" for s, b in zip(scores, bits, strict=True)],
    ]
    (tmp_path / "s.csv").write_text("\n".join(lines) + "\n")
    bounds = set()
    for name in ("s.npz", "s.json", "s.csv"):
        code, out, _ = run(capsys, "scores", str(tmp_path / name), "--epsilon", "0.5", "--json")
        assert code == 1
        data = json.loads(out)
        bounds.add(data["epsilon_lower_bound"])
        assumption = data["pairs"][0]["estimate"]["assumption"]
        assert "read from a score file" in assumption and "from the audit seed" not in assumption
    assert len(bounds) == 1
    code, _, _ = run(capsys, "scores", str(tmp_path / "s.npz"), "--epsilon", "8")
    assert code == 0


def test_scores_many_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    (tmp_path / "io.json").write_text(
        json.dumps(
            {"in_scores": rng.normal(3, 1, 2000).tolist(), "out_scores": rng.normal(0, 1, 1500).tolist()}
        )
    )
    code, out, _ = run(capsys, "scores", str(tmp_path / "io.json"), "--epsilon", "0.1", "--json")
    data = json.loads(out)
    assert code == 1 and data["extra"]["scores"]["in_runs"] == 2000 and data["pairs"][0]["tags"] == ["scores"]
    csv = ["in_score,out_score", "1.0,0.0", "2.0,0.5", "3.0,", "4.0,", "5.0,", "6.0,"]
    (tmp_path / "io.csv").write_text("\n".join(csv) + "\n")
    code, _, err = run(capsys, "scores", str(tmp_path / "io.csv"), "--epsilon", "1")
    assert code == 2 and "io.csv" in err  # two "out" scores: too few for a split


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("bad.csv", "score,included\n1.0,maybe\n"),
        ("bad2.csv", "foo,bar\n1,2\n"),
        ("bad.json", "{not json"),
        ("bad2.json", '{"scores": [1, 2], "included": [1]}'),
        ("bad3.json", '{"scores": [1, "x"], "included": [1, 0]}'),
        ("bad.npz", "not a zip"),
        ("bad.txt", "1,2"),
        ("missing.csv", None),
    ],
)
def test_scores_malformed_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str | None
) -> None:
    if text is not None:
        (tmp_path / name).write_text(text)
    code, _, err = run(capsys, "scores", str(tmp_path / name), "--epsilon", "1")
    assert code == 2 and name in err and len(err.strip().splitlines()) == 1, err


def test_sampler_command(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--examples", "300", "--steps", "100", "--rate", "0.05", "--seed", "1"]
    code, out, _ = run(capsys, "sampler", f"{HERE}:fixed", *args)
    assert code == 1 and "DEPARTS FROM Poisson sampling" in out
    # flagged with probability ≤ 0.05 (this test's false-failure probability, seed fixed)
    code, out, _ = run(capsys, "sampler", f"{HERE}:poisson", *args, "--json")
    assert code == 0 and json.loads(out)["departure_found"] is False
    code, _, err = run(capsys, "sampler", f"{HERE}:exits_sampler", *args)
    assert code == 2 and "the sampler called sys.exit(1)" in err and len(err.strip().splitlines()) == 1
