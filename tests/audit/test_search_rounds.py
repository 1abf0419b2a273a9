"""The sequential default route's search in two rounds (`dpaudit.app.route._search_rounds`) and
the futility horizon it sets on the first round (`AuditConfig.futility_scale`)."""

from __future__ import annotations

import dataclasses

import pytest

import dpaudit
from dpaudit.app.baseline import recount_samples
from dpaudit.app.route import SEARCH_FIRST, SEARCH_FIRST_SHARE, Route, certify, round_seed
from dpaudit.app.summary import samples_sentence
from dpaudit.engine.runner import run_audit
from dpaudit.engine.runner.stopping import FUTILITY
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import resolve
from tests.audit.test_sequential import Slack


def test_a_horizon_beyond_the_cap_delays_futility() -> None:
    m = Slack()
    config = AuditConfig(num_samples=100_000, seed=0, sequential=True)
    near = run_audit(m, list(m.neighbor_pairs()), config, show_progress=False)  # type: ignore[arg-type]
    far_config = dataclasses.replace(config, futility_scale=1e6)
    far = run_audit(m, list(m.neighbor_pairs()), far_config, show_progress=False)  # type: ignore[arg-type]
    a, b = near.extra["sequential"], far.extra["sequential"]
    assert isinstance(a, dict) and isinstance(b, dict)
    assert a["reason"] == FUTILITY
    # the projection to a million times the cap keeps the claim within reach longer (the
    # selection rounds of given pairs each judge futility there)
    assert int(b["drawn"]) > int(a["drawn"])
    assert not far.violation and far.epsilon_lower_bound <= 0.5


def test_futility_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="futility"):
        AuditConfig(futility_scale=0.5)
    with pytest.raises(ValueError, match="futility"):
        AuditConfig(futility_level=0.0)


def test_a_correct_learner_with_slack_stops_after_the_first_search_round() -> None:
    r = dpaudit.audit("private_decision_list", sequential=True)
    rounds, search = r.extra["search_rounds"], r.extra["search"]
    assert isinstance(rounds, dict) and isinstance(search, dict)
    assert rounds["decided"] and rounds["reason"] == FUTILITY and not r.violation
    assert rounds["seed"] == round_seed(0) != r.seed == 0
    # the result is the first round's: its budget, a quarter of what the search had
    asked = int(rounds["asked"])
    assert int(rounds["cap"]) == int(SEARCH_FIRST * asked) and search["asked"] == rounds["cap"]
    assert r.failure_probability == pytest.approx(0.05)
    assert r.test_level <= 0.05 * 3 / 4 * SEARCH_FIRST_SHARE  # its share of the search's share
    assert "a first search round (a budget of 200,000 per side and pair) decided" in samples_sentence(r)
    # the gate's witness re-count keeps the power one search on the whole budget would plan
    seq = r.extra["sequential"]
    assert isinstance(seq, dict)
    assert recount_samples(r) == int(seq["cap"]) * asked // int(rounds["cap"]) > int(seq["cap"])


def test_an_undecided_first_round_is_followed_by_a_second_on_the_rest() -> None:
    mechanism, _ = resolve("randomized_response", {})
    config = AuditConfig(num_samples=150_000, seed=1, sequential=True)
    r = certify(mechanism, config, Route(mode="all"), show_progress=False).result
    rounds, search = r.extra["search_rounds"], r.extra["search"]
    assert isinstance(rounds, dict) and isinstance(search, dict)
    assert not rounds["decided"] and rounds["reason"] != FUTILITY
    rest = 150_000 - int(0.2 * 150_000)
    assert int(rounds["asked"]) == rest and search["asked"] == rest - int(rounds["cap"])
    assert r.seed == 1 and r.failure_probability == pytest.approx(0.05)
    assert r.test_level <= 0.05 * 3 / 4 * (1 - SEARCH_FIRST_SHARE)
    assert "then a second on the rest" in samples_sentence(r)
    again = certify(mechanism, config, Route(mode="all"), show_progress=False).result
    assert again.extra["search_rounds"] == rounds and again.epsilon_lower_bound == r.epsilon_lower_bound


def test_small_budgets_and_fixed_n_run_one_search() -> None:
    mechanism, _ = resolve("randomized_response", {})
    small = AuditConfig(num_samples=99_000, seed=0, sequential=True)  # a first search round of 19,800
    r = certify(mechanism, small, Route(mode="all"), show_progress=False).result
    assert "search_rounds" not in r.extra
    fixed = AuditConfig(num_samples=150_000, seed=0)
    r = certify(mechanism, fixed, Route(mode="all"), show_progress=False).result
    assert "search_rounds" not in r.extra
