"""Exact cell tables of "Differentially Private Learning of Geometric Concepts", Sections 4-5.

Tables for SelectHalfplane and SelectTriangle.

SelectHalfplane (§4, algorithm box) parametrises a halfplane by (â, b) ∈ F × D with
D = [−2d², 2d²], F = [−2d², 6d²]: for â ≤ 2d² the halfplane is {y ≥ a·x + b} (z = +1, a = â),
for â > 2d² it is {y ≤ a·x + b} (z = −1, a = â − 4d²). In the dual plane an example (x, y) is
the line ℓ_{x,y} = {b = y − x·a}; for z = +1, f(x, y) = 1 iff (a, b) lies on or below ℓ_{x,y}.

Cell table (docs/specs/seed-002.md §5.5). q depends on (â, b) only through the labels of the sample
points, so for any fixed *probe set* P ⊇ supp(S) the faces of the arrangement of P's dual
lines inside D² (plus their copies shifted by 4d² in a, whose labels are the complements)
refine the paper's regions R̂ of Step 3. The paper's density exp(ε·q)/N on F × D, projected on
the cells, is exactly Pr[cell c] ∝ area(c)·exp(ε·q(c)), and a uniform point in the chosen
cell reproduces the continuous output exactly (the density is constant on each cell). The
arrangement is data-independent, so it is built once per probe set.

Exactness: vertices and areas are computed with `fractions.Fraction` (the arrangement's
vertices are rational), so the table is exact at any d; the check Σ area = 16 d⁴ per copy and
area > 0 for every face is asserted at construction. Log-areas are taken from the exact
fractions (`math.log` of the integer numerator and denominator), so cells of area ~d⁻⁴ next to
a box of area 16 d⁴ keep full relative precision at d = 256 and beyond (docs/specs/seed-002.md bug B12
`float_area`). Only the continuous (â, b) draw is rounded to float64 at the end.

Triangles (§5): a triangle is an AND of three halfplanes of F × D; SelectTriangle picks a
triple of faces ∝ area₁·area₂·area₃·exp(ε·q). Grouping triples by their labelling π of P gives
W_π = Σ_{triples with labelling π} area₁·area₂·area₃ (positive terms only, so float64 sums of
the exact areas are accurate to rounding), and each call is "sample π ∝ W_π·exp(ε·q(π))".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
from numpy.typing import NDArray

Vertex = tuple[Fraction, Fraction]


def _split(poly: list[Vertex], x: int, y: int) -> tuple[list[Vertex], list[Vertex]] | None:
    """Split a convex polygon by g(a, b) = b + x·a − y = 0; None if the line misses its interior."""
    g = [b + x * a - y for a, b in poly]
    if all(v >= 0 for v in g) or all(v <= 0 for v in g):
        return None
    neg: list[Vertex] = []
    pos: list[Vertex] = []
    m = len(poly)
    for i in range(m):
        p, gp = poly[i], g[i]
        q, gq = poly[(i + 1) % m], g[(i + 1) % m]
        if gp <= 0:
            neg.append(p)
        if gp >= 0:
            pos.append(p)
        if (gp < 0 < gq) or (gq < 0 < gp):
            t = gp / (gp - gq)
            v = (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
            neg.append(v)
            pos.append(v)
    return neg, pos


def _area(poly: list[Vertex]) -> Fraction:
    s = Fraction(0)
    m = len(poly)
    for i in range(m):
        a1, b1 = poly[i]
        a2, b2 = poly[(i + 1) % m]
        s += a1 * b2 - a2 * b1
    return abs(s) / 2


def _log_fraction(f: Fraction) -> float:
    return math.log(f.numerator) - math.log(f.denominator)


@dataclass(frozen=True, slots=True, eq=False)
class HalfplaneCells:
    """The cell table of a probe set on X_d²: 2C cells (z = +1 copy first, then z = −1).

    labels[c, p] = f_c(P[p]) ∈ {0, 1}; log_area[c] = ln area(c) (exact up to the final log);
    areas[c] the exact area; triangles/tri_cum for uniform sampling inside a cell.
    """

    d: int
    points: tuple[tuple[int, int], ...]
    labels: NDArray[np.uint8]
    areas: tuple[Fraction, ...]
    log_area: NDArray[np.float64]
    tri: NDArray[np.float64]  # (2C, Tmax, 3, 2) triangles of a fan, in (â, b)
    tri_cum: NDArray[np.float64]  # (2C, Tmax) cumulative triangle-area fractions
    centroid: NDArray[np.float64]  # (2C, 2) exact centroid (rounded) of each cell, in (â, b)

    @property
    def num_cells(self) -> int:
        return int(self.labels.shape[0])

    def index_of(self, point: tuple[int, int]) -> int:
        return self.points.index(point)

    def sample_points(self, cells: NDArray[np.intp], rng: np.random.Generator) -> NDArray[np.float64]:
        """A uniform (â, b) in each given cell (fan triangle ∝ area, uniform barycentric)."""
        n = cells.shape[0]
        u = np.asarray(rng.random(n), dtype=np.float64)
        k = (self.tri_cum[cells] < u[:, None]).sum(axis=1)
        k = np.minimum(k, self.tri.shape[1] - 1)
        tri = self.tri[cells, k]  # (n, 3, 2)
        s1, s2 = rng.random(n), rng.random(n)
        flip = s1 + s2 > 1
        r1: NDArray[np.float64] = np.where(flip, 1 - s1, s1)
        r2: NDArray[np.float64] = np.where(flip, 1 - s2, s2)
        v0, v1, v2 = tri[:, 0], tri[:, 1], tri[:, 2]
        return v0 + r1[:, None] * (v1 - v0) + r2[:, None] * (v2 - v0)


def grid_points(d: int) -> tuple[tuple[int, int], ...]:
    """X_d² = {0..d}², row-major in x then y (the paper's grid, (d+1)² points)."""
    return tuple((x, y) for x in range(d + 1) for y in range(d + 1))


@cache
def halfplane_cells(d: int, points: tuple[tuple[int, int], ...] | None = None) -> HalfplaneCells:
    """Exact arrangement of the dual lines of `points` (default: the full grid) in D²."""
    pts = grid_points(d) if points is None else tuple(points)
    R = Fraction(2 * d * d)
    faces: list[list[Vertex]] = [[(-R, -R), (R, -R), (R, R), (-R, R)]]
    for x, y in pts:
        nxt: list[list[Vertex]] = []
        for poly in faces:
            s = _split(poly, x, y)
            if s is None:
                nxt.append(poly)
            else:
                nxt.extend(s)
        faces = nxt
    areas = [_area(p) for p in faces]
    total = sum(areas, Fraction(0))
    if total != 16 * d**4 or min(areas) <= 0:
        raise AssertionError("cell table: areas do not sum to the box area 16 d⁴")
    C, P = len(faces), len(pts)
    lab = np.zeros((C, P), dtype=np.uint8)
    cen = np.zeros((C, 2))
    tmax = max(len(p) for p in faces) - 2
    tri = np.zeros((2 * C, tmax, 3, 2))
    cum = np.ones((2 * C, tmax))
    shift = 4 * d * d
    for c, poly in enumerate(faces):
        m = len(poly)
        ca = sum((v[0] for v in poly), Fraction(0)) / m
        cb = sum((v[1] for v in poly), Fraction(0)) / m
        for j, (x, y) in enumerate(pts):
            # interior point (vertex average) strictly on one side; z=+1: f = 1 iff b ≤ y − x·a
            lab[c, j] = 1 if cb + x * ca - y < 0 else 0
        tris = [(poly[0], poly[i], poly[i + 1]) for i in range(1, m - 1)]
        tareas = [_area(list(t)) for t in tris]
        acc = Fraction(0)
        # exact area centroid: Σ area_t · centroid_t / area
        gx = sum(
            (ta * (t[0][0] + t[1][0] + t[2][0]) / 3 for t, ta in zip(tris, tareas, strict=True)), Fraction(0)
        )
        gy = sum(
            (ta * (t[0][1] + t[1][1] + t[2][1]) / 3 for t, ta in zip(tris, tareas, strict=True)), Fraction(0)
        )
        cen[c] = (float(gx / areas[c]), float(gy / areas[c]))
        for i, (t, ta) in enumerate(zip(tris, tareas, strict=True)):
            acc += ta
            cum[c, i] = float(acc / areas[c])
            cum[C + c, i] = cum[c, i]
            for v in range(3):
                tri[c, i, v] = (float(t[v][0]), float(t[v][1]))
                tri[C + c, i, v] = (float(t[v][0]) + shift, float(t[v][1]))
        cum[c, len(tris) - 1 :] = 1.0
        cum[C + c, len(tris) - 1 :] = 1.0
    labels = np.concatenate([lab, 1 - lab]).astype(np.uint8)
    log_area = np.array([_log_fraction(a) for a in areas] * 2)
    centroid = np.concatenate([cen, cen + np.array([shift, 0.0])])
    labels.setflags(write=False)
    return HalfplaneCells(
        d=d,
        points=pts,
        labels=labels,
        areas=tuple(areas) * 2,
        log_area=log_area,
        tri=tri,
        tri_cum=cum,
        centroid=centroid,
    )


@dataclass(frozen=True, slots=True, eq=False)
class TrianglePatterns:
    """Distinct labellings π of the probe set by ANDs of three halfplanes, with W_π."""

    d: int
    points: tuple[tuple[int, int], ...]
    labels: NDArray[np.uint8]  # (Π, P)
    log_weight: NDArray[np.float64]  # ln W_π (areas normalised by the box area 16 d⁴ per factor)
    masks: NDArray[np.int64]  # (Π,) π as a bit mask over the grid points


def _and3_weights(
    bits: NDArray[np.int64],
    w: NDArray[np.float64],
    size: int,
    w2: NDArray[np.float64] | None = None,
    w3: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """W[π] = Σ_{c1,c2,c3: mask1 & mask2 & mask3 = π} w1(c1)·w2(c2)·w3(c3) over ordered triples
    (w2 = w3 = w unless given)."""
    w2 = w if w2 is None else w2
    w3 = w if w3 is None else w3
    # pairs first: V[π12] = Σ_{c1,c2: mask1 & mask2 = π12} w1 w2
    m12 = (bits[:, None] & bits[None, :]).ravel()
    V = np.bincount(m12, weights=np.outer(w, w2).ravel(), minlength=size)
    nz = np.flatnonzero(V)
    m123 = (nz[:, None] & bits[None, :]).ravel()
    W = np.bincount(m123, weights=np.outer(V[nz], w3).ravel(), minlength=size)
    return np.asarray(W, dtype=np.float64)


def cell_bits(d: int) -> NDArray[np.int64]:
    """Each full-grid cell's labelling of X_d² as a bit mask (bit p = label of grid point p)."""
    cells = halfplane_cells(d)
    P = len(cells.points)
    out: NDArray[np.int64] = (cells.labels.astype(np.int64) << np.arange(P, dtype=np.int64)).sum(axis=1)
    return out


def pattern_log_weights(
    d: int,
    cell_weights: NDArray[np.float64],
    second: NDArray[np.float64] | None = None,
    third: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """ln Σ_{triples with AND-labelling π} w1·w2·w3 for arbitrary non-negative per-cell weights,
    aligned with `triangle_patterns(d)` (−inf for a pattern no weighted triple reaches).

    With w = normalised areas this is `triangle_patterns(d).log_weight`; buggy twins use other
    weights (per-face counts, per-call exp(ε q) factors of independent halfplane draws)."""
    tp = triangle_patterns(d)
    P = len(tp.points)
    W = _and3_weights(cell_bits(d), np.asarray(cell_weights, dtype=np.float64), 1 << P, second, third)
    with np.errstate(divide="ignore"):
        out: NDArray[np.float64] = np.log(W[tp.masks])
    return out


@cache
def triangle_patterns(d: int) -> TrianglePatterns:
    """Group all (2C)³ face triples of the full grid X_d² by their AND-labelling (d ≤ 3)."""
    cells = halfplane_cells(d)
    P = len(cells.points)
    if P > 20:
        raise ValueError("triangle patterns are tabulated for grids of at most 20 points (d ≤ 3)")
    bits = cell_bits(d)
    box = Fraction(16 * d**4)
    w = np.array([float(a / box) for a in cells.areas])
    size = 1 << P
    W = _and3_weights(bits, w, size)
    pats = np.flatnonzero(W)
    labels = ((pats[:, None] >> np.arange(P)) & 1).astype(np.uint8)
    labels.setflags(write=False)
    return TrianglePatterns(
        d=d, points=cells.points, labels=labels, log_weight=np.log(W[pats]), masks=pats.astype(np.int64)
    )
