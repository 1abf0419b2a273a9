"""Worst-case neighbour search: a pilot ranks candidate pairs, the best few are certified.

Procedure (`search_and_certify`):

1. **Candidates.** The caller's registered pairs, the template families of
   `neighbors.generators.WorstCasePairs` for every relation the mechanism claims (domain
   extremes and corners, tiny datasets, size boundaries of `Subsampling.size`, duplicates and
   conflicts, stream positions, subsampling edge cases), random pairs from the domain, and
   local-search moves from the best candidates so far (perturb the changed record, move its
   position, add a duplicate of it, change n by ±1, perturb another record). A claim that
   relies on amplification under a relation other than the audited one is refused
   (`neighbors.generators.check_amplification` raises `AmplificationMismatchError`).
2. **Pilot.** Candidates are evaluated in rounds (the initial pool, then local-search rounds
   from the current top three, then a refinement that re-evaluates the best 2·top_k with a
   larger budget and pools their scores), each by its own `run_audit` at a small budget and a lax level
   (`PILOT_FAILURE_PROBABILITY`); the j-th candidate evaluated uses the seed
   `SeedSequence(seed, spawn_key=(7, j)).generate_state(1)[0]`, never the audit seed, so pilot
   samples come from streams disjoint from the certification's. A candidate's score is the
   mean of its pilot certified ε and its selection-projected ε, minus the ε of the claim that
   applies to its relation (so pairs under relations with different claims compare by how far
   they get towards a violation).
   The pilot's bounds are used for ranking only and are never reported as certified.
3. **Certification.** The `top_k` best-scoring distinct candidates are certified with
   `run_audit(mechanism, top, replace(config, num_samples=N_cert))` at the audit seed. The
   runner splits `failure_probability` across them (Bonferroni), so all certified bounds
   hold simultaneously with probability ≥ 1 − failure_probability.

Validity: the pilot only decides *which* pairs are certified. Its samples are independent of
the certification samples, so conditional on the choice the certification samples are fresh
and the runner's guarantee applies unchanged, exactly as if the user had named those pairs.

Budget accounting (samples per side; N = config.num_samples, k = top_k, f = pilot_fraction):

- total budget T = k · N (what `run_audit` would spend on k registered pairs);
- the pilot gets P = k · ⌊f · N⌋: two thirds explore, C = min(max_candidates,
  ⌊E / min_pilot_samples⌋) candidates with ⌊E / C⌋ samples each (E = P − ⌊P / 3⌋); the last
  third re-evaluates the best 2k candidates with ⌊(P − E) / 2k⌋ samples each (skipped, and
  its share left to certification, when that is below min_pilot_samples);
- certification gets N_cert = ⌊(T − pilot spent) / k'⌋ per certified pair, k' = min(k,
  candidates evaluated); the pilot's rounding remainder goes to certification.

So pilot + certification spend T − r samples per side with 0 ≤ r < k' (r = 0 whenever the
divisions are exact, e.g. N = 10⁵, k = 3, f = 0.2). `SearchResult` records every figure.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from audit.estimators import DEFAULT_DISTINGUISHERS, Distinguisher
from audit.runner import run_audit
from audit.types import AuditConfig, AuditResult, EpsilonEstimate
from mechanisms.base import Mechanism, applicable_claim, claims_of
from neighbors.base import NeighborPair, Relation
from neighbors.generators import (
    DEFAULT_MAX_ROWS,
    WorstCasePairs,
    admissible,
    check_amplification,
    local_moves,
    pair_key,
    random_pair,
)

__all__ = ["Candidate", "SearchBudgetError", "SearchResult", "pilot_seed", "search_and_certify"]

PILOT_SPAWN_KEY = 7
"""SeedSequence spawn key of the pilot runs (the certification uses the audit seed itself)."""
PROPOSAL_SPAWN_KEY = 8
"""SeedSequence spawn key of the random proposals (random pairs and local moves)."""
_SCORE_CLIP = (-20.0, 50.0)
PILOT_FAILURE_PROBABILITY = 0.5
"""Level of each pilot test. The pilot only ranks, so it needs no guarantee; a lax level keeps
its bounds near the point estimates, so small-budget pilots still separate weak effects
(at a strict level every weak pair certifies ε ≤ 0 and the ranking is uninformative)."""


class SearchUnsupportedError(ValueError):
    """The search cannot respect this mechanism's domain (one-line message)."""


