"""Outputs whose width depends on the data (issue 29, item 6): the width event certified as an
infinite witness (registered pairs, the blind search through `dpaudit run module:attr`, the
CLI), and exit 2 for a width that is not a function of the dataset.

Every audit is seeded. A width difference is an event of probability 1 on one side and 0 on the
other, so its certified bound is the Clopper–Pearson infinite-witness bound, far above the claims
here (ε = 1) at every budget used: the assertions hold for every seed, not just with high
probability."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.engine.distinguishers.objectives import EpsilonAt
from dpaudit.engine.distinguishers.selection import choose_events, event_from_spec
from dpaudit.engine.distinguishers.width import WidthDistinguisher, WidthEvent, for_outputs
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.sampling import OutputShapeError
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.ADD_REMOVE_ONE, reference="test fixture")
DOMAIN = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
ADD = NeighborPair(
    dataset=Dataset(np.array([[0.0], [1.0]])),
    neighbor=Dataset(np.array([[0.0], [1.0], [1.0]])),
    relation=Relation.ADD_REMOVE_ONE,
    description="add one record at 1",
)


def _per_record(ds: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    """One noisy value per record: (n, |D|) (a per-record release under add/remove)."""
    return ds.X[:, 0][None, :] + rng.laplace(0.0, 1.0, size=(n, ds.n))


def _branch(ds: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n,) on datasets of fewer than 3 records, (n, 2) from 3 on."""
    s = float(ds.X.sum())
    if ds.n >= 3:
        return np.stack([s + rng.laplace(0.0, 1.0, n), rng.laplace(0.0, 1.0, n)], axis=1)
    return s + rng.laplace(0.0, 1.0, n)


_calls = {"n": 0}


def _flaky_width(ds: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    """A width that changes between calls on the same dataset (not a function of the data)."""
    _calls["n"] += 1
    return rng.laplace(0.0, 1.0, size=(n, 1 + _calls["n"] % 2))


per_record = from_callable(batch_fn=_per_record, name="user_per_record", claim=CLAIM, domain=DOMAIN)
branch_registered = from_callable(
    batch_fn=_branch, name="user_width_branch", claim=CLAIM, domain=DOMAIN, pairs=(ADD,)
)
flaky = from_callable(
    batch_fn=_flaky_width, name="user_flaky_width", claim=CLAIM, domain=DOMAIN, pairs=(ADD,)
)


def test_width_event_indicator_spec_and_text() -> None:
    e = WidthEvent(1, on_dataset=1, on_neighbor=2)
    assert e.indicator(np.zeros(5)).all() and not e.indicator(np.zeros((5, 2))).any()
    assert e.indicator(np.zeros((4, 1))).all()  # (n,) and (n, 1) are one width
    assert event_from_spec(e.to_spec()) == e
    assert "the output has 1 column on D and 2 on D′" in e.describe()


def test_split_of_two_widths_gets_the_width_events_alone() -> None:
    a, b = np.zeros((300, 1)), np.zeros((300, 2))
    assert for_outputs(("x",), a, a) == ("x",)  # type: ignore[arg-type]
    assert isinstance(for_outputs((), a, b)[0], WidthDistinguisher)
    (sel,) = choose_events(a, b, certify_total=10_000, test_level=0.05, objectives=[EpsilonAt(0.0)])
    assert isinstance(sel.event, WidthEvent) and sel.distinguisher == "output width"
    assert sel.event.indicator(a).all() != sel.event.indicator(b).any()
    assert not sel.also  # one certified event: the counts (n, 0) cannot be beaten


def test_registered_pair_with_two_widths_is_an_infinite_witness() -> None:
    n = 20_000
    result = run_audit(branch_registered, [ADD], AuditConfig(num_samples=n, seed=3), show_progress=False)
    est = result.pairs[0].estimate
    assert result.violation and est.infinite_witness
    assert (est.p_count, est.q_count) == (est.p_total, 0)
    # the certified value is the Clopper–Pearson infinite-witness bound at β/2 on each side
    beta = est.bound_level / 2
    q_hi = 1 - beta ** (1 / est.q_total)
    assert est.epsilon_lower_bound == pytest.approx(math.log(est.p_lower / q_hi), rel=1e-9)
    assert "the output has 1 column on D and 2 on D′" in est.event
    assert result.pairs[0].event_spec is not None and result.pairs[0].event_spec["type"] == "width"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("target", "extra"),
    [
        ("tests.audit.test_output_width:per_record", []),  # no registered pairs: the search's pilot
        ("tests.audit.test_output_width:branch_registered", ["--pairs", "registered"]),
        ("tests.audit.test_output_width:branch_registered", []),  # registered pairs in the pilot pool
    ],
)
def test_cli_reports_a_data_dependent_width_as_a_violation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str, extra: list[str]
) -> None:
    code, out, err = _run(
        capsys, "run", target, "--num-samples", "20000", "--out", str(tmp_path), "--format", "json", *extra
    )
    assert code == 1, err
    assert "VIOLATION FOUND" in out and "internal error" not in err
    import json

    (result_file,) = tmp_path.glob("*.json")
    data: dict[str, Any] = json.loads(result_file.read_text())
    events = [p["estimate"]["event"] for p in data["pairs"] if p["violation"]]
    assert any("on D and" in e and "on D′" in e for e in events)


def test_width_that_changes_between_calls_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OutputShapeError, match="user_flaky_width"):
        run_audit(flaky, [ADD], AuditConfig(num_samples=4000, seed=0, chunk_size=1024), show_progress=False)
    code, _, err = _run(
        capsys, "run", "tests.audit.test_output_width:flaky", "--num-samples", "4000", "--pairs", "registered"
    )
    assert code == 2 and err.count("\n") == 1
    assert "user_flaky_width" in err and "(n, 1)" in err and "(n, 2)" in err and "pair 1" in err
