"""The report's "Judges" tables: a CARE run judged by a jury of two, in each harness, gives one
row per harness with the same per-judge means, failures and alpha as the runs' own metrics, and
the same cross-table (and heatmap) of the two judges' votes, counted by hand; a re-judged run
gives its interval with and without the judge's noise; a run with one judge adds no such table."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.model import get_model

from inspect_culture.care import care
from inspect_culture.report.build import build_report, write_report
from inspect_culture.report.records import clear_cache
from tests.judging.test_jury_parity import _two_judges
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval, stub_grader
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = [pytest.mark.slow]


def test_judges_table_in_both_harnesses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    clear_cache()
    with StubOpenAIServer(responder=_two_judges) as server:
        roles = {
            "grader": get_model("openai-api/stub/judge_a", base_url=server.base_url),
            "grader_2": get_model("openai-api/stub/judge_b", base_url=server.base_url),
        }
        log = inspect_eval_on_stub(
            care(language="zh", per_category=2), server, tmp_path / "inspect", model_roles=roles
        )
        metadata = {
            "judge_models": ["judge_a", "judge_b"],
            "judge_base_url": server.base_url,
            "per_category": 2,
        }
        run_lm_eval(server, ["care_zh"], metadata, output_path=tmp_path / "lm")
    report = build_report([tmp_path / "inspect", tmp_path / "lm"])
    [judges] = [t for t in report.tables if t.key == "care_judges"]
    assert [row.harness for row in judges.rows] == ["inspect", "lm-eval"]
    assert {row.setting for row in judges.rows} == {"jury of 2: judge_a, judge_b"}
    ours = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    for row in judges.rows:
        assert row.cells["judge_1_mean"].value == pytest.approx(ours["judge_1_mean"])
        assert row.cells["judge_2_mean"].value == pytest.approx(ours["judge_2_mean"])
        assert row.cells["judge_2_n_failed"].value == ours["judge_2_n_failed"] > 0
        assert row.cells["agreement"].value == pytest.approx(ours["judges_alpha"])
    assert [c.label for c in judges.columns][-1] == "Krippendorff's alpha"
    # each pair's votes: counted by hand from the Inspect samples' jury details
    pairs: Counter[tuple[str, str]] = Counter()
    for sample in log.samples:
        judges = sample.scores["care_judge"].metadata["jury"]["judges"]
        [a], [b] = judges["judge_1"]["votes"], judges["judge_2"]["votes"]
        if a is not None and b is not None:
            pairs[str(int(a)), str(int(b))] += 1
    total = sum(pairs.values())
    [crossed] = [t for t in report.tables if t.key == "care_judge_pairs"]
    for harness in ("inspect", "lm-eval"):
        shown = {
            (row.group, column): cell.value
            for row in crossed.rows
            if row.harness == harness
            for column, cell in row.cells.items()
            if cell.value
        }
        assert {row.setting for row in crossed.rows} == {"judge 1 x judge 2"}
        assert shown == pytest.approx({k: 100.0 * v / total for k, v in pairs.items()})
    written = write_report(report, tmp_path / "report", ["md", "csv", "tex"])
    markdown = written["md"].read_text(encoding="utf-8")
    assert "CARE: the judges of each jury" in markdown and "Krippendorff's alpha" in markdown
    assert "CARE: each pair of judges' votes" in markdown
    assert (tmp_path / "report" / "figures" / "care_judge_pairs.png").stat().st_size > 0


def test_no_judges_table_without_a_jury(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    clear_cache()
    with StubOpenAIServer(responder=care_responder) as server:
        inspect_eval_on_stub(
            care(language="zh", per_category=1),
            server,
            tmp_path,
            model_roles={"grader": stub_grader(server)},
        )
    report = build_report([tmp_path])
    assert [t.key for t in report.tables] == ["care", "care_judge_cost"]  # and its cost


def test_judge_noise_table_in_both_harnesses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-judged CARE run, in each harness: one row each with the two-level interval, the
    questions-only interval and the judge share of the run's own metrics."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    clear_cache()
    from tests.judging.test_rejudge_parity import OPTIONS, _seeded_judge, rejudged_care

    with StubOpenAIServer(responder=_seeded_judge) as server:
        log = rejudged_care(server, tmp_path / "inspect")
        judge = {"judge_model": "judge", "judge_base_url": server.base_url, "per_category": 3}
        run_lm_eval(server, ["care_zh"], {**judge, **OPTIONS}, output_path=tmp_path / "lm")
    report = build_report([tmp_path / "inspect", tmp_path / "lm"])
    [noise] = [t for t in report.tables if t.key == "care_judge_noise"]
    assert [row.harness for row in noise.rows] == ["inspect", "lm-eval"]
    ours = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    for row in noise.rows:
        both, alone = row.cells["with_judge"], row.cells["questions_only"]
        assert both.value == alone.value == pytest.approx(ours["rating"])
        assert (both.ci_low, both.ci_high) == pytest.approx(
            (ours["rating_ci_low"], ours["rating_ci_high"])
        )
        assert (alone.ci_low, alone.ci_high) == pytest.approx(
            (ours["rating_ci_questions_only_low"], ours["rating_ci_questions_only_high"])
        )
        assert row.cells["judge_share"].value == pytest.approx(100 * ours["rating_ci_judge_share"])
    assert "care_judges" not in {t.key for t in report.tables}  # one judge: no jury table
    written = write_report(report, tmp_path / "report", ["md"])
    assert "how much of the interval judging makes" in written["md"].read_text(encoding="utf-8")
