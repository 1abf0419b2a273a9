"""The search's sweep screen: count and mass sweeps ranked on coupled pilot draws.

`sweep_screen` runs before the pilot's screening (`search_pilot.run_pilot`). The sweep candidates
(`neighbors.sweeps.CountSweeps`: k records at one extreme, the neighbour moving, adding or
removing one, for k on a grid up to 64 records by default) are too many to screen like templates,
so each gets a few samples per side (`MIN_SWEEP_SAMPLES` … `MAX_SWEEP_SAMPLES`, at most
`SWEEP_SHARE` of the pilot budget in all, a prefix of the priority order when that budget cannot
give every candidate `MIN_SWEEP_SAMPLES` or there are more than the screening's candidates: the
sweeps' `sample` calls stay within the screening's), ranked by the pilot's cross-fitted projection
(`ranking.Ranker`), and the best `SWEEP_FINALISTS` become ordinary candidates of the
screening (drawn afresh, at pilot seeds, like every template).

**Coupled draws.** For a seedable mechanism both datasets of a sweep candidate are drawn from the
same random stream (`PilotSampler.draw_all(coupled=True)`: one seed, chunk keys (0, c) on both
sides). Each side's samples are still i.i.d. from that side's output law, so the cross-fitted
frequencies estimate the same probabilities as independent draws; but the two sides' counts of
an event are positively correlated, so their log-ratio is less noisy, and a data-dependent branch
(a sentinel released on one dataset, a noisy value on the other, from the same noise) shows as an
event counted on one side only on the same draws: a few dozen samples rank the pair where the
branch flips above every pair where it does not.

Validity is untouched: coupled samples are drawn at seeds of their own (`COUPLED_SPAWN_KEY`),
never on the audit seed's streams, and are released after ranking. They choose which sweep pairs
enter the screening, nothing else; the screening draws those pairs afresh and independently, no
certified pair's event is chosen on a coupled sample, and certification draws its own
independent streams, so the runner's bound P(p ≥ p̂_lo and q ≤ q̂_hi) ≥ 1 − β holds unchanged.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import NeighborPair
from .candidates import Proposer
from .pilot_samples import Entry, PilotSampler
from .ranking import Ranker

SWEEP_SHARE = 1 / 16
"""The sweep screen's share of the pilot budget P (taken from what the halving would get)."""
MIN_SWEEP_SAMPLES = 8
"""Fewest coupled samples per side a sweep candidate gets in the race's first round (4 per
cross-fitting half: a branch that one side takes and the other does not, on the same draws,
ranks its pair first on those)."""
MAX_SWEEP_SAMPLES = 256
"""Most coupled samples per side a sweep candidate gets in one round of the race."""
SWEEP_FINALISTS = 4
"""Sweep candidates passed on to the screening."""
SCREEN_SAMPLES = 32
"""Fewest coupled samples per side a sweep candidate gets when the screen runs one round (a
search with registered pairs: the main job's sweep screen of issue 35, unchanged)."""
MAX_FIELD = 256
"""Most sweep candidates in a race: each is ranked (a cross-fitted event choice) once per round
it runs, and the ranking, not the sampling, is what a wide field costs on a cheap mechanism
(`laplace_sum` in the main job: 1,254 candidates took 40 s against 5 s)."""
FIRST_ROUND_SHARE = 0.5
"""The race's first round spends this share of its budget (the field is widest there: racing's
point is to try many candidates on a few samples); later rounds split the rest equally."""
RACE_KEEP = 4
"""Each round of the sweep race keeps the best ⌈1/this⌉ of its field (successive halving with
η = 4: a field four times larger costs one more round)."""
MIN_SWEEP_LIMIT = 32
"""The sweep screen ranks up to max(this, the screening's candidate count) candidates: on a small
budget the screening has a handful, and the counting sweeps of both extremes up to k = 20 are the
first 26."""
SHOWN = 5
REFERENCE_ROWS = 4.0
"""Rows a sweep candidate may have before its samples count as more than one (`sweep_weights`;
the boundary templates' size when there are no registered pairs)."""