class SearchBudgetError(ValueError):
    """num_samples too small for a pilot plus certification (one-line message)."""


class Candidate(NamedTuple):
    """One evaluated candidate: (pair description, relation, pilot estimate)."""

    description: str
    relation: Relation
    estimate: EpsilonEstimate


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """A search: every candidate with its pilot estimate (best first) and the certified audit.

    Only `certified` carries a guarantee; `candidates[i].estimate` are pilot figures (small
    budget, own seed, used for ranking). `candidate_pairs[i]` is the pair of `candidates[i]`.
    """

    candidates: tuple[Candidate, ...]
    candidate_pairs: tuple[NeighborPair, ...]
    scores: tuple[float, ...]
    sources: tuple[str, ...]
    certified: AuditResult
    certified_pairs: tuple[NeighborPair, ...]
    relations: tuple[Relation, ...]
    pilot_seeds: tuple[int, ...]
    pilot_samples_per_candidate: int
    pilot_samples: int
    certification_samples: int
    total_samples: int
    budget: int
    pilot_fraction: float
    top_k: int
    skipped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary of the search (the certified result is serialised separately)."""
        return {
            "pilot_fraction": self.pilot_fraction,
            "top_k": self.top_k,
            "budget": self.budget,
            "pilot_samples": self.pilot_samples,
            "pilot_samples_per_candidate": self.pilot_samples_per_candidate,
            "certification_samples": self.certification_samples,
            "total_samples": self.total_samples,
            "pilot_seeds": list(self.pilot_seeds),
            "relations": [r.value for r in self.relations],
            "skipped": list(self.skipped),
            "candidates": [
                {
                    "description": c.description,
                    "relation": c.relation.value,
                    "source": src,
                    "score": score,
                    "pilot_epsilon_lower_bound": c.estimate.epsilon_lower_bound,
                    "pilot_selection_epsilon": c.estimate.selection_epsilon,
                    "tags": list(p.tags),
                }
                for c, p, score, src in zip(
                    self.candidates, self.candidate_pairs, self.scores, self.sources, strict=True
                )
            ],
        }


def pilot_seed(seed: int, index: int) -> int:
    """The seed of the `index`-th pilot run: derived from the audit seed, never equal to it."""
    s = int(np.random.SeedSequence(seed, spawn_key=(PILOT_SPAWN_KEY, index)).generate_state(1)[0])
    return s if s != seed else s + 1


def _score(est: EpsilonEstimate, claim_epsilon: float) -> float:
    vals = []
    for v in (est.epsilon_lower_bound, est.selection_epsilon):
        v = float(v)
        if math.isnan(v):
            v = _SCORE_CLIP[0]
        vals.append(min(max(v, _SCORE_CLIP[0]), _SCORE_CLIP[1]))
    return 0.5 * (vals[0] + vals[1]) - claim_epsilon


@dataclass(slots=True)
class _Pool:
    """Evaluated candidates, in evaluation order."""

    pairs: list[NeighborPair] = dataclasses.field(default_factory=list)
    sources: list[str] = dataclasses.field(default_factory=list)
    estimates: list[EpsilonEstimate] = dataclasses.field(default_factory=list)
    scores: list[float] = dataclasses.field(default_factory=list)
    seen: set[tuple[str, str, str]] = dataclasses.field(default_factory=set)

    def ranked(self) -> list[int]:
        return sorted(range(len(self.pairs)), key=lambda i: (-self.scores[i], i))


def _templates(mechanism: Mechanism, relations: Sequence[Relation], max_rows: int) -> Iterator[NeighborPair]:
    gens = [WorstCasePairs(max_rows=max_rows).pairs(mechanism.domain, r) for r in relations]
    active = list(gens)
    while active:
        nxt = []
        for g in active:
            p = next(g, None)
            if p is not None:
                nxt.append(g)
                yield p
        active = nxt


def search_and_certify(
    mechanism: Mechanism,
    config: AuditConfig,
    *,
    pilot_fraction: float = 0.2,
    top_k: int = 3,
    registered: Sequence[NeighborPair] = (),
    max_candidates: int = 48,
    min_pilot_samples: int = 400,
    max_rows: int = DEFAULT_MAX_ROWS,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
) -> SearchResult:
    """Search for worst-case pairs with a pilot, then certify the `top_k` best on fresh samples.

    See the module docstring for the procedure, the validity argument and the budget. Raises
    `AmplificationMismatchError` (a ValueError) for a claim relying on amplification under a
    relation other than a claimed one, `SearchBudgetError` when num_samples is too small.
    """
    if mechanism.domain.private_rows is not None:
        raise SearchUnsupportedError(
            f"{mechanism.name!r} declares a public part (private rows {mechanism.domain.private_rows}); "
            "the search does not yet restrict itself to private rows: use --pairs registered"
        )
    if not 0 < pilot_fraction < 1:
        raise ValueError(f"pilot_fraction must be in (0, 1), got {pilot_fraction}")
    if top_k < 1:
        raise ValueError(f"top_k must be ≥ 1, got {top_k}")
    if min_pilot_samples < 200 or max_candidates < 1:
        raise ValueError("min_pilot_samples must be ≥ 200 and max_candidates ≥ 1")
    claims = claims_of(mechanism)
    domain = mechanism.domain
    relations = tuple(dict.fromkeys(c.relation for c in claims))
    for relation in relations:
        check_amplification(domain, relation)

    # ------------------------------------------------------------------ budget
    n = config.num_samples
    budget = top_k * n
    pilot_budget = top_k * math.floor(pilot_fraction * n)
    refine_budget = pilot_budget // 3 if top_k * min_pilot_samples * 2 <= pilot_budget // 3 else 0
    explore_budget = pilot_budget - refine_budget
    num_candidates = min(max_candidates, explore_budget // min_pilot_samples)
    if num_candidates < top_k:
        need = math.ceil(top_k * min_pilot_samples / (top_k * pilot_fraction))
        raise SearchBudgetError(
            f"num_samples={n:,} is too small for a search with top_k={top_k} and pilot_fraction="
            f"{pilot_fraction:g} (need ≥ {need:,})"
        )
    per_candidate = explore_budget // num_candidates
    pilot_failure_probability = PILOT_FAILURE_PROBABILITY
    rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(PROPOSAL_SPAWN_KEY,)))

    pool = _Pool()
    skipped: list[str] = []
    seeds: list[int] = []

    def claim_epsilon(relation: Relation) -> float | None:
        c = applicable_claim(claims, relation)
        return None if c is None else c.epsilon

    def admit(pair: NeighborPair, source: str, batch: list[tuple[NeighborPair, str]]) -> bool:
        key = pair_key(pair)
        if key in pool.seen:
            return False
        if claim_epsilon(pair.relation) is None:
            skipped.append(f"{source} pair {pair.description!r}: no claim covers {pair.relation.value}")
            pool.seen.add(key)
            return False
        if not admissible(pair, domain):
            skipped.append(f"{source} pair {pair.description!r}: not a neighbour pair in the domain")
            pool.seen.add(key)
            return False
        pool.seen.add(key)
        batch.append((pair, source))
        return True

    def pilot(pair: NeighborPair, source: str, num: int) -> EpsilonEstimate | None:
        seed = pilot_seed(config.seed, len(seeds))
        seeds.append(seed)
        cfg = AuditConfig(
            num_samples=num,
            seed=seed,
            failure_probability=pilot_failure_probability,
            selection_fraction=0.5,
            max_selection_samples=max(num // 2, 100),
            chunk_size=config.chunk_size,
            jobs=config.jobs,
            backend=config.backend,
        )
        try:
            audited = run_audit(mechanism, [pair], cfg, distinguishers=distinguishers, show_progress=False)
        except Exception as exc:  # a failing candidate is reported, not fatal to the search
            skipped.append(f"{source} pair {pair.description!r}: {type(exc).__name__}: {exc}")
            return None
        return audited.pairs[0].estimate

    def evaluate(batch: list[tuple[NeighborPair, str]]) -> None:
        for pair, source in batch:
            est = pilot(pair, source, per_candidate)
            if est is None:
                continue
            eps = claim_epsilon(pair.relation)
            assert eps is not None
            pool.pairs.append(pair)
            pool.sources.append(source)
            pool.estimates.append(est)
            pool.scores.append(_score(est, eps))

    def random_fill(batch: list[tuple[NeighborPair, str]], target: int) -> None:
        misses = 0
        while len(batch) < target and misses < 8 * max(target, 1):
            rel = relations[int(rng.integers(len(relations)))]
            p = random_pair(domain, rel, rng, max_rows=max_rows)
            if p is None or not admit(p, "random", batch):
                misses += 1

    # ------------------------------------------------------- round 0: registered, templates, random
    num_local = num_candidates // 3
    num_initial = num_candidates - num_local
    num_random = max(1, num_initial // 8)
    batch: list[tuple[NeighborPair, str]] = []
    for p in registered:
        if len(batch) >= num_initial:
            break
        admit(p, "registered", batch)
    for p in _templates(mechanism, relations, max_rows):
        if len(batch) >= num_initial - num_random:
            break
        admit(p, "template", batch)
    random_fill(batch, num_initial)
    evaluate(batch)

    # ------------------------------------------------------------------ local search rounds
    round_size = max(2, math.ceil(num_local / 3))
    rounds_left = 4 * num_candidates  # guard against a mechanism that fails on every candidate
    while len(pool.pairs) < num_candidates and rounds_left > 0:
        rounds_left -= 1
        target = min(round_size, num_candidates - len(pool.pairs))
        parents = [pool.pairs[i] for i in pool.ranked()[:3]]
        batch = []
        proposals = [local_moves(p, domain, rng, count=target, max_rows=max_rows) for p in parents]
        for k in range(target):
            for moves in proposals:
                if len(batch) >= target:
                    break
                if k < len(moves):
                    admit(moves[k], "local", batch)
        random_fill(batch, target)
        if not batch:
            break  # the candidate space is exhausted
        evaluate(batch)

    # ------------------------------------------------------------------ refinement
    # the best 2·top_k are evaluated again on fresh pilot samples; scores are pooled by samples
    pilot_spent = len(pool.pairs) * per_candidate
    finalists = pool.ranked()[: 2 * top_k]
    per_refine = refine_budget // len(finalists) if len(finalists) > top_k else 0
    if per_refine >= min_pilot_samples:
        for i in finalists:
            pair = pool.pairs[i]
            est = pilot(pair, "refine", per_refine)
            pilot_spent += per_refine
            if est is None:
                continue
            eps = claim_epsilon(pair.relation)
            assert eps is not None
            w = per_refine / (per_refine + per_candidate)
            pool.scores[i] = (1 - w) * pool.scores[i] + w * _score(est, eps)
            pool.estimates[i] = est

    # ------------------------------------------------------------------ certification
    order = pool.ranked()
    if not order:
        raise SearchBudgetError(f"no admissible candidate pair for {mechanism.name!r}")
    top = order[:top_k]
    n_cert = (budget - pilot_spent) // len(top)
    certified_pairs = [pool.pairs[i] for i in top]
    result = run_audit(
        mechanism,
        certified_pairs,
        dataclasses.replace(config, num_samples=n_cert),
        distinguishers=distinguishers,
        parameters=parameters,
        command=command,
        show_progress=show_progress,
    )
    total = pilot_spent + n_cert * len(top)
    search_info = {
        "pilot_fraction": pilot_fraction,
        "top_k": top_k,
        "candidates": len(pool.pairs),
        "pilot_samples": pilot_spent,
        "pilot_samples_per_candidate": per_candidate,
        "certification_samples": n_cert,
        "total_samples": total,
        "budget": budget,
        "pilot_seeds": list(seeds),
    }
    result = dataclasses.replace(result, extra={**result.extra, "search": search_info})
    return SearchResult(
        candidates=tuple(
            Candidate(pool.pairs[i].description, pool.pairs[i].relation, pool.estimates[i]) for i in order
        ),
        candidate_pairs=tuple(pool.pairs[i] for i in order),
        scores=tuple(pool.scores[i] for i in order),
        sources=tuple(pool.sources[i] for i in order),
        certified=result,
        certified_pairs=tuple(certified_pairs),
        relations=relations,
        pilot_seeds=tuple(seeds),
        pilot_samples_per_candidate=per_candidate,
        pilot_samples=pilot_spent,
        certification_samples=n_cert,
        total_samples=total,
        budget=budget,
        pilot_fraction=pilot_fraction,
        top_k=top_k,
        skipped=tuple(skipped),
    )
