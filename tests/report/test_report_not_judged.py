"""A generation-only run (`judge_later`) is marked "not judged" in the report, for both
harnesses, as rendered in a browser: its empty cells are not a failing judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_culture.care import care
from inspect_culture.report.build import build_report, write_report
from inspect_culture.report.model import NOT_JUDGED
from tests.support.browser import open_offline
from tests.support.harness_runs import inspect_eval_on_stub, run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow


def test_a_generation_only_run_is_marked_not_judged(tmp_path: Path) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        log = inspect_eval_on_stub(
            care(language="zh", per_category=1, judge_later=True), server, tmp_path / "inspect"
        )
        assert log.status == "success", log.error
        run_lm_eval(
            server, ["care_zh"], {"judge_later": True, "per_category": 1},
            output_path=tmp_path / "lm_eval",
        )  # fmt: skip
    report = build_report([tmp_path / "inspect", tmp_path / "lm_eval"])
    assert {(run.harness, run.judge) for run in report.runs} == {
        ("inspect", NOT_JUDGED),
        ("lm-eval", NOT_JUDGED),
    }
    html = write_report(report, tmp_path / "report", ["html"])["html"]
    check = open_offline(html, tmp_path / "report.png")
    assert check.text.count(NOT_JUDGED) >= 2, check.text[:2000]
