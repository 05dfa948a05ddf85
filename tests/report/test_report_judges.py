"""The report's "Judges" table: a CARE run judged by a jury of two, in each harness, gives one
row per harness with the same per-judge means, failures and alpha as the runs' own metrics;
a run with one judge adds no such table."""

from __future__ import annotations

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
    written = write_report(report, tmp_path / "report", ["md", "csv", "tex"])
    markdown = written["md"].read_text(encoding="utf-8")
    assert "CARE: the judges of each jury" in markdown and "Krippendorff's alpha" in markdown


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
    assert [t.key for t in report.tables] == ["care"]
