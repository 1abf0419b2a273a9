"""Worst-case generators: every pair is a neighbour pair in the domain (property tests)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neighbors.base import Domain, Relation, Subsampling, SubsamplingKind
from neighbors.generators import (
    AmplificationMismatchError,
    BoundaryPairs,
    SubsamplingPairs,
    WorstCasePairs,
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
    size = draw(
        st.sampled_from(
            [
                lambda n, c=c: math.ceil(c * n),
                lambda n, m=m: m,
                lambda n: math.ceil(math.log2(n)),  # raises at n = 0: must be tolerated
                lambda n, m=m: min(n, m),
            ]
        )
    )
    return Subsampling(kind=kind, size=size, amplification_relation=amp)


@st.composite
def domains(draw: st.DrawFn) -> Domain:
    d = draw(st.integers(1, 4))
    integer = draw(st.booleans())
    if integer:
        lo = draw(st.integers(-3, 2))
        hi = lo + draw(st.integers(0, 4))
    else:
        lo = draw(st.floats(-5, 1, allow_nan=False))
        hi = lo + draw(st.sampled_from([0.0, 0.5, 1.0, 7.5]))
    labels = draw(st.sampled_from([None, (0.0, 1.0), (-1.0, 1.0), (0.0, 1.0, 2.0), (3.0,)]))
    min_size = draw(st.integers(0, 5))
    max_size = draw(st.one_of(st.none(), st.integers(min_size, min_size + 12)))
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
    )


def _amplification_ok(domain: Domain, relation: Relation) -> bool:
    amp = domain.subsampling.amplification_relation
    return amp is None or relation.is_covered_by(amp)


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
        assert admissible(pair, domain), pair.description
        assert pair.description and "template" in pair.tags
        keys.add(pair_key(pair))
    assert len(keys) == len(pairs)  # deduplicated
    for pair in SubsamplingPairs(max_rows=12, strict=True).pairs(domain, relation):
        assert admissible(pair, domain) and "subsampling" in pair.tags


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(domains(), st.sampled_from(list(Relation)), st.integers(0, 2**32 - 1))
def test_random_pairs_and_local_moves_are_admissible(domain: Domain, relation: Relation, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pair = random_pair(domain, relation, rng, max_rows=12)
    if pair is None:
        return
    assert admissible(pair, domain)
    for moved in local_moves(pair, domain, rng, count=6, max_rows=12):
        assert moved.relation is relation
        assert admissible(moved, domain), moved.description
        for again in local_moves(moved, domain, rng, count=2, max_rows=12):
            assert admissible(again, domain), again.description


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
