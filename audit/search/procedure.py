"""Worst-case neighbour search: a pilot ranks candidate pairs, the best are certified.

`search_and_certify` is an orchestrator over stages with typed (frozen) inputs and outputs:
`prepare` (arguments, claims, `search_pilot.plan_pilot`'s budget split) → `search_pilot.run_pilot`
(`screen`, `rank_registered`, `halve`, `challenge`; candidates from `search_candidates`, draws
from `pilot_samples`, ranks from `ranking`) → `search_certify.choose` → `certify` →
`assemble` (a `search_result.SearchResult`). It relies on two facts, argued below: pairs and
events are chosen on pilot samples never used to certify them, and the failure probability is
split across everything certified (Bonferroni), so all certified bounds hold together w.p. ≥ 1 − β.

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
2. **Pilot** (a fraction f of the budget, `auto_pilot_fraction` by default: 0.2 with registered
   pairs, growing to 0.5 for blind searches of claims with small ε; black-box: it only samples
   the mechanism).
   *Sweep screen* (`search_sweeps`, first): the count and mass sweeps of
   `neighbors.sweeps.CountSweeps` (k records at one extreme, the neighbour moving, adding or
   removing one, k on a grid to `sweep_max_count` = 64 by default) are ranked on a few samples
   per side each, on ≤ P/16 in all, both datasets of a pair drawn from the same stream for a
   seedable mechanism (*coupled*: a branch on a true count shows on the same draws); the best
   four join the initial pool. Coupled samples are drawn at seeds of their own, rank only, and
   are released: no event is chosen on them and certification never sees them.
   *Screening*: every candidate of the initial pool, then of local-search rounds from the
   current top three, is sampled `s₀` times per side. *Successive halving*: the best
   `HALVING_POOL` candidates that are not registered (fewer when the budget is small) get more
   samples in rounds, the better half surviving each round, until one is left; a blind search's
   *seats* (`search_candidates.Proposer.seats`: the two extremes' largest count sweeps, when the sweep
   race did not field them) are screened too and never cut, reaching the final. *Registered
   pairs* (the caller's, `registered=`) are not in the halving: each is drawn afresh on the
   very samples the registered route chooses its event on (`AuditConfig.split()[0]` at
   `num_samples`, e.g. 10 % of N, from that route's selection streams: the audit seed, keys
   (index, side, SELECTION, chunk), `PilotSampler.draw_registered`) and ranked on them, so the
   search sees every registered pair's evidence exactly as that route does; the best of them
   (the registered champion) is a finalist and keeps its samples. This reserve is R × that
   split ≈ 0.1·T (T = N·R below), half the default pilot. A
   candidate's rank is computed on all its pilot samples by cross-fitting: an event is chosen
   on one half with the runner's distinguishers (by default those that need no fitting:
   histogram and thresholds) and the runner's projection to the certification budget and level
   (`audit.bounds.projected_bounds`, at a laxer shading, `PILOT_SELECTION_PESSIMISM`), its
   frequencies are measured on the other half, the certified ε those frequencies would give at
   the certification budget is computed (`projected_epsilon`, point-estimate shading), and the
   two halves' roles are swapped and averaged. The rank is that projected ε minus the ε of the
   claim covering the pair's relation, so pairs under relations with different claims compare
   by how close they get to a violation, and a pair whose evidence only shows at a large budget
   (a rare event with a large ratio) is not mistaken for a weak one. Pilot draws use seeds
   `pilot_seed(seed, j)` (SeedSequence spawn key 7), and the registered pairs' the audit seed's
   SELECTION streams, which no certification draws (the runner is handed the selection outputs
   and draws CERTIFICATION streams only), so pilot samples are independent of the
   certification samples. With `AuditConfig.jobs` ≠ 1 the draws of a batch
   (a screening batch, a halving round, the registered and selection top-ups) run in parallel
   through the runner's executor (`audit.sampling.run_tasks`) at the same seeds and chunk keys:
   the search is bit-identical for any `jobs` and backend.
3. **Certification.** The halving's winner (on a near-tie within `VERDICT_TIE`, a pair under
   the verdict claim's relation; and the registered champion unless the pilot *separates* the
   winner from it, `search_pilot.beats`: a rank above the champion's by `CHAMPION_MARGIN`,
   scaled by √(n_champion / n) · √(2 ln C) when it rests on n < n_champion pilot samples and
   was selected among C candidates) is certified by `run_audit` at
   the audit seed on the whole remaining budget; with registered pairs (`hedge_registered`, the
   default) the registered champion is certified next to a winner that is not registered,
   and so are the registered *contenders* (at most `MAX_CONTENDERS` registered pairs ranking within
   `search_pilot.registered_tie` (`REGISTERED_TIE`, or two sd of the pilot ranks' fold noise) of
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

Guarantee against the registered route (`registered=` the mechanism's R pairs, T = N·R): the
registered route certifies each pair on c = `AuditConfig.split()[1]` samples at β/R, its event
chosen on s = `split()[0]` selection samples. The search ranks every registered pair on
those same s samples (so its champion is the pair the registered route's best bound is most
likely to come from, chosen on the registered route's own evidence) and, by construction:

- when the pilot cannot rank the registered pairs (`search_pilot.inseparable`: every registered
  pair within `registered_tie`, the pilot ranks' measured noise, of the champion, or none
  projecting any privacy loss and their claims within that tie of each other), every
  registered pair is certified, in the registered route's order (so at its index: on that
  route's certification streams), at β/R each, and a pair that is not registered joins them
  only when its rank is positive (the pilot projects a violation) and separated from the
  champion (`beats`);
- when the search certifies exactly the registered pairs (that case, or R = 1 with the champion
  alone), each gets at least c certification samples (`search_certify.registered_floor`), the
  pilot's exploration (≤ P − R·s) being paid on top of T: the certificate is then the
  registered route's, bound for bound (same selection samples, certification streams and
  counts; tested);
- otherwise, when no other pair is separated from the champion, the champion is certified, alone or with
  registered contenders (each of those kept only while every share stays ≥ c), so at β/k with
  k ≤ R, on the registered route's own selection split of that pair as its selection split
  (so on R = 1 it certifies the event that route certifies), and on T − P − U samples, which is
  ≥ c for R ≥ 2 (T − P = (1 − f)·R·N ≥ 1.6·N) and, for R = 1, raised to c (next item);
- a pair separated from it is certified *next to* the champion (hedged), never instead of it;
- the pilot never spends more than P = ⌊f·T⌋ (the challenge is paid from what is left of it).

The cost, stated: (i) where the search certifies only the registered pairs, the exploration
(at most P − R·s ≈ 0.1·T) in samples and time beyond the registered route's budget; (ii) when the
pilot does separate a better pair, the champion's share is halved (and β/2): the price of the
hedge, paid only on evidence that the winner is better; (iii) a better pair that the pilot does
not separate within the margin is not certified (on exponential_mechanism and report_noisy_max
the blind search certifies 0.96 and 0.83, the default route 0.86 and 0.70, as the registered
route). Equally strong pairs are never both certified on the same evidence (gaussian_sum at
5·10⁵ per side: the registered pair and an equally strong add/remove template split the
samples and β: 0.608 before, 0.700 now, seed 0).

Validity: the pilot only decides *which* pairs are certified and *which event* (with the
direction) each is certified on. All pilot samples are drawn at pilot seeds or on the audit
seed's SELECTION streams, independent of the certification samples drawn on the audit seed's
CERTIFICATION streams, so conditional on those choices the
certification samples are fresh and the runner's guarantee applies unchanged, exactly as if
the user had named those pairs and events.

Budget accounting (samples per side). The total budget T defaults to what `dpaudit run
--pairs registered` spends: `num_samples` × the number of pairs that route audits (the
mechanism's registered pairs, else one boundary template per claimed relation). Only that
*count* is read from the mechanism, never its pairs; pass `budget=` to set T explicitly.

- the pilot gets P = ⌊f · T⌋ (never more, unless the registered top-ups alone exceed it): 3/8
  for screening (P/8 is kept for what follows; more screening when a small budget cannot spare
  it) (C = min(max_candidates, ⌊3P/8 / min_pilot_samples⌋) candidates, s₀ = ⌊3P/8 / C⌋
  samples each), then the registered pairs' selection splits (R·s, drawn afresh), then successive
  halving on what is left less the challenge's reserve (what is left, up to the champion's
  pilot size, held only when there is a registered champion; each round an equal share, split
  evenly over that round's survivors;
  with many registered pairs on a small budget the top-ups may exceed P, and certification gets
  less), then the challenge on what is still left: survivors ranking above the champion are
  topped up towards its pilot size and reranked (`search_pilot.challenge`);
- the certified pairs' selection splits are topped up (if their pilot samples fall short of
  what the runner would select on) by U samples, drawn at pilot seeds;
- certification gets N_cert = ⌊(T − pilot spent − U) / k⌋ per certified pair (k = the number of
  certified pairs: top_k, plus the registered champion and contenders when hedging); whatever the pilot
  leaves unspent goes to certification.

Below the full plan's budget (T < 4·min_pilot_samples / f), and for a blind search wherever the
full plan would screen fewer than `search_pilot.SCREEN_TARGET` candidates, `plan_pilot` races
(`search_pilot.small_plan`, issue 44): the pilot's share grows to min(0.5, f·√(full / T)),
leaving ≥ `MIN_CERTIFICATION` = 400 to certify; a quarter of it races the sweeps
(`search_sweeps.race`), the screening gives `SCREEN_TARGET` candidates a few samples each (≥ 16)
and the halving's per-candidate floor is that size. The draws are the same pilot and coupled
draws as above, so the validity argument is unchanged. With registered pairs the full plan is
kept (`small=False`: the guarantee against the registered route is stated for it), and a budget
below it raises `SearchBudgetError` as before; a budget that fits no plan raises it with the
budget needed (`search_pilot.smallest_budget`).

So pilot + top-up + certification spend T − r samples per side with 0 ≤ r < k, except where
the search certifies exactly the registered pairs: each then gets max(N_cert, c), c the
registered route's certification size, so the total can exceed T by the pilot's exploration.
`SearchResult` records every figure (`total_samples` against `budget`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

from ...mechanisms.base import Mechanism, PrivacyClaim, claims_of, verdict_claim
from ...neighbors.base import NeighborPair
from ...neighbors.generators import DEFAULT_MAX_ROWS, BoundaryPairs, check_amplification
from ...neighbors.sweeps import DEFAULT_MAX_COUNT
from ..distinguishers import Distinguisher, default_distinguishers, pilot_distinguishers
from ..progress import Progress
from ..runner import probe_chunk, run_audit
from ..types import AuditConfig, AuditResult
from .candidates import PROPOSAL_SPAWN_KEY, Proposer, proposal_rng
from .certify import (
    Audit,
    Certification,
    Choice,
    Outputs,
    assemble,
    certify,
    choose,
    registered_floor,
)
from .pilot import (
    CHALLENGERS,
    HALVING_POOL,
    REGISTERED_TIE,
    VERDICT_TIE,
    Pilot,
    SearchSetup,
    plan_pilot,
    run_pilot,
)
from .pilot_samples import PILOT_CHUNK, PILOT_SPAWN_KEY, PilotSampler, pilot_seed
from .ranking import (
    PILOT_BOUND_LEVEL,
    PILOT_SELECTION_PESSIMISM,
    SCREEN_SIZE,
    Ranker,
)
from .result import (
    Candidate,
    SearchBudgetError,
    SearchResult,
    SearchUnsupportedError,
    weakened_warning,
)
from .sweeps import SWEEP_SHARE

__all__ = [
    "CHALLENGERS",
    "HALVING_POOL",
    "PILOT_BOUND_LEVEL",
    "PILOT_CHUNK",
    "PILOT_SELECTION_PESSIMISM",
    "PILOT_SPAWN_KEY",
    "PROPOSAL_SPAWN_KEY",
    "REGISTERED_TIE",
    "SCREEN_SIZE",
    "VERDICT_TIE",
    "Candidate",
    "SearchBudgetError",
    "SearchResult",
    "SearchUnsupportedError",
    "auto_pilot_fraction",
    "default_budget",
    "pilot_seed",
    "search_and_certify",
    "weakened_warning",
]


PILOT_FRACTION = 0.2
"""The default pilot fraction f (with registered pairs, and for claims with ε ≥ 1)."""
MAX_PILOT_FRACTION = 0.5
"""The largest default pilot fraction (blind searches of small-ε claims, `auto_pilot_fraction`)."""


def default_budget(mechanism: Mechanism, num_samples: int) -> int:
    """Samples per side that `run_audit` on the registered route would spend: num_samples × the
    number of the mechanism's registered pairs (else of its boundary templates, one per claimed
    relation). Only the count is read."""
    registered = getattr(mechanism, "neighbor_pairs", None)
    count = len(tuple(registered())) if callable(registered) else 0
    if count == 0:
        relations = dict.fromkeys(c.relation for c in claims_of(mechanism))
        gen = BoundaryPairs()
        count = sum(1 for r in relations if next(iter(gen.pairs(mechanism.domain, r)), None) is not None)
    return num_samples * max(count, 1)


def search_and_certify(
    mechanism: Mechanism,
    config: AuditConfig,
    *,
    pilot_fraction: float | None = None,
    top_k: int = 1,
    registered: Sequence[NeighborPair] = (),
    budget: int | None = None,
    max_candidates: int = 64,
    min_pilot_samples: int = 1000,
    max_rows: int = DEFAULT_MAX_ROWS,
    sweep_max_count: int = DEFAULT_MAX_COUNT,
    distinguishers: Sequence[Distinguisher] | None = None,
    pilot_distinguishers: Sequence[Distinguisher] | None = None,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
    checkpoint_path: Path | None = None,
    resume: bool = False,
    hedge_registered: bool = True,
    verdict_pair: bool = False,
    blind: bool | None = None,
) -> SearchResult:
    """Search for worst-case pairs with a pilot, then certify the best on fresh samples. See the
    module docstring for the procedure, validity and budget (`budget` = total samples per side,
    default `default_budget`; `top_k` = the most pairs certified; `distinguishers` certify,
    `pilot_distinguishers` rank, by default those of `distinguishers` that need no fitting).
    With `registered` pairs and `hedge_registered`, the best registered finalist is certified
    next to the winner; `verdict_pair`: the best pair under the verdict claim's relation when no
    chosen pair is; `blind` (default: no `registered`): the sweeps' design and race. Raises
    `AmplificationMismatchError` (a ValueError), `SearchBudgetError` for too small a budget."""
    started = time.perf_counter()
    if distinguishers is None:
        distinguishers = default_distinguishers(mechanism, floating_point=config.floating_point)
    if pilot_fraction is None:
        pilot_fraction = auto_pilot_fraction(_verdict_claim(mechanism).epsilon, registered=bool(registered))
    setup = prepare(
        mechanism,
        config,
        budget=budget,
        pilot_fraction=pilot_fraction,
        top_k=top_k,
        max_candidates=max_candidates,
        min_pilot_samples=min_pilot_samples,
        max_rows=max_rows,
        pilot_distinguishers=_pilot_distinguishers(distinguishers, pilot_distinguishers),
        sweep_max_count=sweep_max_count,
        small=not registered,
        design=not registered if blind is None else blind,
    )
    if registered:  # the registered route cuts its selection split in these chunks
        setup = dataclasses.replace(
            setup, selection_chunk=probe_chunk(mechanism, registered[0].dataset, config)
        )
    sampler, plan = setup.sampler, setup.plan
    sampler.progress = Progress(f"{mechanism.name} pilot", 2 * plan.pilot_budget, enabled=show_progress)
    pilot = run_pilot(setup, registered=registered, min_pilot_samples=min_pilot_samples)
    sampler.progress.close()
    sampler.progress = None  # the selection top-ups after the pilot belong to certification
    choice = choose(
        pilot,
        verdict_relation=setup.verdict_relation,
        top_k=top_k,
        hedge_registered=hedge_registered,
        spare=plan.total_budget - sampler.spent,
        registered_certification=config.split()[1],
        verdict_pair=verdict_pair,
    )
    audit = _auditor(
        mechanism,
        config,
        distinguishers=distinguishers,
        parameters=parameters,
        command=command,
        show_progress=show_progress,
        checkpoint_path=checkpoint_path,
        resume=resume,
    )
    cert = _certify(setup, pilot, choice, audit, registered=len(registered) if hedge_registered else 0)
    return assemble(setup, pilot, choice, cert, pilot_fraction=pilot_fraction, top_k=top_k, started=started)


def _certify(
    setup: SearchSetup, pilot: Pilot, choice: Choice, audit: Audit, *, registered: int
) -> Certification:
    """`search_certify.certify` of the chosen pairs, each on at least the registered route's
    certification size when they are exactly the `registered` pairs (`registered_floor`)."""
    config = setup.sampler.config
    floor = registered_floor(choice.chosen, registered=registered, certification=config.split()[1])
    total = setup.plan.total_budget
    return certify(
        setup.sampler, pilot.entries, choice.chosen, total_budget=total, audit=audit, min_certification=floor
    )


def prepare(
    mechanism: Mechanism,
    config: AuditConfig,
    *,
    budget: int | None,
    pilot_fraction: float,
    top_k: int,
    max_candidates: int,
    min_pilot_samples: int,
    max_rows: int,
    pilot_distinguishers: Sequence[Distinguisher],
    sweep_max_count: int = DEFAULT_MAX_COUNT,
    small: bool = True,
    design: bool = True,
) -> SearchSetup:
    """Check the arguments and the claims' amplification, plan the budget, build the pilot's
    sampler, proposer and ranker (raises as `search_and_certify`)."""
    _check_arguments(
        pilot_fraction=pilot_fraction,
        top_k=top_k,
        min_pilot_samples=min_pilot_samples,
        max_candidates=max_candidates,
    )
    claims = claims_of(mechanism)
    relations = tuple(dict.fromkeys(c.relation for c in claims))
    for relation in relations:
        check_amplification(mechanism.domain, relation)
    verdict_claim = _verdict_claim(mechanism)
    sampler = PilotSampler(mechanism, config)
    proposer = Proposer(
        mechanism.domain,
        claims,
        relations,
        proposal_rng(config.seed),
        sampler.skipped,
        max_rows,
        max_count=sweep_max_count,
        design_seed=config.seed if design else None,  # the design widens blind searches only
    )
    plan = plan_pilot(
        config,
        total_budget=default_budget(mechanism, config.num_samples) if budget is None else int(budget),
        pilot_fraction=pilot_fraction,
        max_candidates=max_candidates,
        min_pilot_samples=min_pilot_samples,
        sweep_share=SWEEP_SHARE if sweep_max_count > 0 and proposer.sweeps() else 0.0,
        small=small,
        wide=design and mechanism.domain.design is not None,  # a declared table's levels
    )
    return SearchSetup(
        plan=plan,
        sampler=sampler,
        proposer=proposer,
        ranker=Ranker(
            projected_total=plan.projected_total,
            projected_level=config.failure_probability,
            distinguishers=pilot_distinguishers,
        ),
        relations=relations,
        verdict_relation=verdict_claim.relation,
    )


def _verdict_claim(mechanism: Mechanism) -> PrivacyClaim:
    return verdict_claim(mechanism)


def auto_pilot_fraction(claim_epsilon: float, *, registered: bool) -> float:
    """The default pilot fraction f: `PILOT_FRACTION` with registered pairs (the guarantee
    against the registered route is stated at that f); without them, f grows as the claim's ε
    shrinks, f = min(`MAX_PILOT_FRACTION`, `PILOT_FRACTION` · (1/ε)^0.4) for ε < 1: the gaps
    between candidates' certifiable ε scale with ε while the pilot ranks' noise scales with
    1/√(pilot samples), so a small-ε search needs more samples per finalist to rank them (SVT6
    at ε = 0.1, 10⁶ per side: f = 0.2 certifies 0.059 on a pair whose true ε is 0.088, f = 0.5
    certifies 0.117 on the x-shape pair, true ε 0.19)."""
    if registered or not claim_epsilon < 1.0:
        return PILOT_FRACTION
    return min(MAX_PILOT_FRACTION, PILOT_FRACTION * (1.0 / max(claim_epsilon, 1e-9)) ** 0.4)


def _auditor(
    mechanism: Mechanism,
    config: AuditConfig,
    *,
    distinguishers: Sequence[Distinguisher],
    parameters: Sequence[tuple[str, str]],
    command: str,
    show_progress: bool | None,
    checkpoint_path: Path | None,
    resume: bool,
) -> Audit:
    """`run_audit` at the audit seed on given pairs, samples per pair and selection outputs."""

    def audit(pairs: list[NeighborPair], num_samples: int, outputs: list[Outputs]) -> AuditResult:
        return run_audit(
            mechanism,
            pairs,
            dataclasses.replace(config, num_samples=num_samples),
            distinguishers=distinguishers,
            parameters=parameters,
            command=command,
            show_progress=show_progress,
            checkpoint_path=checkpoint_path,
            resume=resume,
            selection_outputs=outputs,
        )

    return audit


def _check_arguments(
    *, pilot_fraction: float, top_k: int, min_pilot_samples: int, max_candidates: int
) -> None:
    if not 0 < pilot_fraction < 1:
        raise ValueError(f"pilot_fraction must be in (0, 1), got {pilot_fraction}")
    if top_k < 1:
        raise ValueError(f"top_k must be ≥ 1, got {top_k}")
    if min_pilot_samples < 200 or max_candidates < 2:
        raise ValueError("min_pilot_samples must be ≥ 200 and max_candidates ≥ 2")


def _pilot_distinguishers(
    distinguishers: Sequence[Distinguisher], pilot: Sequence[Distinguisher] | None
) -> Sequence[Distinguisher]:
    """`pilot`, by default those of `distinguishers` whose registered cost class is cheap (no
    fitting: `distinguishers.pilot_distinguishers`)."""
    return pilot if pilot is not None else pilot_distinguishers(distinguishers)
