"""Slow tier: a user's own 1-D noisy gradient descent audited blind (issue 35; `tests/blind_dpsgd.py`).

No pairs and no statistics: the pair search finds the canary and the learned trajectory likelihood
ratio (`engine.learned.trajectory`) is the statistic. At 2·10⁵ runs per side, seed 0, the loop
with half the noise and the loop whose clip lets a gradient reach C·√2 are flagged, the correct
loop is not (flagged with probability ≤ 0.05, the audit's failure probability).
"""

from __future__ import annotations

import pytest

from dpaudit.app.cli.entry import main
from tests.blind_dpsgd import ROWS

BUGGY = {name: buggy for name, _, buggy in ROWS}


@pytest.mark.parametrize("name", ["gd1d_correct", "gd1d_half_noise", "gd1d_clip_sqrt2"])
def test_blind_noisy_gradient_descent(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", f"tests.blind_dpsgd:{name}", "--num-samples", "200000", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == (1 if BUGGY[name] else 0), out
