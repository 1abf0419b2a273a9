from __future__ import annotations

import numpy as np
import pytest

from dpaudit.engine.runner.procedure import AuditInputError, run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.base import MechanismError
from dpaudit.mechanisms.reference import ExponentialMechanism, LaplaceSum, RandomizedResponse
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation
from dpaudit.reports.schema import to_json_dict
from tests import user_mechanisms as um


def _strip_timing(d: dict) -> dict:
    d = dict(d)
    d.pop("elapsed_seconds")
    return d


def test_same_seed_same_result_any_jobs() -> None:
    m = ExponentialMechanism()
    cfg = dict(num_samples=60_000, seed=7, chunk_size=8192)
    one = run_audit(m, m.neighbor_pairs(), AuditConfig(jobs=1, **cfg))
    two = run_audit(m, m.neighbor_pairs(), AuditConfig(jobs=2, **cfg))
    again = run_audit(m, m.neighbor_pairs(), AuditConfig(jobs=1, **cfg))
    assert _strip_timing(to_json_dict(one)) == _strip_timing(to_json_dict(two))
    assert _strip_timing(to_json_dict(one)) == _strip_timing(to_json_dict(again))
    other = run_audit(m, m.neighbor_pairs(), AuditConfig(jobs=1, num_samples=60_000, seed=8, chunk_size=8192))
    assert _strip_timing(to_json_dict(one)) != _strip_timing(to_json_dict(other))


def test_certified_bound_below_exact_and_split_recorded() -> None:
    m = RandomizedResponse(epsilon=1.5)
    pairs = m.neighbor_pairs()
    r = run_audit(m, pairs, AuditConfig(num_samples=200_000, seed=3))
    exact = max(m.exact_epsilon(p) for p in pairs)
    assert r.verdict is Verdict.NO_VIOLATION_FOUND
    assert 0 < r.epsilon_lower_bound <= exact
    assert r.test_level == pytest.approx(0.05 / len(pairs))
    assert r.selection_samples + r.certification_samples == 200_000
    for p in r.pairs:
        assert p.estimate.p_total == r.certification_samples  # certified on the fresh split only


def test_claim_checks_and_findings() -> None:
    """A stated claim below the truth is a finding, never a violation, when the proof's claim holds."""
    from dataclasses import dataclass

    from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim

    @dataclass(frozen=True, slots=True, kw_only=True)
    class Loose(LaplaceSum):
        name: str = "loose"

        @property
        def claims(self) -> tuple[PrivacyClaim, ...]:
            return (
                PrivacyClaim(epsilon=2 * self.epsilon, relation=Relation.REPLACE_ONE, reference="proof"),
                PrivacyClaim(
                    epsilon=self.epsilon / 2,
                    relation=Relation.REPLACE_ONE,
                    reference="statement",
                    kind=ClaimKind.STATED,
                ),
            )

        @property
        def claim(self) -> PrivacyClaim:
            return self.claims[0]

    m = Loose()
    r = run_audit(m, m.neighbor_pairs()[:1], AuditConfig(num_samples=200_000, seed=1))
    assert r.verdict is Verdict.NO_VIOLATION_FOUND
    assert r.claim.reference == "proof"
    stated = next(c for c in r.claims if c.claim.kind is ClaimKind.STATED)
    assert stated.exceeded and stated.epsilon_lower_bound > 0.5
    assert len(r.findings) == 1 and "statement" in r.findings[0]


def test_bad_pairs_and_claims_are_input_errors() -> None:
    m = LaplaceSum()
    same = NeighborPair(
        dataset=Dataset([[0.0]]), neighbor=Dataset([[0.0]]), relation=Relation.REPLACE_ONE, description="same"
    )
    with pytest.raises(AuditInputError, match="not a replace_one neighbour"):
        run_audit(m, [same], AuditConfig(num_samples=1000))
    outside = NeighborPair(
        dataset=Dataset([[0.0]]), neighbor=Dataset([[5.0]]), relation=Relation.REPLACE_ONE, description="far"
    )
    with pytest.raises(AuditInputError, match="domain"):
        run_audit(m, [outside], AuditConfig(num_samples=1000))
    mech = um.add_remove_only()
    with pytest.raises(AuditInputError, match="claims nothing under replace_one"):
        run_audit(mech, mech.neighbor_pairs(), AuditConfig(num_samples=1000))  # type: ignore[attr-defined]
    with pytest.raises(AuditInputError, match="no neighbour pairs"):
        run_audit(m, [], AuditConfig(num_samples=1000))


@pytest.mark.parametrize(
    ("mech", "match"),
    [(um.nan_mech, "NaN"), (um.raising_mech, "raised RuntimeError: kaboom"), (um.wrong_shape, "shape")],
)
def test_misbehaving_mechanisms_are_named(mech: object, match: str) -> None:
    pair = NeighborPair(
        dataset=Dataset([[0.0]]), neighbor=Dataset([[1.0]]), relation=Relation.REPLACE_ONE, description="p"
    )
    with pytest.raises(MechanismError, match=match) as info:
        run_audit(mech, [pair], AuditConfig(num_samples=1000))  # type: ignore[arg-type]
    assert mech.name in str(info.value)  # type: ignore[attr-defined]


def test_ceiling_warning() -> None:
    m = LaplaceSum(epsilon=9.0)
    r = run_audit(m, m.neighbor_pairs()[:1], AuditConfig(num_samples=1000, seed=0))
    assert r.epsilon_ceiling < 9.0
    assert any("cannot find a violation" in w for w in r.warnings)


