"""The search's pilot stages: plan, screen, registered top-ups, successive halving, challenge.

Implements the black-box pilot of `search_and_certify` (see `audit.search` for the procedure),
run in order by `run_pilot`: `plan_pilot` splits the budget, `screen` samples every candidate
`s₀` times per side, `rank_registered` tops the caller's pairs up to the registered route's
selection size and names the registered champion and its contenders, `halve` runs successive
halving over the best other candidates (a blind search's seats, `Proposer.seats`, never cut),
and `challenge` tops up the finalists that would displace the champion. Every draw is at pilot
seeds (`search.pilot_samples`), so whatever the pilot chooses is independent of the certification
samples and the runner's bound P(p ≥ p̂_lo and q ≤ q̂_hi) ≥ 1 − β holds for it unchanged; the
pilot only ranks, it certifies nothing."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...neighbors.base import NeighborPair, Relation
from .candidates import Proposer
from .pilot_samples import Entry, PilotSampler
from .plan import (
    MIN_CERTIFICATION,
    MIN_SCREEN_SAMPLES,
    SCREEN_TARGET,
    SMALL_PILOT_FRACTION,
    SMALL_SWEEP_SHARE,
    PilotPlan,
    full_budget,
    plan_pilot,
    small_plan,
    smallest_budget,
)
from .ranking import Ranker
from .result import SearchBudgetError
from .sweeps import REFERENCE_ROWS, SweepScreen, sweep_screen

__all__ = [
    "CHALLENGERS",
    "HALVING_POOL",
    "MIN_CERTIFICATION",
    "MIN_SCREEN_SAMPLES",
    "REGISTERED_TIE",
    "SCREEN_TARGET",
    "SMALL_PILOT_FRACTION",
    "SMALL_SWEEP_SHARE",
    "VERDICT_TIE",
    "Halving",
    "Pilot",
    "PilotPlan",
    "RegisteredPairs",
    "SearchSetup",
    "beats",
    "challenge",
    "full_budget",
    "halve",
    "inseparable",
    "plan_pilot",
    "rank_registered",
    "ranked",
    "registered_tie",
    "run_pilot",
    "screen",
    "seat_final",
    "small_plan",
    "smallest_budget",
]

VERDICT_TIE = 0.05
"""Rank margin within which a pair under the verdict claim's relation is preferred."""
HALVING_POOL = 16
"""Candidates entering successive halving after screening."""
REGISTERED_TIE = 0.15
"""Pilot-rank margin within which a registered pair counts as a contender of the registered
champion (certified next to it when the budget allows): cross-fitted pilot ranks on the
registered route's selection size vary by about this much between pairs whose true ε differ by
~0.1 (geo_select_triangle: 1.000 vs 1.113 not separated on 10⁵ samples)."""
MAX_CONTENDERS = 2
"""At most this many registered contenders are certified next to the champion. With noisy pilot
ranks (`registered_tie`) every registered pair may contend; certifying all of them would give
each the registered route's share and no more, certifying the champion alone bets everything on
one noisy ranking. The best three by rank is the middle: a pair of true ε ≈ 0 wins the pilot
now and then (geo_halfplane_grid4, seed 0), rarely three times over."""
SEAT_MIN_PILOT = 1_000
"""The smallest pilot (samples per side) that seats the count sweeps' far end. A measured trade-off,
not a derived constant: at 1,000 per side (a pilot of 500) the seats cost the Opacus
`expected_batch_size` row (meta-pytorch/opacus#571) its flag (ε ≥ 1.44 without them, −0.03 with),
while at 4,000 (a pilot of 2,000) they are what finds diffprivlib's LinearRegression bug
(IBM/differential-privacy-library#104) blind."""
CHALLENGERS = 2
"""Finalists (not registered) topped up to the registered champion's pilot size to challenge it
(within what is left of the pilot budget: the pilot never spends more than P)."""
SEAT_FINAL_GROWTH = 2
"""A seat's final (`seat_final`): the halving's winner and the seats are drawn to this many times
the largest of their pilot sizes (at most the selection split certification draws for the winner
anyway). IBM/differential-privacy-library#104 at 4,000 per side, seed 1: on 171 samples each the
seat ranked −1.48 against a local move's −0.14, on 321 each −0.31 against −1.00."""
CHAMPION_MARGIN = REGISTERED_TIE
"""A pair that is not registered is certified beside (or instead of) the registered champion only
when its pilot rank beats the champion's by more than this margin; on fewer pilot samples than
the champion's (n < n_c), by this margin × √(n_c / n) (the rank's noise shrinks like 1/√n) ×
√(2 ln C) (the expected maximum of C standard normals: the best of C screened candidates is
selected on its own noise). Within it the pilot cannot tell the two apart, and certifying both
would split the certification samples and β between equally strong pairs (gaussian_sum at
5·10⁵ per side: 0.608 instead of 0.70)."""


