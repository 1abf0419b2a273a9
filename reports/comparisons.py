"""Reports compare like with like (issues 37, 42): the white-box ε set beside the verdict claim is
one under that claim's relation (a larger one under another relation is shown, labelled, and never
divided by the claim), and an upper bound is never a ratio's denominator; the profile is compared
within one relation (`reports.relations`); the index divides by one named denominator per column
(`index_ratios`).
"""

from __future__ import annotations

import math

from dpaudit.engine.types import AuditResult, PairResult

from .numbers import fmt


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


def is_upper_bound(p: PairResult) -> bool:
    """Whether the pair's white-box value is only an upper bound (its method says so): never a
    ratio's denominator (an analytic upper bound may equal the claim itself, e.g. `hs_stl`)."""
    return "upper bound" in (p.exact_epsilon_method or "").lower()


def index_ratios(r: AuditResult) -> tuple[float | None, float | None]:
    """The index's two ratios, each with one denominator for every row: the headline certified ε
    (the verdict claim's δ and relation) over (1) that claim's ε and (2) the white-box ε of the
    worst pair under that relation at that δ, when the oracle's value is exact (not an upper
    bound), finite and > 0. None where the denominator does not exist."""
    eps = r.epsilon_lower_bound
    certified = math.inf if eps == math.inf else max(eps, 0.0) if math.isfinite(eps) else 0.0
    claim = r.claim.epsilon
    of_claim = certified / claim if math.isfinite(claim) and claim > 0 else None
    worst = white_box_worst(r)
    exact = None if worst is None or is_upper_bound(worst) else worst.exact_epsilon
    of_white_box = certified / exact if exact is not None and math.isfinite(exact) and exact > 0 else None
    return of_claim, of_white_box