def test_callable_adapter_matches_vectorised(rng: np.random.Generator) -> None:
    out = um.laplace_callable.sample(Dataset([[1.0]]), 5000, rng=rng)
    assert out.shape == (5000,)
    assert abs(float(np.median(out)) - 1.0) < 0.1  # sd of the median ≈ 0.014: a 7σ margin


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        AuditConfig(num_samples=10)
    with pytest.raises(ValueError):
        AuditConfig(failure_probability=1.0)
    with pytest.raises(ValueError):
        AuditConfig(jobs=0)
    n_sel, n_cert = AuditConfig(num_samples=10_000_000).split()
    assert n_sel == 200_000 and n_cert == 9_800_000


def test_public_rows_are_never_audited_nor_searched() -> None:
    """A claim 'DP w.r.t. U for any public V, W' says nothing about a change in V or W: such a
    pair must be an input error, never a (false) violation."""
    import dataclasses

    from dpaudit.engine.search.procedure import search_and_certify

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class PublicTail(LaplaceSum):
        name: str = "public_tail"

        @property
        def domain(self):  # type: ignore[no-untyped-def]
            return dataclasses.replace(LaplaceSum.domain.fget(self), private_rows=(0, 2))  # type: ignore[attr-defined]

    m = PublicTail()
    private = NeighborPair(
        dataset=Dataset([[0.0], [0.0], [0.0]]),
        neighbor=Dataset([[1.0], [0.0], [0.0]]),
        relation=Relation.REPLACE_ONE,
        description="private row 0",
    )
    public = NeighborPair(
        dataset=Dataset([[0.0], [0.0], [0.0]]),
        neighbor=Dataset([[0.0], [0.0], [1.0]]),
        relation=Relation.REPLACE_ONE,
        description="public row 2",
    )
    assert run_audit(m, [private], AuditConfig(num_samples=2000)).pairs
    with pytest.raises(AuditInputError, match="public row"):
        run_audit(m, [public], AuditConfig(num_samples=2000))
    found = search_and_certify(m, AuditConfig(num_samples=20_000))
    assert found.certified.pairs
    lo, hi = m.domain.private_rows  # type: ignore[misc]
    for pair in (*found.candidate_pairs, *found.certified_pairs):  # only private rows ever change
        a, b = pair.dataset.X, pair.neighbor.X
        changed = [i for i in range(min(len(a), len(b))) if not np.array_equal(a[i], b[i])]
        assert all(lo <= i < hi for i in changed)


def test_trajectory_counts_exact_prefixes_of_the_certification_split() -> None:
    """Trajectory points are the certified ε on the first m certification samples (m ≈ n/64,
    n/16, n/4, n), in chunk order, whatever the chunking: recompute them from the raw chunks."""
    from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
    from dpaudit.engine.distinguishers.selection import event_from_spec
    from dpaudit.engine.runner.procedure import trajectory_points
    from dpaudit.engine.sampling import Phase, chunk_sizes, draw

    m = LaplaceSum()
    pair = m.neighbor_pairs()[0]
    cfg = AuditConfig(num_samples=50_000, seed=11, chunk_size=3000)
    r = run_audit(m, [pair], cfg)
    pr = r.pairs[0]
    n_cert = r.certification_samples
    points = trajectory_points(n_cert)
    assert [n for n, _ in pr.trajectory] == points == [703, 2812, 11250, 45000]
    assert pr.trajectory[-1][1] == pr.estimate.epsilon_lower_bound
    assert pr.event_spec is not None
    event = event_from_spec(pr.event_spec)
    sides = []
    for s, ds in enumerate((pair.dataset, pair.neighbor)):
        rows = [
            draw(m, ds, size, cfg.seed, (0, s, int(Phase.CERTIFICATION), j))
            for j, size in enumerate(chunk_sizes(n_cert, 3000))
        ]
        sides.append(event.indicator(np.concatenate(rows)))
    p_side, q_side = (
        (sides[0], sides[1]) if pr.estimate.direction == "dataset>neighbor" else (sides[1], sides[0])
    )
    beta = pr.estimate.bound_level  # β_t/k when the test certified k events
    for n, eps in pr.trajectory:
        p_lo = cp_lower(int(p_side[:n].sum()), n, beta / 2)
        q_hi = cp_upper(int(q_side[:n].sum()), n, beta / 2)
        assert eps == pytest.approx(float(epsilon_from_bounds(p_lo, q_hi, delta=m.claim.delta)), rel=1e-12)


def test_selection_record_and_assumption() -> None:
    """`extra["selection"]`: per pair, each distinguisher that proposed with its best projected
    value on the selection split; the chosen one is the pair's distinguisher and its value the
    estimate's `selection_epsilon`. JSON-serialisable (strict JSON: no NaN/inf floats)."""
    import json

    m = ExponentialMechanism()
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=20_000, seed=2))
    record = r.extra["selection"]
    assert isinstance(record, list) and len(record) == len(r.pairs)
    json.dumps(record, allow_nan=False)
    for pr, considered in zip(r.pairs, record, strict=True):
        assert pr.estimate.assumption.startswith("i.i.d. samples")
        chosen = [c for c in considered if c["chosen"]]
        assert chosen and chosen[0]["distinguisher"] == pr.estimate.distinguisher
        assert chosen[0]["projected"] == pr.estimate.selection_epsilon
        best = max(float(c["projected"]) for c in considered)
        assert pr.estimate.selection_epsilon == best
