"""The search's candidate space: registered pairs, sweeps, worst-case templates, random pairs, local moves.

Implements `Proposer`, which proposes the candidate pairs of a search from the mechanism's
declared `Domain` and admits each once: only pairs that are neighbours in the domain (changing
a private row when the domain has `private_rows`) and that a claim covers. Random pairs and
local moves draw from their own generator (spawn key `PROPOSAL_SPAWN_KEY`), never from the
audit seed's streams, so the choice of candidates is independent of the certification samples:
the runner's bound P(p ≥ p̂_lo and q ≤ q̂_hi) ≥ 1 − β applies to a chosen pair as to a named one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import qmc

from ...mechanisms.base import PrivacyClaim, applicable_claim
from ...neighbors.base import Domain, NeighborPair, Relation
from ...neighbors.generators import (
    DEFAULT_MAX_ROWS,
    WorstCasePairs,
    admissible,
    local_moves,
    pair_key,
    random_pair,
)
from ...neighbors.sweep_locations import DESIGN_POINTS, Unit
from ...neighbors.sweeps import DEFAULT_MAX_COUNT, CountSweeps
from .pilot_samples import Entry

PROPOSAL_SPAWN_KEY = 8
"""SeedSequence spawn key of the random proposals (random pairs and local moves)."""
DESIGN_SPAWN_KEY = 10
"""SeedSequence spawn key of the sweeps' space-filling design (`neighbors.sweep_locations`)."""
SEATS = 2
"""Places whose largest count sweep a blind pilot screens whatever the sweep race chose (`Proposer.seats`)."""


