"""Issue 42, build item 6: never lose a training. `one-run --out DIR` (and the gate's one-run audit
with `--out`) checks DIR is writable before calling `train`, saves the scores, the inclusion bits
and the registered designs before any analysis, and prints the `dpaudit scores` command that
re-certifies them exactly."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest

import dpaudit.engine.one_run.procedure as procedure
from dpaudit.app.cli.entry import main
from dpaudit.engine.one_run import default_design, inclusion_bits

HERE = "tests.test_one_run_saved"
CALLS: list[int] = []
"""One entry per call of `train`."""


def train(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """μ = 2 Gaussian scores per canary."""
    CALLS.append(included.size)
    return 2.0 * included + rng.standard_normal(included.size)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _blocked(tmp_path: Path) -> Path:
    """A directory that cannot be created (its parent is a file), even for root."""
    (tmp_path / "a-file").write_text("")
    return tmp_path / "a-file" / "out"


def test_unwritable_out_exits_2_before_training(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    CALLS.clear()
    code, out, err = run(
        capsys,
        "one-run",
        f"{HERE}:train",
        "--canaries",
        "200",
        "--epsilon",
        "1",
        "--out",
        str(_blocked(tmp_path)),
    )
    assert code == 2 and out == "" and CALLS == []
    assert len(err.strip().splitlines()) == 1 and "cannot write there" in err and "nothing was trained" in err


def test_scores_are_on_disk_before_the_analysis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the analysis failed")

    monkeypatch.setattr(procedure, "certify_method", broken)
    CALLS.clear()
    with pytest.raises(RuntimeError, match="analysis failed"):
        main(
            [
                "one-run",
                f"{HERE}:train",
                "--canaries",
                "200",
                "--epsilon",
                "1",
                "--seed",
                "3",
                "--out",
                str(tmp_path),
                "--debug",
            ]
        )
    assert CALLS == [200]
    saved = np.load(next(tmp_path.glob("*.scores.npz")))
    assert np.array_equal(saved["included"], inclusion_bits(200, 3)) and saved["scores"].shape == (200,)
    grid = [[d.k_plus, d.k_minus] for d in default_design(200)]
    assert saved["designs"].tolist() == grid  # the designs fixed before the bits: registered


@pytest.mark.parametrize("design", [(), ("--k-plus", "20", "--k-minus", "10")])
def test_printed_command_recertifies_the_same_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, design: tuple[str, ...]
) -> None:
    code, out, err = run(
        capsys,
        "one-run",
        f"{HERE}:train",
        "--canaries",
        "300",
        "--epsilon",
        "0.5",
        "--method",
        "both",
        *design,
        "--out",
        str(tmp_path),
        "--json",
    )
    first = json.loads(out)
    line = next(x for x in err.splitlines() if "re-certify with:" in x)
    argv = shlex.split(line.split("re-certify with: ", 1)[1])
    assert argv[:2] == ["dpaudit", "scores"] and Path(argv[2]).exists()
    code2, out2, _ = run(capsys, *argv[1:], "--json")
    again = json.loads(out2)
    assert code2 == code == 1
    assert again["epsilon_lower_bound"] == first["epsilon_lower_bound"] > 0
    a, b = again["extra"]["one_run"], first["extra"]["one_run"]
    assert a["test_level"] == b["test_level"]
    assert a["fdp"]["claim_tail_bound"] == b["fdp"]["claim_tail_bound"]


def test_gate_checks_out_before_training_and_saves_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dpaudit.toml").write_text(
        f'[[audit]]\ntrain = "{HERE}:train"\ncanaries = 200\nepsilon = 1\nname = "g"\n'
    )
    CALLS.clear()
    code, _, err = run(capsys, "gate", "--out", str(_blocked(tmp_path)))
    assert code == 2 and CALLS == [] and "cannot write there" in err
    code, _, _ = run(capsys, "gate", "--out", "out")
    saved = np.load(tmp_path / "out" / "g.scores.npz")
    assert CALLS == [200] and np.array_equal(saved["included"], inclusion_bits(200, 0))
