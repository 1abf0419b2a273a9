"""Per-sample streams and chunks sized by cost (issue 44, item 4; `engine/sampling.py`).

A mechanism that declares `per_sample_streams` (one release per call at a real cost) draws each
sample from its own stream keyed (pair, side, phase, SAMPLE_STREAM, row): its audit's result JSON
is the same, apart from the timing and the chunk size, for any chunk size, `--jobs 1`, `--jobs 2`
and a two-worker Dask cluster. A vectorised mechanism keeps its chunk streams: its seeded figures
are those of the code before per-sample streams existed (pinned below). The chunk size of a
per-sample mechanism follows the measured cost of one sample.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from dpaudit.engine.runner import budget as budget_module
from dpaudit.engine.runner import budget_from_cost, probe_chunk, run_audit
from dpaudit.engine.runner import procedure as procedure_module
from dpaudit.engine.sampling import SAMPLE_STREAM, chunk_rng, draw, sample_rng
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms import registry
from dpaudit.mechanisms.base import CallableMechanism, PrivacyClaim, from_callable, uses_sample_streams
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation


@dataclass(frozen=True)
class SlowSum:
    """A release that costs `seconds` of wall time (a stand-in for a fit): the sum plus Laplace
    noise of scale `scale` (scale 0.5: twice the claimed ε = 1, a violation to certify)."""

    seconds: float = 0.0
    scale: float = 1.0

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> float:
        if self.seconds:
            time.sleep(self.seconds)
        return float(dataset.X.sum() + rng.laplace(0.0, self.scale))


def slow_mechanism(seconds: float = 0.0, *, scale: float = 1.0, streams: bool = True) -> CallableMechanism:
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a test's Laplace sum")
    pair = NeighborPair(
        dataset=Dataset(np.zeros((3, 1))),
        neighbor=Dataset(np.array([[0.0], [0.0], [1.0]])),
        relation=Relation.REPLACE_ONE,
        description="replace one record: 0 → 1",
    )
    return from_callable(
        SlowSum(seconds, scale),
        name="slow_sum",
        claim=claim,
        domain=Domain(num_features=1),
        pairs=(pair,),
        per_sample_streams=streams,
    )


@pytest.fixture(autouse=True)
def _by_value() -> None:
    """Ship this module's SlowSum to worker processes by value (they cannot import the tests)."""
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _result(mechanism: CallableMechanism, **config: Any) -> dict[str, Any]:
    cfg = AuditConfig(num_samples=1200, seed=5, **config)
    result = run_audit(mechanism, mechanism.neighbor_pairs(), cfg, show_progress=False)
    out: dict[str, Any] = json.loads(result.to_json())
    out.pop("elapsed_seconds")
    out["extra"].pop("chunk_size")
    return out


def test_sample_streams_are_keyed_apart_from_chunk_streams() -> None:
    """A sample's key has five words, the fourth the marker: it repeats no chunk key."""
    key = (0, 1, 1, 3)
    a = sample_rng(7, key, 3).random(4)
    assert not np.array_equal(a, chunk_rng(7, (0, 1, 1, 3)).random(4))
    assert np.array_equal(a, chunk_rng(7, (0, 1, 1, SAMPLE_STREAM, 3)).random(4))
    assert np.array_equal(a, sample_rng(7, (0, 1, 1, 99), 3).random(4))  # the chunk index drops out


def test_draw_rows_do_not_depend_on_the_chunking() -> None:
    mech, data = slow_mechanism(), Dataset(np.zeros((3, 1)))
    whole = draw(mech, data, 10, 3, (0, 0, 1, 0), 0)
    cut = np.concatenate([draw(mech, data, 4, 3, (0, 0, 1, 0), 0), draw(mech, data, 6, 3, (0, 0, 1, 1), 4)])
    assert np.array_equal(whole, cut)
    # without a start (the baselines' re-counts) the chunk's own stream, as before
    assert not np.array_equal(draw(mech, data, 10, 3, (0, 0, 1, 0)), whole)


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_result_independent_of_chunk_size(chunk: int) -> None:
    mech = slow_mechanism(scale=0.5)
    reference = _result(mech, chunk_size=500)
    assert reference["verdict"] == "violation_found"
    assert _result(mech, chunk_size=chunk) == reference


