"""Markdown reports: verdict wording, collapsed pair details, and the run index staying well under
GitHub's 65,536-character comment limit."""

from __future__ import annotations

import dataclasses
import re

import pytest

from dpaudit.reports.markdown import (
    GITHUB_COMMENT_LIMIT,
    INDEX_BUDGET,
    render_index_markdown,
    render_markdown,
)
from dpaudit.reports.schema import from_json_dict, to_json_dict
from dpaudit.reports.search_record import SEARCH_TOP, search_record, search_summary
from tests.reports.fixtures import make_result


def test_single_report() -> None:
    r = make_result(violation=True, with_profile=True, curve=True, num_pairs=3)
    md = render_markdown(r, family="004")
    assert md.startswith("# dpaudit: `fixture_mech` (004)")
    assert "**Verdict: violation found.**" in md
    assert f"```sh\n{r.command}\n```" in md
    assert "0.5-GDP" in md
    for c in r.claims:
        assert c.claim.reference in md
    # pair details are collapsed, one table row per pair
    details = md[md.index("<details>") : md.index("</details>")]
    assert "<summary>3 pair(s), 1 violating" in details
    for p in r.pairs:
        assert p.description in details and p.estimate.assumption in details
    assert md.count("<details>") == md.count("</details>") == 2  # pairs, profile
    assert "exceeding the claim" in md
    assert len(md) < GITHUB_COMMENT_LIMIT


def test_single_report_wording() -> None:
    assert "**Verdict: no violation found at this power.**" in render_markdown(make_result())
    md = render_markdown(make_result(stated_exceeded=True))
    assert "**Verdict: no violation found at this power; finding about the paper's statement.**" in md
    assert "## Findings" in md


def test_pipes_in_text_do_not_break_tables() -> None:
    r = make_result(violation=True)
    pair = dataclasses.replace(r.pairs[0], description="a | b\nc")
    md = render_markdown(dataclasses.replace(r, pairs=(pair, *r.pairs[1:])))
    row = next(line for line in md.splitlines() if line.startswith("| 1 |"))
    assert "a \\| b c" in row
    assert len(re.findall(r"(?<!\\)\|", row)) == 14  # 13 columns (incl. white-box ε)


def sixty() -> list:
    """60 mechanisms: every fifth a violation with many long pairs, every seventh a finding."""
    out = []
    for i in range(60):
        r = make_result(
            mechanism=f"mechanism_with_a_fairly_long_registered_name_{i:02d}",
            violation=i % 5 == 0,
            stated_exceeded=i % 7 == 0 and i % 5 != 0,
            num_pairs=12,
        )
        pairs = tuple(dataclasses.replace(p, description=p.description + " " + "x" * 300) for p in r.pairs)
        out.append(dataclasses.replace(r, pairs=pairs, findings=r.findings + ("f" * 500,) * 3))
    return out


def test_index_of_sixty_fits_a_pull_request_comment() -> None:
    results = sixty()
    md = render_index_markdown(results, families={results[0].mechanism: "004"})
    assert len(md) <= INDEX_BUDGET < GITHUB_COMMENT_LIMIT
    rows = [line for line in md.splitlines() if line.startswith("| [")]
    assert len(rows) == 60  # every mechanism listed
    verdicts = [row.rsplit("|", 2)[1].strip() for row in rows]
    n_bad = sum(r.violation for r in results)
    assert all(v == "**violation found**" for v in verdicts[:n_bad])  # violations first
    assert all("violation found" not in v.replace("no violation found", "") for v in verdicts[n_bad:])
    assert "finding about the paper's statement" in verdicts[n_bad]
    assert md.count("<details>") == md.count("</details>") >= 1
    assert "| 004 |" in md


def test_index_drops_details_then_rows_to_stay_in_budget() -> None:
    results = sixty()
    md = render_index_markdown(results, budget=12_000)
    assert len(md) <= 12_000
    assert "not listed (comment size limit)" in md
    md = render_index_markdown(results, budget=20_000)
    assert len(md) <= 20_000
    assert md.count("<details>") == md.count("</details>")


