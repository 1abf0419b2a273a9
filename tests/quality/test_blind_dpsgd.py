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