@pytest.mark.parametrize("chunk", [3, 64])
def test_sequential_rounds_independent_of_chunk_size(chunk: int) -> None:
    """A sequential audit selects in rounds (`runner.rounds`): their selection and certification
    chunks give their first row too, so a per-sample mechanism's result keeps to its seed."""
    mech = slow_mechanism(scale=0.5)
    reference = _result(mech, chunk_size=500, sequential=True)
    assert reference["extra"]["sequential"]["rounds"]
    assert _result(mech, chunk_size=chunk, sequential=True) == reference


def test_chunk_streams_do_depend_on_chunk_size() -> None:
    """The control: without per-sample streams the same function's result changes with the chunking
    (so the test above would fail if the streams were not per sample)."""
    mech = slow_mechanism(scale=0.5, streams=False)
    assert _result(mech, chunk_size=7) != _result(mech, chunk_size=500)


@pytest.mark.parametrize("chunk", [None, 5, 37])
def test_result_same_for_jobs_1_and_2(chunk: int | None) -> None:
    mech = slow_mechanism(scale=0.5)
    reference = _result(mech, chunk_size=500)
    assert _result(mech, chunk_size=chunk, jobs=2) == reference


def test_result_same_on_a_two_worker_cluster() -> None:
    distributed = pytest.importorskip("dask.distributed")
    mech = slow_mechanism(scale=0.5)
    reference = _result(mech, chunk_size=500)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        for chunk in (None, 9):
            assert _result(mech, chunk_size=chunk, jobs=2, backend="dask") == reference
        prefixes = " ".join(str(k) for k in cluster.scheduler.task_prefixes)
    assert "in_worker" in prefixes or "count_events" in prefixes, prefixes


def test_vectorised_results_unchanged() -> None:
    """Figures computed on the code before per-sample streams (commit 5bc9b6f): a vectorised
    mechanism keeps its chunk streams and its chunk sizes exactly."""
    mech, _ = registry.resolve("laplace_sum")
    assert not uses_sample_streams(mech)
    cfg = AuditConfig(num_samples=5000, seed=7, chunk_size=700)
    result = run_audit(mech, mech.neighbor_pairs(), cfg, show_progress=False)
    assert result.epsilon_lower_bound == 0.8876748849808799
    bug, _ = registry.resolve("laplace_sum_range_bug")
    result = run_audit(bug, bug.neighbor_pairs(), AuditConfig(num_samples=3000, seed=1), show_progress=False)
    assert result.epsilon_lower_bound == 1.8614686354290266
    assert result.extra["chunk_size"] == 262144


def test_chunk_size_follows_the_measured_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget_module, "TIMING_SECONDS", 0.1)
    data, cfg = Dataset(np.zeros((3, 1))), AuditConfig(num_samples=1000)
    slow = probe_chunk(slow_mechanism(0.02), data, cfg)  # ≥ 20 ms a sample: at most 50 a second
    fast = probe_chunk(slow_mechanism(0.0005), data, cfg)
    assert 1 <= slow <= 50 < fast
    assert probe_chunk(slow_mechanism(0.0005, streams=False), data, cfg) == 262144  # by memory only
    assert probe_chunk(slow_mechanism(0.02), data, AuditConfig(num_samples=1000, chunk_size=3)) == 3
    assert budget_module.cost_chunk_size(2.0, cap=1024) == 1  # a fit of seconds: one per task
    assert budget_module.cost_chunk_size(1e-7, cap=1024) == 1024  # a cheap call: the memory cap
    assert budget_module.cost_chunk_size(0.01, cap=1024) == 100


