"""CARE table: mean judge rating per language (rows) and category (columns), with the
harness's own values and intervals, the number of rated questions per cell (from the records),
and the count of unscored samples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from inspect_culture.benchmarks.care.spec import CATEGORY_SLUGS
from inspect_culture.report.cells import header_cell
from inspect_culture.report.layouts import LAYOUTS
from inspect_culture.report.model import Cell, RunInfo, Table
from inspect_culture.report.tables.common import (
    Rows,
    describe,
    of_benchmark,
    records_or_warn,
    table,
)

BENCHMARK = "CARE"
_DEFAULTS = {"prompting": "zero_shot", "judge_mapping": "paper", "judge_constraint": "none"}
_SETTINGS = ("prompting", "judge_mapping", "judge_constraint")


def care_tables(all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    rows = Rows()
    for run in of_benchmark(all_runs, BENCHMARK):
        language = run.setting.get("language")
        if run.setting.get("aggregate") or language is None:
            continue
        builder = rows.get(run, language, describe(run, _SETTINGS, _DEFAULTS))
        counts = _rated_questions(run, warnings)
        for category in CATEGORY_SLUGS:
            builder.put(
                category, header_cell(run, f"rating_{category}", n=counts.get(category)), run
            )
        scored = run.metrics.get("n_scored")
        builder.put(
            "overall", header_cell(run, "rating", n=None if scored is None else int(scored)), run
        )
        builder.put("unscored", Cell(None if run.unscored is None else float(run.unscored)), run)
    caption = (
        "Mean judge rating (1 poor - 10 excellent) with its 95% bootstrap interval (questions "
        "resampled) and n, the questions the judge rated; unscored samples (no usable verdict) "
        "are counted apart, never as a rating."
    )
    built = table("care", rows.rows(LAYOUTS["care"].groups), caption)
    return [built] if built else []


def _rated_questions(run: RunInfo, warnings: list[str]) -> dict[str, int]:
    records = records_or_warn(run, warnings) or []
    rated = {(r["question_id"], r["category"]) for r in records if r.get("rating") is not None}
    return dict(Counter(category for _, category in rated))
