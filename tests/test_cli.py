from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit.app.cli.entry as app_cli
from dpaudit.app.cli.entry import main
from dpaudit.reports.schema import REQUIRED_KEYS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0 and "laplace_sum_range_bug" in out and "buggy" in out
    assert max(len(line) for line in out.splitlines()) <= 100  # a 100-column terminal (issue 37)
    code, out, _ = run(capsys, "list", "--wide")
    assert code == 0 and "buggy twin of laplace_sum" in out and "textbook" in out


def test_list_shows_the_verdict_claim_and_labels_libraries(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42: `list` shows the claim the report's verdict is about (the one verdict rule), and a
    DP library's mechanism is "library", not "correct" (the README's gate flags one)."""
    _, out, _ = run(capsys, "list")
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    _, data_out, _ = run(
        capsys, "run", "geo_halfplane_grid4", "--num-samples", "2000", "--pairs", "registered", "--json"
    )
    report_claim = json.loads(data_out)["claim"]
    assert f"ε={report_claim['epsilon']:.4g}" == rows["geo_halfplane_grid4"][2]
    assert rows["geo_halfplane_grid4"][2] == "ε=0.6829"  # not its first-listed ε = 1.8 claim
    pytest.importorskip("diffprivlib")
    assert rows["diffprivlib_laplace"][1] == "library"


def test_run_correct_and_buggy_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", "laplace_sum", "--num-samples", "50000")
    assert code == 0 and "no violation found at this power" in out
    code, out, _ = run(capsys, "run", "laplace_sum_range_bug", "--num-samples", "50000")
    assert code == 1 and "VIOLATION FOUND" in out


def test_json_output_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "run", "randomized_response", "--num-samples", "20000", "--seed", "4", "--json"
    )
    assert code == 0
    data = json.loads(out)
    for key in REQUIRED_KEYS:
        assert key in data
    assert set(data["claim"]) >= {"epsilon", "delta", "relation", "reference"}
    assert data["claims"][0]["kind"] in {"proved", "stated"} and "exceeded" in data["claims"][0]
    # the default route searches: a budget of 20,000 per side per registered pair, of which
    # each certified pair gets its share (pilot-chosen selection split + certification)
    assert data["seed"] == 4 and data["extra"]["search"]["budget"] % 20000 == 0
    assert data["num_samples"] <= 20000 and data["command"].endswith("--pairs all")
    assert data["pairs"] and "description" in data["pairs"][0]
    code, out, _ = run(
        capsys,
        "run",
        "randomized_response",
        "--num-samples",
        "20000",
        "--seed",
        "4",
        "--json",
        "--pairs",
        "registered",
    )
    data = json.loads(out)
    assert code == 0 and data["num_samples"] == 20000 and "search" not in data["extra"]


def test_out_dir_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "run", "exponential_mechanism", "--num-samples", "20000", "--out", str(tmp_path))
    assert code == 0
    result = tmp_path / "exponential_mechanism.json"
    assert result.exists() and (tmp_path / "exponential_mechanism.md").exists()
    code, out, _ = run(capsys, "report", str(result), "--format", "md")
    assert code == 0 and "# dpaudit: `exponential_mechanism`" in out and "## Pairs" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "no_such_mechanism"], "unknown mechanism"),
        (["run", "laplace_sum", "--param", "nope=1"], "unknown parameter 'nope'"),
        (["run", "laplace_sum", "--param", "epsilon=abc"], "bad value for parameter 'epsilon'"),
        (["run", "laplace_sum", "--param", "epsilon"], "K=V"),
        (["run", "laplace_sum", "--param", "epsilon=-1"], "cannot build"),
        (["run", "laplace_sum", "--num-samples", "0"], "positive integer"),
        (["run", "laplace_sum", "--num-samples", "-5"], "positive integer"),
        (["run", "laplace_sum", "--failure-probability", "2"], "probability"),
        (["run", "laplace_sum", "--format", "pdf"], "unknown format"),
        (["run"], "needs a MECHANISM"),
        (["run", "tests.user_mechanisms:nan_mech", "--num-samples", "1000"], "user_nan"),
        (["run", "tests.user_mechanisms:raising_mech", "--num-samples", "1000"], "kaboom"),
        (["run", "tests.user_mechanisms:wrong_shape", "--num-samples", "1000"], "shape"),
        (["run", "tests.no_such_module:x"], "cannot import"),
        (["run", "tests.user_mechanisms:missing"], "no attribute"),
        (["report", "/nonexistent/result.json"], "cannot read"),
        ([], "required"),
        (["frobnicate"], "invalid choice"),
        (["run", "laplace_sum", "--jobs", "0"], "number of workers"),
        (["run", "laplace_sum", "--backend", "nope"], "invalid choice"),
        (["run", "laplace_sum", "--backend", "multiprocessing"], "invalid choice"),
        (["scan", "opendp", "--jobs", "-3"], "number of workers"),
        (["scan", "opendp", "--timeout", "0"], "positive number of seconds"),
        (["gate", "--jobs", "abc"], "number of workers"),
    ],
)
def test_usage_errors_exit_2_one_line(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dpaudit: error:")
    assert needle in err
    assert "Traceback" not in err


def test_malformed_result_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "report", str(bad))
    assert code == 2 and "not valid JSON" in err
    bad.write_text(json.dumps({"mechanism": "x"}))
    code, _, err = run(capsys, "report", str(bad))
    assert code == 2 and "missing" in err


def test_user_mechanism_by_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", "tests.user_mechanisms:laplace_callable", "--num-samples", "2000")
    assert code == 0 and "user_laplace" in out


def test_a_violation_names_its_witness(capsys: pytest.CaptureFixture[str]) -> None:
    """The console says which datasets broke the claim and how often the event fell on each side."""
    spec = "tests.blind_mechanisms:threshold_box_t5"
    code, out, _ = run(capsys, "run", spec, "--num-samples", "100000")
    assert code == 1
    witness = "witness: 5 records at x = 1 vs 4 records at x = 1 and one at x = 0, replace-one, certified ε ≥"
    assert witness in out
    line = out.splitlines()[out.splitlines().index(next(x for x in out.splitlines() if witness in x)) + 1]
    assert line.lstrip().startswith("event ") and " on D (" in line and " on D′ (" in line
    code, out, _ = run(capsys, "run", "laplace_sum", "--num-samples", "50000")
    assert code == 0 and "witness" not in out


def test_python_dash_m_entry_point() -> None:
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run(
        [sys.executable, "-m", "dpaudit", "run", "no_such"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.strip().startswith("dpaudit: error:")
    assert "Traceback" not in proc.stderr


def test_out_dir_html_and_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "run", "laplace_sum", "--num-samples", "20000", "--out", str(tmp_path))
    assert code == 0
    page = (tmp_path / "laplace_sum.html").read_text()
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "No violation found at this power" in page
    code, out, _ = run(capsys, "report", str(tmp_path / "laplace_sum.json"), "--format", "junit")
    assert code == 0 and "<testsuite" in out


def test_pairs_search_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "run", "laplace_sum_range_bug", "--pairs", "search", "--num-samples", "20000", "--json"
    )
    assert code == 1
    data = json.loads(out)
    assert data["verdict"] == "violation_found" and "search" in data["extra"]


def test_pairs_all_searches_with_registered_pairs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--pairs all` searches with the registered pairs in the pool, on the registered route's
    budget, and the JSON lists every pair tried; with a "registered" default and no --pairs the
    registered route runs."""

    monkeypatch.setattr(app_cli, "DEFAULT_PAIRS", "registered")
    argv = ["run", "laplace_sum", "--num-samples", "20000", "--seed", "4", "--json"]
    code, out, _ = run(capsys, *argv, "--pairs", "all")
    assert code == 0
    data = json.loads(out)
    search = data["extra"]["search"]
    assert "--pairs all" in data["command"]
    assert search["budget"] == 20000 * 2  # laplace_sum registers 2 pairs
    # certifying only registered pairs, the pilot's exploration comes on top (≤ the pilot's share)
    assert search["total_samples"] <= search["budget"] * (1 + search["pilot_fraction"])
    assert len(search["candidates"]) >= 2 and "registered" in {c["source"] for c in search["candidates"]}
    assert data["num_samples"] == data["selection_samples"] + data["certification_samples"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    data = json.loads(out)
    assert "search" not in data["extra"] and "--pairs registered" in data["command"]
    code, _, err = run(capsys, "run", "laplace_sum", "--num-samples", "1000", "--pairs", "all")
    assert code == 2 and "too small" in err


def test_default_pairs_search_falls_back_to_registered_with_a_note(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the search as the default, a budget too small to search runs the registered route
    with a one-line note (on stderr and in the result's warnings) and a command that says so; the
    same budget with an explicit --pairs all is an error; a budget that fits searches and its
    command carries --pairs all."""

    monkeypatch.setattr(app_cli, "DEFAULT_PAIRS", "all")
    code, out, err = run(capsys, "run", "laplace_sum", "--num-samples", "1000", "--json")
    assert code == 0
    data = json.loads(out)
    assert "search" not in data["extra"] and "--pairs registered" in data["command"]
    notes = [w for w in data["warnings"] if w.startswith("note: audited on the registered pairs")]
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "note: audited on the registered pairs" in err
    code, _, err = run(capsys, "run", "laplace_sum", "--num-samples", "1000", "--pairs", "all")
    assert code == 2 and "too small" in err
    code, out, _ = run(capsys, "run", "laplace_sum", "--num-samples", "20000", "--seed", "4", "--json")
    data = json.loads(out)
    assert code == 0 and "search" in data["extra"] and data["command"].endswith("--pairs all")


def test_run_all_command_carries_pairs(monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(app_cli, "DEFAULT_PAIRS", "all")
    args = app_cli.build_parser().parse_args(["run", "--all"])
    assert "--pairs all" in app_cli._run_all_command(args)
    args = app_cli.build_parser().parse_args(["run", "--all", "--pairs", "registered"])
    assert "--pairs registered" in app_cli._run_all_command(args)


def test_plan_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plan", "randomized_response", "--target-epsilon", "0.9", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["num_samples"] and data["num_samples"] > 0
    code, _, err = run(capsys, "plan", "laplace_sum")
    assert code == 2 and "target-epsilon" in err


def test_recorded_command_reproduces_the_result_including_profile_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command stored in the result must rerun the same tests (same Bonferroni split)."""
    argv = ["run", "gaussian_sum", "--num-samples", "20000", "--seed", "2"]
    argv += ["--profile-deltas", "1e-3,0.1", "--gdp", "--json"]
    code, out, _ = run(capsys, *argv)
    first = json.loads(out)
    assert "--profile-deltas 0.001,0.1" in first["command"] and "--gdp" in first["command"]
    replay = [*first["command"].split()[1:], "--json"]
    code2, out2, _ = run(capsys, *replay)
    second = json.loads(out2)
    assert code == code2
    for key in ("epsilon_lower_bound", "test_level", "profile"):
        assert first[key] == second[key]


def test_run_all_resume_reuses_finished_audits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --all --resume` after a run that finished two of three audits redoes only the third."""
    import dpaudit.app.cli.entry as cli
    from dpaudit.mechanisms import registry

    chosen = {"laplace_sum", "randomized_response", "exponential_mechanism"}
    table = {k: v for k, v in registry.entries().items() if k in chosen}
    monkeypatch.setattr(cli, "entries", lambda: table)
    argv = ["run", "--all", "--num-samples", "20000", "--pairs", "registered", "--out", str(tmp_path)]
    argv += ["--jobs", "1"]  # in this process, where the test sees which audits ran
    assert cli.main(argv) == 0
    (tmp_path / "exponential_mechanism.json").unlink()
    first = (tmp_path / "laplace_sum.json").read_text()
    audited: list[str] = []
    real = cli._audit_one
    monkeypatch.setattr(cli, "_audit_one", lambda spec, p, a: audited.append(spec) or real(spec, p, a))
    capsys.readouterr()
    assert cli.main([*argv, "--resume"]) == 0
    assert audited == ["exponential_mechanism"]
    assert (tmp_path / "laplace_sum.json").read_text() == first
    audited.clear()
    assert cli.main([*argv[:3], "30000", *argv[4:], "--resume"]) == 0  # another budget: all redone
    assert sorted(audited) == sorted(chosen)


def test_run_all_ends_with_one_summary_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --all` closes with one line: audits, violations by name, weakened count, where the
    reports are; with --json the line goes to stderr so stdout stays one JSON document."""
    import dpaudit.app.cli.entry as cli
    from dpaudit.mechanisms import registry

    chosen = {"laplace_sum", "laplace_sum_range_bug"}
    table = {k: v for k, v in registry.entries().items() if k in chosen}
    monkeypatch.setattr(cli, "entries", lambda: table)
    # twins are not part of --all: make the twin look like a correct entry to see a violation named
    table["laplace_sum_range_bug"] = dataclasses.replace(
        table["laplace_sum_range_bug"], buggy=False, twin_of=None
    )
    argv = ["run", "--all", "--num-samples", "20000", "--pairs", "registered", "--out", str(tmp_path)]
    assert cli.main([*argv, "--format", "html"]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("dpaudit: 2 audits, 1 violation(s): laplace_sum_range_bug, 0 weakened")
    assert last.endswith(f"reports in {tmp_path / 'index.html'}")
    assert cli.main([*argv, "--json"]) == 1
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 2 and err.strip().splitlines()[-1].startswith("dpaudit: 2 audits")


def test_search_budget_options_reach_the_search_and_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """--pilot-fraction and --search-pairs steer the search's budget, appear in the printed
    command, and the printed command reproduces the bound."""
    argv = ["laplace_sum", "--num-samples", "30000", "--pilot-fraction", "0.3", "--search-pairs", "3"]
    code, out, _ = run(capsys, "run", *argv, "--json")
    data = json.loads(out)
    assert code == 0 and data["extra"]["search"]["budget"] == 90_000
    assert "--pilot-fraction 0.3 --search-pairs 3" in data["command"]
    again = shlex.split(data["command"])[1:]
    code, out, _ = run(capsys, *again, "--json")
    assert json.loads(out)["epsilon_lower_bound"] == data["epsilon_lower_bound"]
    code, _, err = run(capsys, "run", "laplace_sum", "--pilot-fraction", "1.5")
    assert code == 2 and "--pilot-fraction" in err


def test_summary_names_a_refuted_claim_under_another_relation() -> None:
    """The headline claim is add/remove; the twin's violation is on its replace-one claim, which
    the summary then names with its own relation."""
    from dpaudit.api import audit
    from dpaudit.app.summary import summary

    result = audit("private_decision_list_no_group_privacy", num_samples=200_000, pairs="registered")
    assert result.violation and result.claim.relation.value == "add_remove_one"
    text = summary(result)
    assert "exceeds the proved claim ε=2 δ=0 (replace_one): certified ε ≥ 2." in text


def test_run_all_and_gate_default_to_every_core_with_identical_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --all` and `gate` default to all cores (the process's CPU affinity), one mechanism to
    --jobs 1; `run --all` runs that many audits side by side (one process each, --jobs 1 inside);
    the results are bit-identical to --jobs 1 in turn (apart from the elapsed time)."""
    import dpaudit.app.cli.commands as cli_commands
    import dpaudit.app.cli.entry as cli
    import dpaudit.app.cli.parser as cli_parser
    import dpaudit.app.cli.pool as audit_pool
    from dpaudit.mechanisms import registry

    assert cli_parser.all_cores() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(cli, "all_cores", lambda: 2)  # parallel even on a one-core runner
    monkeypatch.setattr(cli_commands, "all_cores", lambda: 2)
    chosen = {"laplace_sum", "exponential_mechanism", "randomized_response"}
    table = {k: v for k, v in registry.entries().items() if k in chosen}
    monkeypatch.setattr(cli, "entries", lambda: table)
    sizes: list[int] = []
    real_size = audit_pool.pool_size
    monkeypatch.setattr(cli, "pool_size", lambda a, n: sizes.append(real_size(a, n)) or sizes[-1])
    jobs: list[int] = []
    real = cli.certify
    monkeypatch.setattr(
        cli, "certify", lambda m, config, *a, **k: jobs.append(config.jobs) or real(m, config, *a, **k)
    )

    def results(*extra: str) -> list[dict[str, object]]:
        code, out, _ = run(capsys, "run", "--all", "--num-samples", "20000", "--seed", "5", "--json", *extra)
        assert code == 0
        data = json.loads(out)
        for d in data:
            d.pop("elapsed_seconds")
        return list(data)

    default = results()
    assert sizes == [2] and jobs == []  # the audits ran in the two worker processes
    assert [d["mechanism"] for d in default] == list(table)  # registry order, whatever finished first
    assert results("--jobs", "1") == default and sizes[1:] == [1] and jobs == [1, 1, 1]
    run(capsys, "run", "laplace_sum", "--num-samples", "20000")
    assert jobs[-1] == 1  # one mechanism: in-process unless asked

    import dpaudit.app.gate as gate_mod  # the door cmd_gate imports run_gate through

    seen: list[int] = []
    real_gate = gate_mod.run_gate
    monkeypatch.setattr(gate_mod, "run_gate", lambda c, o, io: seen.append(o.jobs) or real_gate(c, o, io))
    config = tmp_path / "dpaudit.toml"
    config.write_text('num_samples = 20000\nseed = 2\n[[audit]]\nmechanism = "laplace_sum"\n')
    assert main(["gate", str(config), "--out", str(tmp_path / "a")]) == 0
    assert main(["gate", str(config), "--out", str(tmp_path / "b"), "--jobs", "1"]) == 0
    assert seen == [2, 1]
    a, b = (json.loads((tmp_path / d / "laplace_sum.json").read_text()) for d in "ab")
    a.pop("elapsed_seconds"), b.pop("elapsed_seconds")
    assert a == b


def test_sweep_max_count_bounds_the_sweeps_and_is_in_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """--sweep-max-count sets the largest k of the count sweeps: with 16, a branch on a true count
    of 20 records is out of reach (no violation), with the default 64 it is flagged; the flag is
    carried in the printed command."""
    spec = "tests.blind_mechanisms:threshold_box_t20"
    base = ["run", spec, "--num-samples", "200000", "--json"]
    code, out, _ = run(capsys, *base, "--sweep-max-count", "16")
    small = json.loads(out)
    assert code == 0 and "--sweep-max-count 16" in small["command"]
    code, out, _ = run(capsys, *base)
    full = json.loads(out)
    assert code == 1 and "--sweep-max-count" not in full["command"]
    assert small["extra"]["search"]["sweeps"]["proposed"] < full["extra"]["search"]["sweeps"]["proposed"]
    code, out, _ = run(capsys, *base, "--sweep-max-count", "0")
    off = json.loads(out)["extra"]["search"]["sweeps"]
    assert code == 0 and off["proposed"] == 0 and off["samples"] == 0  # 0: no sweeps
    code, _, err = run(capsys, "run", spec, "--sweep-max-count", "-1")
    assert code == 2 and "--sweep-max-count" in err
