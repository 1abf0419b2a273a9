"""Worst-case generators: every pair is a neighbour pair in the domain (property tests)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpaudit.neighbors.base import (
    Dataset,
    Domain,
    NeighborPair,
    Relation,
    Subsampling,
    SubsamplingKind,
    is_neighbor,
)
from dpaudit.neighbors.generators import (
    MOVES,
    AmplificationMismatchError,
    BoundaryPairs,
    SubsamplingPairs,
    WorstCasePairs,
    _apply_move,
    _emit,
    _Space,
    admissible,
    boundary_sizes,
    changed_index,
    check_amplification,
    inclusion_probability,
    local_moves,
    pair_key,
    random_pair,
    size_jumps,
)


@st.composite
def subsamplings(draw: st.DrawFn) -> Subsampling:
    kind = draw(st.sampled_from(list(SubsamplingKind)))
    amp = draw(st.sampled_from([None, *Relation]))
    if kind is SubsamplingKind.NONE:
        return Subsampling(kind=kind)
    if kind is SubsamplingKind.POISSON:
        return Subsampling(kind=kind, rate=draw(st.floats(0.01, 1.0)), amplification_relation=amp)
    c = draw(st.floats(0.05, 1.0))
    m = draw(st.integers(1, 6))

    def fraction(n: int) -> int:
        return math.ceil(c * n)

    def constant(n: int) -> int:
        return m

    def log2(n: int) -> int:
        return math.ceil(math.log2(n))  # raises at n = 0: must be tolerated

    def capped(n: int) -> int:
        return min(n, m)

    size = draw(st.sampled_from([fraction, constant, log2, capped]))
    return Subsampling(kind=kind, size=size, amplification_relation=amp)


@st.composite
def domains(draw: st.DrawFn) -> Domain:
    d = draw(st.integers(1, 4))
    integer = draw(st.booleans())
    lo: float
    hi: float
    if integer:
        lo = draw(st.integers(-3, 2))
        hi = lo + draw(st.integers(0, 4))
    else:
        lo = draw(st.floats(-5, 1, allow_nan=False))
        hi = lo + draw(st.sampled_from([0.0, 0.5, 1.0, 7.5]))
    labels = draw(st.sampled_from([None, (0.0, 1.0), (-1.0, 1.0), (0.0, 1.0, 2.0), (3.0,)]))
    min_size = draw(st.integers(0, 5))
    max_size = draw(st.one_of(st.none(), st.integers(min_size, min_size + 12)))
    private_rows = None
    if draw(st.integers(0, 3)) == 0:  # a public part: the claim covers rows [start, stop) only
        start = draw(st.integers(0, 4))
        private_rows = (start, start + draw(st.integers(1, 4)))
    return Domain(
        num_features=d,
        feature_low=float(lo),
        feature_high=float(hi),
        integer_features=integer,
        labels=labels,
        min_size=min_size,
        max_size=max_size,
        ordered=draw(st.booleans()),
        subsampling=draw(subsamplings()),
        private_rows=private_rows,
    )


def _amplification_ok(domain: Domain, relation: Relation) -> bool:
    amp = domain.subsampling.amplification_relation
    return amp is None or relation.is_covered_by(amp)


def _only_private_rows_change(pair: NeighborPair, domain: Domain) -> bool:
    """Public rows are identical on both sides (and a public part rules out add/remove)."""
    if domain.private_rows is None:
        return True
    a, b = pair.dataset.records(), pair.neighbor.records()
    if a.shape != b.shape:
        return False
    changed = np.flatnonzero(np.any(a != b, axis=1))
    start, stop = domain.private_rows
    return bool(changed.size == 1 and start <= changed[0] < stop)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(domains(), st.sampled_from(list(Relation)))
def test_worst_case_pairs_are_neighbours_in_domain(domain: Domain, relation: Relation) -> None:
    gen = WorstCasePairs(max_rows=12, strict=True)  # strict: a family bug raises, not filtered
    if not _amplification_ok(domain, relation):
        with pytest.raises(AmplificationMismatchError):
            list(gen.pairs(domain, relation))
        return
    pairs = list(gen.pairs(domain, relation))
    keys = set()
    for pair in pairs:
        assert pair.relation is relation
        assert is_neighbor(pair) and admissible(pair, domain), pair.description
        assert domain.check(pair.dataset) is None and domain.check(pair.neighbor) is None
        assert _only_private_rows_change(pair, domain), pair.description
        assert pair.description and "template" in pair.tags
        keys.add(pair_key(pair))
    assert len(keys) == len(pairs)  # deduplicated
    for pair in SubsamplingPairs(max_rows=12, strict=True).pairs(domain, relation):
        assert admissible(pair, domain) and "subsampling" in pair.tags
        assert _only_private_rows_change(pair, domain), pair.description
    for pair in BoundaryPairs().pairs(domain, relation):
        assert admissible(pair, domain) and _only_private_rows_change(pair, domain), pair.description


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(domains(), st.sampled_from(list(Relation)), st.integers(0, 2**32 - 1))
def test_random_pairs_and_local_moves_are_admissible(domain: Domain, relation: Relation, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pair = random_pair(domain, relation, rng, max_rows=12)
    if pair is None:
        return
    assert admissible(pair, domain) and _only_private_rows_change(pair, domain)
    for moved in local_moves(pair, domain, rng, count=12, max_rows=12):
        assert moved.relation is relation
        assert is_neighbor(moved) and admissible(moved, domain), moved.description
        assert _only_private_rows_change(moved, domain), moved.description
        for again in local_moves(moved, domain, rng, count=4, max_rows=12):
            assert admissible(again, domain) and _only_private_rows_change(again, domain), again.description


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(domains(), st.sampled_from(list(Relation)), st.integers(0, 2**32 - 1))
def test_every_local_move_kind_yields_admissible_pairs(domain: Domain, relation: Relation, seed: int) -> None:
    """Each move of `MOVES` on its own (the new support / relabel-other / copy-other moves too)."""
    rng = np.random.default_rng(seed)
    pair = random_pair(domain, relation, rng, max_rows=12)
    if pair is None:
        return
    space = _Space.of(domain, 12)
    assert space is not None
    for move in MOVES:
        for _ in range(3):
            made = _apply_move(space, pair, move, rng)
            if made is None:
                continue
            placed = space.privatise(made[0], made[1])
            if placed is None:
                continue
            cand = _emit(space, placed[0], placed[1], relation, f"move {move}", ("search", move))
            if cand is None:
                continue
            # a move may leave the domain (e.g. n + 1 above max_size): local_moves filters those;
            # whatever passes the filter must be a neighbour pair changing private rows only
            if admissible(cand, domain):
                assert is_neighbor(cand) and _only_private_rows_change(cand, domain), cand.description


def test_templates_cover_the_families_on_a_typical_domain() -> None:
    domain = Domain(
        num_features=2,
        feature_low=-1.0,
        feature_high=3.0,
        labels=(0.0, 1.0),
        min_size=0,
        max_size=40,
        ordered=True,
        subsampling=Subsampling(kind=SubsamplingKind.WITHOUT_REPLACEMENT, size=lambda n: min(n, 4)),
    )
    for relation in Relation:
        tags = {t for p in WorstCasePairs(strict=True).pairs(domain, relation) for t in p.tags}
        assert {"extreme", "tiny", "size-boundary", "duplicate", "stream", "subsampling"} <= tags, relation
        positions = {t for t in tags if t.startswith("position:")}
        assert {"position:first", "position:middle", "position:last"} <= positions
    replace = list(WorstCasePairs().pairs(domain, Relation.REPLACE_ONE))
    assert any("conflict" in p.tags for p in replace)
    add = list(WorstCasePairs().pairs(domain, Relation.ADD_REMOVE_ONE))
    assert any(min(p.dataset.n, p.neighbor.n) == 0 for p in add)  # empty vs singleton
    sub = [p.description for p in SubsamplingPairs().pairs(domain, Relation.REPLACE_ONE)]
    assert any("certain to be drawn" in d and "n=4" in d for d in sub)  # n = subsample size
    assert any("unlikely to be drawn" in d for d in sub)
    assert any("copies of the changed record" in d for d in sub)


def test_size_jumps_and_boundary_sizes_follow_the_size_function() -> None:
    size = lambda n: math.ceil(0.3 * n)  # noqa: E731
    jumps = size_jumps(size, 1, 40, limit=100)
    assert jumps == tuple(n for n in range(2, 41) if size(n) != size(n - 1))
    domain = Domain(
        num_features=1,
        min_size=2,
        max_size=30,
        subsampling=Subsampling(kind=SubsamplingKind.WITHOUT_REPLACEMENT, size=size),
    )
    sizes = boundary_sizes(domain, Relation.REPLACE_ONE)
    assert all(2 <= n <= 30 for n in sizes)
    for n in jumps[:4]:
        assert n in sizes and n - 1 in sizes
    add_sizes = boundary_sizes(domain, Relation.ADD_REMOVE_ONE)
    assert all(2 <= n <= 29 for n in add_sizes)  # n + 1 must fit too
    # a log size function that raises at n = 0 is tolerated
    assert size_jumps(lambda n: math.ceil(math.log2(n)), 0, 20) == (2, 3, 5, 9, 17)


def test_inclusion_probability() -> None:
    wor = Subsampling(kind=SubsamplingKind.WITHOUT_REPLACEMENT, size=lambda n: 3)
    wr = Subsampling(kind=SubsamplingKind.WITH_REPLACEMENT, size=lambda n: 3)
    assert inclusion_probability(wor, 3) == 1.0 and inclusion_probability(wor, 6) == 0.5
    assert inclusion_probability(wr, 1) == 1.0
    assert inclusion_probability(wr, 4) == pytest.approx(1 - 0.75**3)
    assert inclusion_probability(Subsampling(kind=SubsamplingKind.POISSON, rate=0.2), 9) == 0.2


def test_check_amplification_is_an_explicit_one_line_error() -> None:
    domain = Domain(
        num_features=1,
        subsampling=Subsampling(
            kind=SubsamplingKind.WITHOUT_REPLACEMENT,
            size=lambda n: max(1, n // 2),
            amplification_relation=Relation.REPLACE_ONE,
        ),
    )
    check_amplification(domain, Relation.REPLACE_ONE)
    check_amplification(domain, Relation.RELABEL_ONE)  # covered by replace-one
    with pytest.raises(ValueError, match="add_remove_one") as info:
        check_amplification(domain, Relation.ADD_REMOVE_ONE)
    assert isinstance(info.value, AmplificationMismatchError)
    assert "\n" not in str(info.value)
    with pytest.raises(AmplificationMismatchError):
        list(WorstCasePairs().pairs(domain, Relation.ADD_REMOVE_ONE))


def test_changed_index_and_boundary_pairs_still_work() -> None:
    domain = Domain(num_features=1, min_size=1, max_size=10, ordered=True)
    for pair in WorstCasePairs().pairs(domain, Relation.REPLACE_ONE):
        i = changed_index(pair)
        assert not np.array_equal(pair.dataset.X[i], pair.neighbor.X[i])
    for relation in Relation:
        for pair in BoundaryPairs().pairs(domain, relation):
            assert admissible(pair, domain)


def test_cluster_family_builds_lone_records_and_new_support_points() -> None:
    domain = Domain(
        num_features=1,
        feature_low=0.0,
        feature_high=15.0,
        integer_features=True,
        labels=(0.0, 1.0),
        min_size=32,
        max_size=32,
        ordered=True,
    )
    pairs = list(WorstCasePairs(strict=True).pairs(domain, Relation.REPLACE_ONE))
    cluster = [p for p in pairs if "cluster" in p.tags]
    assert len(cluster) >= 40
    # the canonical one: a lone record next to a cluster moves to the far corner, label flipped
    wanted = [
        p
        for p in cluster
        if p.neighbor.X[changed_index(p), 0] == 15.0
        and p.dataset.X[changed_index(p), 0] not in set(np.delete(p.dataset.X[:, 0], changed_index(p)))
        and p.dataset.y[changed_index(p)] != p.neighbor.y[changed_index(p)]  # type: ignore[index]
    ]
    assert wanted
    # and it comes early in the merged order (a capped pilot pool sees it)
    first = next(i for i, p in enumerate(pairs) if p is wanted[0] or pair_key(p) == pair_key(wanted[0]))
    assert first < 40


def test_private_rows_are_respected_and_templates_are_moved_into_them() -> None:
    domain = Domain(
        num_features=1,
        feature_low=0.0,
        feature_high=7.0,
        integer_features=True,
        labels=(0.0, 1.0),
        min_size=24,
        max_size=24,
        ordered=True,
        private_rows=(0, 4),
    )
    assert list(WorstCasePairs().pairs(domain, Relation.ADD_REMOVE_ONE)) == []  # never covered
    pairs = list(WorstCasePairs(strict=True).pairs(domain, Relation.REPLACE_ONE))
    assert len(pairs) > 50
    for p in pairs:
        assert changed_index(p) < 4 and domain.check_pair(p) is None
    # a template whose change sat in a public row keeps its records: only the order changes
    moved = [p for p in BoundaryPairs().pairs(domain, Relation.REPLACE_ONE)]
    assert moved and all(changed_index(p) < 4 for p in moved)
    # random pairs and local moves stay in the private rows too
    rng = np.random.default_rng(5)
    for _ in range(20):
        r = random_pair(domain, Relation.REPLACE_ONE, rng)
        assert r is not None and changed_index(r) < 4
        for q in local_moves(r, domain, rng, count=8):
            assert changed_index(q) < 4 and domain.check_pair(q) is None


def test_admissible_rejects_a_pair_changing_a_public_row() -> None:
    domain = Domain(num_features=1, min_size=3, max_size=3, private_rows=(0, 1))
    a = Dataset(np.zeros((3, 1)))
    b = Dataset(np.array([[0.0], [0.0], [1.0]]))
    pair = NeighborPair(dataset=a, neighbor=b, relation=Relation.REPLACE_ONE, description="public change")
    assert is_neighbor(pair) and not admissible(pair, domain)


def test_boundary_add_template_also_adds_the_record_the_rest_argues_against() -> None:
    """On labelled data the add/remove template adds the high-corner record with the last label
    and with the rest's label: for a model linear in x the rest at the low corner labelled y0 has
    the gradient of the high corner labelled y1, so only the second record stays clipped."""
    domain = Domain(num_features=2, feature_low=-3.0, feature_high=3.0, labels=(0.0, 1.0))
    pairs = [p for p in BoundaryPairs().pairs(domain, Relation.ADD_REMOVE_ONE) if "face" not in p.tags]
    assert [p.description for p in pairs] == [
        "add a record at the high corner",
        "add a record at the high corner, labelled like the rest",
    ]
    for pair, label in zip(pairs, (1.0, 0.0), strict=True):
        assert np.array_equal(pair.neighbor.X[-1], [3.0, 3.0]) and pair.neighbor.y[-1] == label
        assert np.all(pair.dataset.X == -3.0) and np.all(pair.dataset.y == 0.0)
    # the second's rest is large (it holds θ·x on the record's saturated side), within max_size
    from dpaudit.neighbors.boundary import CONFLICT_REST

    assert [p.dataset.n for p in pairs] == [BoundaryPairs().base_size - 1, CONFLICT_REST]
    small = dataclasses.replace(domain, max_size=CONFLICT_REST)
    conflict = [p for p in BoundaryPairs().pairs(small, Relation.ADD_REMOVE_ONE) if "conflict" in p.tags]
    assert [p.dataset.n for p in conflict] == [BoundaryPairs().base_size - 1]
    unlabelled = Domain(num_features=2, feature_low=-3.0, feature_high=3.0)
    assert [p.description for p in BoundaryPairs().pairs(unlabelled, Relation.ADD_REMOVE_ONE)][:1] == [
        "add a record at the high corner"
    ]


def test_boundary_templates_include_the_gradient_canary_of_a_symmetric_box() -> None:
    """A record at the centre of x₀'s high face (C·e₁ when the box is [−C, C]^d) for a domain that
    declares subsampling: added to the empty dataset, or moved from the opposite face; one per
    relation, tagged "face"; none on a one-feature box (its faces are its corners), for
    relabel-one, or without subsampling."""
    poisson = Subsampling(kind=SubsamplingKind.POISSON, rate=0.1)
    domain = Domain(num_features=3, feature_low=-4.0, feature_high=4.0, subsampling=poisson)
    plain = Domain(num_features=3, feature_low=-4.0, feature_high=4.0)
    assert not any("face" in p.tags for r in Relation for p in BoundaryPairs().pairs(plain, r))
    add = [p for p in BoundaryPairs().pairs(domain, Relation.ADD_REMOVE_ONE) if "face" in p.tags]
    assert len(add) == 1 and add[0].dataset.n == 0
    assert np.array_equal(add[0].neighbor.X, [[4.0, 0.0, 0.0]])
    rep = [p for p in BoundaryPairs().pairs(domain, Relation.REPLACE_ONE) if "face" in p.tags]
    assert len(rep) == 1 and rep[0].dataset.n == rep[0].neighbor.n == 1
    assert {tuple(rep[0].dataset.X[0]), tuple(rep[0].neighbor.X[0])} == {(-4.0, 0.0, 0.0), (4.0, 0.0, 0.0)}
    assert not any("face" in p.tags for p in BoundaryPairs().pairs(domain, Relation.RELABEL_ONE))
    line = Domain(num_features=1, feature_low=-4.0, feature_high=4.0, subsampling=poisson)
    assert not any("face" in p.tags for r in Relation for p in BoundaryPairs().pairs(line, r))
    # a minimum size keeps the dataset non-empty: the record joins a centre filler instead
    sized = Domain(num_features=2, feature_low=0.0, feature_high=1.0, min_size=3, subsampling=poisson)
    (face,) = [p for p in BoundaryPairs().pairs(sized, Relation.ADD_REMOVE_ONE) if "face" in p.tags]
    assert face.dataset.n == 4 and np.all(face.dataset.X == 0.5)
    assert np.array_equal(face.neighbor.X[-1], [1.0, 0.5])


def test_face_family_covers_each_feature_and_label() -> None:
    from dpaudit.neighbors.face_templates import FEATURES, face_records
    from dpaudit.neighbors.space import Space

    labelled = Space.of(Domain(num_features=5, feature_low=-1.0, feature_high=1.0, labels=(0.0, 1.0)), 8)
    assert labelled is not None
    records = face_records(labelled)
    assert len(records) == FEATURES * 2
    for _, hi, lo in records:
        assert hi[-1] == lo[-1] and np.count_nonzero(hi[:-1]) == 1 and np.array_equal(hi[:-1], -lo[:-1])


def test_boundary_templates_include_the_linear_regression_canary_of_an_unlabelled_box() -> None:
    """On an unlabelled box of ≥ 3 features that declares subsampling, the boundary templates
    also hold the first response edge: x₀ at its high face, the last feature (a regression's
    response) at its low face, the rest at the centre; added to the empty dataset, or reached by
    moving the response from its high face. Its squared-loss gradient at θ = 0 lies along e₀, which
    no corner's or face centre's does. None on a labelled box or one of two features."""
    poisson = Subsampling(kind=SubsamplingKind.POISSON, rate=0.1)
    domain = Domain(num_features=3, feature_low=-4.0, feature_high=4.0, subsampling=poisson)
    (add,) = [p for p in BoundaryPairs().pairs(domain, Relation.ADD_REMOVE_ONE) if "edge" in p.tags]
    assert add.dataset.n == 0 and np.array_equal(add.neighbor.X, [[4.0, 0.0, -4.0]])
    x, y = add.neighbor.X[0, :2], add.neighbor.X[0, 2]
    assert np.count_nonzero(-y * x) == 1  # the squared loss's gradient (θ·x − y)·x at θ = 0
    (rep,) = [p for p in BoundaryPairs().pairs(domain, Relation.REPLACE_ONE) if "edge" in p.tags]
    assert {tuple(rep.dataset.X[-1]), tuple(rep.neighbor.X[-1])} == {(4.0, 0.0, 4.0), (4.0, 0.0, -4.0)}
    labelled = Domain(
        num_features=3, feature_low=-4.0, feature_high=4.0, labels=(0.0, 1.0), subsampling=poisson
    )
    flat = Domain(num_features=2, feature_low=-4.0, feature_high=4.0, subsampling=poisson)
    for other in (labelled, flat):
        assert not any("edge" in p.tags for r in Relation for p in BoundaryPairs().pairs(other, r))


def test_face_family_holds_response_edges_of_each_feature_but_the_last() -> None:
    from dpaudit.neighbors.face_templates import FEATURES, edge_records
    from dpaudit.neighbors.space import Space

    space = Space.of(Domain(num_features=5, feature_low=-1.0, feature_high=1.0), 8)
    assert space is not None
    records = edge_records(space)
    assert len(records) == FEATURES
    for j, (_, low, high) in enumerate(records):
        assert low[j] == high[j] == 1.0 and low[-1] == -1.0 and high[-1] == 1.0
        assert np.count_nonzero(low) == 2
