"""Resumable audits: an interrupted run resumes to the identical result without redoing chunks."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpaudit.engine.checkpoint import CheckpointError
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset
from dpaudit.reports.schema import to_json_dict
from tests.audit.test_learned import CorrelatedShift


def _comparable(r: Any) -> dict[str, Any]:
    d = to_json_dict(r)
    d.pop("elapsed_seconds")
    return d


@dataclass(frozen=True, slots=True, kw_only=True)
class Flaky(LaplaceSum):
    """Counts sample() calls in a file; raises once the budget of calls is spent."""

    name: str = "laplace_sum"
    counter: str = ""
    fail_after: int = -1

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> Any:
        path = Path(self.counter)
        calls = int(path.read_text()) if path.exists() else 0
        path.write_text(str(calls + 1))
        if 0 <= self.fail_after <= calls:
            raise KeyboardInterrupt
        return LaplaceSum.sample(self, dataset, num_samples, rng=rng)


def test_resume_after_interrupt_equals_uninterrupted(tmp_path: Path) -> None:
    cfg = AuditConfig(num_samples=40_000, seed=5, chunk_size=2048)
    plain = LaplaceSum()
    pairs = plain.neighbor_pairs()
    reference = run_audit(plain, pairs, cfg)

    ckpt = tmp_path / "ck.jsonl"
    counter = tmp_path / "calls"
    with pytest.raises(KeyboardInterrupt):
        run_audit(Flaky(counter=str(counter), fail_after=40), pairs, cfg, checkpoint_path=ckpt)
    lines = ckpt.read_text().splitlines()
    done_chunks = sum(json.loads(x)["type"] == "chunk" for x in lines)
    assert done_chunks > 0

    counter.unlink()
    resumed = run_audit(Flaky(counter=str(counter)), pairs, cfg, checkpoint_path=ckpt, resume=True)
    assert _comparable(resumed) == _comparable(reference)
    _, n_cert = cfg.split()
    total_cert_chunks = len(pairs) * 2 * -(-n_cert // 2048)
    # the probe (1 call) plus only the chunks not yet recorded: nothing redone, selection reloaded
    assert int(counter.read_text()) == 1 + total_cert_chunks - done_chunks


def test_checkpoint_of_another_audit_is_refused(tmp_path: Path) -> None:
    m = LaplaceSum()
    ckpt = tmp_path / "ck.jsonl"
    run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=5_000, seed=1), checkpoint_path=ckpt)
    with pytest.raises(CheckpointError, match="different audit"):
        run_audit(
            m, m.neighbor_pairs(), AuditConfig(num_samples=5_000, seed=2), checkpoint_path=ckpt, resume=True
        )


def test_torn_last_line_is_ignored(tmp_path: Path) -> None:
    m = LaplaceSum()
    cfg = AuditConfig(num_samples=20_000, seed=3, chunk_size=4096)
    ckpt = tmp_path / "ck.jsonl"
    full = run_audit(m, m.neighbor_pairs(), cfg, checkpoint_path=ckpt)
    with ckpt.open("a") as fh:
        fh.write('{"type": "chunk", "pair": 0, "si')  # a write torn by a crash
    again = run_audit(m, m.neighbor_pairs(), cfg, checkpoint_path=ckpt, resume=True)
    assert _comparable(again) == _comparable(full)


@pytest.mark.parametrize(
    ("first_line", "why"),
    [
        ('{"type": "header", "ke', "its header was cut"),
        ("garbage line\n", "its first line is not a dpaudit header ('garbage line')"),
    ],
)
def test_checkpoint_without_a_header_is_restarted_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first_line: str, why: str
) -> None:
    """A checkpoint whose first line is cut or is no dpaudit header at all holds nothing to trust:
    the audit restarts (the same result as a fresh run), and says so in the same words."""
    from dpaudit.app.cli.entry import main

    m = LaplaceSum()
    cfg = AuditConfig(num_samples=20_000, seed=3, chunk_size=4096)
    ckpt = tmp_path / "ck.jsonl"
    ckpt.write_text(first_line)
    again = run_audit(m, m.neighbor_pairs(), cfg, checkpoint_path=ckpt, resume=True)
    fresh = run_audit(m, m.neighbor_pairs(), cfg)
    note = f"checkpoint {ckpt} discarded: {why}"
    assert [w for w in again.warnings if w.startswith("checkpoint ")] == [
        f"{note}{'' if why.endswith(')') else ' (a write interrupted by a kill)'}; the audit restarted "
        "from the beginning"
    ]
    assert _comparable(dataclasses.replace(again, warnings=fresh.warnings)) == _comparable(fresh)
    # an empty checkpoint, or none, restarts without a note
    ckpt.write_text("")
    assert not run_audit(m, m.neighbor_pairs(), cfg, checkpoint_path=ckpt, resume=True).warnings
    # the CLI prints it
    out = tmp_path / "out"
    (out / ".checkpoints").mkdir(parents=True)
    (out / ".checkpoints" / "laplace_sum.jsonl").write_text(first_line)
    argv = [
        "run",
        "laplace_sum",
        "--num-samples",
        "20000",
        "--pairs",
        "registered",
        "--out",
        str(out),
        "--resume",
    ]
    assert main(argv) == 0
    err = capsys.readouterr().err
    path = out / ".checkpoints" / "laplace_sum.jsonl"
    assert f"dpaudit: warning: laplace_sum: checkpoint {path} discarded: {why}" in err


def test_kill_minus_nine_then_resume_cli(tmp_path: Path) -> None:
    """A real `kill -9` of `dpaudit run`, then `--resume`: identical result JSON (timings aside)."""
    env = {**os.environ, "CI": "true"}
    base = [
        sys.executable,
        "-m",
        "dpaudit",
        "run",
        "laplace_sum",
        "--num-samples",
        "12000000",  # ≈ 90 certification chunks: killed after 20 are on disk, well before the end
        "--seed",
        "9",
        "--format",
        "json",
    ]
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    proc = subprocess.Popen(
        [*base, "--out", str(out_a)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    ckpt = out_a / ".checkpoints" / "laplace_sum.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ckpt.exists() and sum(1 for _ in ckpt.open()) > 20:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert ckpt.exists() and not (out_a / "laplace_sum.json").exists()
    resumed = subprocess.run(
        [*base, "--out", str(out_a), "--resume"], env=env, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    fresh = subprocess.run([*base, "--out", str(out_b)], env=env, capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    a = json.loads((out_a / "laplace_sum.json").read_text())
    b = json.loads((out_b / "laplace_sum.json").read_text())
    a.pop("elapsed_seconds")
    b.pop("elapsed_seconds")
    assert a == b
    assert not ckpt.exists()  # removed once the result is written


def test_vector_audit_with_learned_events_and_trajectory_resumes_and_is_jobs_invariant(
    tmp_path: Path,
) -> None:
    """A vector mechanism (learned score events, profile points, trajectory cut inside chunks):
    interrupted then resumed, and run with 2 workers, gives the uninterrupted JSON exactly."""

    @dataclass(frozen=True, slots=True, kw_only=True)
    class FlakyVector(CorrelatedShift):
        counter: str = ""
        fail_after: int = -1

        def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> Any:
            path = Path(self.counter)
            calls = int(path.read_text()) if path.exists() else 0
            path.write_text(str(calls + 1))
            if 0 <= self.fail_after <= calls:
                raise KeyboardInterrupt
            return CorrelatedShift.sample(self, dataset, num_samples, rng=rng)

    cfg = AuditConfig(num_samples=30_000, seed=4, chunk_size=4096, profile_deltas=(1e-2,))
    plain = CorrelatedShift()
    pairs = [plain.pair()]
    reference = run_audit(plain, pairs, cfg)
    assert reference.pairs[0].estimate.distinguisher in {"logistic", "logistic-squared", "projection"}
    assert len(reference.pairs[0].trajectory) == 4
    ckpt = tmp_path / "ck.jsonl"
    counter = tmp_path / "calls"
    with pytest.raises(KeyboardInterrupt):
        run_audit(FlakyVector(counter=str(counter), fail_after=12), pairs, cfg, checkpoint_path=ckpt)
    counter.unlink()
    resumed = run_audit(FlakyVector(counter=str(counter)), pairs, cfg, checkpoint_path=ckpt, resume=True)
    assert _comparable(resumed) == _comparable(reference)
    two = run_audit(plain, pairs, dataclasses.replace(cfg, jobs=2))
    assert _comparable(two) == _comparable(reference)
