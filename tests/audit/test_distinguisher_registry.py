"""The distinguisher registry (issue 43): the sets are queries over self-registered classes, the
pilot takes the cheap ones, and ARCHITECTURE.md's worked example is one file that needs no other
edit (this test runs the very code block of ARCHITECTURE.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import dpaudit.engine.distinguishers as wing
from dpaudit.engine.distinguishers import registry
from dpaudit.engine.events import EVENT_TYPES, event_from_spec, event_type
from dpaudit.engine.search.procedure import _pilot_distinguishers

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- worked example: tiny distinguisher -->\n```python\n"


def _worked_example(tmp_path: Path) -> ModuleType:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index(MARKER) + len(MARKER)
    path = tmp_path / "parity_example.py"
    path.write_text(text[start : text.index("```\n", start)], encoding="utf-8")
    spec = importlib.util.spec_from_file_location("parity_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["parity_example"] = module  # dataclasses resolve annotations through it
    spec.loader.exec_module(module)
    return module


def test_the_worked_example_joins_the_default_set_and_the_pilot(tmp_path: Path) -> None:
    with registry.scratch():
        example = _worked_example(tmp_path)
        names = [d.name for d in wing.default_distinguishers()]
        assert names[:3] == ["histogram", "threshold", "parity"]  # rank 25: after the thresholds
        pilot = [d.name for d in _pilot_distinguishers(wing.default_distinguishers(), None)]
        assert pilot == ["histogram", "threshold", "parity", "magnitude"]
        assert wing.is_cheap(example.ParityDistinguisher())
        event = event_from_spec({"type": "parity", "even": True})
        assert event.indicator(np.array([0.0, 1.0, 2.0, 2.6])).tolist() == [True, False, True, False]
        a = np.array([[0.0], [2.0], [4.0], [1.0]] * 500)  # three in four even
        b = np.array([[1.0], [3.0], [5.0], [0.0]] * 500)  # one in four even
        chosen = wing.choose_event(
            a,
            b,
            certify_total=10_000,
            test_level=0.05,
            distinguishers=[example.ParityDistinguisher()],
        )
        assert chosen.distinguisher == "parity" and chosen.event == example.ParityEvent(True)
    assert "parity" not in EVENT_TYPES
    assert "parity" not in [d.name for d in wing.default_distinguishers()]


def test_the_sets_keep_the_order_of_the_former_lists() -> None:
    learned = [
        "logistic",
        "logistic-squared",
        "projection",
        "trajectory-llr",
        "thin-support",
        "quadratic-llr",
    ]
    base = ["histogram", "threshold", "magnitude"]  # magnitude (issue 44): rank 28, before the learned
    assert [d.name for d in wing.base_distinguishers()] == base
    assert [d.name for d in wing.learned_distinguishers()] == learned
    assert [d.name for d in wing.DEFAULT_DISTINGUISHERS] == [*base, *learned]
    assert [d.name for d in wing.FLOAT_DISTINGUISHERS] == [*base, *learned, "float_bits"]
    assert wing.default_distinguishers(floating_point=True) == wing.FLOAT_DISTINGUISHERS


def test_the_pilot_takes_the_cheap_ones_only() -> None:
    class Unregistered:
        name = "mine"

        def propose(self, a: object, b: object) -> None:
            return None

    statistic = wing.StatisticDistinguisher(())
    given = [*wing.FLOAT_DISTINGUISHERS, statistic, Unregistered()]
    assert [d.name for d in wing.pilot_distinguishers(given)] == [
        "histogram",
        "threshold",
        "magnitude",
        "float_bits",
        "np_statistic",
    ]
    learned = list(wing.learned_distinguishers())
    assert wing.pilot_distinguishers(learned) == learned  # nothing cheap: the pilot uses them all


def test_every_registered_class_names_registered_event_types() -> None:
    for entry in registry.registered():
        for key in entry.capabilities.event_types:
            assert key in EVENT_TYPES, (entry.cls.__name__, key)


def test_every_module_of_the_wing_is_imported() -> None:
    folder = Path(wing.__file__).parent
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        name = ".".join([wing.__name__, *(p for p in parts if p != "__init__")])
        assert name in sys.modules, name


def test_an_event_type_key_is_taken_once() -> None:
    with registry.scratch(), pytest.raises(ValueError, match="already registered"):

        @event_type("threshold")
        class Other:
            @classmethod
            def from_spec(cls, spec: dict[str, object]) -> Other:
                return cls()


def test_capabilities_are_checked() -> None:
    with pytest.raises(ValueError, match="not cheap"):
        registry.Capabilities(cost=registry.CHEAP, event_types=(), fits=True)
    with pytest.raises(ValueError, match="cost"):
        registry.Capabilities(cost="quick", event_types=())


def test_learned_statistic_events_read_their_legacy_type() -> None:
    from dpaudit.engine.distinguishers.learned.fitted import FittedEvent

    event = FittedEvent(weights=(1.0,), columns=(0,), center=(0.0,), scale=(1.0,), threshold=0.5, upper=True)
    spec = event.to_spec()
    assert spec["type"] == "learned-statistic"
    assert event_from_spec({**spec, "type": "score"}) == event  # results written before issue 43
