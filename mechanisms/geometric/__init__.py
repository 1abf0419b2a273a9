"""Learners of "Differentially Private Learning of Geometric Concepts" (Kaplan et al.; Thm 3.6, 4.8, 5.1).

Presets (docs/specs/seed-002.md §8.1): geo_conj_small / geo_disj_small (conj-small),
geo_halfplane_grid4 (+ _corrected, docs/specs/ERRATA.md F1), geo_convex_probe (convex-probe,
d = 256), geo_union_grid3 (union-grid3), geo_select_halfplane / geo_select_triangle
(select-halfplane, standalone), geo_amplified (amplified), geo_keep_pos_hunt (keep-pos-hunt).
Twins: buggy.py's table.

Modules: `arrangement` (exact cell tables), `scl` (SetCoverLearner engine, claims, privacy-loss
oracle), `learners` (conjunctions, disjunctions, convex k-gons, unions of polygons),
`composition` (Example 3.3: per-step EM + advanced composition, geo_conj_composition), `select`
(SelectHalfplane / SelectTriangle standalone, exact oracle), `buggy` (docs/specs/seed-002.md §10 twins).
"""

from __future__ import annotations

from typing import Any

from ..registry import RegistryEntry
from . import buggy as _b
from .composition import CompositionConjunctionLearner, CompositionNoSplit
from .learners import (
    AmplifiedConvexKGonLearner,
    ConjunctionLearner,
    ConvexKGonLearner,
    ConvexProbeLearner,
    CorrectedConvexKGonLearner,
    DisjunctionLearner,
    KeepPosHuntLearner,
    UnionOfPolygonsLearner,
)
from .select import SelectHalfplane, SelectTriangle

FAMILY = "002"
LEARNER_SAMPLES = 200_000
LONG_T_SAMPLES = 100_000  # presets with T = 86 / 171 iterations (≈ 50–90 µs per run and side)
SELECT_SAMPLES = 1_000_000
HALFPLANE_SAMPLES = 2_000_000  # 200k selection split: see select.py "Component audit"
TRIANGLE_TWIN_SAMPLES = 4_000_000
COMPOSITION_SAMPLES = 100_000  # T = 26, 10 pairs: ≈ 15 s per default run (2·10⁵ took 31 s)
KEEP_POS_LONG_SAMPLES = 50_000  # T = 511: ≈ 27 s; certified ≈ 3.3 vs claim 1.98 (measured)
HUNT_TWIN_SAMPLES = 200_000  # statement-level finding: 10⁵ certified it on 3 of 5 seeds, 2·10⁵ with margin
# Budgets of correct learners whose exact ε is ≤ 0.15 and whose certified bound at half the budget
# stayed within the seed-to-seed spread of today's (seeds 0–2, benchmarks/README.md "Main job
# budgets"); their twins keep the budgets above.
CONJ_SMALL_SAMPLES = 100_000  # certified 0.071 / 0.011 / 0.052 at 2·10⁵, 0.053 / 0.006 / 0.035 at 10⁵
KEEP_POS_HUNT_SAMPLES = 50_000  # certified −0.126 / −0.082 / −0.126 at 10⁵, −0.138 / −0.141 / −0.124 at 5·10⁴
HALFPLANE_CORRECTED_SAMPLES = 100_000  # 0.029 / −0.0001 / −0.0001 at 2·10⁵, 0.045 / −0.0003 / −0.0002 at 10⁵
CONJ_COMPOSITION_SAMPLES = 50_000  # −0.012 / −0.007 / −0.019 at 10⁵, −0.014 / −0.008 / −0.014 at 5·10⁴
AMPLIFIED_SAMPLES = 50_000  # every registered pair's exact ε(0.3) is 0: no budget certifies above 0


def _ok(name: str, factory: Any, summary: str, n: int = LEARNER_SAMPLES) -> RegistryEntry:
    return RegistryEntry(name=name, factory=factory, family=FAMILY, summary=summary, default_num_samples=n)


