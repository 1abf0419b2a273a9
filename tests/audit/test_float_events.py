"""Floating-point lattice events (Mironov 2012) and their distinguisher."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.engine.distinguishers import (
    DEFAULT_DISTINGUISHERS,
    FLOAT_DISTINGUISHERS,
    default_distinguishers,
)
from dpaudit.engine.distinguishers.floats import FloatDistinguisher, LatticeEvent, UlpResidueEvent, float_bits
from dpaudit.engine.distinguishers.selection import choose_event, event_from_spec


def test_float_bits_exact() -> None:
    x = np.array([0.0, 1.0, 0.75, 2.0**-53, 3 * 2.0**-60, -0.5, 5e-324, 6.0])
    e, v, t = float_bits(x)
    assert list(v[1:]) == [0, -2, -53, -60, -1, -1074, 1]
    assert list(e[1:4]) == [1, 0, -52]
    assert t[1] == 52 and t[0] == 53


def test_lattice_event_roundtrip_and_text() -> None:
    ev = LatticeEvent(bound=-2, lattice=-53, multiple=False, note="only from D")
    assert event_from_spec(ev.to_spec()) == ev
    assert "(−0.25, 0.25)" in ev.describe() and "not multiples of 2^-53" in ev.describe()
    ul = UlpResidueEvent(bound=0, zeros=3, multiple=True)
    assert event_from_spec(ul.to_spec()) == ul
    x = np.array([[0.1], [2.0**-54], [1.0 - 2.0**-53], [0.3]])
    assert list(ev.indicator(x)) == [True, True, False, False]


def test_naive_laplace_infinite_witness() -> None:
    rng = np.random.default_rng(0)
    a = rng.laplace(0, 1, 50_000)[:, None]
    b = (1.0 + rng.laplace(0, 1, 50_000))[:, None]
    sel = choose_event(a, b, certify_total=10**6, test_level=0.05, distinguishers=FLOAT_DISTINGUISHERS)
    assert isinstance(sel.event, LatticeEvent) and sel.projected > 5
    assert "only from D" in sel.event.describe()
    assert not np.any(sel.event.indicator(1.0 + rng.laplace(0, 1, 100_000)[:, None]))


def test_no_proposal_on_vectors_or_integers() -> None:
    rng = np.random.default_rng(1)
    d = FloatDistinguisher()
    assert d.propose(rng.normal(size=(100, 3)), rng.normal(size=(100, 3))) is None
    ints = rng.integers(0, 9, size=(100, 1)).astype(float)
    assert d.propose(ints, ints + 1) is None


@pytest.mark.parametrize("declared", [True, False])
def test_default_set_follows_declaration(declared: bool) -> None:
    class M:
        floating_point = declared

    want = FLOAT_DISTINGUISHERS if declared else DEFAULT_DISTINGUISHERS
    assert default_distinguishers(M()) == want
    assert default_distinguishers() == DEFAULT_DISTINGUISHERS