def beats(entry: Entry, champion: Entry, *, pool: int) -> bool:
    """True when the pilot separates `entry` from the registered `champion` (`CHAMPION_MARGIN`;
    `pool` = the candidates it was selected among)."""
    scale = 1.0
    if entry.drawn < champion.drawn:
        scale = math.sqrt(champion.drawn / max(entry.drawn, 1) * 2.0 * math.log(max(pool, 3)))
    return entry.rank > champion.rank + CHAMPION_MARGIN * scale


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisteredPairs:
    """The best-ranking registered pair (None without one) and those the pilot cannot separate
    from it (best first); `inseparable` when the pilot cannot rank the registered pairs at all
    (`inseparable`): the contenders are then every other registered pair ranked."""

    champion: Entry | None
    contenders: tuple[Entry, ...]
    inseparable: bool = False
    in_order: tuple[Entry, ...] = ()
    """Every registered pair ranked, in the caller's order (their index in `registered`: the
    registered route's pair index, so its certification streams)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Halving:
    """The halving's survivors (best first; one unless the budget ran short) and its rounds."""

    survivors: tuple[Entry, ...]
    rounds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Pilot:
    """What the pilot hands to certification: every ranked entry (in evaluation order), the
    registered pairs' champion and contenders, the halving, and the champion that survived the
    challenge (None if there is none or its rank is not finite)."""

    entries: tuple[Entry, ...]
    registered: RegisteredPairs
    halving: Halving
    champion: Entry | None
    sweeps: SweepScreen = dataclasses.field(default_factory=SweepScreen)


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchSetup:
    """What every stage shares: the budget plan, the pilot's sampler, proposer and ranker, the
    claimed relations and the verdict claim's relation."""

    plan: PilotPlan
    sampler: PilotSampler
    proposer: Proposer
    ranker: Ranker
    relations: tuple[Relation, ...]
    verdict_relation: Relation
    selection_chunk: int = 1 << 16
    """The runner's chunk size for the registered pairs' selection split (`rank_registered`)."""


def run_pilot(setup: SearchSetup, *, registered: Sequence[NeighborPair], min_pilot_samples: int) -> Pilot:
    """Screening, the registered pairs' top-ups, successive halving on what is left of the pilot
    budget, and the challenge of the registered champion on what is still left: every draw at
    pilot seeds, never more than P in all (unless the registered top-ups alone exceed it)."""
    sampler, ranker, plan = setup.sampler, setup.ranker, setup.plan
    rows = [(p.dataset.n + p.neighbor.n) / 2 for p in registered]
    sweeps = sweep_screen(
        sampler,
        setup.proposer,
        ranker,
        budget=plan.sweep_budget,
        limit=plan.num_candidates,
        reference_rows=float(np.mean(rows)) if rows else REFERENCE_ROWS,
    )
    # The far end, never cut, in blind searches of a racing plan only. On the full plan every
    # candidate is screened on `min_pilot_samples`, where a rare event's rank is no longer the coin
    # toss it is on a few dozen samples, and two seats drawn in every halving round cost the other
    # candidates their samples (`dpsgd_linear_score` blind at 10⁵ per side, seeds 0–9: the verdict
    # pair's mean certified ε 0.605 with seats, 0.709 without; its input canary found 3 times against 5).
    # Nor below `SEAT_MIN_PILOT`, where two more entries in the screen and in every round take a
    # share the field cannot spare.
    affordable = plan.racing and plan.pilot_budget >= SEAT_MIN_PILOT
    blind = setup.proposer.design_seed is not None and bool(sweeps.finalists) and affordable
    seats = setup.proposer.seats(raced=sweeps.ranked) if blind else []
    entries = screen(
        sampler,
        setup.proposer,
        ranker,
        registered=registered,
        num_candidates=plan.num_candidates + len(seats),
        per_candidate=plan.per_candidate,
        front=(*sweeps.finalists, *seats),
    )
    reg = rank_registered(
        sampler,
        ranker,
        entries,
        selection=sampler.config.split()[0],
        registered=registered,
        chunk=setup.selection_chunk,
    )
    budget = plan.pilot_budget - sampler.spent
    reserve = challenge_reserve(budget, reg.champion)
    seated = [e for e in entries if any(e.pair is p for p in seats)]
    halving = halve(
        sampler,
        ranker,
        entries,
        reg,
        budget=budget - reserve,
        min_pilot_samples=plan.min_samples,
        seats=seated,
    )
    halving = seat_final(sampler, ranker, halving, seated, total_budget=plan.total_budget)
    budget = plan.pilot_budget - sampler.spent
    champion = challenge(sampler, ranker, halving.survivors, reg.champion, budget=budget)
    return Pilot(entries=entries, registered=reg, halving=halving, champion=champion, sweeps=sweeps)