def sweep_weights(entries: list[Entry], reference_rows: float) -> NDArray[np.float64]:
    """Each candidate's cost per sample in units of a sample on `reference_rows` rows: its mean
    side's rows over max(`reference_rows`, `REFERENCE_ROWS`), at least 1."""
    rows = np.array([(e.pair.dataset.n + e.pair.neighbor.n) / 2 for e in entries], dtype=float)
    return np.maximum(1.0, rows / max(reference_rows, REFERENCE_ROWS))


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepScreen:
    """What the sweep screen did: the finalists (best first), how many candidates it ranked (of how
    many the sweeps proposed), on how many samples per side each, the samples per side in all,
    whether the draws were coupled, and the best ranks (description, rank). Its seconds stay
    out of the record (`to_dict`): the result's only timing is `elapsed_seconds`, so a search is
    bit-identical for any `jobs`."""

    finalists: tuple[NeighborPair, ...] = ()
    proposed: int = 0
    ranked: int = 0
    samples_per_candidate: int = 0
    samples: int = 0
    coupled: bool = False
    seconds: float = 0.0
    best: tuple[tuple[str, float], ...] = ()
    locations: int = 0
    rounds: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The search summary's "sweeps" entry."""
        return {
            "proposed": self.proposed,
            "ranked": self.ranked,
            "samples_per_candidate": self.samples_per_candidate,
            "samples": self.samples,
            "coupled": self.coupled,
            "locations": self.locations,
            "rounds": self.rounds,
            "finalists": [p.description for p in self.finalists],
            "best": [{"description": d, "rank": s} for d, s in self.best],
        }


def sweep_budget(pilot_budget: int, free: int) -> int:
    """Samples per side the sweep screen may spend: `SWEEP_SHARE` of the pilot budget, within
    what the pilot's screening, registered top-ups and challenge reserve leave (`free`)."""
    return max(0, min(int(pilot_budget * SWEEP_SHARE), free))


def race_rounds(n: int) -> int:
    """Rounds of a race over n candidates: one, then one per cut to ⌈1/`RACE_KEEP` of the
    field⌉ until at most `SWEEP_FINALISTS` are left."""
    rounds, left = 1, n
    while left > SWEEP_FINALISTS:
        left = max(SWEEP_FINALISTS, math.ceil(left / RACE_KEEP))
        rounds += 1
    return rounds


def race_field(weights: NDArray[np.float64], budget: int) -> int:
    """The longest prefix of the candidates (cumulated `weights`) whose first round,
    `FIRST_ROUND_SHARE` of `budget`, gives each `MIN_SWEEP_SAMPLES`."""
    return int(np.searchsorted(weights, FIRST_ROUND_SHARE * budget / MIN_SWEEP_SAMPLES, side="right"))


def round_share(left: float, r: int, planned: int) -> float:
    """The (weighted) samples round r of `planned` may spend out of `left`: `FIRST_ROUND_SHARE`
    of the budget for the first, then an equal share of what is left per remaining round."""
    return left * FIRST_ROUND_SHARE if r == 0 and planned > 1 else left / (planned - r)


