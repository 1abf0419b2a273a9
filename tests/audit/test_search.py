"""The worst-case search: seeded, budget-exact, valid, and it finds an edge-case bug.

The buggy mechanism below claims amplification by subsampling (m = ⌈n/4⌉ of n records,
without replacement) but releases a Laplace-noised sum of the FIRST m records: a change in
the first m positions is never amplified, a change elsewhere is invisible. The search is not
told the pair; its templates put the changed record at the first position.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.search.procedure import (
    VERDICT_TIE,
    SearchBudgetError,
    default_budget,
    pilot_seed,
    search_and_certify,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import MechanismError, PrivacyClaim
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind
from dpaudit.neighbors.generators import AmplificationMismatchError
from dpaudit.reports.schema import to_json_dict


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SubsampledLaplaceSum:
    """Sum of a uniform size-m subsample (m = ⌈n/4⌉) plus Laplace(1/ε₀), records in [0, 1].

    ε₀(n) = ln(1 + (e^ε − 1)·n/m), so amplification by sampling without replacement under
    replace-one (Balle, Barthe & Gaboardi 2018, Thm 9) gives exactly ε for every n.
    """

    epsilon: float = 1.0
    max_n: int = 24
    name: str = "subsampled_laplace_sum"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    def subsample_size(self, n: int) -> int:
        return max(1, math.ceil(n / 4))

    def assumed_size(self, n: int) -> int:
        return self.subsample_size(n)

    def base_epsilon(self, n: int) -> float:
        return math.log1p(math.expm1(self.epsilon) * n / self.assumed_size(n))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference="test: BBG 2018 Thm 9"
        )

    @property
    def domain(self) -> Domain:
        return Domain(
            num_features=1,
            min_size=1,
            max_size=self.max_n,
            subsampling=Subsampling(
                kind=SubsamplingKind.WITHOUT_REPLACEMENT,
                size=self.subsample_size,
                amplification_relation=Relation.REPLACE_ONE,
            ),
        )

    def subsample(self, n: int, num: int, rng: np.random.Generator) -> NDArray[np.intp]:
        m = self.subsample_size(n)
        return np.argsort(rng.random((num, n)), axis=1)[:, :m]

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        x = dataset.X[:, 0]
        idx = self.subsample(dataset.n, num_samples, rng)
        scale = 1.0 / self.base_epsilon(dataset.n)
        return x[idx].sum(axis=1) + rng.laplace(0.0, scale, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        # a plausible-looking registered pair that misses the bug below: change at the end
        return (
            NeighborPair(
                dataset=Dataset(np.zeros((8, 1))),
                neighbor=Dataset(np.r_[np.zeros(7), 1.0].reshape(8, 1)),
                relation=Relation.REPLACE_ONE,
                description="replace the last of 8 records 0 → 1",
            ),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FirstRecordsLaplaceSum(SubsampledLaplaceSum):
    """Bug: the 'subsample' is the first m records (true ε = ε₀(n) > ε for a change there)."""

    name: str = "first_records_laplace_sum"

    def subsample(self, n: int, num: int, rng: np.random.Generator) -> NDArray[np.intp]:
        return np.broadcast_to(np.arange(self.subsample_size(n)), (num, self.subsample_size(n)))


CONFIG = AuditConfig(num_samples=20_000, seed=11, failure_probability=0.05)


def test_search_is_deterministic_from_the_seed() -> None:
    mech = LaplaceSum()
    a = search_and_certify(mech, CONFIG)
    b = search_and_certify(mech, CONFIG)
    assert [c.description for c in a.candidates] == [c.description for c in b.candidates]
    assert a.ranks == b.ranks
    assert a.certified.epsilon_lower_bound == b.certified.epsilon_lower_bound
    assert [p.estimate for p in a.certified.pairs] == [p.estimate for p in b.certified.pairs]
    c = search_and_certify(mech, dataclasses.replace(CONFIG, seed=12))
    assert c.pilot_seeds != a.pilot_seeds


def test_failure_probability_is_split_and_budget_is_exact() -> None:
    mech = LaplaceSum()
    # without the sweep race (its coupled samples are counted in extra["search"]["sweeps"])
    r = search_and_certify(mech, CONFIG, top_k=3, sweep_max_count=0)
    cert = r.certified
    k = len(cert.pairs)
    assert 1 <= k <= 3 and k == len(r.certified_pairs)
    assert cert.failure_probability == CONFIG.failure_probability
    assert cert.test_level == pytest.approx(CONFIG.failure_probability / k)
    # a test certifying k events (the runner's adaptive top-k) puts β_t/k on each
    assert all(p.estimate.bound_level <= cert.test_level for p in cert.pairs)
    # the certification runs at the audit seed; the pilot never does
    assert cert.seed == CONFIG.seed and CONFIG.seed not in r.pilot_seeds
    assert pilot_seed(CONFIG.seed, 0) != CONFIG.seed
    # budget: what the registered route spends (num_samples × registered pairs), split exactly
    assert r.budget == default_budget(mech, CONFIG.num_samples) == 2 * CONFIG.num_samples
    assert cert.certification_samples == r.certification_samples
    assert r.pilot_samples == sum(r.pilot_samples_of)  # every pilot draw is accounted for
    spent = r.pilot_samples + r.selection_topup_samples + k * r.certification_samples
    assert r.total_samples == spent
    assert 0 <= r.budget - r.total_samples < k
    assert r.pilot_samples <= math.floor(0.2 * r.budget)
    # each certified pair's selection split is pilot samples (its own, topped up at pilot seeds):
    # the runner draws no selection split, so every audit-seed sample is a certification sample
    assert cert.num_samples == cert.selection_samples + cert.certification_samples
    assert len(r.selection_samples_of_certified) == k
    assert all(m >= 1000 for m in r.selection_samples_of_certified)
    assert sum(r.selection_samples_of_certified) <= r.selection_topup_samples + sum(r.pilot_samples_of)
    assert len(cert.extra["search"]["candidates"]) == len(r.candidates)  # type: ignore[index]
    # the first certified pair is the pilot's best, or one under the verdict claim's relation
    # within VERDICT_TIE of it
    first = [c.description for c in r.candidates].index(cert.pairs[0].description)
    assert first == 0 or (
        r.candidates[first].relation is mech.claim.relation and r.ranks[first] >= r.ranks[0] - VERDICT_TIE
    )
    assert cert.extra["search"]["total_samples"] == r.total_samples  # type: ignore[index]
    # an explicit budget is honoured the same way
    r2 = search_and_certify(mech, CONFIG, budget=50_000)
    assert r2.budget == 50_000 and 0 <= 50_000 - r2.total_samples < len(r2.certified_pairs)


def test_pilot_ranks_by_evidence_at_the_certification_budget() -> None:
    """Successive halving gives the survivors more pilot samples than the screened-out ones."""
    r = search_and_certify(LaplaceSum(), dataclasses.replace(CONFIG, num_samples=100_000))
    assert r.halving_rounds >= 2
    assert r.pilot_samples_of[0] > r.pilot_samples_per_candidate
    # the halving's winner comes first: it has the most pilot samples of all candidates
    assert r.pilot_samples_of[0] == max(r.pilot_samples_of)
    rest = [s for s, m in zip(r.ranks, r.pilot_samples_of, strict=True) if m == r.pilot_samples_per_candidate]
    assert sorted(rest, reverse=True) == rest  # the screened-out ones by rank


def test_search_catches_an_edge_case_bug_the_registered_pair_misses() -> None:
    buggy = FirstRecordsLaplaceSum()
    config = dataclasses.replace(CONFIG, num_samples=60_000)
    # the registered pair alone: no violation (the changed record is never in the first m)
    reg = run_audit(buggy, buggy.neighbor_pairs(), config)
    assert not reg.violation
    # the search is not told the pair, and spends the same total (1 pair × num_samples)
    found = search_and_certify(buggy, config)
    assert found.budget == config.num_samples
    assert found.certified.violation
    worst = max(found.certified.pairs, key=lambda p: p.estimate.epsilon_lower_bound)
    assert worst.estimate.epsilon_lower_bound > buggy.epsilon
    # the correct sibling is not flagged (false-failure probability ≤ 0.05 by the runner's
    # guarantee; deterministic for this seed)
    correct = search_and_certify(SubsampledLaplaceSum(), config)
    assert not correct.certified.violation
    assert correct.certified.epsilon_lower_bound <= 1.0


def test_registered_pairs_compete_in_the_pilot() -> None:
    mech = LaplaceSum()
    r = search_and_certify(mech, CONFIG, registered=mech.neighbor_pairs())
    assert "registered" in r.sources


def test_amplification_under_another_relation_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class WrongRelation(SubsampledLaplaceSum):
        name: str = "wrong_relation"

        @property
        def claim(self) -> PrivacyClaim:
            return PrivacyClaim(epsilon=1.0, relation=Relation.ADD_REMOVE_ONE, reference="test")

    with pytest.raises(AmplificationMismatchError, match="replace_one"):
        search_and_certify(WrongRelation(), CONFIG)


def test_budget_too_small_is_an_explicit_error() -> None:
    """A blind search runs at 1,000 samples per side (a racing plan); below the smallest plan, or
    with registered pairs below the full plan, the error says how much is needed."""
    found = search_and_certify(LaplaceSum(), AuditConfig(num_samples=1_000, seed=0), budget=1_000)
    assert found.total_samples <= 1_000 and len(found.candidates) >= 8
    with pytest.raises(SearchBudgetError, match=r"too small.*need ≥ 4"):
        search_and_certify(LaplaceSum(), AuditConfig(num_samples=1_000, seed=0), budget=420)
    with pytest.raises(SearchBudgetError, match="need ≥ 20,000"):
        search_and_certify(
            LaplaceSum(), AuditConfig(num_samples=1_000, seed=0), registered=LaplaceSum().neighbor_pairs()
        )
    with pytest.raises(ValueError):
        search_and_certify(LaplaceSum(), CONFIG, pilot_fraction=1.5)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PrivatePartLaplaceSum:
    """Laplace(1/ε)-noised sum of rows [0, 2) of a 6-row dataset in [0, 1]; rows 2.. are a
    public part (the claim is "ε-DP w.r.t. the private rows, for any public rest")."""

    epsilon: float = 1.0
    name: str = "private_part_laplace_sum"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference="test")

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, min_size=6, max_size=6, private_rows=(0, 2))

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        s = dataset.X[:2, 0].sum() + 0.25 * dataset.X[2:, 0].sum()
        return s + rng.laplace(0.0, 1.0 / self.epsilon, size=num_samples)

    def exact_epsilon(self, pair: NeighborPair) -> float:
        a, b = pair.dataset.X[:2, 0].sum(), pair.neighbor.X[:2, 0].sum()
        pa, pb = pair.dataset.X[2:, 0].sum(), pair.neighbor.X[2:, 0].sum()
        return self.epsilon * abs(a - b + 0.25 * (pa - pb))


def test_search_respects_private_rows() -> None:
    mech = PrivatePartLaplaceSum()
    r = search_and_certify(mech, dataclasses.replace(CONFIG, num_samples=40_000), budget=80_000)
    assert r.candidate_pairs
    for pair in r.candidate_pairs:  # every candidate changes one private row, public rows equal
        assert pair.relation is Relation.REPLACE_ONE
        assert mech.domain.check_pair(pair) is None
        assert np.array_equal(pair.dataset.X[2:], pair.neighbor.X[2:])
        assert mech.exact_epsilon(pair) <= mech.epsilon + 1e-12
    # the claim holds on the pairs it covers: no violation (false-failure probability ≤ 0.05)
    assert not r.certified.violation
    assert r.certified.epsilon_lower_bound > 0.8  # the full-range change is found (true ε = 1)


def _weak_pair(mech: LaplaceSum) -> NeighborPair:
    """A replace-one pair changing one record by 1 % of the range: the worst pilot candidate."""
    lo, hi = mech.low, mech.high
    x = np.full((7, 1), lo)
    y = x.copy()
    y[3, 0] = lo + 0.01 * (hi - lo)
    return NeighborPair(
        dataset=Dataset(X=x),
        neighbor=Dataset(X=y),
        relation=Relation.REPLACE_ONE,
        description="weak: one record moved by 1 % of the range",
    )


def test_registered_pairs_get_the_registered_routes_selection_size() -> None:
    """Every registered pair, even one whose screening rank is among the worst, is ranked on as
    many pilot samples as the registered route would choose its event on; a pair that is not
    registered never displaces the registered champion (it is certified beside it, hedged)."""
    mech = LaplaceSum()
    weak = _weak_pair(mech)
    strong = mech.neighbor_pairs()[0]
    config = dataclasses.replace(CONFIG, num_samples=100_000)
    r = search_and_certify(mech, config, registered=(weak, strong), budget=200_000)
    selection = config.split()[0]
    for pair in (weak, strong):
        i = r.candidate_pairs.index(pair)
        assert r.sources[i] == "registered" and r.pilot_samples_of[i] == selection
    screened_out = [m for m in r.pilot_samples_of if m == r.pilot_samples_per_candidate]
    assert screened_out  # the others were only screened (or halved): no bigger pool for all
    champion = min((r.candidate_pairs.index(p) for p in (weak, strong)), key=lambda i: -r.ranks[i])
    assert r.candidate_pairs[champion] in r.certified_pairs


def test_selection_reuses_pilot_samples_and_never_the_audit_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The certified pair's event is chosen on pilot draws (pilot seeds); the runner draws no
    selection split and certifies on audit-seed draws only, so the two never share a sample."""
    import dpaudit.engine.runner.procedure as runner_module
    import dpaudit.engine.runner.selection_split as split_module
    import dpaudit.engine.search.pilot_samples as search_module
    from dpaudit.engine.sampling import Phase

    pilot_calls: list[int] = []
    runner_calls: list[tuple[int, tuple[int, ...]]] = []
    original_rows, original_draw = search_module.sample_rows, runner_module.draw

    # `*start`: the chunk's first row (per-sample streams; `engine.sampling.draw`)
    def pilot_rows(mech: Any, ds: Any, size: int, seed: int, key: tuple[int, ...], *start: Any) -> Any:
        pilot_calls.append(seed)
        return original_rows(mech, ds, size, seed, key, *start)

    def runner_rows(mech: Any, ds: Any, size: int, seed: int, key: tuple[int, ...], *start: Any) -> Any:
        runner_calls.append((seed, key))
        return original_rows(mech, ds, size, seed, key, *start)

    def runner_draw(mech: Any, ds: Any, size: int, seed: int, key: tuple[int, ...], *start: Any) -> Any:
        runner_calls.append((seed, key))
        return original_draw(mech, ds, size, seed, key, *start)

    monkeypatch.setattr(search_module, "sample_rows", pilot_rows)
    monkeypatch.setattr(split_module, "sample_rows", runner_rows)  # the runner's selection split
    monkeypatch.setattr(runner_module, "draw", runner_draw)
    import dpaudit.engine.runner.certify as certify_module

    for module in (runner_module, certify_module):  # the runner's chunk counter, where it is used
        if hasattr(module, "count_events_segmented"):
            original_count = module.count_events_segmented

            def runner_count(
                mech: Any,
                ds: Any,
                events: Any,
                size: int,
                seed: int,
                key: Any,
                *rest: Any,
                _count: Any = original_count,
            ) -> Any:
                runner_calls.append((seed, key))
                return _count(mech, ds, events, size, seed, key, *rest)

            monkeypatch.setattr(module, "count_events_segmented", runner_count)
    mech = LaplaceSum()
    r = search_and_certify(mech, CONFIG, registered=mech.neighbor_pairs())
    assert runner_calls and pilot_calls
    assert {s for s, _ in runner_calls} == {CONFIG.seed}
    assert CONFIG.seed not in set(pilot_calls) and set(pilot_calls) <= set(r.pilot_seeds)
    # audit-seed draws: certification chunks, and the runner's 2-row shape probe (never counted)
    assert all(key[2] in (int(Phase.CERTIFICATION), runner_module.PROBE_PHASE) for _, key in runner_calls)
    assert any(key[2] == int(Phase.CERTIFICATION) for _, key in runner_calls)
    assert r.certified.selection_samples == r.selection_samples_of_certified[0] >= 1000
    assert r.certified.certification_samples == r.certification_samples


