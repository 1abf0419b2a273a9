"""Distributed runs (issue 8, item 5): `dpaudit run --backend dask --scheduler ADDRESS`.

A two-worker `LocalCluster` on loopback (worker *processes*, so mechanisms and chunk tasks
really are pickled to other interpreters) runs the same audit as the local `--jobs 1` run; the
result JSON must be identical apart from the timing, because every chunk draws from its own
`SeedSequence` child keyed by (pair, side, phase, chunk), whatever runs it (DESIGN.md,
"Sampling"). Deterministic: no statistical tolerance involved.

Skipped when the `dask` extra is not installed.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

distributed = pytest.importorskip("dask.distributed")

from dpaudit.app.cli.entry import main  # noqa: E402  (after the importorskip on purpose)

# 600,000 samples per side: a 60,000 selection chunk and three certification chunks of
# ≤ 262,144 per side and pair, i.e. 16 tasks over the two pairs (several per worker).
# The registered route: every sample is a runner chunk (the pilot is tested in test_search.py).
BASE = ["run", "laplace_sum", "--num-samples", "600000", "--seed", "3", "--json", "--pairs", "registered"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as c:
        yield c


def _close_clients() -> None:
    """Close the clients the CLI registered as default (it does not close them itself)."""
    for _ in range(16):
        try:
            client = distributed.default_client()
        except ValueError:
            return
        client.close()


def _cli(args: list[str]) -> tuple[int, dict[str, Any] | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        finally:
            _close_clients()
    text = out.getvalue()
    return code, (json.loads(text) if text.strip() else None), err.getvalue()


def _timeless(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "elapsed_seconds"}


@pytest.mark.parametrize("mechanism", ["laplace_sum", "laplace_sum_range_bug"])
def test_dask_cluster_result_equals_local(cluster: Any, mechanism: str) -> None:
    args = ["run", mechanism, *BASE[2:]]
    local_code, local, _ = _cli(args)
    assert local is not None
    dask_code, remote, err = _cli(
        [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address, "--jobs", "2"]
    )
    assert remote is not None, f"dask run failed (exit {dask_code}): {err.strip()}"
    assert dask_code == local_code == (1 if mechanism.endswith("_bug") else 0)
    assert _timeless(remote) == _timeless(local)
    # The chunks really ran on the cluster (the scheduler lives in this process): as themselves, or
    # inside `sampling.in_worker`, which carries an audit session's deadline and output checks.
    prefixes = " ".join(str(k) for k in cluster.scheduler.task_prefixes)
    assert ("count_events" in prefixes and "sample_rows" in prefixes) or "in_worker" in prefixes, prefixes


def test_scheduler_needs_dask_backend() -> None:
    code, _, err = _cli([*BASE, "--scheduler", "tcp://127.0.0.1:1"])
    assert code == 2 and "--scheduler needs --backend dask" in err
