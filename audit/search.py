"""Worst-case neighbour search: a pilot ranks candidate pairs, the best are certified.

Procedure (`search_and_certify`):

1. **Candidates.** The caller's registered pairs (only if passed), the template families of
   `neighbors.generators.WorstCasePairs` for every relation the mechanism claims (domain
   extremes and corners, tiny datasets, size boundaries of `Subsampling.size`, duplicates and
   conflicts, lone records and clusters, stream positions, subsampling edge cases), random
   pairs from the domain, and local-search moves from the best candidates so far (perturb the
   changed record, move it outside the data's support, move its position, add a duplicate of
   it, change n by ±1, perturb / relabel / copy another record). Everything is derived from
   the mechanism's declared `Domain`; a domain with `private_rows` only gets pairs that change
   a private row. A claim that relies on amplification under a relation other than the audited
   one is refused (`neighbors.generators.check_amplification` raises
   `AmplificationMismatchError`).
2. **Pilot** (a fraction f of the budget; black-box: it only samples the mechanism).
   *Screening*: every candidate of the initial pool, then of local-search rounds from the
   current top three, is sampled `s₀` times per side. *Successive halving*: the best
   `HALVING_POOL` candidates that are not registered (fewer when the budget is small) get more
   samples in rounds, the better half surviving each round, until one is left. *Registered
   pairs* (the caller's, `registered=`) are not in the halving: each is topped up to the
   samples the registered route would choose its event on (`AuditConfig.split()[0]` at
   `num_samples`, e.g. 10 % of N) and scored on them, so the search sees every registered
   pair's evidence (a rare event included) at least as well as that route does; the best of
   them (the registered champion) is a finalist and keeps its samples. This reserve is
   R × that split ≈ 0.1·T (T = N·R below), half the default pilot. A
   candidate's score is computed on all its pilot samples by cross-fitting: an event is chosen
   on one half with the runner's distinguishers (by default those that need no fitting:
   histogram and thresholds) and the runner's projection to the certification budget and level
   (`audit.bounds.projected_bounds`, at a laxer shading, `PILOT_SELECTION_PESSIMISM`), its
   frequencies are measured on the other half, the certified ε those frequencies would give at
   the certification budget is computed (`projected_epsilon`, point-estimate shading), and the
   two halves' roles are swapped and averaged. The score is that projected ε minus the ε of the
   claim covering the pair's relation, so pairs under relations with different claims compare
   by how close they get to a violation, and a pair whose evidence only shows at a large budget
   (a rare event with a large ratio) is not mistaken for a weak one. Pilot draws use seeds
   `pilot_seed(seed, j)` (SeedSequence spawn key 7), never the audit seed, so pilot samples are
   independent of the certification samples. With `AuditConfig.jobs` ≠ 1 the draws of a batch
   (a screening batch, a halving round, the registered and selection top-ups) run in parallel
   through the runner's executor (`audit.sampling.run_tasks`) at the same seeds and chunk keys:
   the search is bit-identical for any `jobs` and backend.
3. **Certification.** The halving's winner (on a near-tie within `VERDICT_TIE`, a pair under
   the verdict claim's relation, then the registered champion) is certified by `run_audit` at
   the audit seed on the whole remaining budget; with registered pairs (`hedge_registered`, the
   default) the registered champion is certified next to a winner that is not registered,
   and so are the registered *contenders* (registered pairs scoring within `REGISTERED_TIE` of
   the champion, which the pilot cannot separate from it) while every certified pair still gets
   the registered route's certification size (`AuditConfig.split()[1]`); with `top_k` = k > 1
   the next k − 1 candidates (finalists first) are certified too, the remaining budget split
   evenly. A certified pair's event is chosen on its own pilot samples
   (topped up at pilot seeds to the selection size the runner would draw, `AuditConfig.split`),
   passed as `run_audit(selection_outputs=...)`: the runner draws no selection split, so every
   audit-seed sample certifies. The runner splits `failure_probability` across the certified
   pairs (Bonferroni), so all certified bounds hold simultaneously with probability ≥ 1 −
   failure_probability. Certifying the pilot's winner alone (top_k = 1) spends the whole
   certification budget and the whole failure probability where the evidence is; the halving's
   last rounds make that choice on tens of thousands of samples.

Validity: the pilot only decides *which* pairs are certified and *which event* (with the
direction) each is certified on. All pilot samples are drawn at pilot seeds, independent of
the certification samples drawn at the audit seed, so conditional on those choices the
certification samples are fresh and the runner's guarantee applies unchanged, exactly as if
the user had named those pairs and events.

Budget accounting (samples per side). The total budget T defaults to what `dpaudit run
--pairs registered` spends: `num_samples` × the number of pairs that route audits (the
mechanism's registered pairs, else one boundary template per claimed relation). Only that
*count* is read from the mechanism, never its pairs; pass `budget=` to set T explicitly.

- the pilot gets P = ⌊f · T⌋: half for screening (C = min(max_candidates, ⌊P/2 / min_pilot_
  samples⌋) candidates, s₀ = ⌊P/2 / C⌋ samples each), then the registered pairs' top-ups to
  their selection size, then successive halving on what is left (each round an equal share,
  split evenly over that round's survivors; with many registered pairs on a small budget the
  top-ups may exceed P, and certification gets less);
- the certified pairs' selection splits are topped up (if their pilot samples fall short of
  what the runner would select on) by U samples, drawn at pilot seeds;
- certification gets N_cert = ⌊(T − pilot spent − U) / k⌋ per certified pair (k = the number of
  certified pairs: top_k, plus the registered champion and contenders when hedging); whatever the pilot
  leaves unspent goes to certification.

So pilot + top-up + certification spend T − r samples per side with 0 ≤ r < k. `SearchResult` records
every figure.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds, projected_bounds, projected_epsilon
from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS
from dpaudit.engine.estimators import (
    Distinguisher,
    HistogramDistinguisher,
    ThresholdDistinguisher,
)
from dpaudit.engine.runner import run_audit
from dpaudit.engine.sampling import Task, run_tasks, sample_rows, try_sample_rows
from dpaudit.engine.types import WEAKENED, AuditConfig, AuditResult, EpsilonEstimate
from dpaudit.mechanisms.base import Mechanism, MechanismError, applicable_claim, claims_of
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation
from dpaudit.neighbors.generators import (
    DEFAULT_MAX_ROWS,
    BoundaryPairs,
    WorstCasePairs,
    admissible,
    check_amplification,
    local_moves,
    pair_key,
    random_pair,
)

__all__ = [
    "Candidate",
    "SearchBudgetError",
    "SearchResult",
    "SearchUnsupportedError",
    "default_budget",
    "pilot_seed",
    "search_and_certify",
]

PILOT_SPAWN_KEY = 7
"""SeedSequence spawn key of the pilot runs (the certification uses the audit seed itself)."""
PROPOSAL_SPAWN_KEY = 8
"""SeedSequence spawn key of the random proposals (random pairs and local moves)."""
PILOT_FAILURE_PROBABILITY = 0.5
"""Level of the pilot bound reported per candidate (`Candidate.estimate`): ranking only, so a
lax level keeping it near the point estimate."""
PILOT_SELECTION_PESSIMISM = 0.25
"""Shading of the pilot's selection-fold frequencies (see `_pilot_event`)."""
VERDICT_TIE = 0.05
"""Score margin within which a pair under the verdict claim's relation is preferred."""
SCREEN_SIZE = 64
"""Candidate events per direction given the exact projection (after a normal-approximation screen)."""
HALVING_POOL = 16
"""Candidates entering successive halving after screening."""
REGISTERED_TIE = 0.15
"""Pilot-score margin within which a registered pair counts as a contender of the registered
champion (certified next to it when the budget allows): cross-fitted pilot scores on the
registered route's selection size vary by about this much between pairs whose true ε differ by
~0.1 (geo_select_triangle: 1.000 vs 1.113 not separated on 10⁵ samples)."""
CHALLENGERS = 2
"""Finalists (not registered) topped up to the registered champion's pilot size to challenge it."""
PILOT_CHUNK = 1 << 16
_SCORE_CLIP = (-20.0, 50.0)


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
    budget, own seed, used for ranking). `candidate_pairs[i]` is the pair of `candidates[i]`,
    `pilot_samples_of[i]` the pilot samples per side it received.
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
    pilot_samples_of: tuple[int, ...] = ()
    halving_rounds: int = 0
    selection_samples_of_certified: tuple[int, ...] = ()
    """Per certified pair, the pilot samples per side its event was chosen on (its selection split)."""
    selection_topup_samples: int = 0
    """Samples per side drawn (at pilot seeds) after the pilot to complete those selection splits."""

    def to_dict(self) -> dict[str, Any]:
        """Summary of the search for the certified result's `extra` (the result writer,
        `reports.schema`, encodes its non-finite figures, e.g. a −∞ pilot bound)."""
        return {
            "pilot_fraction": self.pilot_fraction,
            "top_k": self.top_k,
            "budget": self.budget,
            "pilot_samples": self.pilot_samples,
            "pilot_samples_per_candidate": self.pilot_samples_per_candidate,
            "halving_rounds": self.halving_rounds,
            "certification_samples": self.certification_samples,
            "selection_samples_of_certified": list(self.selection_samples_of_certified),
            "selection_topup_samples": self.selection_topup_samples,
            "certified_pairs": [p.description for p in self.certified_pairs],
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
                    "pilot_samples": m,
                    "pilot_epsilon_lower_bound": c.estimate.epsilon_lower_bound,
                    "pilot_selection_epsilon": c.estimate.selection_epsilon,
                    "tags": list(p.tags),
                }
                for c, p, score, src, m in zip(
                    self.candidates,
                    self.candidate_pairs,
                    self.scores,
                    self.sources,
                    self.pilot_samples_of,
                    strict=True,
                )
            ],
        }