def ranked(entries: Sequence[Entry]) -> list[Entry]:
    """Entries by rank, best first (stable)."""
    return sorted(entries, key=lambda e: -e.rank)


def screen(
    sampler: PilotSampler,
    proposer: Proposer,
    ranker: Ranker,
    *,
    registered: Sequence[NeighborPair],
    num_candidates: int,
    per_candidate: int,
    front: Sequence[NeighborPair] = (),
) -> tuple[Entry, ...]:
    """Every candidate sampled `per_candidate` times per side and ranked, in evaluation order:
    an initial batch (about two thirds of `num_candidates`; the registered pairs, then `front`,
    the sweep screen's finalists, then templates), then local-search rounds from the current top
    three. `SearchBudgetError` if no candidate could be sampled."""
    entries: list[Entry] = []

    def keep(entry: Entry, ok: bool) -> None:
        if ok:
            ranker(entry)
            entries.append(entry)

    num_local = num_candidates // 3
    batch = proposer.initial(registered, size=num_candidates - num_local, front=front)
    sampler.draw_all([(e, per_candidate) for e in batch], then=keep)
    round_size = max(2, math.ceil(num_local / 3))
    attempts = 4 * num_candidates  # guard against a mechanism that fails on every candidate
    while len(entries) < num_candidates and attempts > 0 and entries:
        attempts -= 1
        target = min(round_size, num_candidates - len(entries))
        batch = proposer.local([e.pair for e in ranked(entries)[:3]], size=target)
        if not batch:
            break  # the candidate space is exhausted
        sampler.draw_all([(e, per_candidate) for e in batch], then=keep)
    if not entries:
        name = sampler.mechanism.name
        raise SearchBudgetError(f"no admissible candidate pair could be sampled for {name!r}")
    return tuple(entries)


def rank_registered(
    sampler: PilotSampler,
    ranker: Ranker,
    entries: Sequence[Entry],
    *,
    selection: int,
    registered: Sequence[NeighborPair] = (),
    chunk: int = 1 << 16,
) -> RegisteredPairs:
    """Draw every registered entry afresh on `selection` samples per side of the registered
    route's own selection streams (`PilotSampler.draw_registered`, at its index in `registered`,
    cut in `chunk`s as the runner cuts them) and rank it there; one that cannot be is dropped
    (rank −∞, released). The champion's event is then chosen on the very samples the
    registered route chooses it on."""
    mine = [e for e in entries if e.source == "registered"]
    requests = [(e, _position(e.pair, registered)) for e in mine]
    drawn = sampler.draw_registered(requests, num=selection, chunk=chunk)
    champion: Entry | None = None
    ranked: list[Entry] = []
    for e, ok in zip(mine, drawn, strict=True):
        if not ok:
            e.rank = -math.inf
            e.release()
            continue
        ranker(e)
        ranked.append(e)
        if champion is None or e.rank > champion.rank:
            champion = e
    if champion is None:
        return RegisteredPairs(champion=None, contenders=())
    floor = champion.rank - registered_tie(ranked)
    others = sorted((e for e in ranked if e is not champion), key=lambda e: -e.rank)
    if inseparable(champion, others, floor=floor):
        return RegisteredPairs(
            champion=champion, contenders=tuple(others), inseparable=True, in_order=tuple(ranked)
        )
    contenders = [e for e in others if e.rank >= floor]
    return RegisteredPairs(champion=champion, contenders=tuple(contenders[:MAX_CONTENDERS]))


