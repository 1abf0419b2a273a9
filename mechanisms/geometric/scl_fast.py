"""Fast exact sampler of the SetCoverLearner engine (scl.py), same random stream, same outputs.

The generic engine (`SetCoverLearner._run_generic`) recomputes, for every run and every step,
the remaining counts, the scores of all hypothesis groups and their softmax: O(R·G·S) work per
step for R runs, G groups and S support points. But a run's state is only *which support
points remain* (a bit mask: deletion multiplies `alive` by 0/1), and the step's distribution
over groups depends on the state and on the integer noise draw w_j only. So this engine keeps,
per state, the cumulative weights of the groups for every w it meets, computed once and then
shared by all runs of one `sample` call, and draws a
group by a binary search on that row. The arithmetic of a row is the generic engine's, value
for value (same expression, same `score` hook, same `np.exp` / `np.cumsum` order), and the
generator is called in the same order with the same sizes, so the outputs are *identical* to
the generic engine's at every seed (tested: tests/mechanisms/test_sampler_laws.py).

One saving needs an argument: below a state's window every group's score is its protected-side
term, q(h) = min(cover − b/k, −prot) = −prot (when w ≤ min_g thr_g − 1, with
thr_g = k(cover_g + prot_g) − n_cov + Δ, the first term exceeds the second by ≥ 1/k, so the
float `minimum` returns −prot exactly whatever w is). All such w therefore share one row
(w is clamped to w_lo = ⌊min thr⌋ − 1); above it rows are keyed by the exact w.

Used only when the hooks that shape a step (`select`, `score`, `running`, `delete`) are the
base engine's and the noise is integer-valued (floored Laplace): twins that override one of
them run the generic engine. `protected_alive`, `selection_eps`, `num_iterations`,
`candidate_log_base` and `noise` are read through their hooks, so twins overriding only those
(B1, B9, T-from-n, consistent candidates, shared noise) run here too.

Tables are not kept across `sample` calls: a cache keyed on the learner and
the table's arrays did not capture everything a row depends on, so a table built on one dataset
served another and results depended on which datasets a worker had sampled before (`--jobs 1` and
`--jobs 2` chose different events on `geo_conj_small`); tested in test_sampler_laws.py.

The released probe columns (which points a run's hypotheses ever removed, and at which step
first) are taken on one int64 of bits per run (`_ever_removed`, `_first_removal`), the same
booleans and steps as the row-by-row computation (tested against it).

Memory: a table caches at most `ROW_BUDGET` floats of rows (it is cleared when full; one step
needs at most R rows), so memory does not grow with the number of samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..memo import Memo

SetCoverLearner = Any  # scl.SetCoverLearner (not imported: scl imports this module)
Table = Any  # scl.Table

ROW_BUDGET = 1 << 21  # floats of cached cumulative weights per table (16 MiB)
STATE_BUDGET = 1 << 21  # states × groups per table before it is cleared
MIN_STATES = 256  # ... but at least this many states
TINY_G = 4  # up to this many groups a draw gathers column by column
SMALL_G = 16  # up to this many groups a draw compares whole rows, above it bisects
GUIDE_BUDGET = 1 << 20  # cells of the within-group guide table
MAX_SUPPORT = 62  # support points a bit mask (int64) can hold
GUIDES = Memo(16)
"""The guides of the last few tables (`StepTable.guide`): a function of the table alone."""


def _packed(rows: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Each boolean row as the bits of one int64 (bit p = column p; at most 63 columns): a
    hypothesis' removed support points (`StepTable.remmask`) or probe points (`_first_removal`)."""
    weights = np.int64(1) << np.arange(rows.shape[1], dtype=np.int64)
    return np.asarray((rows.astype(np.int64) * weights).sum(axis=1), dtype=np.int64)


STEP_HOOKS = ("select", "score", "running", "delete")
"""The hooks that shape a step: a learner overriding one of them runs the generic engine."""


def applicable(mech: SetCoverLearner, base: type, tab: Table, W: NDArray[np.float64]) -> bool:
    """Whether the fast engine reproduces the generic one for this learner (`base`: the engine
    class whose hooks it implements), table and noise."""
    cls = type(mech)
    return (
        all(getattr(cls, h) is getattr(base, h) for h in STEP_HOOKS)
        and tab.covered.shape[0] <= MAX_SUPPORT
        and tab.removal.shape[0] >= 1
        and bool(np.all(np.isfinite(W)))
        and bool(np.all(np.floor(W) == W))
        and float(np.max(np.abs(W), initial=0.0)) < 2.0**52
    )


