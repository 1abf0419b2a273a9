"""`benchmarks/dask_expensive.py` (issue 44, item 4): an audit that ends without a result (exit 2,
no JSON) is reported as the audit's own one-line error and exit 2, not a traceback. No cluster is
started: the failing audit is the first run, before any run reaches the scheduler."""

from __future__ import annotations

from types import TracebackType

import pytest
from dask import distributed

from benchmarks import dask_expensive


def test_run_raises_the_audits_one_line_error() -> None:
    argv = ["run", "laplace_sum", "--num-samples", "60", "--seed", "0", "--json"]
    with pytest.raises(dask_expensive.AuditFailed) as failed:
        dask_expensive.run(argv)
    assert str(failed.value) == (
        "`dpaudit run laplace_sum --num-samples 60 --seed 0 --json` exited 2: "
        "dpaudit: error: num_samples must be an integer ≥ 200, got 60"
    )


class NoCluster:
    """Stands in for `LocalCluster`: an address no run reaches (the first run already fails)."""

    scheduler_address = "tcp://127.0.0.1:9"

    def __init__(self, **_: object) -> None:
        pass

    def __enter__(self) -> NoCluster:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        return None


def test_main_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(distributed, "LocalCluster", NoCluster)
    assert dask_expensive.main(["--mechanism", "no_such_mechanism", "--num-samples", "60"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "dask_expensive: error: `dpaudit run no_such_mechanism --seed 0 --json --num-samples 200 --jobs 2` "
        "exited 2: dpaudit: error: unknown mechanism 'no_such_mechanism' (see `dpaudit list`)"
    ]
