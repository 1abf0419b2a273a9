"""Issue 42, item 1: one verdict rule (`mechanisms.base.decides_verdict`) on every path.

The same ε = 3 randomised response, claimed ε = 1 as a lone STATED claim (add/remove one), is
audited through `run`, the pytest plugin, `one-run`, `scores` and the gate (a mechanism audit
and a one-run audit): every path exits 1 (or raises) and words it as a violation of a stated
claim. Beside a PROVED claim that holds, the same STATED claim exceeded is a finding (exit 0).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.app.pytest_plugin import PrivacyViolationError, assert_no_violation
from dpaudit.engine.one_run import inclusion_bits
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim, applicable_claim, decides_verdict, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

HERE = "tests.test_verdict_rule"
EPSILON = 3.0
STATED = PrivacyClaim(
    epsilon=1.0,
    relation=Relation.ADD_REMOVE_ONE,
    reference="a library's documentation",
    kind=ClaimKind.STATED,
    note="the documented ε; the documentation names no neighbour relation",
)
PROVED_LOOSE = PrivacyClaim(epsilon=4.0, relation=Relation.ADD_REMOVE_ONE, reference="a proof, Thm 1")
WORDS = "violation of a stated claim"


def _flip(bits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """ε-randomised response of each bit (ε = `EPSILON`)."""
    return (bits ^ (rng.random(bits.shape) < 1 / (1 + math.exp(EPSILON)))).astype(float)


def _rr_batch(dataset: Dataset, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    present = np.full(num_samples, len(dataset.X) > 1)
    return _flip(present, rng)


def _mechanism(name: str, claims: tuple[PrivacyClaim, ...]):  # type: ignore[no-untyped-def]
    one = Dataset(np.zeros((1, 1)))
    two = Dataset(np.zeros((2, 1)))
    return from_callable(
        name=name,
        claim=claims[0],
        claims=claims,
        domain=Domain(num_features=1, min_size=1, max_size=2),
        pairs=(
            NeighborPair(
                dataset=one, neighbor=two, relation=Relation.ADD_REMOVE_ONE, description="one added"
            ),
        ),
        output_kind="discrete",
        batch_fn=_rr_batch,
    )


RR3_STATED = _mechanism("rr3_stated", (STATED,))
RR3_STATED_AND_PROVED = _mechanism("rr3_stated_and_proved", (PROVED_LOOSE, STATED))


def rr3_train(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same randomised response per canary, for one-run audits (claim: `STATED`)."""
    return _flip(included.astype(bool), rng)


rr3_train.claim = STATED  # type: ignore[attr-defined]


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_the_rule() -> None:
    other = PrivacyClaim(epsilon=2.0, relation=Relation.REPLACE_ONE, reference="a proof")
    assert decides_verdict(STATED, (STATED,), Relation.ADD_REMOVE_ONE)
    assert decides_verdict(
        STATED, (STATED, other), Relation.ADD_REMOVE_ONE
    )  # the proved one covers no add/remove
    assert not decides_verdict(STATED, (PROVED_LOOSE, STATED), Relation.ADD_REMOVE_ONE)
    assert decides_verdict(PROVED_LOOSE, (PROVED_LOOSE, STATED), Relation.ADD_REMOVE_ONE)
    assert applicable_claim((PROVED_LOOSE, STATED), Relation.ADD_REMOVE_ONE) == PROVED_LOOSE
    assert applicable_claim((STATED,), Relation.ADD_REMOVE_ONE) == STATED


def test_a_lone_stated_claim_exits_1_on_every_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exits: dict[str, int] = {}
    code, out = _main(capsys, "run", f"{HERE}:RR3_STATED", "--num-samples", "20000", "--pairs", "registered")
    exits["run"] = code
    assert WORDS in out and "replace" not in out.split("\n")[0]
    with pytest.raises(PrivacyViolationError) as raised:
        assert_no_violation(RR3_STATED, num_samples=20_000)
    exits["pytest plugin"] = 1
    assert raised.value.result.claim == STATED
    code, out = _main(capsys, "one-run", f"{HERE}:rr3_train", "--canaries", "1000", "--json")
    exits["one-run"] = code
    one_run = json.loads(out)
    assert one_run["verdict"] == "violation_found" and one_run["claim"]["kind"] == "stated"
    bits = inclusion_bits(1000, 5)
    scores = rr3_train(bits, np.random.default_rng(6))
    (tmp_path / "s.csv").write_text(
        "score,included\n" + "".join(f"{s},{int(b)}\n" for s, b in zip(scores, bits, strict=True))
    )
    code, out = _main(capsys, "scores", "s.csv", "--epsilon", "1", "--claim-kind", "stated")
    exits["scores"] = code
    assert WORDS in out
    (tmp_path / "dpaudit.toml").write_text(
        f'[[audit]]\nmechanism = "{HERE}:RR3_STATED"\nnum_samples = 20000\nname = "mech"\n'
        f'[[audit]]\ntrain = "{HERE}:rr3_train"\ncanaries = 1000\nname = "one"\n'
    )
    exits["gate"], _ = _main(capsys, "gate", "--out", "out")
    for name in ("mech", "one"):
        result = json.loads((tmp_path / "out" / f"{name}.json").read_text())
        assert result["verdict"] == "violation_found" and result["claim"]["kind"] == "stated", name
        assert WORDS in (tmp_path / "out" / f"{name}.md").read_text(), name
    assert exits == dict.fromkeys(exits, 1), exits


def test_a_stated_claim_beside_a_proved_one_is_a_finding(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(
        capsys,
        "run",
        f"{HERE}:RR3_STATED_AND_PROVED",
        "--num-samples",
        "20000",
        "--pairs",
        "registered",
        "--json",
    )
    result = json.loads(out)
    assert code == 0 and result["verdict"] == "no_violation_found"
    assert result["claim"]["kind"] == "proved" and result["claim"]["epsilon"] == 4.0
    stated = next(c for c in result["claims"] if c["kind"] == "stated")
    assert stated["exceeded"] and any("paper's statement" in f for f in result["findings"])
    assert (
        assert_no_violation(RR3_STATED_AND_PROVED, num_samples=20_000).verdict.value == "no_violation_found"
    )
