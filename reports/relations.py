"""Certified against claimed ε(δ), one relation at a time (issue 42, "reports compare within one
relation").

A mechanism may carry claims under several neighbour relations (DP-SGD: add/remove and
replace-one, each the accountant's curve for that relation). A pair is audited against the claim
of its own relation (`PairResult.claim`), so every comparison a report prints stays inside one
claim: its pairs' certified ε at each audited δ against that claim's ε(δ). This module groups the
pairs by their claim (the verdict claim's group first) and lists, per group and δ, the best
certified ε over the group's pairs (naming the pair) beside the claim's value there:

- the headline row, at the claim's own δ: the pairs' primary certificates (`estimate`) against
  the ε the claim allows there (`epsilon_at`: its headline ε, or its curve's value if smaller),
  the comparison the verdict's headline makes;
- one row per audited δ of the privacy profile (`ProfilePoint`s of objective "epsilon"), against
  `ProfilePoint.claimed`, the pair's own claim's `epsilon_at(δ)` as the runner computed it.

Nothing is recomputed: every number is a certified value or a claimed one from the result. The
ratio certified/claimed is a reading aid (how far the audit got), never a statistic. `view` cuts a
result down to one group so the figures draw each relation's points against its own curve only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from dpaudit.engine.types import AuditResult, PairResult, PrivacyClaim, ProfilePoint, Relation, Verdict

RELATION_WORDS = {
    Relation.ADD_REMOVE_ONE: "add/remove",
    Relation.REPLACE_ONE: "replace-one",
    Relation.RELABEL_ONE: "relabel-one",
}


def relation_words(relation: Relation) -> str:
    """ "add/remove", "replace-one", "relabel-one": a relation as the reports name it."""
    return RELATION_WORDS.get(relation, relation.value)


def is_inconclusive(r: AuditResult) -> bool:
    """Whether the result's verdict is "inconclusive" (no power), read from the verdict's string
    so this works whether or not `Verdict` has that member yet."""
    return str(getattr(r.verdict, "value", r.verdict)) == "inconclusive"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileRow:
    """One row of the leading table: at δ, the best certified ε of a claim's pairs and the claim's ε(δ)."""

    claim: PrivacyClaim
    delta: float
    claimed: float
    certified: float
    pair: PairResult
    """The pair whose certificate is `certified` (the best of the claim's pairs at this δ)."""
    exceeds: bool
    headline: bool
    """The row of the claim's own δ (the pairs' primary certificates)."""
    verdict: bool
    """The claim is the verdict claim."""

    @property
    def ratio(self) -> float | None:
        """certified/claimed (a certified value ≤ 0 counts as 0); None without a finite positive claim."""
        if not (math.isfinite(self.claimed) and self.claimed > 0) or math.isnan(self.certified):
            return None
        return max(self.certified, 0.0) / self.claimed


def _claim_key(c: PrivacyClaim) -> tuple[object, ...]:
    curve = None if c.curve is None else (c.curve.kind, c.curve.parameter, c.curve.points)
    return (c.epsilon, c.delta, c.relation, c.kind, curve)


def claim_groups(r: AuditResult) -> list[tuple[PrivacyClaim, tuple[PairResult, ...]]]:
    """The pairs grouped by the claim they were audited against: the verdict claim's group first,
    then the others in order of their first pair."""
    groups: dict[tuple[object, ...], tuple[PrivacyClaim, list[PairResult]]] = {}
    for p in r.pairs:
        groups.setdefault(_claim_key(p.claim), (p.claim, []))[1].append(p)
    verdict = _claim_key(r.claim)
    order = sorted(groups, key=lambda k: k != verdict)  # stable: the others keep their order
    return [(groups[k][0], tuple(groups[k][1])) for k in order]


def group_points(r: AuditResult, pairs: tuple[PairResult, ...]) -> tuple[ProfilePoint, ...]:
    """The profile points of `pairs`: their own, or (a result whose pairs do not carry them) the
    run-level points certified on one of them."""
    own = tuple(pt for p in pairs for pt in p.profile)
    indices = {p.index for p in pairs}
    return own or tuple(pt for pt in r.profile if pt.pair_index in indices)


def _rows_of(
    claim: PrivacyClaim, pairs: tuple[PairResult, ...], points: tuple[ProfilePoint, ...], *, verdict: bool
) -> list[ProfileRow]:
    best = max(pairs, key=lambda p: (p.estimate.epsilon_lower_bound, -p.index))
    at_own = claim.epsilon_at(claim.delta)  # the headline ε, or a curve's value there if smaller
    claimed = at_own if math.isfinite(at_own) else claim.epsilon
    rows = [
        ProfileRow(
            claim=claim,
            delta=claim.delta,
            claimed=claimed,
            certified=best.estimate.epsilon_lower_bound,
            pair=best,
            exceeds=best.estimate.epsilon_lower_bound > claimed,
            headline=True,
            verdict=verdict,
        )
    ]
    by_index = {p.index: p for p in pairs}
    at: dict[float, ProfileRow] = {}
    for pt in points:
        if pt.objective != "epsilon" or pt.parameter is None or pt.claimed is None:
            continue
        delta = float(pt.parameter)
        if delta == claim.delta or (delta in at and at[delta].certified >= pt.value):
            continue
        at[delta] = ProfileRow(
            claim=claim,
            delta=delta,
            claimed=float(pt.claimed),
            certified=pt.value,
            pair=by_index.get(pt.pair_index, best),
            exceeds=pt.exceeds_claim,
            headline=False,
            verdict=verdict,
        )
    return sorted([*rows, *at.values()], key=lambda row: row.delta)


def relation_rows(r: AuditResult) -> list[ProfileRow]:
    """The leading table's rows: per claim (the verdict claim's first), the headline δ and every
    audited δ of its profile, ascending in δ."""
    return [
        row
        for claim, pairs in claim_groups(r)
        for row in _rows_of(
            claim, pairs, group_points(r, pairs), verdict=_claim_key(claim) == _claim_key(r.claim)
        )
    ]


def view(r: AuditResult, claim: PrivacyClaim, pairs: tuple[PairResult, ...]) -> AuditResult:
    """`r` cut down to one claim and its pairs (for the figures): that claim as the one drawn
    shaded, only its pairs, only claim checks under its relation, its pairs' best headline bound.
    A drawing aid: its verdict is whether one of these pairs violates, nothing more."""
    best = max(pairs, key=lambda p: p.estimate.epsilon_lower_bound)
    violation = any(p.violation for p in pairs)
    return dataclasses.replace(
        r,
        claim=claim,
        pairs=pairs,
        claims=tuple(c for c in r.claims if c.claim.relation == claim.relation),
        epsilon_lower_bound=best.estimate.epsilon_lower_bound,
        delta_lower_bound=best.estimate.delta_lower_bound,
        verdict=Verdict.VIOLATION_FOUND if violation else Verdict.NO_VIOLATION_FOUND,
        profile=group_points(r, pairs),
    )


DELTA_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def delta_words(delta: float) -> str:
    """δ as a reader writes it: 10⁻⁵ for a power of ten, else its short decimal form (2e-05)."""
    if delta > 0 and math.isfinite(delta):
        k = round(math.log10(delta))
        if math.isclose(delta, 10.0**k, rel_tol=1e-9):
            return "1" if k == 0 else f"10{str(k).translate(DELTA_SUPERSCRIPT)}"
    return f"{delta:.4g}"