def pilot_seed(seed: int, index: int) -> int:
    """The seed of the `index`-th pilot draw: derived from the audit seed, never equal to it."""
    s = int(np.random.SeedSequence(seed, spawn_key=(PILOT_SPAWN_KEY, index)).generate_state(1)[0])
    return s if s != seed else s + 1


def default_budget(mechanism: Mechanism, num_samples: int) -> int:
    """Samples per side that `run_audit` on the registered route would spend: num_samples × the
    number of the mechanism's registered pairs (else of its boundary templates, one per claimed
    relation). Only the count is read."""
    registered = getattr(mechanism, "neighbor_pairs", None)
    count = len(tuple(registered())) if callable(registered) else 0
    if count == 0:
        relations = dict.fromkeys(c.relation for c in claims_of(mechanism))
        count = sum(1 for r in relations for _ in BoundaryPairs().pairs(mechanism.domain, r))
    return num_samples * max(count, 1)


def _clip(v: float) -> float:
    if math.isnan(v):
        return _SCORE_CLIP[0]
    return min(max(v, _SCORE_CLIP[0]), _SCORE_CLIP[1])


@dataclass(slots=True, eq=False)
class _Entry:
    """One candidate under evaluation: its pilot samples (both sides) and current score.
    Compared (and hashed) by identity: two entries are never the same candidate."""

    pair: NeighborPair
    source: str
    claim_epsilon: float
    claim_delta: float
    a: list[NDArray[np.float64]] = dataclasses.field(default_factory=list)
    b: list[NDArray[np.float64]] = dataclasses.field(default_factory=list)
    drawn: int = 0
    score: float = -math.inf
    estimate: EpsilonEstimate | None = None

    def outputs(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if len(self.a) > 1:
            self.a, self.b = [np.concatenate(self.a)], [np.concatenate(self.b)]
        return self.a[0], self.b[0]

    def release(self) -> None:
        self.a, self.b = [], []

    def rows(self) -> int:
        """Pilot samples per side currently held (0 once released)."""
        return min(sum(x.shape[0] for x in self.a), sum(x.shape[0] for x in self.b))


def _templates(domain: Any, relations: Sequence[Relation], max_rows: int) -> Iterator[NeighborPair]:
    gens = [WorstCasePairs(max_rows=max_rows).pairs(domain, r) for r in relations]
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
    top_k: int = 1,
    registered: Sequence[NeighborPair] = (),
    budget: int | None = None,
    max_candidates: int = 64,
    min_pilot_samples: int = 1000,
    max_rows: int = DEFAULT_MAX_ROWS,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
    pilot_distinguishers: Sequence[Distinguisher] | None = None,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
    checkpoint_path: Path | None = None,
    resume: bool = False,
    hedge_registered: bool = True,
) -> SearchResult:
    """Search for worst-case pairs with a pilot, then certify the best on fresh samples.

    See the module docstring for the procedure, the validity argument and the budget
    (`budget` = total samples per side, default `default_budget(mechanism, num_samples)`;
    `top_k` = the most pairs certified; `distinguishers` are the certification's,
    `pilot_distinguishers` the pilot's, by default those of `distinguishers` that need no
    fitting: histogram and thresholds). With `registered` pairs and `hedge_registered`, the best
    registered finalist is certified next to the winner when it is not the winner. Raises
    `AmplificationMismatchError` (a ValueError) for a claim relying on amplification under a
    relation other than a claimed one, `SearchBudgetError` when the budget is too small.
    """
    started = time.perf_counter()
    if not 0 < pilot_fraction < 1:
        raise ValueError(f"pilot_fraction must be in (0, 1), got {pilot_fraction}")
    if top_k < 1:
        raise ValueError(f"top_k must be ≥ 1, got {top_k}")
    if min_pilot_samples < 200 or max_candidates < 2:
        raise ValueError("min_pilot_samples must be ≥ 200 and max_candidates ≥ 2")
    claims = claims_of(mechanism)
    domain = mechanism.domain
    relations = tuple(dict.fromkeys(c.relation for c in claims))
    for relation in relations:
        check_amplification(domain, relation)
    verdict_claim = applicable_claim(claims, mechanism.claim.relation) or mechanism.claim
    if pilot_distinguishers is None:
        cheap = [d for d in distinguishers if isinstance(d, HistogramDistinguisher | ThresholdDistinguisher)]
        pilot_distinguishers = cheap or list(distinguishers)

    # ------------------------------------------------------------------ budget
    total_budget = default_budget(mechanism, config.num_samples) if budget is None else int(budget)
    pilot_budget = math.floor(pilot_fraction * total_budget)
    screen_budget = pilot_budget // 2
    num_candidates = min(max_candidates, screen_budget // min_pilot_samples)
    if num_candidates < 2 or total_budget - pilot_budget < 200:
        need = math.ceil(2 * 2 * min_pilot_samples / pilot_fraction)
        raise SearchBudgetError(
            f"a total budget of {total_budget:,} samples per side is too small for a search with "
            f"pilot_fraction={pilot_fraction:g} (need ≥ {need:,})"
        )
    per_candidate = screen_budget // num_candidates
    # the certification the pilot projects to: one pair, the runner's selection split removed
    cert_cfg = dataclasses.replace(config, num_samples=max(total_budget - pilot_budget, 200))
    projected_total = cert_cfg.split()[1]
    projected_level = config.failure_probability
    rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(PROPOSAL_SPAWN_KEY,)))

    entries: list[_Entry] = []
    seen: set[tuple[str, str, str]] = set()
    skipped: list[str] = []
    failures: list[str] = []
    seeds: list[int] = []
    spent = 0

    def claim_of(relation: Relation) -> tuple[float, float] | None:
        c = applicable_claim(claims, relation)
        return None if c is None else (c.epsilon, c.delta)

    def admit(pair: NeighborPair, source: str, batch: list[_Entry]) -> bool:
        key = pair_key(pair)
        if key in seen:
            return False
        seen.add(key)
        claim = claim_of(pair.relation)
        if claim is None:
            skipped.append(f"{source} pair {pair.description!r}: no claim covers {pair.relation.value}")
            return False
        if not admissible(pair, domain):
            skipped.append(f"{source} pair {pair.description!r}: not a neighbour pair in the domain")
            return False
        batch.append(_Entry(pair, source, claim[0], claim[1]))
        return True

    def settle(entry: _Entry, num: int, error: str | None, ranking: bool) -> bool:
        """Account for a draw of `num` samples per side: a failing candidate (a MechanismError's
        message in `error`) is reported and released, not fatal to the search."""
        nonlocal spent
        spent += num
        if error is not None:
            skipped.append(f"{entry.source} pair {entry.pair.description!r}: {error}")
            failures.append(skipped[-1])
            entry.release()
            return False
        entry.drawn += num if ranking else 0
        return True

    def chunks(entry: _Entry, num: int) -> list[tuple[Dataset, int, int, tuple[int, int]]]:
        """Issue the next pilot seed to a draw of `num` samples per side of `entry`; its chunks
        as (dataset, size, seed, key (side, c)), side 0 before side 1."""
        seed = pilot_seed(config.seed, len(seeds))
        seeds.append(seed)
        return [
            (dataset, min(PILOT_CHUNK, num - start), seed, (side, c))
            for side, dataset in enumerate((entry.pair.dataset, entry.pair.neighbor))
            for c, start in enumerate(range(0, num, PILOT_CHUNK))
        ]

    def draw(entry: _Entry, num: int, *, ranking: bool = True) -> bool:
        try:
            for dataset, size, seed, key in chunks(entry, num):
                (entry.b if key[0] else entry.a).append(sample_rows(mechanism, dataset, size, seed, key))
        except MechanismError as exc:
            return settle(entry, num, str(exc), ranking)
        return settle(entry, num, None, ranking)

    def draw_all(
        requests: Sequence[tuple[_Entry, int]],
        *,
        ranking: bool = True,
        then: Callable[[_Entry, bool], None] | None = None,
    ) -> list[bool]:
        """`draw(entry, num)` for each request, in order, each followed by `then(entry, ok)`.

        With `config.jobs` ≠ 1 every chunk of the batch is a task run by
        `audit.sampling.run_tasks` (the runner's executor): seeds are issued in request order and
        chunk keys are (side, c) as in `draw`, so the samples, the seeds, `spent` and the
        `skipped` messages are those of the sequential path. Results arrive in submission order;
        a request is settled (and `then` runs, e.g. scoring it) as soon as its last chunk is in,
        while the workers sample the next ones."""
        ok: list[bool] = []
        if config.jobs == 1:  # in-process, no executor overhead
            for entry, num in requests:
                ok.append(draw(entry, num, ranking=ranking))
                if then is not None:
                    then(entry, ok[-1])
            return ok
        tasks = []
        pending = [0] * len(requests)  # chunks not yet returned, per request
        for i, (entry, num) in enumerate(requests):
            for dataset, size, seed, key in chunks(entry, num):
                tasks.append(Task(try_sample_rows, (mechanism, dataset, size, seed, key), size, (i, key[0])))
                pending[i] += 1
        failed: dict[int, str] = {}

        def settle_ready() -> None:
            while len(ok) < len(requests) and pending[len(ok)] == 0:
                entry, num = requests[len(ok)]
                ok.append(settle(entry, num, failed.get(len(ok)), ranking))
                if then is not None:
                    then(entry, ok[-1])

        def done(task: Task, out: NDArray[np.float64] | str) -> None:
            i, side = task.tag
            pending[i] -= 1
            entry = requests[i][0]
            if i in failed:
                pass  # the rest of a failing candidate's chunks are dropped
            elif isinstance(out, str):  # its first failing chunk in (side, c) order, as in `draw`
                failed[i] = out
                entry.release()
            else:
                (entry.b if side else entry.a).append(out)
            settle_ready()

        settle_ready()
        run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
        settle_ready()
        return ok

    def score(entry: _Entry) -> None:
        a, b = entry.outputs()
        entry.score, entry.estimate = _cross_fitted(
            a,
            b,
            claim_epsilon=entry.claim_epsilon,
            delta=entry.claim_delta,
            projected_total=projected_total,
            projected_level=projected_level,
            distinguishers=pilot_distinguishers,
        )

    def evaluate(batch: list[_Entry]) -> None:
        def keep(entry: _Entry, ok: bool) -> None:
            if ok:
                score(entry)
                entries.append(entry)

        draw_all([(e, per_candidate) for e in batch], then=keep)

    def ranked() -> list[_Entry]:
        return sorted(entries, key=lambda e: -e.score)

    def random_fill(batch: list[_Entry], target: int) -> None:
        misses = 0
        while len(batch) < target and misses < 8 * max(target, 1):
            rel = relations[int(rng.integers(len(relations)))]
            p = random_pair(domain, rel, rng, max_rows=max_rows)
            if p is None or not admit(p, "random", batch):
                misses += 1

    # ------------------------------------------------------- screening: registered, templates, random
    num_local = num_candidates // 3
    num_initial = num_candidates - num_local
    num_random = max(1, num_initial // 10)
    batch: list[_Entry] = []
    for p in registered:
        if len(batch) >= num_initial:
            break
        admit(p, "registered", batch)
    for p in _templates(domain, relations, max_rows):
        if len(batch) >= num_initial - num_random:
            break
        admit(p, "template", batch)
    random_fill(batch, num_initial)
    evaluate(batch)

    # ------------------------------------------------------------------ local search rounds
    round_size = max(2, math.ceil(num_local / 3))
    attempts = 4 * num_candidates  # guard against a mechanism that fails on every candidate
    while len(entries) < num_candidates and attempts > 0 and entries:
        attempts -= 1
        target = min(round_size, num_candidates - len(entries))
        parents = [e.pair for e in ranked()[:3]]
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
    if not entries:
        raise SearchBudgetError(f"no admissible candidate pair could be sampled for {mechanism.name!r}")

    # ------------------------------------------------------------------ registered pairs
    # every registered pair is scored on as many samples as the registered route selects its event
    # on (`AuditConfig.split` at num_samples), so the pooled search sees each one's evidence at least
    # as well as that route does; only the best-scoring one keeps its samples (the champion)
    reg_selection, reg_certification = config.split()
    champion: _Entry | None = None
    scored_registered: list[_Entry] = []
    registered_entries = [(e, e.rows()) for e in entries if e.source == "registered"]
    topups = [(e, reg_selection - have) for e, have in registered_entries if 0 < have < reg_selection]
    topped: set[_Entry] = set()

    def score_topped(entry: _Entry, ok: bool) -> None:
        if ok:
            score(entry)
            topped.add(entry)

    draw_all(topups, then=score_topped)
    for e, have in registered_entries:
        if have < reg_selection and e not in topped:
            e.score = -math.inf
            e.release()
            continue
        if e not in topped:
            score(e)
        scored_registered.append(e)
        if champion is None or e.score > champion.score:
            champion = e
    # registered pairs the pilot cannot separate from the champion keep their samples: they are
    # certified next to it while the budget gives each the registered route's certification size
    contenders = (
        []
        if champion is None
        else sorted(
            (
                e
                for e in scored_registered
                if e is not champion and e.score >= champion.score - REGISTERED_TIE
            ),
            key=lambda e: -e.score,
        )
    )

    # ------------------------------------------------------------------ successive halving
    halving_budget = pilot_budget - spent

    def rounds_for(m: int) -> int:
        return math.ceil(math.log2(m)) if m > 1 else 0

    others = [e for e in ranked() if e.source != "registered"]
    pool_size = min(HALVING_POOL, len(others))
    while pool_size > 2 and halving_budget // rounds_for(pool_size) // pool_size < min_pilot_samples // 2:
        pool_size -= 1  # a smaller pool, so each round still adds a useful number of samples
    survivors = others[:pool_size]
    holding = {*survivors, *contenders, *([champion] if champion is not None else [])}
    for e in entries:
        if e not in holding:
            e.release()

    def rescore(entry: _Entry, ok: bool) -> None:
        if ok:
            score(entry)
        else:
            entry.score = -math.inf

    rounds = 0
    planned = rounds_for(len(survivors))
    for r in range(planned):
        per = (halving_budget // (planned - r)) // len(survivors)
        if per < min_pilot_samples // 2:
            break
        rounds += 1
        before = spent
        draw_all([(e, per) for e in survivors], then=rescore)
        halving_budget -= spent - before
        survivors.sort(key=lambda e: -e.score)
        keep = max(1, math.ceil(len(survivors) / 2))
        for e in survivors[keep:]:
            e.release()
        survivors = survivors[:keep]

    # ------------------------------------------------------------------ challenge
    # a pair that is not registered displaces the registered champion only on a score resting on
    # as many samples as the champion's (the registered route's selection size): the best
    # finalists that would displace it are topped up to that size and rescored, at most
    # `CHALLENGERS` of them (a certified challenger's samples are its selection split, so its
    # top-up is mostly spent anyway); the others cannot displace it
    reg = champion if champion is not None and math.isfinite(champion.score) else None
    if reg is not None:
        challengers = []
        for e in sorted(survivors, key=lambda e: -e.score)[:CHALLENGERS]:
            if e.score <= reg.score + VERDICT_TIE:
                break
            if e.drawn < reg.drawn and e.rows() > 0:
                challengers.append((e, reg.drawn - e.rows()))
        draw_all(challengers, then=lambda e, ok: score(e) if ok else None)

    # ------------------------------------------------------------------ certification
    # the halving's survivors first (their scores rest on the most samples), then the rest
    # (the registered champion is a finalist: its score rests on the registered route's selection size)
    finalists = {*survivors, *([reg] if reg is not None else [])}
    order = sorted(ranked(), key=lambda e: e not in finalists)  # stable: by score within each group
    if reg is not None:  # only a score on as many samples as the champion's can displace it
        order.sort(key=lambda e: not (e is reg or e.drawn >= reg.drawn or e.score <= reg.score))
    best = order[0]
    if best.pair.relation is not verdict_claim.relation:
        # on a near-tie, prefer a pair under the verdict claim's relation (the claim the exit
        # code reports, whose bound is the headline `epsilon_lower_bound`) among candidates whose
        # score rests on comparably many samples
        same = [e for e in order if e.pair.relation is verdict_claim.relation and 2 * e.drawn >= best.drawn]
        if same and same[0].score >= best.score - VERDICT_TIE:
            best = same[0]
    # on a near-tie the registered champion (the caller's own worst case) is preferred
    if reg is not None and reg is not best and reg.score >= best.score - VERDICT_TIE:
        best = reg
    chosen = [best, *[e for e in order if e is not best][: top_k - 1]]
    if hedge_registered and reg is not None and reg not in chosen:
        # the caller's registered champion is certified too (budget and failure probability
        # split with the winner): its rare-event evidence may not show at pilot sizes
        chosen.append(reg)
    if hedge_registered and reg is not None:
        # so are the registered contenders, as long as every certified pair still gets at least
        # the certification size the registered route gives each of its pairs
        for e in contenders:
            if (total_budget - spent) // (len(chosen) + 1) < reg_certification:
                break
            if e not in chosen:
                chosen.append(e)
    for e in entries:
        if e not in chosen:
            e.release()
    # the chosen pairs' pilot samples are their selection split: topped up (at pilot seeds) to
    # what the runner would select on, so the certification split gets all that remains
    per_pair = (total_budget - spent) // len(chosen)
    if per_pair < 400:
        raise SearchBudgetError(
            f"the pilot left {total_budget - spent:,} samples per side: too few to certify"
        )
    want = dataclasses.replace(config, num_samples=per_pair).split()[0]
    pilot_spent = spent
    # (a pair whose samples were released has 0 rows: it gets a fresh split)
    selection_topups = [(e, want - e.rows()) for e in chosen if e.rows() < want]
    for (e, _), ok in zip(selection_topups, draw_all(selection_topups, ranking=False), strict=True):
        if not ok:
            raise SearchBudgetError(f"sampling the chosen pair {e.pair.description!r} failed")
    topup = spent - pilot_spent
    n_cert = (total_budget - spent) // len(chosen)
    certified_pairs = [e.pair for e in chosen]
    selection_outputs = [e.outputs() for e in chosen]
    result = run_audit(
        mechanism,
        certified_pairs,
        dataclasses.replace(config, num_samples=n_cert),
        distinguishers=distinguishers,
        parameters=parameters,
        command=command,
        show_progress=show_progress,
        checkpoint_path=checkpoint_path,
        resume=resume,
        selection_outputs=selection_outputs,
    )
    selection_rows = [min(len(a), len(b)) for a, b in selection_outputs]
    for e in chosen:
        e.release()
    total = spent + n_cert * len(chosen)
    found = SearchResult(
        candidates=tuple(
            Candidate(e.pair.description, e.pair.relation, e.estimate)  # type: ignore[arg-type]
            for e in order
        ),
        candidate_pairs=tuple(e.pair for e in order),
        scores=tuple(e.score for e in order),
        sources=tuple(e.source for e in order),
        certified=result,
        certified_pairs=tuple(certified_pairs),
        relations=relations,
        pilot_seeds=tuple(seeds),
        pilot_samples_per_candidate=per_candidate,
        pilot_samples=pilot_spent,
        certification_samples=n_cert,
        total_samples=total,
        budget=total_budget,
        pilot_fraction=pilot_fraction,
        top_k=top_k,
        skipped=tuple(skipped),
        pilot_samples_of=tuple(e.drawn for e in order),
        halving_rounds=rounds,
        selection_samples_of_certified=tuple(selection_rows),
        selection_topup_samples=topup,
    )
    # the report's JSON lists every pair tried (pilot figures) next to the certified ones
    # its elapsed_seconds covers the whole search (pilot + certification): what the user waited;
    # no other timing goes in the result, so all else reproduces bit-for-bit from the seed
    search_info = {**found.to_dict(), "candidates_tried": len(entries)}
    elapsed = time.perf_counter() - started
    warnings = (*result.warnings, *weakened_warning(failures))
    return dataclasses.replace(
        found,
        certified=dataclasses.replace(
            result,
            elapsed_seconds=elapsed,
            warnings=warnings,
            extra={**result.extra, "search": search_info},
        ),
    )


def weakened_warning(failures: Sequence[str]) -> tuple[str, ...]:
    """The warning for candidates whose sampling raised: the pair may have been the strongest, so
    the bound may be lower than the mechanism allows (never invalid: a dropped candidate only
    loses power). Empty when nothing failed."""
    if not failures:
        return ()
    more = f" (and {len(failures) - 1} more, listed in the search record)" if len(failures) > 1 else ""
    return (f"{WEAKENED}: {len(failures)} candidate pair(s) failed while sampling: {failures[0]}{more}",)


def _cross_fitted(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    claim_epsilon: float,
    delta: float,
    projected_total: int,
    projected_level: float,
    distinguishers: Sequence[Distinguisher],
) -> tuple[float, EpsilonEstimate]:
    """(score, pilot estimate) of one candidate from its pilot samples (see the module docstring).

    The estimate reported is the first fold's: event chosen on the first half, Clopper–Pearson
    bounds at `PILOT_FAILURE_PROBABILITY` on the second half (a pilot figure, not certified).
    """
    half = min(a.shape[0], b.shape[0]) // 2
    folds = ((slice(0, half), slice(half, 2 * half)), (slice(half, 2 * half), slice(0, half)))
    projections = []
    first: EpsilonEstimate | None = None
    for sel_idx, eval_idx in folds:
        sel = _pilot_event(
            a[sel_idx],
            b[sel_idx],
            projected_total=projected_total,
            projected_level=projected_level,
            delta=delta,
            distinguishers=distinguishers,
        )
        if sel is None:
            projections.append(_SCORE_CLIP[0])
            continue
        ka = int(np.count_nonzero(sel.event.indicator(a[eval_idx])))
        kb = int(np.count_nonzero(sel.event.indicator(b[eval_idx])))
        kp, kq = (ka, kb) if sel.dataset_is_p else (kb, ka)
        proj = float(
            projected_epsilon(
                kp,
                kq,
                selection_total_p=half,
                selection_total_q=half,
                certify_total_p=projected_total,
                certify_total_q=projected_total,
                delta=delta,
                failure_probability=projected_level,
                pessimism=0.5,
            )
        )
        projections.append(_clip(proj))
        if first is None:
            beta = PILOT_FAILURE_PROBABILITY
            p_lo = float(cp_lower(kp, half, beta / 2))
            q_hi = float(cp_upper(kq, half, beta / 2))
            eps = float(epsilon_from_bounds(p_lo, q_hi, delta=delta))
            first = EpsilonEstimate(
                epsilon_lower_bound=eps,
                delta_lower_bound=max(0.0, p_lo - math.exp(claim_epsilon) * q_hi),
                p_count=kp,
                p_total=half,
                q_count=kq,
                q_total=half,
                p_lower=p_lo,
                q_upper=q_hi,
                failure_probability=beta,
                infinite_witness=kq == 0 and kp > 0,
                direction="dataset>neighbor" if sel.dataset_is_p else "neighbor>dataset",
                event=sel.event.describe(),
                distinguisher=sel.distinguisher,
                selection_epsilon=float(sel.projected),
                assumption="pilot figure (ranking only, not certified)",
            )
    if first is None:  # no distinguisher had a candidate event on either fold
        first = EpsilonEstimate(
            epsilon_lower_bound=-math.inf,
            delta_lower_bound=0.0,
            p_count=0,
            p_total=half,
            q_count=0,
            q_total=half,
            p_lower=0.0,
            q_upper=1.0,
            failure_probability=PILOT_FAILURE_PROBABILITY,
            infinite_witness=False,
            direction="dataset>neighbor",
            event="none",
            distinguisher="none",
            selection_epsilon=-math.inf,
            assumption="pilot figure (ranking only, not certified)",
        )
    return float(np.mean(projections)) - claim_epsilon, first


@dataclass(frozen=True, slots=True)
class _PilotEvent:
    event: Any
    dataset_is_p: bool
    projected: float
    distinguisher: str


def _pilot_event(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    projected_total: int,
    projected_level: float,
    delta: float,
    distinguishers: Sequence[Distinguisher],
) -> _PilotEvent | None:
    """The candidate event (and direction) of the runner's distinguishers whose projected
    certified ε at the certification budget is largest, with frequencies shaded at
    `PILOT_SELECTION_PESSIMISM` (laxer than the runner's own selection: the pilot's winner's
    curse is removed by measuring the event on the other fold, and small pilot splits must not
    rule out a rare event seen only a few dozen times)."""
    n_a, n_b = a.shape[0], b.shape[0]
    best: _PilotEvent | None = None
    for dist in distinguishers:
        cand = dist.propose(a, b)
        if cand is None:
            continue
        for counts_p, counts_q, n_p, n_q, dataset_is_p in (
            (cand.counts_a, cand.counts_b, n_a, n_b, True),
            (cand.counts_b, cand.counts_a, n_b, n_a, False),
        ):
            if len(counts_p) == 0:
                continue
            cp_, cq_ = np.asarray(counts_p, dtype=float), np.asarray(counts_q, dtype=float)
            if cp_.size > SCREEN_SIZE:  # normal-approximation screen, exact projection on the top
                top = np.argsort(-_rough_epsilon(cp_, cq_, n_p, n_q, projected_total, delta), kind="stable")
                top = top[:SCREEN_SIZE]
            else:
                top = np.arange(cp_.size)
            p_lo, q_hi = projected_bounds(
                cp_[top],
                cq_[top],
                selection_total_p=n_p,
                selection_total_q=n_q,
                certify_total_p=projected_total,
                certify_total_q=projected_total,
                failure_probability=projected_level,
                pessimism=PILOT_SELECTION_PESSIMISM,
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                eps = np.nan_to_num(epsilon_from_bounds(p_lo, q_hi, delta=delta), nan=-np.inf)
            j = int(np.argmax(eps))
            if best is None or float(eps[j]) > best.projected:
                best = _PilotEvent(cand.make_event(int(top[j])), dataset_is_p, float(eps[j]), dist.name)
    return best


def _rough_epsilon(
    kp: NDArray[np.float64], kq: NDArray[np.float64], n_p: int, n_q: int, total: int, delta: float
) -> NDArray[np.float64]:
    """A cheap stand-in for the projected certified ε (two-standard-error normal bounds at the
    projected size on slightly shaded frequencies), used only to screen candidate events."""
    p = np.clip(np.maximum(kp - np.sqrt(kp), 0.0) / max(n_p, 1), 0.0, 1.0)
    q = np.clip((kq + np.sqrt(kq) + 1.0) / max(n_q, 1), 0.0, 1.0)
    p_lo = p - 2.0 * np.sqrt(p * (1 - p) / total)
    q_hi = q + 2.0 * np.sqrt(q * (1 - q) / total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(
            np.log(np.maximum(p_lo - delta, 0.0)) - np.log(np.minimum(q_hi, 1.0)), nan=-np.inf
        )
