"""The search's certification stages: choose the pairs, certify them, assemble the record.

Implements `choose` (the halving's winner, with near-tie preferences, the next top_k − 1, the
registered champion and contenders when hedging, and, when asked, the best pair under the
verdict claim's relation when none of those is under it), `certify` (selection splits completed at
pilot seeds, then one `run_audit` at the audit seed on the remaining budget) and `assemble`
(the `SearchResult`). Validity: every certified pair and its event were chosen on pilot samples
only, so the certification samples are fresh for them; the runner splits the failure
probability β across the k certified pairs (Bonferroni, P(any bound fails) ≤ Σᵢ β/k = β), so
all certified bounds hold simultaneously with probability ≥ 1 − β.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import NeighborPair, Relation
from ..types import AuditResult
from .pilot import VERDICT_TIE, Pilot, SearchSetup, beats, ranked
from .pilot_samples import Entry, PilotSampler
from .result import Candidate, SearchBudgetError, SearchResult, weakened_warning

Outputs = tuple[NDArray[np.float64], NDArray[np.float64]]
Audit = Callable[[list[NeighborPair], int, list[Outputs]], AuditResult]
"""`run_audit` of (pairs, certification samples per pair, their selection outputs)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """Every candidate in report order (finalists first, by rank) and the pairs to certify
    (the winner first)."""

    order: tuple[Entry, ...]
    chosen: tuple[Entry, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Certification:
    """The certified audit, its pairs, the certification samples per pair (per side), the pilot's
    spend before the selection top-ups, those top-ups, and each pair's selection split."""

    result: AuditResult
    pairs: tuple[NeighborPair, ...]
    samples: int
    pilot_samples: int
    topup_samples: int
    selection_rows: tuple[int, ...]


def certification_order(
    entries: Sequence[Entry], survivors: Sequence[Entry], champion: Entry | None
) -> list[Entry]:
    """Entries by rank, the halving's survivors and the champion first; with a champion, a pair
    ranking above it that the pilot does not separate from it (`search_pilot.beats`) goes after
    it: the champion then wins, and the two are not both certified on the same evidence."""
    finalists = {*survivors, *([champion] if champion is not None else [])}
    order = sorted(ranked(entries), key=lambda e: e not in finalists)  # stable: by rank within each group
    if champion is not None:
        pool = len(entries)

        def behind(e: Entry) -> bool:
            return not (e is champion or e.rank <= champion.rank or beats(e, champion, pool=pool))

        order.sort(key=behind)
    return order


def winner(order: Sequence[Entry], champion: Entry | None, *, verdict_relation: Relation) -> Entry:
    """`order[0]`, unless within `VERDICT_TIE` of it there is a pair under the verdict claim's
    relation (on comparably many samples), and then unless the pilot does not separate it from
    the registered champion (`search_pilot.beats`): the champion wins every such tie."""
    best = order[0]
    if best.pair.relation is not verdict_relation:
        same = [e for e in order if e.pair.relation is verdict_relation and 2 * e.drawn >= best.drawn]
        if same and same[0].rank >= best.rank - VERDICT_TIE:
            best = same[0]
    if champion is not None and champion is not best and not beats(best, champion, pool=len(order)):
        best = champion
    return best


def choose(
    pilot: Pilot,
    *,
    verdict_relation: Relation,
    top_k: int,
    hedge_registered: bool,
    spare: int,
    registered_certification: int,
    verdict_pair: bool = False,
) -> Choice:
    """The winner and the next top_k − 1 in order; when hedging, the (finite-rank) registered
    champion too, then its contenders while each of the `spare` samples' shares stays at least
    `registered_certification`; with `verdict_pair`, the best pair under the verdict relation
    when none of those is under it (`_with_verdict_relation`)."""
    champion = pilot.champion
    order = certification_order(pilot.entries, pilot.halving.survivors, champion)
    best = winner(order, champion, verdict_relation=verdict_relation)
    if hedge_registered and champion is not None and pilot.registered.inseparable:
        return Choice(order=tuple(order), chosen=tuple(_all_registered(order, best, champion, pilot, top_k)))
    chosen = [best, *[e for e in order if e is not best][: top_k - 1]]
    if hedge_registered and champion is not None:
        if champion not in chosen:
            chosen.append(champion)
        for e in pilot.registered.contenders:
            if spare // (len(chosen) + 1) < registered_certification:
                break
            if e not in chosen:
                chosen.append(e)
    if verdict_pair:
        chosen = _with_verdict_relation(chosen, order, verdict_relation)
    return Choice(order=tuple(order), chosen=tuple(chosen))


def _with_verdict_relation(chosen: list[Entry], order: Sequence[Entry], relation: Relation) -> list[Entry]:
    """`chosen`, and when none of it is under the verdict claim's relation, the best-ranked pair
    under it (with a finite rank) after them: the headline claim is certified on a pair of its
    own relation (a replace-one winner is held to another claim). Chosen on pilot samples like
    the others, so it is certified like them (the runner splits β over all). The default route
    asks for it on a mechanism without registered pairs only (a blind audit: the user's first
    claim gets a certified pair); with registered pairs it would split the winner's budget for
    nothing the registered pairs do not already give (hs_weak_learner: 0.898 → 0.835)."""
    if any(e.pair.relation is relation for e in chosen):
        return chosen
    same = [e for e in order if e.pair.relation is relation and e not in chosen and np.isfinite(e.rank)]
    return [*chosen, *same[:1]]


def _all_registered(
    order: Sequence[Entry], best: Entry, champion: Entry, pilot: Pilot, top_k: int
) -> list[Entry]:
    """When the pilot cannot rank the registered pairs (`search_pilot.inseparable`): every one of
    them, as the registered route certifies them and in its order (so each is certified at its
    registered index, on that route's certification streams), and after them the winner if it is
    not registered only when its pilot evidence is positive (a rank > 0: the pilot projects a
    violation) and separated from the champion (`beats`); then the next top_k − 1 in order."""
    registered = list(pilot.registered.in_order)
    generated = best not in registered and best.rank > 0 and beats(best, champion, pool=len(order))
    chosen = [*registered, best] if generated else registered
    rest = [e for e in order if e not in chosen and e.source != "registered"]
    return chosen + rest[: top_k - 1]


def registered_floor(chosen: Sequence[Entry], *, registered: int, certification: int) -> int:
    """The certification samples each chosen pair gets at least: the registered route's
    `certification` (`AuditConfig.split()[1]`) when the search chose only registered pairs and
    all `registered` of them, else 0. Those are the cases where the pilot found nothing to set
    against the registered pairs (a single registered pair kept as champion, or inseparable
    ones certified in the registered route's order); the exploration the pilot spent then comes
    on top of the budget instead of out of the registered pairs' certification. In those two
    cases the pairs are certified at their registered index, so the default route certifies what
    the registered route certifies, on the same selection samples, certification streams and
    sample counts. (When a champion and its contenders happen to be all R pairs, `choose` kept
    each share ≥ c before the selection top-ups, so the floor adds at most those there.)"""
    if registered == 0 or len(chosen) != registered:
        return 0
    if any(e.source != "registered" for e in chosen):
        return 0
    return certification


def certify(
    sampler: PilotSampler,
    entries: Sequence[Entry],
    chosen: Sequence[Entry],
    *,
    total_budget: int,
    audit: Audit,
    min_certification: int = 0,
) -> Certification:
    """Top the chosen pairs' pilot samples up (at pilot seeds) to the selection split the runner
    would draw at their share of the remaining budget, then certify them on what is left, or on
    `min_certification` samples each if that is more (`registered_floor`)."""
    for e in entries:
        if e not in chosen:
            e.release()
    per_pair = (total_budget - sampler.spent) // len(chosen)
    if per_pair < 400:
        raise SearchBudgetError(
            f"the pilot left {total_budget - sampler.spent:,} samples per side: too few to certify"
        )
    want = dataclasses.replace(sampler.config, num_samples=per_pair).split()[0]
    pilot_spent = sampler.spent
    # (a pair whose samples were released has 0 rows: it gets a fresh split)
    topups = [(e, want - e.rows()) for e in chosen if e.rows() < want]
    for (e, _), ok in zip(topups, sampler.draw_all(topups, ranking=False), strict=True):
        if not ok:
            raise SearchBudgetError(f"sampling the chosen pair {e.pair.description!r} failed")
    n_cert = max((total_budget - sampler.spent) // len(chosen), min_certification)
    pairs = [e.pair for e in chosen]
    selection_outputs = [e.outputs() for e in chosen]
    result = audit(pairs, n_cert, selection_outputs)
    for e in chosen:
        e.release()
    return Certification(
        result=result,
        pairs=tuple(pairs),
        samples=n_cert,
        pilot_samples=pilot_spent,
        topup_samples=sampler.spent - pilot_spent,
        selection_rows=tuple(min(len(a), len(b)) for a, b in selection_outputs),
    )


def assemble(
    setup: SearchSetup,
    pilot: Pilot,
    choice: Choice,
    cert: Certification,
    *,
    pilot_fraction: float,
    top_k: int,
    started: float,
) -> SearchResult:
    """The `SearchResult`; its certified result's `extra["search"]` lists every pair tried, and
    its `elapsed_seconds` covers the whole search since `started` (`time.perf_counter`), the only
    timing in the result."""
    sampler, order = setup.sampler, choice.order
    found = SearchResult(
        candidates=tuple(Candidate(e.pair.description, e.pair.relation, e.estimate) for e in order),  # type: ignore[arg-type]
        candidate_pairs=tuple(e.pair for e in order),
        ranks=tuple(e.rank for e in order),
        sources=tuple(e.source for e in order),
        certified=cert.result,
        certified_pairs=cert.pairs,
        relations=setup.relations,
        pilot_seeds=tuple(sampler.seeds),
        pilot_samples_per_candidate=setup.plan.per_candidate,
        pilot_samples=cert.pilot_samples,
        certification_samples=cert.samples,
        total_samples=sampler.spent + cert.samples * len(choice.chosen),
        budget=setup.plan.total_budget,
        pilot_fraction=pilot_fraction,
        top_k=top_k,
        skipped=tuple(sampler.skipped),
        pilot_samples_of=tuple(e.drawn for e in order),
        halving_rounds=pilot.halving.rounds,
        selection_samples_of_certified=cert.selection_rows,
        selection_topup_samples=cert.topup_samples,
    )
    search_info = {
        **found.to_dict(),
        "asked": sampler.config.num_samples,  # --num-samples: what the user asked per side
        "candidates_tried": len(pilot.entries),
        "sweeps": pilot.sweeps.to_dict(),
    }
    result = cert.result
    extra = {**result.extra, "search": search_info}
    warnings = (*result.warnings, *weakened_warning(sampler.failures))
    elapsed = time.perf_counter() - started
    certified = dataclasses.replace(result, elapsed_seconds=elapsed, warnings=warnings, extra=extra)
    return dataclasses.replace(found, certified=certified)
