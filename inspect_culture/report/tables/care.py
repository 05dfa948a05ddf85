"""CARE table: mean rating by language and category (lm-eval's from records), n, unscored."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_culture.benchmarks.care.metrics import care_metrics
from inspect_culture.benchmarks.care.spec import (
    CARE_LANGUAGES,
    CATEGORY_SLUGS,
    GROUP_METRIC,
    JURY_VOTES,
    CareOutcome,
)
from inspect_culture.datasets_hub.languages import LANGUAGES as LANGUAGE_INFO
from inspect_culture.report import figures
from inspect_culture.report.model import Cell, Column, RunInfo, Table
from inspect_culture.report.records import with_record_metrics
from inspect_culture.report.section import (
    JurySpec,
    Layout,
    RecordSource,
    ReportSection,
    figure,
    pairs_figure,
)
from inspect_culture.report.tables.common import (
    Rows,
    describe,
    header_cell,
    of_benchmark,
    records_or_warn,
    table,
)

BENCHMARK = "CARE"
_DEFAULTS = {"prompting": "zero_shot", "judge_mapping": "paper", "judge_constraint": "none"}
LAYOUT = Layout(
    "care",
    BENCHMARK,
    "CARE: mean judge rating by language and category",
    "rating (1-10)",
    (
        *(Column(slug, slug.capitalize()) for slug in CATEGORY_SLUGS),
        Column("overall", "Overall"),
        Column("unscored", "Unscored", count=True),
    ),
    group_label="Language",
    groups=CARE_LANGUAGES,
    group_labels={lang: LANGUAGE_INFO[lang].name for lang in CARE_LANGUAGES},
    decimals=2,
)


def care_tables(all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    rows = Rows()
    for run in of_benchmark(all_runs, BENCHMARK):
        if (language := run.setting.get("language")) is None:
            continue
        builder = rows.get(run, language, describe(run, _DEFAULTS))
        records = records_or_warn(run, warnings)
        rated = {
            (r["question_id"], r["category"]) for r in records or [] if r.get("rating") is not None
        }
        counts = Counter(category for _, category in rated)
        if records is not None:
            run = with_record_metrics(run, records)
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
        "resampled; for a re-judged run, its judgings too: the judge-noise table) and n, the "
        "questions the judge rated; unscored samples (no usable verdict) are counted apart, "
        "never as a rating."
    )
    return table("care", rows, caption)


def _inspect_setting(
    task: str, metadata: Mapping[str, Any], task_args: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "language": metadata.get("language"),
        "prompting": metadata.get("prompting"),
        "judge_mapping": metadata.get("judge_mapping"),
        "judge_constraint": task_args.get("judge_constraint", "none"),
    }


def _per_category(arguments: Mapping[str, Any]) -> str | None:
    return f"per_category={arguments['per_category']}" if arguments.get("per_category") else None


def _lm_eval_setting(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """care_<language>[_<prompting>]; the group `care` has neither."""
    parts = task.split("_")
    return {
        "language": parts[1] if len(parts) > 1 else None,
        "prompting": "_".join(parts[2:]) or "zero_shot",
        "judge_mapping": metadata.get("judge_mapping", "paper"),
        "judge_constraint": metadata.get("judge_constraint", "none"),
    }


JURY = JurySpec(
    "care_judges",
    "rating 1-10",
    JURY_VOTES,
    headline=GROUP_METRIC,
    vote_values=tuple(float(n) for n in range(1, 11)),
    vote_labels=tuple(str(n) for n in range(1, 11)),
)

SECTION = ReportSection(
    tables=care_tables,
    layouts=(LAYOUT,),
    published="care.json",
    figures=(
        figure(
            "care",
            figures.bars,
            key="care_categories",
            title="CARE: mean rating by category",
            what="CARE mean judge rating (1-10) per category and overall, one panel per language.",
            by_group=True,
            limits=(0.0, 10.0),
        ),
        pairs_figure(JURY, figures.heatmap, "CARE"),
    ),
    records=(RecordSource("care", "n_scored", metrics=care_metrics, outcome=CareOutcome),),
    inspect_without_table={
        "care_judge_agreement": "it evaluates a judge against human ratings (read it with "
        "`inspect view`); it has no report table",
    },
    lm_eval_without_table=("care_judge_agreement",),
    inspect_setting=_inspect_setting,
    inspect_subset=lambda task, metadata, task_args: _per_category(task_args),
    lm_eval_setting=_lm_eval_setting,
    lm_eval_subset=lambda task, metadata: _per_category(metadata),
    judged=True,
    jury=JURY,
    generation="inspect_culture.benchmarks.care.spec:GENERATION",
)
