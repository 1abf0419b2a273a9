"""Issue 42, build item 2: which designs a one-run score file's certificate covers. A design given
on `scores FILE` that the file did not register is charged against every design the command
accepts (β/|F_m|); designs registered in the file are certified at their registered share; a
seeded simulation of the adversary who tries many designs and keeps the best stays within β.
Also the f-DP line of `--method both` compares its p-value with the level the test ran at."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from dpaudit.app.cli.entry import main
from dpaudit.engine.one_run import (
    Design,
    certify,
    default_design,
    family_size,
    file_choice,
    inclusion_bits,
    train_rng,
)
from dpaudit.engine.one_run.bound import epsilon_bound, guess_sets


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rr(bits: np.ndarray, rng: np.random.Generator, epsilon: float) -> np.ndarray:
    return (bits ^ (rng.random(bits.size) < 1 / (1 + math.exp(epsilon)))).astype(float)


def _csv(path: Path, m: int = 1000, epsilon: float = 3.0) -> tuple[Path, np.ndarray, np.ndarray]:
    bits = inclusion_bits(m, 5)
    scores = _rr(bits, np.random.default_rng(6), epsilon)
    path.write_text(
        "score,included\n" + "".join(f"{s},{int(b)}\n" for s, b in zip(scores, bits, strict=True))
    )
    return path, scores, bits


def _npz(path: Path, designs: list[tuple[int, int]], m: int = 1000) -> tuple[Path, np.ndarray, np.ndarray]:
    bits = inclusion_bits(m, 5)
    scores = _rr(bits, np.random.default_rng(6), 3.0)
    np.savez(path, scores=scores, included=bits, designs=np.array(designs))
    return path, scores, bits


def _correct(scores: np.ndarray, bits: np.ndarray, d: Design) -> int:
    ins, outs = guess_sets(scores, d)
    return int(bits[ins].sum() + (~bits[outs]).sum())


def test_family_size_counts_every_design_the_commands_accept() -> None:
    for m in range(1, 8):
        every = [(p, q) for p, q in itertools.product(range(m + 1), repeat=2) if 1 <= p + q <= m]
        assert family_size(m) == len(every)
    assert family_size(200) == 20_300


def test_unregistered_design_is_charged_over_the_family(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f, scores, bits = _csv(tmp_path / "rr3.csv")
    d = Design(k_plus=30, k_minus=30)
    code, out, _ = run(
        capsys,
        "scores",
        str(f),
        "--epsilon",
        "9",
        "--k-plus",
        "30",
        "--k-minus",
        "30",
        "--method",
        "snj",
        "--json",
    )
    info = json.loads(out)["extra"]["one_run"]
    n = family_size(1000)
    assert code == 0 and info["test_level"] == pytest.approx(0.05 / n)
    assert len(info["designs"]) == 1 and "charged against every design" in info["choice_of_k"]
    direct = epsilon_bound(m=1000, r=60, v=_correct(scores, bits, d), delta=0.0, bound_level=0.05 / n)
    assert json.loads(out)["epsilon_lower_bound"] == pytest.approx(direct, abs=0) and direct > 0
    # a grid design is charged too when the file registered nothing: it may have been picked after
    g = default_design(1000)[2]
    code, out, _ = run(
        capsys,
        "scores",
        str(f),
        "--epsilon",
        "9",
        "--k-plus",
        str(g.k_plus),
        "--k-minus",
        str(g.k_minus),
        "--json",
    )
    fdp = json.loads(out)["extra"]["one_run"]["fdp"]
    assert fdp["test_level"] == pytest.approx(0.05 / n) and fdp["union_designs"] == n


def test_registered_designs_are_honoured_at_their_share(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f, scores, bits = _npz(tmp_path / "reg.npz", [(30, 30), (10, 0)])
    code, out, _ = run(capsys, "scores", str(f), "--epsilon", "9", "--method", "snj", "--json")
    info = json.loads(out)["extra"]["one_run"]
    assert [(o["k_plus"], o["k_minus"]) for o in info["designs"]] == [(30, 30), (10, 0)]
    assert info["test_level"] == pytest.approx(0.025) and "registered" in info["choice_of_k"]
    code, out, _ = run(
        capsys,
        "scores",
        str(f),
        "--epsilon",
        "9",
        "--k-plus",
        "30",
        "--k-minus",
        "30",
        "--method",
        "snj",
        "--json",
    )
    one = json.loads(out)
    assert one["extra"]["one_run"]["test_level"] == pytest.approx(0.025)
    assert "registered share β/2" in one["extra"]["one_run"]["choice_of_k"]
    direct = epsilon_bound(
        m=1000, r=60, v=_correct(scores, bits, Design(k_plus=30, k_minus=30)), delta=0.0, bound_level=0.025
    )
    assert one["epsilon_lower_bound"] == pytest.approx(direct, abs=0)
    code, out, _ = run(
        capsys,
        "scores",
        str(f),
        "--epsilon",
        "9",
        "--k-plus",
        "31",
        "--k-minus",
        "30",
        "--method",
        "snj",
        "--json",
    )
    assert code == 0
    other = json.loads(out)["extra"]["one_run"]
    assert other["test_level"] == pytest.approx(0.05 / family_size(1000))


@pytest.mark.parametrize(
    ("designs", "needle"),
    [([[0, 0]], "1 ≤ k_plus + k_minus"), ([[1.5, 2]], "integers"), ([1, 2, 3], "pairs")],
)
def test_bad_registered_designs_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, designs: list[object], needle: str
) -> None:
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"scores": [0.1, 0.2, 0.3], "included": [1, 0, 1], "designs": designs}))
    code, _, err = run(capsys, "scores", str(f), "--epsilon", "1")
    assert code == 2 and "bad.json" in err and needle in err and len(err.strip().splitlines()) == 1


def test_design_fixed_in_advance_is_withdrawn(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f, _, _ = _csv(tmp_path / "rr3.csv")
    code, _, err = run(
        capsys, "scores", str(f), "--epsilon", "5", "--k-plus", "30", "--design-fixed-in-advance"
    )
    assert code == 2 and "withdrawn" in err and len(err.strip().splitlines()) == 1


def test_file_choice_cases() -> None:
    d, g = Design(k_plus=3, k_minus=4), default_design(100)
    assert file_choice(100, given=None, registered=None).designs is None
    assert file_choice(100, given=d, registered=None).family_size == family_size(100)
    assert file_choice(100, given=None, registered=g).family_size == len(g)
    assert file_choice(100, given=g[1], registered=g).designs == (g[1],)
    assert file_choice(100, given=g[1], registered=g).family_size == len(g)
    assert file_choice(100, given=d, registered=g).family_size == family_size(100)


def test_family_share_cannot_undercut_the_designs() -> None:
    bits = inclusion_bits(50, 0)
    with pytest.raises(ValueError, match="family"):
        certify(
            bits.astype(float),
            bits,
            delta=0.0,
            failure_probability=0.05,
            designs=default_design(50),
            family_size=2,
        )


def test_the_adversary_who_keeps_the_best_design_stays_within_beta() -> None:
    """Seeded simulation (randomised response at ε = 1, m = 100, 400 audits, β = 0.05): the
    adversary tries every (k₊, k₋) with k± ≤ 50 and keeps the best. Under the charged rule some
    design certifies ε̂ > 1 in ≤ β of the audits; under issue 37's rule (joined to the grid at
    β/(K+1)) it does so more often than β (the test has power to tell them apart)."""
    m, seeds, beta, eps = 100, 400, 0.05, 1.0
    q, half = special.expit(eps), 50

    def threshold(share: float) -> np.ndarray:  # fewest correct of r with P[Bin(r, q) ≥ v] < share
        out = np.full(m + 1, m + 1)
        for r in range(1, m + 1):
            ok = np.flatnonzero(stats.binom.sf(np.arange(r + 1) - 1, r, q) < share)
            out[r] = ok[0] if ok.size else m + 1
        return out

    charged = threshold(beta / family_size(m))
    joined = threshold(beta / (len(default_design(m)) + 1))
    r = np.add.outer(np.arange(half + 1), np.arange(half + 1))
    fails_charged = fails_joined = 0
    for s in range(seeds):
        bits = inclusion_bits(m, s)
        scores = _rr(bits, train_rng(s), eps)
        order = np.argsort(-scores, kind="stable")
        plus = np.concatenate([[0], np.cumsum(bits[order])])[: half + 1]
        minus = np.concatenate([[0], np.cumsum(~bits[order[::-1]])])[: half + 1]
        counts = plus[:, None] + minus[None, :]
        hit = counts >= charged[r]
        hit[0, 0] = False
        if hit.any():  # the tool's own path agrees
            a, b = (int(x[0]) for x in np.nonzero(hit))
            choice = file_choice(m, given=Design(k_plus=a, k_minus=b), registered=None)
            cert = certify(
                scores,
                bits,
                delta=0.0,
                failure_probability=beta,
                designs=choice.designs,
                family_size=choice.family_size,
            )
            assert cert.epsilon_lower_bound > eps
        fails_charged += bool(hit.any())
        fails_joined += bool((counts >= joined[r])[1:, :].any() or (counts >= joined[r])[0, 1:].any())
    assert fails_charged <= beta * seeds
    assert fails_joined > beta * seeds


def test_both_methods_f_dp_line_uses_the_level_it_ran_at(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f, _, _ = _csv(tmp_path / "rr3.csv")
    code, out, _ = run(capsys, "scores", str(f), "--epsilon", "1", "--method", "both", "--json")
    fdp = json.loads(out)["extra"]["one_run"]["fdp"]
    assert fdp["failure_probability"] == pytest.approx(0.025)
    assert fdp["claim_rejected"] == (fdp["claim_tail_bound_adjusted"] < fdp["failure_probability"])
    code, out, _ = run(capsys, "scores", str(f), "--epsilon", "1", "--method", "both")
    line = next(x for x in out.splitlines() if "f-DP test" in x)
    assert "against β/2 = 0.025" in line and "against β)" not in line
    code, out, _ = run(capsys, "scores", str(f), "--epsilon", "1", "--method", "fdp")
    assert code == 1
    line = next(x for x in out.splitlines() if "f-DP test" in x)
    assert "against β = 0.05" in line