def test_cost_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget's timing sizes the chunks too: the probe does not time the mechanism again."""
    calls: list[float] = []
    real = budget_module.seconds_per_sample

    def counted(*args: Any, **kwargs: Any) -> float:
        calls.append(real(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(budget_module, "TIMING_SECONDS", 0.05)
    monkeypatch.setattr(budget_module, "seconds_per_sample", counted)
    mech = slow_mechanism(0.002)
    data = mech.neighbor_pairs()[0].dataset
    fitted = budget_from_cost(mech, data, pairs=1, workers=1, time_budget=10.0)
    chunk = probe_chunk(mech, data, AuditConfig(num_samples=1000))
    assert len(calls) == 1
    assert chunk == budget_module.cost_chunk_size(fitted.seconds_per_sample, cap=262144)


def test_resume_takes_the_checkpoints_chunk_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The measured cost differs from run to run; a resumed audit of a per-sample mechanism is cut
    in the chunks its checkpoint records (else its key would not match) and gives the same result."""
    mech, path = slow_mechanism(scale=0.5), tmp_path / "audit.ckpt"
    cfg = AuditConfig(num_samples=1200, seed=5)
    monkeypatch.setattr(budget_module, "measured_seconds_per_sample", lambda *a, **k: 1 / 50)
    first = run_audit(mech, mech.neighbor_pairs(), cfg, show_progress=False, checkpoint_path=path)
    assert first.extra["chunk_size"] == 50
    monkeypatch.setattr(budget_module, "measured_seconds_per_sample", lambda *a, **k: 1 / 7)
    pairs = mech.neighbor_pairs()
    again = run_audit(mech, pairs, cfg, show_progress=False, checkpoint_path=path, resume=True)
    assert again.extra["chunk_size"] == 50
    assert again.epsilon_lower_bound == first.epsilon_lower_bound and again.pairs == first.pairs


def test_progress_moves_chunk_by_chunk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chunks sized by cost keep the progress line (and its ETA) moving during an expensive audit:
    at 0.1 s of work per chunk, a 2.5 s audit updates it every 0.2 s (its rate limit)."""
    monkeypatch.setattr(budget_module, "TASK_SECONDS", 0.1)
    monkeypatch.setattr(budget_module, "TIMING_SECONDS", 0.05)
    monkeypatch.setattr(procedure_module, "Progress", functools.partial(procedure_module.Progress, delay=0.0))
    mech = slow_mechanism(0.001)
    result = run_audit(mech, mech.neighbor_pairs(), AuditConfig(num_samples=1200, seed=5), show_progress=True)
    assert result.extra["chunk_size"] <= 100
    lines = [line for line in capsys.readouterr().err.split("\r") if "eta" in line]
    assert len(lines) >= 5, lines
    done = [int(line.split("(")[1].split("/")[0].replace(",", "")) for line in lines]
    assert done == sorted(done) and done[0] < done[-1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_pilot_draws_independent_of_the_pilot_chunk(jobs: int) -> None:
    """The search's pilot cuts a per-sample mechanism's draws by its measured cost too: the rows
    are the same for any pilot chunk (and the sampler sizes it by cost, far below PILOT_CHUNK)."""
    from dpaudit.engine.search.pilot_samples import PILOT_CHUNK, Entry, PilotSampler

    mech = slow_mechanism(0.001)
    pair = mech.neighbor_pairs()[0]
    rows = []
    for chunk in (None, 3, 40):
        sampler = PilotSampler(mech, AuditConfig(num_samples=1000, seed=2, jobs=jobs), chunk=chunk)
        entry = Entry(pair, "test", 1.0, 0.0)
        assert sampler.draw_all([(entry, 90)]) == [True]
        assert sampler.chunk is not None and sampler.chunk < PILOT_CHUNK
        rows.append(entry.outputs())
    for a, b in rows[1:]:
        assert np.array_equal(a, rows[0][0]) and np.array_equal(b, rows[0][1])
