"""Learners of 002_f29981ba9423ff4d.txt (Kaplan, Mansour, Matias & Stemmer, geometric concepts).

Modules: `arrangement` (exact cell tables), `scl` (SetCoverLearner engine, claims, privacy-loss
oracle), `learners` (conjunctions, disjunctions, convex k-gons, unions of polygons), `select`
(SelectHalfplane / SelectTriangle standalone, exact oracle), `buggy` (spec §10 twins).
"""

from __future__ import annotations

from typing import Any

from mechanisms.geometric import buggy as _b
from mechanisms.geometric.learners import (
    ConjunctionLearner,
    ConvexKGonLearner,
    CorrectedConvexKGonLearner,
    DisjunctionLearner,
    UnionOfPolygonsLearner,
)
from mechanisms.geometric.select import SelectHalfplane, SelectTriangle
from mechanisms.registry import RegistryEntry

FAMILY = "002"
LEARNER_SAMPLES = 200_000
SELECT_SAMPLES = 1_000_000


def _ok(name: str, factory: Any, summary: str, n: int = LEARNER_SAMPLES) -> RegistryEntry:
    return RegistryEntry(name=name, factory=factory, family=FAMILY, summary=summary, default_num_samples=n)


def _twin(
    name: str, factory: Any, of: str, bug: str, detectable: bool, n: int = LEARNER_SAMPLES
) -> RegistryEntry:
    return RegistryEntry(
        name=name,
        factory=factory,
        family=FAMILY,
        summary=bug,
        buggy=True,
        twin_of=of,
        bug=bug,
        detectable=detectable,
        default_num_samples=n,
    )


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    _ok("geo_conj_small", ConjunctionLearner, "SCL(AND) + EM over 32 literals, Thm 3.6 (conj-small)"),
    _ok("geo_disj_small", DisjunctionLearner, "SCL(OR) + EM over 32 literals, Thm 1.3/3.6"),
    _ok(
        "geo_halfplane_grid4",
        ConvexKGonLearner,
        "convex k-gon learner: SCL(AND) + SelectHalfplane on X_4², Thm 4.8",
    ),
    _ok(
        "geo_halfplane_grid4_corrected",
        CorrectedConvexKGonLearner,
        "halfplane-grid4 with the ERRATA F1 corrected constants (proved (ε, δ))",
    ),
    _ok(
        "geo_union_grid3",
        UnionOfPolygonsLearner,
        "k-union-of-polygons: SCL(OR) + SelectTriangle on X_3², Thm 5.1",
    ),
    _ok(
        "geo_select_halfplane",
        SelectHalfplane,
        "SelectHalfplane alone on X_8² (cell output), 2ε pure",
        SELECT_SAMPLES,
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
        "B1: ε̂ = ε instead of ε/(2 ln(e/δ))",
        True,
    ),
    _twin(
        "geo_halfplane_grid4_early_stop",
        _b.EarlyStop,
        "geo_halfplane_grid4",
        "B2: stops once every covered-side example is removed (data-dependent length)",
        True,
    ),
    _twin(
        "geo_halfplane_grid4_argmax", _b.Argmax, "geo_halfplane_grid4", "B3: argmax (greedy) selection", True
    ),
    _twin("geo_halfplane_grid4_t_from_n", _b.TFromN, "geo_halfplane_grid4", "B7: T computed from α(n)", True),
    _twin(
        "geo_halfplane_grid4_keep_positives",
        _b.KeepPositives,
        "geo_halfplane_grid4",
        "B9: excluded positives not deleted (weak, spec §10)",
        False,
    ),
    _twin(
        "geo_halfplane_grid4_shared_noise",
        _b.SharedNoise,
        "geo_halfplane_grid4",
        "B10: one noise draw shared by all iterations (code-review only, spec §10)",
        False,
    ),
    _twin(
        "geo_halfplane_grid4_sens2_score",
        _b.Sens2Score,
        "geo_halfplane_grid4",
        "B11: q without the min/cap (one-signed, weak, spec §10)",
        False,
    ),
    _twin(
        "geo_conj_small_consistent_candidates",
        _b.ConsistentCandidates,
        "geo_conj_small",
        "B14: EM only over literals consistent with the positives",
        True,
    ),
    _twin(
        "geo_union_grid3_wrong_or_deletion",
        _b.WrongOrDeletion,
        "geo_union_grid3",
        "B13: OR form deletes h = 0 instead of h = 1",
        False,
    ),
    _twin(
        "geo_select_halfplane_count_weight",
        _b.CountWeight,
        "geo_select_halfplane",
        "B4: regions weighted by count, not area",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_centroid",
        _b.Centroid,
        "geo_select_halfplane_continuous",
        "B5: releases the region centroid, not a uniform point",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_drop_small_cells",
        _b.DropSmallCells,
        "geo_select_halfplane",
        "B6: regions below 1% of the box dropped (data-dependent support)",
        True,
        SELECT_SAMPLES,
    ),
    _twin(
        "geo_select_halfplane_eps_label",
        _b.EpsLabel,
        "geo_select_halfplane",
        "B8: exp(ε·q) labelled ε-DP instead of 2ε",
        True,
        SELECT_SAMPLES,
    ),
)

__all__ = ["REGISTRY_ENTRIES"]
