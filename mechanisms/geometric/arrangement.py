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
`float_area`). Only the continuous (â, b) draw is rounded to float64 at the end. Two sign tests
are taken in float64 first (whether a line misses a face, on which side of a line a face's
interior point lies) and decided exactly only where the float margin (`SIGN_TOLERANCE`) cannot
settle them, and areas are summed in integers over a common denominator: the same table, bit for
bit, as the all-Fraction computation (tests/mechanisms/test_geometric.py keeps that one as the
reference), at a fraction of its cost.

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
from typing import Any

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


SIGN_TOLERANCE = 1e-9
"""Relative margin of the float sign test (`_side`): a float64 vertex is within 2⁻⁵³ of the
exact one (Fraction → float rounds correctly) and the test's three operations add a few more
units of 2⁻⁵³ ≈ 1.1·10⁻¹⁶ of |b| + |x·a| + |y|; 10⁻⁹ of that is ~10⁷ times the worst error."""


FloatVertex = tuple[float, float]


def _undecided(g: Any, a: Any, b: Any, x: Any, y: Any) -> Any:
    """Whether the float value g = b + x·a − y is too close to 0 for its sign to be trusted
    (`SIGN_TOLERANCE`); scalars or arrays alike."""
    return abs(g) <= SIGN_TOLERANCE * (abs(b) + abs(x * a) + abs(y))


def _side(fpoly: list[FloatVertex], x: int, y: int) -> bool:
    """True when g(a, b) = b + x·a − y has one strict sign on every vertex of `fpoly` (the float
    copy of a face), so the line certainly misses the face's interior; False when the float test
    cannot tell (the exact `_split` then decides)."""
    above = below = False
    for a, b in fpoly:
        g = b + x * a - y
        if _undecided(g, a, b, x, y):
            return False
        if g > 0:
            above = True
        else:
            below = True
        if above and below:
            return False
    return True


def _area(poly: list[Vertex] | tuple[Vertex, ...]) -> Fraction:
    """The exact area of a polygon (shoelace), summed in integers over the vertices' common
    denominator L and reduced once: Fraction(|Σ|, 2L²) is the same reduced fraction as the sum
    taken in Fractions, at a fraction of the cost."""
    den = math.lcm(*(v.denominator for vertex in poly for v in vertex))
    ints = [(a.numerator * (den // a.denominator), b.numerator * (den // b.denominator)) for a, b in poly]
    s = 0
    for (a1, b1), (a2, b2) in zip(ints, ints[1:] + ints[:1], strict=True):
        s += a1 * b2 - a2 * b1
    return Fraction(abs(s), 2 * den * den)


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


def _labels(
    ca: Fraction,
    cb: Fraction,
    pts: tuple[tuple[int, int], ...],
    xs: NDArray[np.float64],
    ys: NDArray[np.float64],
) -> NDArray[np.uint8]:
    """f(x, y) = 1 iff b ≤ y − x·a (z = +1) at a face's interior point (ca, cb), for every probe
    point: strictly on one side of each dual line, so the sign of g = cb + x·ca − y is never 0.
    Taken from float64 where the float test's margin (`SIGN_TOLERANCE`) settles it, exactly
    elsewhere: the same labels as the exact test everywhere."""
    fa, fb = float(ca), float(cb)
    g = fb + xs * fa - ys
    out = (g < 0).astype(np.uint8)
    for j in np.flatnonzero(_undecided(g, fa, fb, xs, ys)):
        x, y = pts[j]
        out[j] = 1 if cb + x * ca - y < 0 else 0
    return out


def _faces(
    R: Fraction, pts: tuple[tuple[int, int], ...]
) -> tuple[list[list[Vertex]], list[list[FloatVertex]]]:
    """The faces of the arrangement of the dual lines of `pts` in [−R, R]², exact, in the order of
    splitting the box by each line in turn, with their vertices rounded to float64. A face the
    float test (`_side`) shows on one side of a line is kept without exact arithmetic: the same
    faces as testing every face exactly."""
    faces: list[list[Vertex]] = [[(-R, -R), (R, -R), (R, R), (-R, R)]]
    floats = [[(float(a), float(b)) for a, b in faces[0]]]
    for x, y in pts:
        nxt: list[list[Vertex]] = []
        nxt_f: list[list[FloatVertex]] = []
        for poly, fpoly in zip(faces, floats, strict=True):
            s = None if _side(fpoly, x, y) else _split(poly, x, y)
            if s is None:
                nxt.append(poly)
                nxt_f.append(fpoly)
            else:
                nxt.extend(s)
                nxt_f.extend([(float(a), float(b)) for a, b in half] for half in s)
        faces, floats = nxt, nxt_f
    return faces, floats


@dataclass(frozen=True, slots=True)
class _Fan:
    """A face cut into the triangles (v₀, v_i, v_{i+1}): their float64 vertices, the cumulative
    shares of the face's area they cover (exact, rounded once), and the exact area centroid."""

    triangles: list[tuple[FloatVertex, FloatVertex, FloatVertex]]
    cumulative: list[float]
    centroid: FloatVertex


def _fan(poly: list[Vertex], fpoly: list[FloatVertex], area: Fraction) -> _Fan:
    m = len(poly)
    tris = [(poly[0], poly[i], poly[i + 1]) for i in range(1, m - 1)]
    tareas = [_area(t) for t in tris]
    # exact area centroid: Σ area_t · centroid_t / area
    gx = sum(
        (ta * (t[0][0] + t[1][0] + t[2][0]) / 3 for t, ta in zip(tris, tareas, strict=True)), Fraction(0)
    )
    gy = sum(
        (ta * (t[0][1] + t[1][1] + t[2][1]) / 3 for t, ta in zip(tris, tareas, strict=True)), Fraction(0)
    )
    acc, cumulative = Fraction(0), []
    for ta in tareas:
        acc += ta
        cumulative.append(float(acc / area))
    triangles = [(fpoly[0], fpoly[i], fpoly[i + 1]) for i in range(1, m - 1)]
    return _Fan(triangles=triangles, cumulative=cumulative, centroid=(float(gx / area), float(gy / area)))


@cache
def halfplane_cells(d: int, points: tuple[tuple[int, int], ...] | None = None) -> HalfplaneCells:
    """Exact arrangement of the dual lines of `points` (default: the full grid) in D²."""
    pts = grid_points(d) if points is None else tuple(points)
    R = Fraction(2 * d * d)
    faces, floats = _faces(R, pts)
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
    xs, ys = (np.array([p[i] for p in pts], dtype=np.float64) for i in (0, 1))
    for c, (poly, fpoly, area) in enumerate(zip(faces, floats, areas, strict=True)):
        m = len(poly)
        ca = sum((v[0] for v in poly), Fraction(0)) / m
        cb = sum((v[1] for v in poly), Fraction(0)) / m
        lab[c] = _labels(ca, cb, pts, xs, ys)
        fan = _fan(poly, fpoly, area)
        cen[c] = fan.centroid
        k = len(fan.triangles)
        cum[c, :k] = cum[C + c, :k] = fan.cumulative
        cum[c, k - 1 :] = cum[C + c, k - 1 :] = 1.0
        tri[c, :k] = tri[C + c, :k] = fan.triangles
        tri[C + c, :k, :, 0] += shift
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