def sweep_screen(
    sampler: PilotSampler,
    proposer: Proposer,
    ranker: Ranker,
    *,
    budget: int,
    limit: int,
    reference_rows: float = REFERENCE_ROWS,
) -> SweepScreen:
    """Rank a prefix of the sweep candidates (at most max(`limit`, `MIN_SWEEP_LIMIT`) plus the
    "anywhere" candidates, at most `MAX_FIELD`: the counting sweeps at the other places of
    `neighbors.sweep_locations` and at the space-filling design's points) on coupled draws
    within `budget` samples per side, each candidate's samples weighted by its rows over
    `reference_rows` (`sweep_weights`). A blind search (the proposer has a design) races them
    (`race`, successive halving with cut 1/`RACE_KEEP`): every candidate of the field gets
    `MIN_SWEEP_SAMPLES` or more in the first round (`FIRST_ROUND_SHARE` of the budget), the best
    quarter more in each next round (an equal share of what is left, at most
    `MAX_SWEEP_SAMPLES` each), until `SWEEP_FINALISTS` are left; the best of those (finite
    rank) are the finalists. With registered pairs, one round: the prefix that gives each
    `SCREEN_SAMPLES` of the whole budget, each on min(`MAX_SWEEP_SAMPLES`, budget / weights)
    (the main job's screen, as before). Samples are released afterwards."""
    started = time.perf_counter()
    candidates = proposer.sweeps() if budget >= 2 * MIN_SWEEP_SAMPLES else []
    proposed = len(candidates)
    extra = sum("anywhere" in e.pair.tags for e in candidates)
    candidates = candidates[: min(max(limit, MIN_SWEEP_LIMIT) + extra, MAX_FIELD)]
    weights = sweep_weights(candidates, reference_rows)
    wide = proposer.design_seed is not None  # a blind search races; with registered pairs, one round
    if wide:
        count = race_field(np.cumsum(weights), budget)
    else:
        count = int(np.searchsorted(np.cumsum(weights), budget / SCREEN_SAMPLES, side="right"))
    if count < 2:
        return SweepScreen(proposed=proposed)
    coupled = bool(getattr(sampler.mechanism, "seedable", True))
    before = sampler.spent
    survivors, first, rounds = race(
        sampler,
        ranker,
        candidates[:count],
        weights[:count],
        budget=budget,
        coupled=coupled,
        rounds=None if wide else 1,
    )
    ranked = sorted((e for e in survivors if math.isfinite(e.rank)), key=lambda e: -e.rank)
    for e in candidates[:count]:
        e.release()
    return SweepScreen(
        finalists=tuple(e.pair for e in ranked[:SWEEP_FINALISTS]),
        proposed=proposed,
        ranked=count,
        samples_per_candidate=first,
        samples=sampler.spent - before,
        coupled=coupled,
        seconds=time.perf_counter() - started,
        best=tuple((e.pair.description, e.rank) for e in ranked[:SHOWN]),
        locations=locations_tried(candidates[:count]),
        rounds=rounds,
    )


def race(
    sampler: PilotSampler,
    ranker: Ranker,
    field: list[Entry],
    weights: NDArray[np.float64],
    *,
    budget: int,
    coupled: bool,
    rounds: int | None = None,
) -> tuple[list[Entry], int, int]:
    """Successive halving over `field` (survivors best first, first round's samples per side,
    rounds run): each round its `round_share` of what is left of `budget` (weighted samples),
    split over that round's survivors; the best ⌈1/`RACE_KEEP`⌉ (at least `SWEEP_FINALISTS`) go on,
    ranked on all their samples so far; losers are released. `rounds` = 1: every candidate
    ranked once on an equal share of the whole budget (the issue-35 screen)."""
    weight = dict(zip(map(id, field), weights, strict=True))
    survivors, left, first = list(field), float(budget), 0
    planned = race_rounds(len(field)) if rounds is None else rounds

    for r in range(planned):
        per = int(
            min(MAX_SWEEP_SAMPLES, round_share(left, r, planned) / sum(weight[id(e)] for e in survivors))
        )
        if per < 2:
            return survivors, first, r
        first = first or per
        sampler.draw_all([(e, per) for e in survivors], then=ranker.rerank, coupled=coupled)
        left -= per * sum(weight[id(e)] for e in survivors)
        survivors.sort(key=lambda e: -e.rank)
        keep = max(SWEEP_FINALISTS, math.ceil(len(survivors) / RACE_KEEP))
        for e in survivors[keep:]:
            e.release()
        if r < planned - 1:
            survivors = survivors[:keep]
    return survivors, first, planned


def locations_tried(entries: list[Entry]) -> int:
    """Distinct places the ranked candidates put their k records (their "at:" tags)."""
    return len({t for e in entries for t in e.pair.tags if t.startswith("at:")})
