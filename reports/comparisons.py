"""Reports compare like with like (issue 37): the white-box ε set beside the verdict claim is one
under that claim's relation (a larger one under another relation is shown, labelled, and never
divided by the claim); a curve claim is compared point by point with the certified privacy profile
(certified against claimed ε at each audited δ); the index states how far each audit got.
"""

from __future__ import annotations

import math

from dpaudit.engine.types import AuditResult, PairResult, ProfilePoint, Relation
from dpaudit.reports.numbers import fmt
from dpaudit.reports.words import is_upper_bound


def white_box_worst(r: AuditResult) -> PairResult | None:
    """The pair with the largest white-box ε among those under the verdict claim's relation (the
    only ones comparable with it); None when none has an oracle value."""
    known = [p for p in r.pairs if p.exact_epsilon is not None and r.claim.covers(p.relation)]
    return max(known, key=lambda p: (p.exact_epsilon, -p.index)) if known else None


def white_box_other(r: AuditResult) -> PairResult | None:
    """The pair with the largest white-box ε under a relation the verdict claim does not cover,
    when it exceeds the comparable one (shown beside it, labelled, never divided by the claim)."""
    known = [p for p in r.pairs if p.exact_epsilon is not None and not r.claim.covers(p.relation)]
    other = max(known, key=lambda p: (p.exact_epsilon, -p.index)) if known else None
    same = white_box_worst(r)
    if other is None or (same is not None and (same.exact_epsilon or 0.0) >= (other.exact_epsilon or 0.0)):
        return None
    return other


def white_box_words(r: AuditResult) -> str | None:
    """One line setting the certified bound beside the white-box ε of the worst audited pair under
    the verdict claim's relation (a reference from the mechanism's oracle; it never enters the
    verdict), and, labelled, a larger white-box ε of a pair under another relation. Ratios only
    within one relation; none for a curve claim (its profile compares like with like)."""
    worst, other = white_box_worst(r), white_box_other(r)
    parts = []
    if worst is not None and worst.exact_epsilon is not None:
        exact = worst.exact_epsilon
        ratio = ""
        if (
            r.claim.curve is None
            and not is_upper_bound(worst)
            and math.isfinite(exact)
            and exact > 0
            and math.isfinite(r.epsilon_lower_bound)
        ):
            ratio = f"; certified/white-box = {max(r.epsilon_lower_bound, 0.0) / exact:.2f}"
        parts.append(
            f"ε {'≤' if is_upper_bound(worst) else '='} {fmt(exact)} under {worst.relation.value} "
            f"(the claim's relation) on pair {worst.index + 1} "
            f"({worst.exact_epsilon_method or 'oracle'}){ratio}"
        )
    if other is not None and other.exact_epsilon is not None:
        parts.append(
            f"ε = {fmt(other.exact_epsilon)} under {other.relation.value} on pair {other.index + 1} "
            "(another relation than the claim's: not compared with it)"
        )
    return f"White-box reference (never used in the verdict): {'; '.join(parts)}" if parts else None


def _profile_best(r: AuditResult) -> dict[float, ProfilePoint]:
    """A curve claim's profile: at each audited δ, the certified ε point closest to its own claimed
    value (each point is compared with the claim of its own pair, so the ratio never crosses
    relations)."""
    if r.claim.curve is None:
        return {}
    pts = [pt for p in r.pairs for pt in p.profile] or list(r.profile)
    usable = [pt for pt in pts if pt.objective == "epsilon" and pt.parameter is not None and pt.claimed]
    best: dict[float, ProfilePoint] = {}
    for pt in sorted(usable, key=lambda pt: -pt.value / (pt.claimed or 1.0)):
        best.setdefault(float(pt.parameter or 0.0), pt)
    return best


def profile_lead(r: AuditResult) -> str | None:
    """For a curve claim, the profile in one line: certified against claimed ε at each audited δ
    (best over pairs under the verdict claim's relation, each beside its own pair's claim); None
    otherwise or without ε profile points."""
    best = _profile_best(r)
    if not best:
        return None
    relation = {p.index: p.relation for p in r.pairs}
    cells = [
        f"δ = {fmt(d)}: {fmt(max(pt.value, 0.0))} of {fmt(pt.claimed or 0.0)} "
        f"({max(pt.value, 0.0) / (pt.claimed or 1.0):.2f}, pair {pt.pair_index + 1}"
        f"{_other_relation(r, relation.get(pt.pair_index))}){' **exceeds**' if pt.exceeds_claim else ''}"
        for d, pt in sorted(best.items(), reverse=True)
    ]
    return "certified ε against the claimed ε(δ) at each audited δ: " + "; ".join(cells)


def _other_relation(r: AuditResult, relation: Relation | None) -> str:
    """ ", under replace_one (its own claim)" for a point of a pair the verdict claim does not cover."""
    if relation is None or r.claim.covers(relation):
        return ""
    return f", {relation.value} against that relation's own claim"


def progress_words(r: AuditResult) -> str:
    """How far the audit got, in the index: certified/white-box ε under the claim's relation where an
    oracle value exists, else certified/claim (for a curve claim, the best audited δ of its profile)."""
    eps = max(r.epsilon_lower_bound, 0.0)
    worst = white_box_worst(r)
    if not math.isfinite(eps):
        return "∞"
    if (
        worst is not None
        and worst.exact_epsilon
        and not is_upper_bound(worst)
        and math.isfinite(worst.exact_epsilon)
        and r.claim.curve is None
    ):
        return f"{eps / worst.exact_epsilon:.2f} of white-box"
    lead = profile_ratios(r)
    if lead:
        delta, ratio = max(lead, key=lambda x: x[1])
        return f"{ratio:.2f} of claim at δ = {fmt(delta)}"
    claim = r.claim.epsilon_at(r.claim.delta)
    return f"{eps / claim:.2f} of claim" if math.isfinite(claim) and claim > 0 else "-"


def profile_ratios(r: AuditResult) -> list[tuple[float, float]]:
    """(δ, certified/claimed ε) at each audited δ of a curve claim's profile (`profile_lead`)."""
    return [(d, max(pt.value, 0.0) / (pt.claimed or 1.0)) for d, pt in _profile_best(r).items()]
