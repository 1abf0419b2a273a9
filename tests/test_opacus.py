"""The Opacus adapter (`dpaudit[opacus]`): without Opacus (the system python) the registry and
`dpaudit list` work and `dpaudit run opacus_…` is exit 2 with one line; with Opacus (run with a
python that has it: `pytest.importorskip`) the mechanism, its claim and the one-run target."""

from __future__ import annotations

import importlib.util
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

from dpaudit.mechanisms.opacus import INSTALL_MESSAGE, PRESETS, UNAVAILABLE
from dpaudit.mechanisms.opacus.common import loader_rates

HAVE_OPACUS = importlib.util.find_spec("opacus") is not None


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dpaudit", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_loader_rates_are_opacus_formula() -> None:
    assert loader_rates(95, 10) == (0.1, 9)
    assert loader_rates(96, 10) == (0.1, 9)
    assert loader_rates(100, 10) == (0.1, 10)
    assert loader_rates(101, 10) == (1 / 11, 9)


@pytest.mark.skipif(HAVE_OPACUS, reason="checks the behaviour without Opacus installed")
def test_without_opacus_run_is_exit_2_one_line_and_list_works() -> None:
    assert set(UNAVAILABLE) == set(PRESETS)
    out = _cli("run", "opacus_poisson_canary", "--num-samples", "10")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(INSTALL_MESSAGE), out.stderr
    assert "needs the opacus extra: pip install 'dpaudit[opacus]'" in lines[0]
    listed = _cli("list")
    assert listed.returncode == 0 and "laplace_sum" in listed.stdout and "opacus_" not in listed.stdout
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, dpaudit; from dpaudit.mechanisms.registry import entries; "
            "entries(); print('torch' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert probe.stdout.strip() == "False"


def test_registry_never_imports_torch() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, dpaudit; from dpaudit.mechanisms.registry import entries; "
            "e = entries(); print('torch' in sys.modules, 'opacus' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert probe.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------------------- with Opacus


def _torch() -> object:
    pytest.importorskip("opacus")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch


def test_presets_registered_with_opacus() -> None:
    _torch()
    from dpaudit.mechanisms.registry import entries

    table = entries()
    assert all(name in table and table[name].family == "opacus" for name in PRESETS)
    assert not UNAVAILABLE


def test_claim_equals_a_trained_engines_own_epsilon() -> None:
    _torch()
    from dpaudit.mechanisms.opacus import training
    from dpaudit.mechanisms.opacus.mechanism import OpacusDPSGD

    mech = OpacusDPSGD(steps=4, accountant="rdp", name="opacus_test")
    pair = mech.neighbor_pairs()[0]
    hook = (np.any(pair.dataset.X[:, -1:] != 0, axis=1), pair.dataset.X[:, -1:].copy())
    hyper = training.Hyper(
        noise_multiplier=1.0,
        max_grad_norm=1.0,
        batch_size=10,
        steps=4,
        poisson_sampling=True,
        learning_rate=0.5,
        accountant="rdp",
    )
    run = training.train_once(
        pair.dataset.X, pair.dataset.y, hook, hyper=hyper, seed=3, num_canary_columns=1, epsilon_delta=1e-5
    )
    assert run.epsilon is not None and math.isclose(run.epsilon, mech.claim.epsilon, rel_tol=1e-9)
    assert run.sample_rate == mech.sample_rate == 0.1 and run.expected_batch_size == 9
    assert "Opacus" in mech.claim.reference and mech.claim.relation.value == "add_remove_one"


def test_sample_seeded_pickles_and_canary_shifts_updates() -> None:
    _torch()
    from dpaudit.mechanisms.opacus.mechanism import OpacusDPSGD

    mech = OpacusDPSGD(steps=5, accountant="rdp", name="opacus_test")
    pair = mech.neighbor_pairs()[0]
    a = mech.sample(pair.dataset, 40, rng=np.random.default_rng(1))
    b = pickle.loads(pickle.dumps(mech)).sample(pair.dataset, 40, rng=np.random.default_rng(1))
    c = mech.sample(pair.neighbor, 40, rng=np.random.default_rng(1))
    assert a.shape == (40, 5) and np.array_equal(a, b)
    step = 1.0 / mech.expected_batch_size  # the canary's released contribution C/B̂ when sampled
    diff = a - c  # same seeds: same batches for the rest and same noise, so 0 or the canary's shift
    assert np.all(np.isclose(diff, 0.0, atol=1e-9) | np.isclose(diff, step, rtol=1e-4))
    assert np.isclose(diff, step, rtol=1e-4).any()


@pytest.mark.parametrize(
    "params", [{"poisson_sampling": False}, {"view": "score"}, {"canary": "input", "view": "score"}]
)
def test_variants_sample(params: dict[str, object]) -> None:
    _torch()
    from dpaudit.mechanisms.opacus.mechanism import OpacusDPSGD

    mech = OpacusDPSGD(steps=3, accountant="rdp", name="opacus_test", **params)  # type: ignore[arg-type]
    pair = mech.neighbor_pairs()[0]
    out = mech.sample(pair.dataset, 10, rng=np.random.default_rng(0))
    assert out.shape[0] == 10 and np.all(np.isfinite(out))


def test_shuffled_canary_is_in_exactly_one_step_per_epoch() -> None:
    _torch()
    from dpaudit.mechanisms.opacus.mechanism import OpacusDPSGD

    mech = OpacusDPSGD(steps=10, poisson_sampling=False, accountant="rdp", name="opacus_test")
    pair = mech.neighbor_pairs()[0]
    diff = mech.sample(pair.dataset, 5, rng=np.random.default_rng(2)) - mech.sample(
        pair.neighbor, 5, rng=np.random.default_rng(2)
    )
    assert mech.claim.kind.value == "stated"
    # one more record changes the whole permutation, so the two sides' batches differ everywhere:
    # only the shape and the claim's kind (Opacus' Poisson ε stated for shuffling) are checked
    assert diff.shape == (5, 10) and np.all(np.isfinite(diff))


def test_bad_sizes_are_refused() -> None:
    from dpaudit.mechanisms.opacus.mechanism import OpacusDPSGD

    with pytest.raises(ValueError, match="same q"):
        OpacusDPSGD(rest_size=100, batch_size=10)


def test_one_run_target_scores_included_canaries_higher() -> None:
    _torch()
    from dpaudit.mechanisms.opacus.one_run import OpacusOneRun

    target = OpacusOneRun(num_canaries=200, rest_size=200, batch_size=40, steps=20, accountant="rdp")
    bits = np.random.default_rng(0).random(200) < 0.5
    scores = target(bits, np.random.default_rng(1))
    assert scores.shape == (200,) and np.all(np.isfinite(scores))
    assert scores[bits].mean() > scores[~bits].mean()
    with pytest.raises(ValueError, match="canaries"):
        target(bits[:10], np.random.default_rng(1))


def test_one_run_cli_with_opacus() -> None:
    _torch()
    out = _cli("one-run", "dpaudit.mechanisms.opacus.one_run:train", "--seed", "0")
    assert out.returncode in (0, 1), out.stderr
    assert "certified ε ≥" in out.stdout