def test_index_links() -> None:
    results = [make_result(mechanism="a"), make_result(mechanism="b", violation=True)]
    md = render_index_markdown(results, links=["a/report.md", "b/report.md"])
    assert md.index("[b](b/report.md)") < md.index("[a](a/report.md)")
    assert "[a](a.md)" in render_index_markdown(results)
    with pytest.raises(ValueError):
        render_index_markdown(results, links=["x"])


def search_extra(num: int = 30, certified: tuple[int, ...] = (0, 24)) -> dict:
    """An `extra["search"]` record as `audit.search` writes it: `num` candidates best first, the
    ones at the indices `certified` certified."""
    cands = [
        {
            "description": f"candidate pair {i}",
            "relation": "replace_one",
            "source": "registered" if i == 24 else ("template" if i % 2 else "local"),
            "rank": 0.5 - 0.01 * i,
            "pilot_samples": 50_000 if i < 4 else 2_000,
            "pilot_epsilon_lower_bound": 0.9 - 0.01 * i,
            "pilot_selection_epsilon": 1.0,
            "tags": [],
        }
        for i in range(num)
    ]
    return {
        "pilot_fraction": 0.2,
        "budget": 2_000_000,
        "pilot_samples": 400_000,
        "certification_samples": 800_000,
        "halving_rounds": 3,
        "certified_pairs": [f"candidate pair {i}" for i in certified],
        "skipped": ["x"],
        "candidates": cands,
        "candidates_tried": num,
    }


def test_search_record_on_the_mechanism_page() -> None:
    r = dataclasses.replace(make_result(), extra={"search": search_extra()})
    md = render_markdown(r)
    section = md[md.index("## Search") :]
    assert "tried 30 candidate pair(s) and certified 2" in section and "800,000" in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "candidate pair" in line]
    # the top SEARCH_TOP, plus the certified (registered) one at rank 25; the rest counted
    assert len(rows) == SEARCH_TOP + 1
    assert rows[-1].startswith("| 25 | candidate pair 24 | replace_one | registered | 2,000 |")
    assert rows[0].endswith("| **certified** |") and rows[1].endswith("| - |")
    assert f"… and {30 - SEARCH_TOP - 1} more candidate pair(s)" in section
    assert md.count("<details>") == md.count("</details>")
    # no search section for a result of the registered route
    assert "## Search" not in render_markdown(make_result())


def test_search_summary_says_when_the_exploration_came_on_top() -> None:
    within = search_record(dataclasses.replace(make_result(), extra={"search": search_extra()}))
    assert within is not None and "came on top" not in search_summary(within)
    over = {**search_extra(), "total_samples": 2_150_000}
    record = search_record(dataclasses.replace(make_result(), extra={"search": over}))
    assert record is not None and record.total_samples == 2_150_000
    assert "2,150,000 spent in all" in search_summary(record) and "came on top" in search_summary(record)


def test_search_record_parsing_tolerates_malformed_records() -> None:
    assert search_record(dataclasses.replace(make_result(), extra={"search": "junk"})) is None
    rec = search_record(
        dataclasses.replace(
            make_result(), extra={"search": {"candidates": [{"description": "d", "rank": "x"}, 3]}}
        )
    )
    assert rec is not None and len(rec.candidates) == 1 and rec.candidates[0].rank is None


def test_index_never_shows_search_records_and_stays_in_budget() -> None:
    results = [dataclasses.replace(r, extra={"search": search_extra(64)}) for r in sixty()]
    md = render_index_markdown(results)
    assert len(md) <= INDEX_BUDGET
    assert "candidate pair" not in md


def test_real_search_result_renders() -> None:
    from dpaudit.engine.search.procedure import search_and_certify
    from dpaudit.engine.types import AuditConfig
    from dpaudit.mechanisms.reference import LaplaceSum

    mech = LaplaceSum()
    found = search_and_certify(
        mech, AuditConfig(num_samples=40_000, seed=1), registered=mech.neighbor_pairs(), show_progress=False
    )
    r = from_json_dict(to_json_dict(found.certified))  # as read back from the JSON report
    section = render_markdown(r)[render_markdown(r).index("## Search") :]
    certified = [line for line in section.splitlines() if line.endswith("| **certified** |")]
    assert len(certified) == len(found.certified_pairs)
    assert all(any(p.description in line for line in certified) for p in found.certified_pairs)
