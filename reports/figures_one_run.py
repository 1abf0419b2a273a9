"""The one-run figure: the claim's trade-off curve and the certified ε̂'s, no certified point.

A one-run certificate (Steinke, Nasr & Jagielski 2023, "Privacy Auditing with One (1) Training Run",
Theorem 5.2; or Mahloujifar, Melis & Chaudhuri's f-DP test) says only "the mechanism is not
(ε̂, δ)-DP": its trade-off curve dips below that of (ε̂, δ)-DP somewhere. It certifies no test with
given error rates, so no (FPR, FNR) corner is drawn: the figure shows the claim's curve (Kairouz,
Oh & Viswanath 2015, both inequalities of (ε, δ)-DP) and the (ε̂, δ)-DP curve, and says so.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from markupsafe import Markup

from dpaudit.engine.types import AuditResult

from .figures import (
    OK_COLOUR,
    VIOLATION_COLOUR,
    Kind,
    claim_p_max,
    claims_to_draw,
    encode,
    matplotlib_parts,
    new_figure,
)
from .markdown import fmt
from .relations import relation_words

ONE_RUN_CAPTION = Markup(
    "The trade-off plane (FPR, FNR) of tests of ‘canary in’ against ‘canary out’. Solid: the claim’s "
    "trade-off curve (Kairouz, Oh &amp; Viswanath 2015); the claim says every test lies above it. "
    "Dotted: the trade-off curve of (ε̂, δ)-DP for the certified ε̂. A one-run audit certifies only that "
    "the mechanism is <em>not</em> (ε̂, δ)-DP, i.e. its own curve dips below the dotted one somewhere; "
    "it certifies no test with given error rates, so no point is drawn. The claim is refuted only when "
    "the dotted curve lies on or below the solid one <em>everywhere</em>, i.e. ε̂ exceeds the ε the claim "
    "allows at δ: the mechanism’s curve then dips below the claim’s somewhere. Lying below it somewhere "
    "is not enough: a curve claim’s (GDP) solid curve starts at FNR = 1, the dotted one at 1 − δ, so the "
    "dotted curve is below it near the axes for every ε̂; where it rises above the solid curve, nothing "
    "is refuted."
)


def is_one_run(r: AuditResult) -> bool:
    """True for a one-run result (`dpaudit one-run`, `scores` with inclusion bits, a gate one-run)."""
    return isinstance(r.extra.get("one_run"), dict)


def one_run_tradeoff(r: AuditResult, kind: Kind = "png") -> bytes | str | None:
    """The claim's and the certified ε̂'s trade-off curves (PNG bytes or SVG text), or None without
    matplotlib."""
    if matplotlib_parts() is None:
        return None
    fig = new_figure(5.6)
    ax = fig.add_subplot(1, 1, 1)
    qs = [i / 400 for i in range(401)]
    for k, (claim, style, label) in enumerate(claims_to_draw(r)):
        fnr = [1.0 - pm for pm in claim_p_max(claim, qs)]
        ax.plot(qs, fnr, linestyle=style, color="black", linewidth=1.3, label=label)
        if k == 0:
            ax.fill_between(qs, 0.0, fnr, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
    eps = r.epsilon_lower_bound
    if math.isfinite(eps) and eps > 0:
        certified = dataclasses.replace(r.claim, epsilon=eps, curve=None, kind=r.claim.kind)
        fnr = [1.0 - pm for pm in claim_p_max(certified, qs)]
        colour = VIOLATION_COLOUR if r.violation else OK_COLOUR
        relation = relation_words(r.claim.relation)
        label = f"certified ({relation}): not (ε̂ = {fmt(eps)}, δ = {fmt(r.claim.delta)})-DP"
        ax.plot(qs, fnr, linestyle=":", color=colour, linewidth=2.0, label=label)
    ax.plot(qs, [1 - q for q in qs], color="#8c959f", linewidth=0.8, label="no information (FNR = 1 − FPR)")
    _axes(ax)
    ax.legend(loc="upper left", bbox_to_anchor=(1.04, 1.0), fontsize=9, framealpha=0.92)
    return encode(fig, None, kind)


def _axes(ax: Any) -> None:
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_anchor("W")
    ax.set_xlabel("FPR (guess ‘in’ when out)")
    ax.set_ylabel("FNR (guess ‘out’ when in)")
    ax.set_title("Trade-off curves: the claim and the certified ε̂ (no point certified)", fontsize=10)
    ax.grid(True, linewidth=0.4, alpha=0.6)