class StepTable:
    """Per-state group distributions of one (learner, data table), filled lazily."""

    def __init__(self, mech: SetCoverLearner, tab: Table) -> None:
        self.mech = mech
        self.tab = tab
        self.G = int(tab.removal.shape[0])
        self.S = int(tab.covered.shape[0])
        self.eps = float(mech.selection_eps())
        self.k = float(mech.k)
        self.Delta = float(mech.Delta)
        self.finite = np.isfinite(tab.log_base)
        bits = np.int64(1) << np.arange(self.S, dtype=np.int64)
        self.remmask = _packed(tab.removal)
        self.bits = bits
        self._guide: tuple[Any, ...] | None = None
        self.full = int(bits.sum()) if self.S else 0
        self.reset()

    # ------------------------------------------------------------------ storage
    def reset(self) -> None:
        self.state_of: dict[int, int] = {}
        self.codes = np.zeros(16, dtype=np.int64)
        self.n_cov = np.zeros(16)
        self.cover = np.zeros((16, self.G))
        self.prot = np.zeros((16, self.G))
        self.w_lo = np.zeros(16, dtype=np.int64)
        self.span = np.zeros(16, dtype=np.int64)
        self.off = np.zeros(16, dtype=np.int64)
        self.trans = np.full((16, self.G), -1, dtype=np.int64)
        self.U = 0
        self.state_budget = max(MIN_STATES, STATE_BUDGET // max(1, self.G))
        self.rix = np.zeros(0, dtype=np.int64)  # row of (state, w − w_lo) at off[state] + (w − w_lo)
        self.reset_rows()

    def reset_rows(self) -> None:
        self.cum = np.zeros((64, self.G))
        self.tot = np.zeros(64)
        self.rows = 0
        self.rix[:] = -1

    def _grow_states(self, need: int) -> None:
        cap = self.codes.shape[0]
        if need <= cap:
            return
        new = max(need, 2 * cap)

        def grow(a: NDArray[Any], fill: Any) -> NDArray[Any]:
            out = np.full((new, *a.shape[1:]), fill, dtype=a.dtype)
            out[:cap] = a
            return out

        self.codes, self.n_cov, self.w_lo = grow(self.codes, 0), grow(self.n_cov, 0.0), grow(self.w_lo, 0)
        self.span, self.off = grow(self.span, 0), grow(self.off, 0)
        self.cover, self.prot, self.trans = grow(self.cover, 0.0), grow(self.prot, 0.0), grow(self.trans, -1)

    def states(self, codes: list[int], w_max: int, *, force: bool = False) -> list[int]:
        """State numbers of the given masks, creating (vectorised) the ones not seen yet
        (`force`: even beyond the budget, for the states the runs are in right now)."""
        new = [c for c in dict.fromkeys(codes) if c not in self.state_of]
        if new:
            if self.U + len(new) > self.state_budget and not force:
                raise _Overflow
            self._grow_states(self.U + len(new))
            sl = slice(self.U, self.U + len(new))
            code_arr = np.asarray(new, dtype=np.int64)
            alive = ((code_arr[:, None] & self.bits[None, :]) != 0).astype(np.float64)
            tab, mech = self.tab, self.mech
            ct = alive * tab.covered
            cp = mech.protected_alive(alive) * tab.protected
            cover = ct @ tab.removal.T
            prot = cp @ tab.removal.T
            n_cov = ct.sum(axis=1)
            thr = self.k * (cover + prot) - n_cov[:, None] + self.Delta
            thr = np.where(self.finite[None, :], thr, np.inf)
            lo = np.min(thr, axis=1)
            w_lo = np.where(np.isfinite(lo), np.floor(np.where(np.isfinite(lo), lo, 0.0)) - 1, -(2.0**53))
            self.codes[sl], self.cover[sl], self.prot[sl], self.n_cov[sl] = code_arr, cover, prot, n_cov
            self.w_lo[sl] = w_lo.astype(np.int64)
            for i, c in enumerate(new):
                self.state_of[c] = self.U + i
            self.U += len(new)
            self.span[sl] = 0
            self.ensure_span(np.arange(sl.start, sl.stop), w_max)
        return [self.state_of[c] for c in codes]

    def ensure_span(self, sts: NDArray[np.int64], w_max: int) -> None:
        """Make the row index of these states cover w up to `w_max`."""
        need = np.maximum(w_max - self.w_lo[sts] + 1, 1)
        grow = need > self.span[sts]
        if not np.any(grow):
            return
        span = self.span[: self.U].copy()
        span[sts[grow]] = need[grow] + 8
        old_off, old_span = self.off[: self.U].copy(), self.span[: self.U].copy()
        off = np.concatenate([[0], np.cumsum(span)[:-1]])
        rix = np.full(int(span.sum()), -1, dtype=np.int64)
        for s in np.flatnonzero(old_span):
            rix[off[s] : off[s] + old_span[s]] = self.rix[old_off[s] : old_off[s] + old_span[s]]
        self.rix, self.off[: self.U], self.span[: self.U] = rix, off, span

    def add_rows(self, st: NDArray[np.int64], d: NDArray[np.int64]) -> NDArray[np.int64]:
        """Compute the rows of (state, w − w_lo) pairs (unique), return their row numbers."""
        m = st.shape[0]
        if self.rows + m > self.cum.shape[0]:
            cap = max(self.rows + m, 2 * self.cum.shape[0])
            cum = np.zeros((cap, self.G))
            cum[: self.rows] = self.cum[: self.rows]
            tot = np.zeros(cap)
            tot[: self.rows] = self.tot[: self.rows]
            self.cum, self.tot = cum, tot
        w = (self.w_lo[st] + d).astype(np.float64)
        b = self.n_cov[st] + w - self.Delta
        logits = self.tab.log_base + self.eps * self.mech.score(self.cover[st], self.prot[st], b)
        mx = logits.max(axis=1, keepdims=True)
        cum = np.cumsum(np.exp(logits - mx), axis=1)
        rows = np.arange(self.rows, self.rows + m)
        self.cum[rows] = cum
        self.tot[rows] = cum[:, -1]
        self.rows += m
        self.rix[self.off[st] + d] = rows
        return rows

    def draw(self, row: NDArray[np.int64], u: NDArray[np.float64]) -> NDArray[np.int64]:
        """#(cum[row] ≤ u·tot[row]) per run, capped at G − 1 (the generic `categorical`)."""
        t = u * self.tot[row]
        G = self.G
        flat = self.cum.reshape(-1)
        if G <= TINY_G:  # one gather per column: no reduction over a short axis
            base = row * G
            pos = (flat[base] <= t).astype(np.int64)
            for j in range(1, G):
                pos += flat[base + j] <= t
            return np.minimum(pos, G - 1)
        if G <= SMALL_G:
            return np.minimum((self.cum[row] <= t[:, None]).sum(axis=1), G - 1)
        base = row * G - 1
        pos = np.zeros(row.shape[0], dtype=np.int64)
        s = 1 << (G.bit_length() - 1)
        while s:
            cand = pos + s
            v = flat[base + np.minimum(cand, G)]
            pos = np.where((cand <= G) & (v <= t), cand, pos)
            s >>= 1
        return np.minimum(pos, G - 1)

    def step_groups(
        self, st: NDArray[np.int64], w: NDArray[np.int64], u: NDArray[np.float64]
    ) -> NDArray[np.int64]:
        """One step's group per run: state `st`, noise draw `w`, uniform `u`."""
        d = w - self.w_lo[st]
        np.maximum(d, 0, out=d)
        idx = self.off[st] + d
        row = self.rix[idx]
        miss = row < 0
        if miss.any():
            if (self.rows + int(miss.sum())) * self.G > ROW_BUDGET:
                self.reset_rows()
                miss = np.ones(st.shape[0], dtype=bool)
            _, first = np.unique(idx[miss], return_index=True)  # each distinct idx's first run
            first_of = np.flatnonzero(miss)[first]
            self.add_rows(st[first_of], d[first_of])
            row = self.rix[idx]
        return self.draw(row, u)

    def advance(self, st: NDArray[np.int64], g: NDArray[np.int64], w_max: int) -> NDArray[np.int64]:
        """The states after deleting what group g removes (the base `delete`)."""
        key = st * self.G + g
        nxt = self.trans.reshape(-1)[key] if self.trans.shape[0] * self.G > 0 else key
        lost = nxt < 0
        if not lost.any():
            return nxt
        uniq = np.unique(key[lost])
        s_, g_ = uniq // self.G, uniq % self.G
        codes = self.codes[s_] & ~self.remmask[g_]
        try:
            made = self.states([int(c) for c in codes], w_max)
        except _Overflow:  # too many states: start afresh from the runs' masks
            run_codes = self.codes[st] & ~self.remmask[g]
            self.reset()
            uc, ui = np.unique(run_codes, return_inverse=True)
            made = self.states([int(c) for c in uc], w_max, force=True)
            return np.asarray(made, dtype=np.int64)[ui.reshape(-1)]
        self.trans[s_, g_] = made
        return self.trans.reshape(-1)[key]

    def within_group(self, groups: NDArray[np.int64], u: NDArray[np.float64]) -> NDArray[np.int64]:
        """The hypothesis inside each drawn group ∝ base: the generic engine's
        searchsorted(key, g + u) (exactly: a guide table answers where no key can fall in the
        query's cell, the searchsorted the rest)."""
        tab = self.tab
        H = tab.order.size
        guide = self.guide()
        x = groups + u
        if guide is None:
            pos = np.searchsorted(tab.key, x, side="right")
        else:
            M, lo, hi = guide
            cell = groups * M + (u * M).astype(np.int64)
            pos = lo[cell]
            bad = pos != hi[cell]
            if bad.any():
                pos[bad] = np.searchsorted(tab.key, x[bad], side="right")
        return tab.order[np.minimum(pos, H - 1)]

    def guide(self) -> tuple[int, NDArray[np.int64], NDArray[np.int64]] | None:
        """(M, lo, hi): for cell c of group g (u ∈ [c/M, (c+1)/M)), searchsorted(key, ·, right)
        at the cell's two ends widened by a margin far above the rounding of g + u; equal ends
        mean every query in the cell has that answer."""
        if self._guide is None:  # one guide per table, however many step tables are made on it
            self._guide = GUIDES.get((self.tab,), self.G, self._build_guide)
        return self._guide or None

    def _build_guide(self) -> tuple[Any, ...]:
        """The guide of `guide`, () when it would exceed `GUIDE_BUDGET`."""
        tab = self.tab
        sizes = np.bincount(tab.group_of, minlength=self.G)
        M = 1 << max(3, int(8 * sizes.max()).bit_length())
        if self.G * M > GUIDE_BUDGET:
            return ()
        edges = np.arange(self.G)[:, None] + np.arange(M + 1)[None, :] / M
        margin = 1e-9
        lo = np.searchsorted(tab.key, (edges[:, :-1] - margin).ravel(), side="right")
        hi = np.searchsorted(tab.key, (edges[:, 1:] + margin).ravel(), side="right")
        return (M, lo.astype(np.int64), hi.astype(np.int64))

    def removal_counts(self, h: NDArray[np.int64], removes: NDArray[np.bool_]) -> NDArray[np.int32]:
        """(R, P0): per run and probe point, #steps whose hypothesis removes it (histogram of
        the hypotheses' probe patterns, times the patterns)."""
        pats, pat_of = np.unique(removes, axis=0, return_inverse=True)
        pat_of = pat_of.reshape(-1)
        Pp = pats.shape[0]
        R = h.shape[1]
        out = np.empty((R, removes.shape[1]), dtype=np.int32)
        pf = pats.astype(np.float64)
        for r0 in range(0, R, RUN_CHUNK):
            r1 = min(R, r0 + RUN_CHUNK)
            hh = pat_of[h[:, r0:r1]] + (np.arange(r1 - r0) * Pp)[None, :]
            hist = np.bincount(hh.ravel(), minlength=(r1 - r0) * Pp).reshape(r1 - r0, Pp)
            out[r0:r1] = np.rint(hist @ pf).astype(np.int32)
        return out


class _Overflow(Exception):
    """More states than the table's budget: the caller clears it and maps the runs again."""


STEP_CHUNK = 16  # steps whose uniforms are drawn in one call (same stream as one call per step)
RUN_CHUNK = 1024  # runs per block of the removal-count histogram


def run(
    mech: SetCoverLearner,
    tab: Table,
    probe: NDArray[np.bool_],
    R: int,
    T: int,
    Tw: int,
    W: NDArray[np.float64],
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """`SetCoverLearner._run_generic` for the base hooks (see the module docstring)."""
    table = StepTable(mech, tab)
    Wi = W.astype(np.int64)
    w_max = int(Wi.max(initial=0))
    if table.rows * table.G > ROW_BUDGET:
        table.reset_rows()
    try:
        st = np.full(R, table.states([table.full], w_max)[0], dtype=np.int64)
    except _Overflow:
        table.reset()
        st = np.full(R, table.states([table.full], w_max)[0], dtype=np.int64)
    table.ensure_span(np.arange(table.U), w_max)
    groups = np.empty((T, R), dtype=np.int64)
    within = np.empty((T, R))
    for j0 in range(0, T, STEP_CHUNK):
        # the generic engine's two rng.random(R) per step (group, then within), in that order
        u = rng.random((min(STEP_CHUNK, T - j0), 2, R))
        for j in range(j0, min(T, j0 + STEP_CHUNK)):
            g = table.step_groups(st, Wi[:, j], u[j - j0, 0])
            groups[j] = g
            within[j] = u[j - j0, 1]
            st = table.advance(st, g, w_max)
    h = np.empty((T, R), dtype=np.int64)  # hypothesis ids, by blocks of steps (cache-sized arrays)
    for j0 in range(0, T, STEP_CHUNK):
        h[j0 : j0 + STEP_CHUNK] = table.within_group(
            groups[j0 : j0 + STEP_CHUNK], within[j0 : j0 + STEP_CHUNK]
        )
    return _outputs(mech, table, probe, h, Tw)


def _outputs(
    mech: SetCoverLearner, table: StepTable, probe: NDArray[np.bool_], h: NDArray[np.int64], Tw: int
) -> NDArray[np.float64]:
    """The generic engine's released columns from the (T, R) hypothesis ids."""
    T, R = h.shape
    removes = ~probe if mech.form == "and" else probe
    ids = np.full((R, Tw), -1.0)
    ids[:, :T] = h.T
    first = None
    if mech.first_removal_features:
        first = _first_removal(removes, h, Tw)
    if mech.count_features:
        count = table.removal_counts(h, removes)
        fin = count == 0 if mech.form == "and" else count > 0
    else:
        seen = _ever_removed(removes, h)
        count = None
        fin = ~seen if mech.form == "and" else seen
    parts = [first.astype(np.float64)] if first is not None else []
    if count is not None:
        parts.append(count.astype(np.float64))
    return np.concatenate([*parts, ids, fin.astype(np.float64)], axis=1)


PACKED_MAX = 63
"""Probe points whose removals `_ever_removed` and `_first_removal` track as bits of one int64."""


def _unpack(bits: NDArray[np.int64], width: int) -> NDArray[np.bool_]:
    return np.asarray((bits[:, None] >> np.arange(width, dtype=np.int64)) & 1, dtype=bool)


def _ever_removed(removes: NDArray[np.bool_], h: NDArray[np.int64]) -> NDArray[np.bool_]:
    """(R, P0): whether any of a run's hypotheses removes the probe point (OR over steps), on
    one int64 of bits per run where the probe fits: the same booleans as OR-ing the rows."""
    T, R = h.shape
    if removes.shape[1] > PACKED_MAX:
        seen = np.zeros((R, removes.shape[1]), dtype=bool)
        for j in range(T):
            seen |= removes[h[j]]
        return seen
    bits = _packed(removes)
    acc = np.zeros(R, dtype=np.int64)
    for j in range(T):
        acc |= bits[h[j]]
    return _unpack(acc, removes.shape[1])


def _first_removal(removes: NDArray[np.bool_], h: NDArray[np.int64], Tw: int) -> NDArray[np.int32]:
    """(R, P0): 1 + the first step whose hypothesis removes the probe point (Tw + 1: none). On
    bits where the probe fits: each step writes only the runs with a point removed for the first
    time, which is what writing every step from the last to the first leaves."""
    T, R = h.shape
    P0 = removes.shape[1]
    first = np.full((R, P0), Tw + 1, dtype=np.int32)
    if P0 > PACKED_MAX:
        for j in range(T - 1, -1, -1):
            first[removes[h[j]]] = j + 1  # the earliest step writes last
        return first
    bits = _packed(removes)
    acc = np.zeros(R, dtype=np.int64)
    for j in range(T):
        step = bits[h[j]]
        runs = np.flatnonzero(step & ~acc)
        if runs.size:
            new = _unpack(step[runs] & ~acc[runs], P0)
            block = first[runs]
            block[new] = j + 1
            first[runs] = block
            acc[runs] |= step[runs]
    return first
