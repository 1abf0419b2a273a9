"""Issue 42, build item 7: the gate's one-run `--resume` key sees the code (gate/code_key.py).
Two partials of different functions, two instances differing in settings, two closures of one
factory, and an edited helper in the training's module all get different keys; the same training
gets the same key."""

from __future__ import annotations

import functools
import importlib
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.gate.one_run import code_fingerprint, one_run_key
from dpaudit.app.gate.one_run_config import OneRunSpec
from dpaudit.engine.types import PrivacyClaim
from dpaudit.neighbors.base import Relation


def _train_a(included: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    return scale * included.astype(float)


def _train_b(included: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    return scale * included.astype(float) + rng.standard_normal(included.size)


class Trainer:
    def __init__(self, lr: float) -> None:
        self.lr = lr

    def __call__(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.lr * included.astype(float)

    def train(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self(included, rng)


def _factory(shift: float):  # type: ignore[no-untyped-def]
    def train(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return shift * included.astype(float)

    return train


def test_partials_of_different_functions_or_arguments_differ() -> None:
    a, b = functools.partial(_train_a, scale=2.0), functools.partial(_train_b, scale=2.0)
    assert code_fingerprint(a) != code_fingerprint(b)
    assert code_fingerprint(a) == code_fingerprint(functools.partial(_train_a, scale=2.0))
    assert code_fingerprint(a) != code_fingerprint(functools.partial(_train_a, scale=3.0))
    assert code_fingerprint(a) != code_fingerprint(_train_a)


def test_instances_differing_in_settings_differ() -> None:
    assert code_fingerprint(Trainer(0.1)) == code_fingerprint(Trainer(0.1))
    assert code_fingerprint(Trainer(0.1)) != code_fingerprint(Trainer(0.2))
    assert code_fingerprint(Trainer(0.1).train) != code_fingerprint(Trainer(0.2).train)


def test_closures_of_one_factory_differ() -> None:
    assert code_fingerprint(_factory(1.0)) == code_fingerprint(_factory(1.0))
    assert code_fingerprint(_factory(1.0)) != code_fingerprint(_factory(2.0))


def test_an_edited_helper_in_the_training_module_changes_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = textwrap.dedent(
        """
        def helper(x):
            return x * {factor}


        def train(included, rng):
            return helper(included * 1.0)
        """
    )
    module = tmp_path / "edited_training_mod.py"
    module.write_text(source.format(factor=1))
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("edited_training_mod")
    try:
        before = code_fingerprint(mod.train)
        assert code_fingerprint(importlib.reload(mod).train) == before
        module.write_text(source.format(factor=2))  # the helper changes; `train`'s source does not
        after = code_fingerprint(importlib.reload(mod).train)
        assert after != before
    finally:
        sys.modules.pop("edited_training_mod", None)


def _spec(train: object) -> OneRunSpec:
    claim = PrivacyClaim(epsilon=1.0, delta=0.0, relation=Relation.ADD_REMOVE_ONE, reference="test")
    return OneRunSpec(
        index=1,
        name="t",
        train_spec="m:train",
        train=train,  # type: ignore[arg-type]
        canaries=100,
        claim=claim,
        claim_flags=(("--epsilon", "1.0"),),
        method="fdp",
        designs=None,
        seed=0,
        failure_probability=0.05,
    )


def test_the_resume_key_uses_the_fingerprint() -> None:
    assert one_run_key(_spec(Trainer(0.1))) == one_run_key(_spec(Trainer(0.1)))
    assert one_run_key(_spec(Trainer(0.1))) != one_run_key(_spec(Trainer(0.2)))
