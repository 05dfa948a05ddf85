"""The report's judge-noise table reads a run's figures as `judging/noise.py` writes them: the
share of the width beside the share of the variance, and, where the judge's noise is not
separable from the question spread, no share but the re-judged answers that would separate
them, with a warning in those words."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_culture.report.model import RunInfo
from inspect_culture.report.section import section_of
from inspect_culture.report.tables.judges import judge_noise_tables

BOUNDS = {"rating_ci_low": 5.0, "rating_ci_high": 7.0}
QUESTIONS = {"rating_ci_questions_only_low": 5.18, "rating_ci_questions_only_high": 6.82}


def _run(model: str, metrics: dict[str, float]) -> RunInfo:
    return RunInfo(
        Path(f"{model}.eval"), "inspect", "CARE", "care", {}, model, metrics, 10, judge="judge"
    )


def test_share_of_width_and_variance_and_the_not_separable_row() -> None:
    jury = section_of("CARE").jury  # type: ignore[union-attr]
    separable = {"rating": 6.0, **BOUNDS, **QUESTIONS, "rating_ci_judge_share": 0.18}
    separable |= {"rating_ci_judge_variance_share": 0.3276, "rating_judge_noise_separable": 1.0}
    cut = {"rating": 6.0, **BOUNDS, "rating_ci_questions_only_low": 6.0}
    cut |= {"rating_ci_questions_only_high": 6.0, "rating_judge_noise_separable": 0.0}
    cut |= {"rating_judge_noise_rejudged_needed": 67.0}
    old = {"rating": 6.0, **BOUNDS, **QUESTIONS, "rating_ci_judge_share": 0.18}  # before 0.x
    warnings: list[str] = []
    runs = [_run("a-model", separable), _run("b-model", cut), _run("c-model", old)]
    [table] = judge_noise_tables("CARE", jury, runs, warnings)  # type: ignore[arg-type]
    rows = {row.model: row.cells for row in table.rows}
    assert rows["a-model"]["judge_share"].value == pytest.approx(18.0)
    assert rows["a-model"]["judge_variance_share"].value == pytest.approx(32.76)
    assert rows["c-model"]["judge_variance_share"].value == pytest.approx(32.76)  # 1 - 0.82^2
    assert "rejudged_needed" not in rows["a-model"]
    assert set(rows["b-model"]) == {"with_judge", "rejudged_needed"}  # no share: not 100%
    assert rows["b-model"]["rejudged_needed"].value == 67.0
    assert warnings == [
        "CARE rating of b-model (inspect): judge noise not separable from question spread at "
        "this size (about 67 re-judged answers would separate them)"
    ]
    labels = [column.label for column in table.columns]
    assert labels[2:] == [
        "Judge share of width (%)",
        "Judge share of variance (%)",
        "Re-judged answers to separate",
    ]
    assert "not separable from question spread" in table.caption