def inseparable(champion: Entry, others: Sequence[Entry], *, floor: float) -> bool:
    """True when the pilot cannot rank two or more registered pairs: every other registered pair
    ranks within `registered_tie` of the champion (`floor`), the measured noise of the pilot
    ranks (hs_stl at its default budget, seeds 0–2: gaps 0.04, 0.15 and 1.32 against ties of
    1.09, 1.70 and 1.41; at seed 0 the weaker pair came first), or no registered pair projects
    any privacy loss (rank + claim ε ≤ 0 for all) and their claims are within the tie of each
    other, so that only noise orders them. The default route then certifies all of them, as the
    registered route does (`search_certify.choose`). Pairs held to claims further apart are
    ranked by their claims even without evidence (private_decision_list_medium: the add/remove
    pair, claim 1.32, against a relabel pair held to 2.63; certifying both halved the verdict
    pair's samples, −0.477 at seed 1 against 0.042 for the add/remove pair alone)."""
    if not others:
        return False
    tie = champion.rank - floor
    # champion quiet ⇒ so is every pair below the floor with a claim within the tie of its own
    quiet = champion.rank + champion.claim_epsilon <= 0.0
    return all(
        e.rank >= floor or (quiet and abs(e.claim_epsilon - champion.claim_epsilon) <= tie) for e in others
    )


def _position(pair: NeighborPair, registered: Sequence[NeighborPair]) -> int:
    """`pair`'s index among `registered` (the same object, else the same content: its streams'
    key); one past them if absent."""
    for i, p in enumerate(registered):
        if p is pair or (
            p.relation is pair.relation
            and p.dataset.equals(pair.dataset)
            and p.neighbor.equals(pair.neighbor)
        ):
            return i
    return len(registered)


def registered_tie(ranked: Sequence[Entry]) -> float:
    """How far below the champion a registered pair still contends: `REGISTERED_TIE`, or two
    standard deviations of the difference of two pilot ranks if larger. Each rank is the mean
    of two folds with sd σ; a fold difference D ~ N(0, 2σ²) has median |D| = 0.6745·√2·σ, so
    σ̂ = median spread / 0.954 over the registered pairs (all ranked on the same selection
    size; the median ignores a pair with no event on one fold). On a learner with small ε the
    pilot ranks of 20,000 samples carry σ̂ ≈ 0.4, and a fixed tie of 0.15 let one noisy rank
    decide alone (geo_halfplane_grid4: a pair of exact ε 0.001 certified instead of one of 0.34)."""
    spreads = [e.spread for e in ranked if math.isfinite(e.spread)]
    if len(spreads) < 2:
        return REGISTERED_TIE
    sigma = float(np.median(spreads)) / (0.6745 * math.sqrt(2.0))
    return max(REGISTERED_TIE, 2.0 * sigma)


def _rounds_for(m: int) -> int:
    return math.ceil(math.log2(m)) if m > 1 else 0


def _pool_size(candidates: int, *, budget: int, min_pilot_samples: int, seats: int = 0) -> int:
    """Up to `HALVING_POOL`, smaller while a round would add fewer than min_pilot_samples / 2 to
    each of the pool and the `seats`."""
    size = min(HALVING_POOL, candidates)
    while size > 2 and budget // _rounds_for(size) // (size + seats) < min_pilot_samples // 2:
        size -= 1
    return size