def test_search_checkpoint_resume_reproduces(tmp_path: Any) -> None:
    mech = LaplaceSum()
    path = tmp_path / "ck.jsonl"
    a = search_and_certify(mech, CONFIG, registered=mech.neighbor_pairs(), checkpoint_path=path)
    b = search_and_certify(mech, CONFIG, registered=mech.neighbor_pairs(), checkpoint_path=path, resume=True)
    assert [p.estimate for p in a.certified.pairs] == [p.estimate for p in b.certified.pairs]


def test_registered_contenders_are_certified_when_the_budget_allows() -> None:
    """Two registered pairs with the same true ε (the full-range change of record 3, and of
    record 5) cannot be separated by the pilot: both are certified, each on at least the
    registered route's certification size, and a registered pair far behind (true ε 0.01) is not."""
    mech = LaplaceSum()
    weak = _weak_pair(mech)
    pairs = []
    for j in (3, 5):
        x = np.full((7, 1), mech.low)
        y = x.copy()
        y[j, 0] = mech.high
        pairs.append(
            NeighborPair(
                dataset=Dataset(X=x),
                neighbor=Dataset(X=y),
                relation=Relation.REPLACE_ONE,
                description=f"record {j}: low → high",
            )
        )
    strong, other = pairs
    config = dataclasses.replace(CONFIG, num_samples=100_000)
    r = search_and_certify(mech, config, registered=(strong, other, weak), budget=300_000)
    certified = set(map(id, r.certified_pairs))
    assert id(strong) in certified and id(other) in certified
    assert id(weak) not in certified
    assert r.certification_samples >= config.split()[1]
    # budget accounting unchanged: pilot + selection top-ups + k certifications = T − r, r < k
    k = len(r.certified_pairs)
    assert 0 <= r.budget - r.total_samples < k


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FlakyNoisyMean:
    """A tiny 'learner': the mean of n records in [0, 1]² plus Laplace(2/(nε)) per coordinate
    (L1 sensitivity 2/n under replace-one: ε-DP). Its sampler breaks on some dataset sizes: it
    raises MechanismError for n = 2 and a plain RuntimeError (wrapped by the sampler) for n = 3,
    so some of the search's candidates fail."""

    epsilon: float = 1.0
    name: str = "flaky_noisy_mean"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference="test")

    @property
    def domain(self) -> Domain:
        return Domain(num_features=2, min_size=1, max_size=6)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        n = dataset.n
        if n == 2:
            raise MechanismError("flaky_noisy_mean: cannot fit two records")
        if n == 3:
            raise RuntimeError("three records")
        return dataset.X.mean(axis=0) + rng.laplace(0.0, 2.0 / (n * self.epsilon), size=(num_samples, 2))