def proposal_rng(seed: int) -> np.random.Generator:
    """The generator of a search's random proposals (random pairs and local moves)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PROPOSAL_SPAWN_KEY,)))


def sobol_design(d: int, rng: np.random.Generator, count: int = DESIGN_POINTS) -> Unit:
    """`count` points of a scrambled Sobol design of [0, 1)^d (Owen's scrambling, seeded from
    `rng`; `scipy.stats.qmc.Sobol`): a (0, m, d)-net puts one point in each 1/count of every axis.
    Empty for d < 1."""
    if d < 1 or count < 1:
        return ()
    points = qmc.Sobol(d=d, scramble=True, seed=rng).random(count)
    return tuple(tuple(float(v) for v in row) for row in points)


def templates(domain: Domain, relations: Sequence[Relation], max_rows: int) -> Iterator[NeighborPair]:
    """The `WorstCasePairs` templates of every relation, interleaved (one of each in turn)."""
    return _interleave([WorstCasePairs(max_rows=max_rows).pairs(domain, r) for r in relations])


def _interleave(gens: Sequence[Iterator[NeighborPair]]) -> Iterator[NeighborPair]:
    """One pair of each generator in turn."""
    active = list(gens)
    while active:
        nxt = []
        for g in active:
            p = next(g, None)
            if p is not None:
                nxt.append(g)
                yield p
        active = nxt


@dataclass(slots=True, eq=False)
class Proposer:
    """Proposes candidate pairs, each admitted at most once (by `pair_key`); a rejected pair is
    logged in `skipped` (the pilot sampler's list, so messages keep their order)."""

    domain: Domain
    claims: Sequence[PrivacyClaim]
    relations: tuple[Relation, ...]
    rng: np.random.Generator
    skipped: list[str]
    max_rows: int = DEFAULT_MAX_ROWS
    seen: set[tuple[str, str, str]] = field(default_factory=set)
    max_count: int = DEFAULT_MAX_COUNT
    """The largest k of the count sweeps (`neighbors.sweeps`)."""
    sweep_cache: list[tuple[NeighborPair, PrivacyClaim]] | None = None
    """The admissible sweep pairs and their claims (`sweeps`, built once)."""
    design_seed: int | None = None
    """The audit seed the sweeps' space-filling design derives from (spawn key
    `DESIGN_SPAWN_KEY`: never a stream any sample is drawn from); None: no design points."""

    def admit(self, pair: NeighborPair, source: str, batch: list[Entry]) -> bool:
        """Append `pair` to `batch` as a new entry if it is new, covered by a claim, admissible."""
        key = pair_key(pair)
        if key in self.seen:
            return False
        self.seen.add(key)
        claim = applicable_claim(self.claims, pair.relation)
        if claim is None:
            self.skipped.append(f"{source} pair {pair.description!r}: no claim covers {pair.relation.value}")
            return False
        if not admissible(pair, self.domain):
            self.skipped.append(f"{source} pair {pair.description!r}: not a neighbour pair in the domain")
            return False
        batch.append(Entry(pair, source, claim.epsilon, claim.delta))
        return True

    def sweeps(self) -> list[Entry]:
        """The count and mass sweep candidates of every relation (`neighbors.sweeps.CountSweeps`,
        priority order, relations interleaved) that a claim covers and that are admissible, as
        fresh entries (source "sweep"). They are not marked as seen: only the finalists of the
        sweep screen become candidates (`initial(front=...)`). Built once per proposer."""
        if self.sweep_cache is None:
            gens = [
                CountSweeps(max_count=self.max_count, design=self._design()).pairs(self.domain, r)
                for r in self.relations
            ]
            cache: list[tuple[NeighborPair, PrivacyClaim]] = []
            seen: set[tuple[str, str, str]] = set()
            for pair in _interleave(gens):
                claim = applicable_claim(self.claims, pair.relation)
                key = pair_key(pair)
                if claim is None or key in seen or not admissible(pair, self.domain):
                    continue
                seen.add(key)
                cache.append((pair, claim))
            self.sweep_cache = cache
        return [
            Entry(pair, "sweep", claim.epsilon, claim.delta)
            for pair, claim in self.sweep_cache
            if pair_key(pair) not in self.seen
        ]

    def seats(self, *, raced: int = 0) -> list[NeighborPair]:
        """The far end of the count axis: at each of the first `SEATS` places the counting sweeps
        put their copies (the two extremes, `neighbors.sweeps.sweep_targets`), the counting pair
        with the largest k, unless already a candidate. A statistic the mechanism reads from the
        data (a mean it centres on, a range it scales by) is most extreme when every record sits at
        a bound, and a small budget's sweep race only reaches the small counts (its field is a
        prefix in priority order), so the blind pilot screens these two beside the race's
        finalists (`search.pilot.run_pilot`). A pair among the first `raced` of `sweeps()` (the
        race's field: it competed there) gets no seat."""
        fielded = {pair_key(e.pair) for e in self.sweeps()[:raced]} if self.sweep_cache is not None else set()
        best: dict[str, tuple[int, NeighborPair]] = {}
        for pair, _ in self.sweep_cache if self.sweep_cache is not None else []:
            if "count" not in pair.tags or "anywhere" in pair.tags:
                continue
            at = next((t for t in pair.tags if t.startswith("at:")), "")
            k = next((int(t.split(":")[1]) for t in pair.tags if t.startswith("count:")), 0)
            if (at in best or len(best) < SEATS) and k > best.get(at, (0, pair))[0]:
                best[at] = (k, pair)
        return [p for _, p in best.values() if pair_key(p) not in self.seen | fielded]

    def _design(self) -> Unit:
        """The sweeps' space-filling design (`sobol_design` from the design seed; none without)."""
        if self.design_seed is None:
            return ()
        rng = np.random.default_rng(np.random.SeedSequence(self.design_seed, spawn_key=(DESIGN_SPAWN_KEY,)))
        return sobol_design(self.domain.num_features, rng)

    def initial(
        self, registered: Sequence[NeighborPair], *, size: int, front: Sequence[NeighborPair] = ()
    ) -> list[Entry]:
        """The first batch: registered pairs, the sweep screen's finalists (`front`), then
        templates, then about a tenth random pairs."""
        num_random = max(1, size // 10)
        batch: list[Entry] = []
        for p in registered:
            if len(batch) >= size:
                break
            self.admit(p, "registered", batch)
        for p in front:
            if len(batch) >= size - num_random:
                break
            self.admit(p, "sweep", batch)
        for p in templates(self.domain, self.relations, self.max_rows):
            if len(batch) >= size - num_random:
                break
            self.admit(p, "template", batch)
        self.random_fill(batch, size)
        return batch

    def local(self, parents: Sequence[NeighborPair], *, size: int) -> list[Entry]:
        """A local-search batch: the parents' moves interleaved, topped up with random pairs."""
        batch: list[Entry] = []
        proposals = [
            local_moves(p, self.domain, self.rng, count=size, max_rows=self.max_rows) for p in parents
        ]
        for k in range(size):
            for moves in proposals:
                if len(batch) >= size:
                    break
                if k < len(moves):
                    self.admit(moves[k], "local", batch)
        self.random_fill(batch, size)
        return batch

    def random_fill(self, batch: list[Entry], target: int) -> None:
        """Add random pairs to `batch` up to `target`, giving up after 8 × target misses."""
        misses = 0
        while len(batch) < target and misses < 8 * max(target, 1):
            rel = self.relations[int(self.rng.integers(len(self.relations)))]
            p = random_pair(self.domain, rel, self.rng, max_rows=self.max_rows)
            if p is None or not self.admit(p, "random", batch):
                misses += 1