def halve(
    sampler: PilotSampler,
    ranker: Ranker,
    entries: Sequence[Entry],
    registered: RegisteredPairs,
    *,
    budget: int,
    min_pilot_samples: int,
    seats: Sequence[Entry] = (),
) -> Halving:
    """Successive halving on `budget` samples per side over the best entries not registered:
    each round an equal share of what is left (over the ⌈log₂ n⌉ rounds the n contestants still
    need), split over its survivors, the better half of the contestants kept. `seats` (blind
    searches: the count sweeps' far end, `Proposer.seats`) are never cut: each round draws them
    too, so they reach the final on as many samples as its contestants and are ranked against
    them there. Releases the samples of every entry neither surviving nor registered
    champion/contender."""
    present = set(entries)
    seated = [e for e in seats if e in present and e.source != "registered"]
    others = [e for e in ranked(entries) if e.source != "registered" and e not in seated]
    size = _pool_size(len(others), budget=budget, min_pilot_samples=min_pilot_samples, seats=len(seated))
    contestants = others[:size]
    champion = [registered.champion] if registered.champion is not None else []
    holding = {*contestants, *seated, *registered.contenders, *champion}
    for e in entries:
        if e not in holding:
            e.release()

    rounds = 0
    while len(contestants) > 1:
        field = [*contestants, *seated]
        per = (budget // _rounds_for(len(contestants))) // len(field)
        if per < min_pilot_samples // 2:
            break
        rounds += 1
        before = sampler.spent
        sampler.draw_all([(e, per) for e in field], then=ranker.rerank)
        budget -= sampler.spent - before
        contestants.sort(key=lambda e: -e.rank)
        keep = max(1, math.ceil(len(contestants) / 2))
        for e in contestants[keep:]:
            e.release()
        contestants = contestants[:keep]
    return Halving(survivors=tuple(ranked([*contestants, *seated])), rounds=rounds)


def seat_final(
    sampler: PilotSampler, ranker: Ranker, halving: Halving, seats: Sequence[Entry], *, total_budget: int
) -> Halving:
    """A final for the seats (`halve`'s `seats`): when a seat is not the halving's winner, the
    winner and the seats are topped up at pilot seeds to `SEAT_FINAL_GROWTH` times the largest of
    their pilot sizes, at most the selection split that certification would draw at what is left
    of `total_budget`, and reranked: the halving's final rests on a few hundred samples, where a
    rare event's rank is mostly noise and the winner's is inflated by its selection. The draws go
    beyond the pilot budget (certification pays for them; the winner's would be drawn as its
    selection top-up anyway), never more than a quarter of what is left. Only ranks on pilot
    samples: the certified pair's event is still chosen on samples certification never sees."""
    field = [e for e in halving.survivors if e.rows() > 0]
    if not field or not any(e in field for e in seats) or field[0] in seats:
        return halving
    left = total_budget - sampler.spent
    cap = dataclasses.replace(sampler.config, num_samples=max(1, left)).split()[0]
    target = min(cap, SEAT_FINAL_GROWTH * max(e.rows() for e in field))
    draws = [(e, target - e.rows()) for e in field if e.rows() < target]
    if not draws or sum(n for _, n in draws) > left // 4:
        return halving
    sampler.draw_all(draws, then=ranker.rerank)
    return Halving(survivors=tuple(ranked(halving.survivors)), rounds=halving.rounds)


def challenge_reserve(budget: int, champion: Entry | None) -> int:
    """Pilot samples held back from the halving for the challenge: what is left of the pilot
    (`budget`, after screening and the registered top-ups) up to the champion's pilot size; none
    without a champion. Unspent (no survivor outranks the champion) they go to
    certification, so the champion's share never shrinks for it; spent, they let a strong
    survivor screened on a few thousand samples be reranked on tens of thousands, where
    `beats` can separate it (float_sum_rounding: a template pair at true ε = 2 ranked 1.0
    against the champion's −0.07 on 5,469 samples, inside the 1.85 margin there)."""
    if champion is None or not math.isfinite(champion.rank):
        return 0
    return max(0, min(budget, champion.drawn))


def challenge(
    sampler: PilotSampler,
    ranker: Ranker,
    survivors: Sequence[Entry],
    champion: Entry | None,
    *,
    budget: int,
) -> Entry | None:
    """The registered champion if its rank is finite (else None), after topping up towards its
    pilot size the best `CHALLENGERS` survivors that would displace it (as far as `budget`
    samples per side, what is left of the pilot, pays for: the last one possibly part way), and
    reranking them."""
    if champion is None or not math.isfinite(champion.rank):
        return None
    challengers = []
    for e in sorted(survivors, key=lambda e: -e.rank)[:CHALLENGERS]:
        if e.rank <= champion.rank + VERDICT_TIE:
            break
        need = min(champion.drawn - e.rows(), budget)
        if e.drawn < champion.drawn and e.rows() > 0 and need >= min(e.rows(), champion.drawn - e.rows()):
            challengers.append((e, need))  # at least doubles its samples (or reaches the champion's)
            budget -= need

    def rerank(entry: Entry, ok: bool) -> None:
        if ok:
            ranker(entry)

    sampler.draw_all(challengers, then=rerank)
    return champion