def _search_record(r: Any) -> tuple[Any, ...]:
    """Everything a search reports, timing (the certified result's elapsed_seconds) aside."""
    certified = to_json_dict(r.certified)
    certified.pop("elapsed_seconds")
    return (
        r.to_dict(),
        certified,
        [c.estimate for c in r.candidates],
        [(p.description, p.dataset.X.tolist(), p.neighbor.X.tolist()) for p in r.candidate_pairs],
        [p.description for p in r.certified_pairs],
    )


@pytest.mark.parametrize(
    ("mech", "budget"), [(LaplaceSum(), 100_000), (FlakyNoisyMean(), 60_000)], ids=["laplace", "flaky"]
)
def test_parallel_pilot_is_bit_identical(mech: Any, budget: int) -> None:
    """The pilot's draws run as parallel tasks with jobs ≠ 1 at the seeds and chunk keys of the
    sequential path: the whole search (candidates, ranks, pilot seeds, skipped candidates and
    the budget they spent, certified result) is the same for any jobs and backend. The small
    `min_pilot_samples` gives many candidates, several halving rounds, registered top-ups
    (LaplaceSum's registered pairs) and selection top-ups on a fast budget."""
    registered = getattr(mech, "neighbor_pairs", tuple)()

    def run(jobs: int, backend: str) -> Any:
        config = dataclasses.replace(CONFIG, jobs=jobs, backend=backend)
        return search_and_certify(mech, config, registered=registered, budget=budget, min_pilot_samples=200)

    ref = run(1, "loky")
    assert ref.halving_rounds >= 2 and ref.selection_topup_samples > 0
    if registered:  # each registered pair was topped up to the registered route's selection size
        selection = CONFIG.split()[0]
        assert selection > ref.pilot_samples_per_candidate
        assert all(ref.pilot_samples_of[ref.candidate_pairs.index(p)] == selection for p in registered)
    else:  # failing candidates are skipped, not fatal, and their draws are accounted for
        assert any("cannot fit two records" in s for s in ref.skipped)
        assert any("RuntimeError: three records" in s for s in ref.skipped)
        assert all(p.dataset.n not in (2, 3) and p.neighbor.n not in (2, 3) for p in ref.candidate_pairs)
        assert ref.pilot_samples > sum(ref.pilot_samples_of)
    for jobs, backend in ((2, "loky"), (-1, "threading")):
        assert _search_record(run(jobs, backend)) == _search_record(ref), (jobs, backend)
