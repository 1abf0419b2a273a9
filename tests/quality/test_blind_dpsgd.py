"""Slow tier: a user's own noisy gradient descent audited blind (issue 35; `tests/blind_dpsgd.py`).

No pairs and no statistics: the pair search finds the canary and the learned trajectory likelihood
ratios (`engine.learned.trajectory`, `engine.learned.state_trajectory`) are the statistic. At 2·10⁵
runs per side, seed 0, each loop with half the noise or with a clip that lets a gradient reach
C·√2 is flagged, each correct loop is not (flagged with probability ≤ 0.05, the audit's failure
probability). The README's logistic loop with per-coordinate clipping is flagged only through the
state-dependent model and the "labelled like the rest" template (0.250 before them).
"""

from __future__ import annotations

import pytest

from dpaudit.app.cli.entry import main
from tests.blind_dpsgd import ROWS

BUGGY = {name: buggy for name, _, buggy in ROWS}


@pytest.mark.parametrize("name", [name for name, _, _ in ROWS])
def test_blind_noisy_gradient_descent(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", f"tests.blind_dpsgd:{name}", "--num-samples", "200000", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == (1 if BUGGY[name] else 0), out


def test_blind_linear_regression_finds_its_input_canary_under_each_relation() -> None:
    """`dpsgd_linear_score` with its pairs and statistics hidden (a user's own linear regression,
    its response the last feature, one canary score per run): the blind route certifies the
    response edge (4, 0, −4), the registered input canary x = 4·e₁ with response −4, and
    certifies a pair under the verdict claim's relation (add/remove) even when the pilot's winner
    is the replace-one pair."""
    import dpaudit
    from benchmarks.blind_registered import Blind
    from dpaudit.mechanisms.registry import entries
    from dpaudit.neighbors.base import Relation

    mech = entries()["dpsgd_linear_score"].factory()
    result = dpaudit.audit(Blind(mech), num_samples=100_000, seed=0)  # type: ignore[arg-type]
    added = [p for p in result.pairs if p.relation is Relation.ADD_REMOVE_ONE]
    assert added and "(4, 0, -4)" in added[0].description
    assert mech.claim.relation is Relation.ADD_REMOVE_ONE
