"""Every example in README.md runs as printed (issue 42, build item 8).

Each fenced block is either run here verbatim (a `dpaudit …` line as `python -m dpaudit …`, so the
checkout under test is what runs; `python` as this interpreter; in a temporary folder holding the
files the README tells you to write), or listed in `NOT_RUN` with the reason it cannot run in a
test (installs, a cluster, a CI workflow). A new block that is neither fails
`test_every_readme_block_is_run_or_says_why`.

Exit codes are the ones the README's comments state (`# exit 1`; none stated: 0). Printed figures
are checked against the README's: text equal, and every number within 0.5 % or one unit of its
last printed digit, whichever is larger (`same_figures`); a "…" ends what the README shows of a
line, and durations ("4.6 s") are not compared. So a stale figure fails here. The budgets are the
README's own (cheap enough to run: about 75 s of CPU for the whole module).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


@dataclass(frozen=True)
class Block:
    line: int
    language: str
    heading: str
    text: str

    @property
    def first(self) -> str:
        return self.text.splitlines()[0] if self.text else ""


def blocks() -> list[Block]:
    lines = README.read_text(encoding="utf-8").splitlines()
    found, heading, i = [], "", 0
    while i < len(lines):
        if lines[i].startswith("#"):
            heading = lines[i].lstrip("#").strip()
        elif lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append(Block(i + 1, lines[i][3:].strip(), heading, "\n".join(lines[i + 1 : end]) + "\n"))
            i = end
        i += 1
    return found


def block(heading: str, language: str, index: int = 0) -> Block:
    matching = [b for b in blocks() if b.heading == heading and b.language == language]
    return matching[index]


NOT_RUN = {
    "python3 -m pip install": "installs the package and runs the whole suite (what CI itself does)",
    "# .github/workflows/privacy-gate.yml": "a GitHub Actions workflow (its gate commands are run below)",
    "dask scheduler": "needs a Dask cluster at the address the scheduler prints",
    "python benchmarks/dask_expensive.py": "starts a Dask LocalCluster and times three audits of each "
    "(about 4 minutes); tests/audit/test_sample_streams.py checks the identical results on a cluster",
}
"""Blocks not run, by their first line, and why."""

LINES_NOT_RUN = {
    "dpaudit scan diffprivlib --budget 1000": "scans 47 exports (4 min 30 s measured): over budget",
    "dpaudit scan smartnoise-synth": "needs smartnoise-synth, not in the test extras "
    "(tests/test_scan_smartnoise.py scans a fake registry; benchmarks/scan_versions.py the real one)",
}
"""Lines of a run block that are not run, and why (the block's other lines are)."""

RUN = {
    "dpaudit list": "test_using_it",
    "import numpy as np": "test_from_python",
    "from dpaudit.app.pytest_plugin import assert_no_violation": "test_pytest_plugin",
    "# my_counts.py": "test_counting_queries",
    "$ dpaudit run my_counts:NoisyBinAlarm --num-samples 1000000      # exit 1": "test_counting_queries",
    "# my_sum.py": "test_opendp",
    "dpaudit run my_sum:mechanism": "test_opendp",
    "# dpaudit.toml": "test_diffprivlib_in_ci",
    "dpaudit run diffprivlib_laplace": "test_diffprivlib_in_ci",
    "dpaudit scan diffprivlib": "test_scan",
    "# my_nb.py": "test_estimator",
    "dpaudit run my_nb:mechanism": "test_estimator",
    "# my_synth.py": "test_synthesizer",
    "dpaudit run my_synth:mechanism": "test_synthesizer",
    "# my_mean.py": "test_raises_and_no_answers",
    "dpaudit run my_mean:mechanism": "test_raises_and_no_answers",
    "# my_dpsgd.py": "test_dpsgd",
    "dpaudit run my_dpsgd:mechanism": "test_dpsgd",
    "dpaudit one-run mypkg.train:train": "test_one_run",
    "# dpaudit.toml  (in pyproject.toml": "test_gate",
    "dpaudit gate --update-baseline": "test_gate",
    "[[audit]]": "test_one_run_in_the_gate",
}
"""Blocks run, by the start of their first line, and the test that runs them."""


def test_every_readme_block_is_run_or_says_why() -> None:
    for b in blocks():
        known = [k for k in (*NOT_RUN, *RUN) if b.first.startswith(k)]
        assert known, f"README.md line {b.line}: a block neither run by tests/test_readme.py nor in NOT_RUN"
    assert all(name in globals() for name in RUN.values())


# --------------------------------------------------------------------------- running and comparing
def _env(cwd: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{cwd}", "DPAUDIT_PROGRESS": "0"}


def shell_line(line: str, cwd: Path, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """One README command line (its comment dropped), `dpaudit` and `python` as this interpreter,
    checked against the exit code its comment states."""
    command, _, comment = line.partition("   #") if "   #" in line else line.partition("  #")
    words = shlex.split(command.removeprefix("$ "))
    if words[0] == "dpaudit":
        words = [sys.executable, "-m", "dpaudit", *words[1:]]
    elif words[0] in ("python", "python3"):
        words = [sys.executable, *words[1:]]
    done = subprocess.run(words, cwd=cwd, env=_env(cwd), capture_output=True, text=True, timeout=timeout)
    stated = re.search(r"\bexit (\d)", comment)
    expected = int(stated.group(1)) if stated else 0
    assert done.returncode == expected, f"{line}\n{done.stdout}\n{done.stderr}"
    return done


def run_lines(text: str, cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    return [shell_line(line, cwd) for line in text.splitlines() if line.strip()]


_NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def _close(expected: str, actual: str) -> bool:
    e, a = (float(x.replace(",", "").replace("−", "-")) for x in (expected, actual))
    digits = expected.split("e")[0]
    unit = 10.0 ** -(len(digits.split(".")[1]) if "." in digits else 0)
    if "e" in expected:
        unit *= 10.0 ** int(expected.split("e")[1])
    return abs(a - e) <= max(0.005 * abs(e), unit)


def same_figures(expected: str, actual: str) -> bool:
    """`actual` reads as the README's `expected` line: the same words, each number within 0.5 % or
    one unit of its last printed digit; durations ("4.6 s") not compared; "…" ends the comparison."""
    expected = expected.strip()
    truncated = expected.endswith("…")
    expected = re.sub(r"(\d+(?:\.\d+)?) s\b", "{time} s", expected.rstrip("…").rstrip())
    actual = re.sub(r"(\d+(?:\.\d+)?) s\b", "{time} s", actual.strip())
    e_words, a_words = _NUMBER.split(expected), _NUMBER.split(actual)
    e_nums, a_nums = _NUMBER.findall(expected), _NUMBER.findall(actual)
    if len(a_nums) < len(e_nums) or (not truncated and len(a_nums) != len(e_nums)):
        return False
    last = len(e_words) - 1
    words_match = all(
        a_words[i].startswith(w) if (i == last and truncated) else a_words[i] == w
        for i, w in enumerate(e_words)
    )
    return words_match and all(_close(e, a) for e, a in zip(e_nums, a_nums, strict=False))


def test_same_figures_catches_a_stale_figure() -> None:
    line = "  certified ε ≥ 1.252 (δ ≥ 0.00291 at the claimed ε), confidence 0.95, 1 pair(s), 4.6 s"
    assert same_figures(line, line.replace("4.6 s", "17.3 s").replace("1.252", "1.253"))
    assert not same_figures(line, line.replace("1.252", "1.68"))
    assert not same_figures(line, line.replace("claimed", "stated"))
    assert same_figures("no_violation_found 0.987…", "no_violation_found 0.9871349803524944")
    assert not same_figures("no_violation_found 0.98…", "no_violation_found 0.9971")


def comment_of(line: str) -> str:
    return line.split("# ", 1)[1].strip() if "# " in line else ""


def _write(cwd: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text, encoding="utf-8")


def _write_named_block(cwd: Path, b: Block) -> None:
    """A block whose first line is `# name.ext`, written to that file."""
    _write(cwd, {b.first.lstrip("# ").split()[0]: b.text})


# --------------------------------------------------------------------------- the examples
def test_using_it(tmp_path: Path) -> None:
    done = run_lines(block("Using it", "bash").text, tmp_path)
    assert "laplace_sum_range_bug" in done[0].stdout
    assert (tmp_path / "results" / "laplace_sum.json").is_file()  # written by the line before `report`
    assert "<html" in done[5].stdout.lower() and done[6].stdout.startswith("dpaudit ")


def test_from_python(tmp_path: Path) -> None:
    text = block("From Python", "python").text
    (tmp_path / "example.py").write_text(text)
    done = shell_line("python example.py", tmp_path)
    printed = done.stdout.splitlines()
    shown = [comment_of(line) for line in text.splitlines() if line.startswith("print(")]
    assert len(printed) == len(shown) == 2
    for expected, actual in zip(shown, printed, strict=True):
        assert same_figures(expected, actual), (expected, actual)
    shell_line("dpaudit report noisy_sum.json", tmp_path)  # as the text under the block says


def test_pytest_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_private.py").write_text(block("In your test suite (pytest plugin)", "python").text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_private.py"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_counting_queries(tmp_path: Path) -> None:
    heading = "Your own mechanism over counting queries (record spaces)"
    _write_named_block(tmp_path, block(heading, "python"))
    command, *shown = block(heading, "console").text.splitlines()
    printed = shell_line(command, tmp_path).stdout.splitlines()
    assert len(printed) >= len(shown)
    for expected, actual in zip(shown, printed, strict=False):
        assert same_figures(expected, actual), (expected, actual)


def test_opendp(tmp_path: Path) -> None:
    pytest.importorskip("opendp", reason='needs pip install "dpaudit[opendp]"')
    heading = "Auditing your DP library"
    _write_named_block(tmp_path, block(heading, "python"))
    line = block(heading, "bash").text.strip()
    out = shell_line(line, tmp_path).stdout
    # OpenDP draws its own noise (seedable=False): the figure is the README's stated range
    # (0.89–0.93 in 8 runs at this α), so here within 0.1 of the comment's, and never above 1
    stated = float(re.search(r"ε ≥ ([\d.]+) against 1", line).group(1))  # type: ignore[union-attr]
    bound = float(re.search(r"certified ε ≥ ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    assert abs(bound - stated) <= 0.1 and bound <= 1.0 and "no violation found" in out


def test_diffprivlib_in_ci(tmp_path: Path) -> None:
    pytest.importorskip("diffprivlib", reason='needs pip install "dpaudit[diffprivlib]"')
    heading = "Auditing your DP library"
    _write_named_block(tmp_path, block(heading, "toml"))
    text = block(heading, "bash", 1).text
    run, gate = run_lines(text, tmp_path)
    assert "witness: " in run.stdout and (tmp_path / "reports").is_dir()
    stated = re.search(r"certified ε ≥ ([\d.]+)", text).group(1)  # type: ignore[union-attr]
    certified = re.search(r"certified ε ≥ ([\d.]+)", gate.stdout).group(1)  # type: ignore[union-attr]
    assert _close(stated, certified), (stated, certified)


def test_scan(tmp_path: Path) -> None:
    pytest.importorskip("opendp", reason='needs pip install "dpaudit[opendp]"')
    text = block("Scanning a whole library (`dpaudit scan`)", "bash").text
    lines = [line for line in text.splitlines() if not any(line.startswith(k) for k in LINES_NOT_RUN)]
    assert len(lines) == len(text.splitlines()) - 2
    (done,) = run_lines("\n".join(lines), tmp_path)
    assert "make_laplace" in done.stdout and "0 flagged" in done.stdout


def test_raises_and_no_answers(tmp_path: Path) -> None:
    pytest.importorskip("diffprivlib", reason='needs pip install "dpaudit[diffprivlib]"')
    heading = "Raises, no answers, non-numbers and continuous targets"
    _write_named_block(tmp_path, block(heading, "python"))
    command, comment = block(heading, "bash").text.strip().splitlines()  # the comment states exit and figures
    done = shell_line(f"{command}   {comment}", tmp_path)
    witness = re.search(r"returned no answer \(NaN\) on D in \d+ of \d+, never on D′", comment)
    assert witness is not None and witness.group(0) in done.stdout
    stated = re.search(r"certified ε ≥ ([\d.]+)", comment)
    printed = re.search(r"certified ε ≥ ([\d.]+)", done.stdout)
    assert stated is not None and printed is not None and _close(stated.group(1), printed.group(1))


def test_estimator(tmp_path: Path) -> None:
    pytest.importorskip("diffprivlib", reason='needs pip install "dpaudit[diffprivlib]"')
    _write_named_block(tmp_path, block("Estimators", "python"))
    out = shell_line(block("Estimators", "bash").text.strip(), tmp_path).stdout
    assert "x[4] ≥ 1.31" in out
    prose = README.read_text(encoding="utf-8").split("### Estimators", 1)[1]
    match = re.search(r"\(0 of ([\d,]+) on D′; certified ε ≥ ([\d.]+) against 1", prose)
    assert match is not None
    total, stated = match.groups()
    assert _close(stated, re.search(r"certified ε ≥ ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    assert f"0/{total} on D′ (0); never on D′" in out


def test_synthesizer(tmp_path: Path) -> None:
    pytest.importorskip("snsynth", reason="needs pip install smartnoise-synth")
    _write_named_block(tmp_path, block("Synthesizers", "python"))
    shell_line(block("Synthesizers", "bash").text.strip(), tmp_path)


def test_dpsgd(tmp_path: Path) -> None:
    _write_named_block(tmp_path, block("Auditing DP-SGD", "python"))
    out = shell_line(block("Auditing DP-SGD", "bash").text.strip(), tmp_path).stdout
    prose = README.read_text(encoding="utf-8").split("## Auditing DP-SGD", 1)[1]
    measured = re.search(
        r"ε\(10⁻²\) ≥ ([\d.]+) against the accountant's ([\d.]+) \(and ([\d.]+) > ([\d.]+) at 10⁻³, "
        r"([\d.]+) > ([\d.]+) at 10⁻¹\).*?certified\s+ε ≥ ([\d.]+) at δ = 10⁻⁵",
        prose,
        re.S,
    )
    assert measured is not None
    at = {float(d): (v, c) for d, v, c in re.findall(r"ε at δ=([\d.e-]+) = ([\d.]+) > ([\d.]+)", out)}
    got = [*at[0.01], *at[0.001], *at[0.1], re.search(r"certified ε ≥ ([\d.]+)", out).group(1)]  # type: ignore[union-attr]
    for stated, actual in zip(measured.groups(), got, strict=True):
        assert _close(stated, actual), (measured.groups(), got)


ONE_RUN_FILES = {
    # the user's package the README's commands name: a training whose scores carry no signal, a
    # Poisson batch sampler, and a score file
    "mypkg/__init__.py": "",
    "mypkg/train.py": (
        "import numpy as np\n\n\n"
        "def train(included, rng):\n"
        "    return rng.normal(size=len(included))  # one score per canary, independent of the bits\n"
    ),
    "mypkg/data.py": (
        "def batches(num_examples, sample_rate, steps, rng):\n"
        "    for _ in range(steps):\n"
        "        yield rng.random(num_examples) < sample_rate\n"
    ),
    "scores.csv": "score,included\n" + "".join(f"{(i * 7919) % 1000 / 1000},{i % 2}\n" for i in range(400)),
}


def test_one_run(tmp_path: Path) -> None:
    _write(tmp_path, ONE_RUN_FILES)
    heading = "A model you can train only once (one-run audits)"
    one_run, scores, sampler = run_lines(block(heading, "bash").text, tmp_path)
    # the example's training certifies nothing: inconclusive (no evidence), never a violation
    assert "INCONCLUSIVE (no evidence" in one_run.stdout and "VIOLATION" not in one_run.stdout
    assert "VIOLATION" not in scores.stdout
    assert "no departure from Poisson sampling found" in sampler.stdout


def test_gate(tmp_path: Path) -> None:
    _write(tmp_path, ONE_RUN_FILES)
    _write(
        tmp_path,
        {
            "mypkg/privacy.py": (
                "import numpy as np\nimport dpaudit\n\n"
                "def noisy_sum(ds, runs, rng):\n"
                "    return ds.X.sum() + rng.laplace(0.0, 1.0, size=runs)\n\n"
                "my_mechanism = dpaudit.from_callable(\n"
                "    batch_fn=noisy_sum, name='my_mechanism', domain=dpaudit.Domain(num_features=1),\n"
                "    claim=dpaudit.PrivacyClaim(epsilon=1.0, relation=dpaudit.Relation.REPLACE_ONE,"
                " reference='mine'))\n"
            )
        },
    )
    heading = "Gating CI on privacy"
    (tmp_path / "dpaudit.toml").write_text(block(heading, "toml").text)
    _, gate = run_lines(block(heading, "bash").text, tmp_path)
    assert (tmp_path / "dpaudit-baseline.json").is_file() and (tmp_path / "gate-report").is_dir()
    assert "0 violation(s), 0 regression(s)" in gate.stdout


def test_one_run_in_the_gate(tmp_path: Path) -> None:
    _write(tmp_path, ONE_RUN_FILES)
    (tmp_path / "dpaudit.toml").write_text(block("Gating CI on privacy", "toml", 1).text)
    done = shell_line("dpaudit gate", tmp_path)
    assert "dpsgd-canaries" in done.stdout