def _twin(
    name: str, factory: Any, of: str, bug: str, detectable: bool, n: int = LEARNER_SAMPLES
) -> RegistryEntry:
    return RegistryEntry.twin(
        name, factory, family=FAMILY, of=of, bug=bug, num_samples=n, detectable=detectable
    )


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    _ok(
        "geo_conj_small",
        ConjunctionLearner,
        "SCL(AND) + EM over 32 literals, Thm 3.6 (conj-small)",
        CONJ_SMALL_SAMPLES,
    ),
    _ok("geo_disj_small", DisjunctionLearner, "SCL(OR) + EM over 32 literals, Thm 1.3/3.6"),
    _ok(
        "geo_conj_composition",
        CompositionConjunctionLearner,
        "Example 3.3: SCL(AND) over 32 literals, per-step EM at ε_0 + advanced composition (Thm 2.10)",
        CONJ_COMPOSITION_SAMPLES,
    ),
    _ok(
        "geo_halfplane_grid4",
        ConvexKGonLearner,
        "convex k-gon learner: SCL(AND) + SelectHalfplane on X_4², Thm 4.8",
    ),
    _ok(
        "geo_halfplane_grid4_corrected",
        CorrectedConvexKGonLearner,
        "halfplane-grid4 with corrected constants (noise scale 2T/ε, ε̂ = ε/(4 ln(e/δ))): proved (ε, δ)",
        HALFPLANE_CORRECTED_SAMPLES,
    ),
    _ok(
        "geo_union_grid3",
        UnionOfPolygonsLearner,
        "k-union-of-polygons: SCL(OR) + SelectTriangle on X_3², Thm 5.1",
    ),
    _ok(
        "geo_convex_probe",
        ConvexProbeLearner,
        "convex k-gon learner on X_256² over a 19-point probe arrangement (exact areas), Thm 4.8",
        LONG_T_SAMPLES,
    ),
    _ok(
        "geo_amplified",
        AmplifiedConvexKGonLearner,
        "halfplane learner, preset amplified (k=8, α=0.05, ε=0.99, δ=0.3, T=86): bug hunting",
        AMPLIFIED_SAMPLES,
    ),
    _ok(
        "geo_keep_pos_hunt",
        KeepPosHuntLearner,
        "halfplane learner, preset keep-pos-hunt (k=16, α=0.05, ε=0.99, δ=0.05, T=171)",
        KEEP_POS_HUNT_SAMPLES,
    ),
    _ok(
        "geo_select_halfplane",
        SelectHalfplane,
        "SelectHalfplane alone on X_8² (labels on a 5-point probe set), 2ε pure",
        HALFPLANE_SAMPLES,
    ),
    _ok(
        "geo_select_halfplane_continuous",
        _b.ContinuousSelectHalfplane,
        "SelectHalfplane alone on X_8², continuous (â, b) output",
        SELECT_SAMPLES,
    ),
    _ok(
        "geo_select_triangle",
        SelectTriangle,
        "SelectTriangle alone on X_3² (labelling output), 2ε pure",
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_halfplane_grid4_no_eps_split",
        _b.NoEpsSplit,
        "geo_halfplane_grid4",
        "ε̂ = ε instead of ε/(2 ln(e/δ))",
        True,
    ),
    _twin(
        "geo_halfplane_grid4_early_stop",
        _b.EarlyStop,
        "geo_halfplane_grid4",
        "stops once every covered-side example is removed (data-dependent length)",
        True,
    ),
    _twin("geo_halfplane_grid4_argmax", _b.Argmax, "geo_halfplane_grid4", "argmax (greedy) selection", True),
    _twin("geo_halfplane_grid4_t_from_n", _b.TFromN, "geo_halfplane_grid4", "T computed from α(n)", True),
    _twin(
        "geo_halfplane_grid4_keep_positives",
        _b.KeepPositives,
        "geo_keep_pos_hunt",
        "excluded positives not deleted, own preset keep-pos-long (k = 48, δ = 0.3, T = 511): x*'s removal "
        "count Bin(511, 0.444) vs Bin(511, ½), exact ε(0.3) = 3.66 vs proved 1.98 (Claim 3.4, (2ε, δ))",
        True,
        KEEP_POS_LONG_SAMPLES,
    ),
    _twin(
        "geo_halfplane_grid4_shared_noise",
        _b.SharedNoise,
        "geo_halfplane_grid4",
        "one noise draw shared by all iterations (code review only: not detectable black-box)",
        False,
    ),
    _twin(
        "geo_halfplane_grid4_sens2_score",
        _b.Sens2Score,
        "geo_halfplane_grid4",
        "q without the min/cap: within every add/remove and replace claim; exceeds the pure relabel "
        "composition claim 1.024 (exact ≥ 1.239) only on events of mass ≈ 10⁻¹²: not detectable black-box",
        False,
    ),
    _twin(
        "geo_conj_small_consistent_candidates",
        _b.ConsistentCandidates,
        "geo_conj_small",
        "EM only over literals consistent with the positives",
        True,
    ),
    _twin(
        "geo_conj_composition_no_split",
        CompositionNoSplit,
        "geo_conj_composition",
        "every EM step at the total ε instead of the composed ε_0",
        True,
        COMPOSITION_SAMPLES,
    ),
    _twin(
        "geo_union_grid3_wrong_or_deletion",
        _b.WrongOrDeletion,
        "geo_union_grid3",
        "OR form deletes h = 0 instead of h = 1",
        False,
    ),
    _twin(
        "geo_keep_pos_hunt_keep_positives",
        _b.HuntKeepPositives,
        "geo_keep_pos_hunt",
        "excluded positives not deleted, under keep-pos-hunt: exceeds the STATED (ε, δ) (a finding about "
        "the paper), not the proved (2ε, δ); certified ε(0.05) ≈ 1.06 > 0.99 at 2·10⁵ (finding)",
        False,
        HUNT_TWIN_SAMPLES,
    ),
    _twin(
        "geo_union_grid3_no_eps_split",
        _b.UnionNoEpsSplit,
        "geo_union_grid3",
        "SCL(OR) + SelectTriangle: ε̂ = ε instead of ε/(2 ln(e/δ)); flanked-cluster pair (lone "
        "negative (1,2) between 63 positives at (1,1) and (1,3)): exact ε(10⁻³) ≈ 2.17, ε(0) ≥ 2.45 vs "
        "proved pure 0.683 (composition); certified ≈ 1.8 at 2·10⁵ (measured, seeds 0 and 1)",
        True,
    ),
    _twin(
        "geo_union_grid3_early_stop",
        _b.UnionEarlyStop,
        "geo_union_grid3",
        "SCL(OR): stops once no positive remains (data-dependent length)",
        True,
    ),
    _twin(
        "geo_union_grid3_argmax",
        _b.UnionArgmax,
        "geo_union_grid3",
        "SCL(OR): argmax (greedy) triangle selection",
        True,
    ),
    _twin(
        "geo_select_triangle_count_weight",
        _b.TriangleCountWeight,
        "geo_select_triangle",
        "SelectTriangle: face triples weighted by count, not the product of areas",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_triangle_sum_area",
        _b.TriangleSumArea,
        "geo_select_triangle",
        "SelectTriangle: face triples weighted by the sum of the areas, not the product",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_triangle_independent",
        _b.TriangleIndependent,
        "geo_select_triangle",
        "SelectTriangle: three independent SelectHalfplane calls, charged as one 2ε call; exact ε 3.04 > 2 "
        "on the registered pairs but on events of mass ~10⁻⁵; the default route's search finds a pair "
        "of exact ε 3.30 and certifies 3.15 / 2.22 / 3.16 (seeds 0–2), exit 1",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_triangle_eps_label",
        _b.TriangleEpsLabel,
        "geo_select_triangle",
        "SelectTriangle at its own preset ε = 2: exp(ε·q) labelled ε-DP instead of 2ε; exact 2.356 "
        "(asymmetric replace) vs claim 2, certified 2.34–2.44 at 4·10⁶ (seeds 0–2)",
        True,
        TRIANGLE_TWIN_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_count_weight",
        _b.CountWeight,
        "geo_select_halfplane",
        "regions weighted by count, not area",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_centroid",
        _b.Centroid,
        "geo_select_halfplane_continuous",
        "releases the region centroid, not a uniform point",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_drop_small_cells",
        _b.DropSmallCells,
        "geo_select_halfplane",
        "regions below 1% of the box dropped (data-dependent support)",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_eps_label",
        _b.EpsLabel,
        "geo_select_halfplane",
        "exp(ε·q) labelled ε-DP instead of 2ε",
        True,
        SELECT_SAMPLES,
    ),
)

__all__ = ["REGISTRY_ENTRIES"]
