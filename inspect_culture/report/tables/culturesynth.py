"""CultureSynth-7 tables from the records: net win rate (Tables 3, 8), outcomes, consistency."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_culture.benchmarks.culturesynth.data import LANGUAGES
from inspect_culture.benchmarks.culturesynth.metrics import culturesynth_metrics
from inspect_culture.benchmarks.culturesynth.spec import (
    GROUP_METRIC,
    JURY_SCALE,
    JURY_VOTES,
    PairOutcome,
    language_slug,
)
from inspect_culture.report import figures
from inspect_culture.report.model import Cell, Column, RunInfo, Table
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
    mean_cell,
    of_benchmark,
    records_or_warn,
    table,
)

BENCHMARK = "CultureSynth-7"
PERCENT = 100.0
_DEFAULTS = {"swap": True, "judge_constraint": "none"}

NET_WIN_RATE = Layout(
    "culturesynth",
    BENCHMARK,
    "CultureSynth-7: net win rate against the baseline by language",
    "net win rate (%)",
    (
        *(Column(lang, lang) for lang in LANGUAGES),
        Column("weighted_average", "Weighted avg."),
    ),
)
OUTCOMES = Layout(
    "culturesynth_secondary",
    BENCHMARK,
    "CultureSynth-7: wins, ties, losses and position consistency",
    "percent",
    (
        Column("win_rate", "Win (%)"),
        Column("tie_rate", "Tie (%)"),
        Column("loss_rate", "Loss (%)"),
        Column("position_consistency", "Position consistency (%)"),
        Column("unscored", "Unscored", count=True),
    ),
    secondary=True,
)


def culturesynth_tables(all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    main, secondary = Rows(), Rows()
    # the runs (the last one names the row) and records of each row, pooled
    pooled: dict[int, tuple[Any, Any, list[RunInfo], list[dict[str, Any]]]] = {}
    for run in of_benchmark(all_runs, BENCHMARK):
        if (records := records_or_warn(run, warnings)) is None:
            continue
        setting = describe(run, _DEFAULTS)
        builder = main.get(run, None, setting)
        pool = pooled.setdefault(id(builder), (builder, secondary.get(run, None, setting), [], []))
        pool[2].append(run)
        pool[3].extend(records)
    for builder, second, row_runs, records in pooled.values():
        run = row_runs[-1]
        scored = [r for r in records if r.get("outcome") is not None]
        by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in scored:
            by_language[language_slug(record["language"])].append(record)
        for column, chosen in [*by_language.items(), ("weighted_average", scored)]:
            builder.put(column, _rate(chosen, lambda r: float(r["outcome"])), run)
        for column, outcome in (("win_rate", 1), ("tie_rate", 0), ("loss_rate", -1)):
            second.put(column, _rate(scored, lambda r, o=outcome: float(r["outcome"] == o)), run)
        judged_twice = [r for r in scored if r.get("consistent") is not None]
        second.put(
            "position_consistency", _rate(judged_twice, lambda r: float(r["consistent"])), run
        )
        second.put("unscored", Cell(float(sum(r.unscored or 0 for r in row_runs))), run)
    return [
        *table(
            "culturesynth",
            main,
            "Net win rate (%) against the baseline's answers, (wins - losses) / scored questions "
            "x 100, with its 95% bootstrap interval (questions resampled; for a re-judged "
            "run, its judgings too: the judge-noise table) and n; weighted average = pooled "
            "over all scored questions.",
        ),
        *table(
            "culturesynth_secondary",
            secondary,
            "Share of scored questions won, tied and lost; position consistency = share of "
            "questions judged twice (swap) whose two verdicts agree.",
        ),
    ]


def _rate(records: list[dict[str, Any]], value: Any) -> Cell:
    return mean_cell([value(r) for r in records], [r["question_id"] for r in records], PERCENT)


def _inspect_setting(
    task: str, metadata: Mapping[str, Any], task_args: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "languages": _languages(metadata.get("language")),
        "swap": metadata.get("swap"),
        "judge_constraint": task_args.get("judge_constraint", "none"),
    }


def _languages(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return tuple(value)


def _lm_eval_setting(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """culturesynth_<language|all>."""
    parts = task.split("_")
    language = parts[1] if len(parts) > 1 else None
    return {
        "languages": None if language in (None, "all") else (language,),
        "swap": metadata.get("swap", True),
        "judge_constraint": metadata.get("judge_constraint", "none"),
    }


JURY = JurySpec(
    "culturesynth_judges",
    "net win rate, %",
    JURY_VOTES,
    JURY_SCALE,
    headline=GROUP_METRIC,
    vote_values=(-1.0, 0.0, 1.0),  # per answer order, from the target's side
    vote_labels=("baseline better", "tie", "target better"),
)

SECTION = ReportSection(
    tables=culturesynth_tables,
    layouts=(NET_WIN_RATE, OUTCOMES),
    published="culturesynth.json",
    figures=(
        figure(
            "culturesynth",
            figures.bars,
            key="culturesynth_languages",
            title="CultureSynth-7: net win rate by language",
            what=(
                "CultureSynth-7 net win rate (percent points, wins minus losses against the "
                "baseline) per language and the weighted average, one bar per model."
            ),
            zero_line=True,
        ),
        figure(
            "culturesynth_secondary",
            figures.outcome_bars,
            key="culturesynth_outcomes",
            title="CultureSynth-7: wins, ties and losses",
            what=(
                "CultureSynth-7 outcomes against the baseline: wins, ties and losses (%) per "
                "model, from the user's runs."
            ),
        ),
        pairs_figure(JURY, figures.heatmap, "CultureSynth-7"),
    ),
    records=(
        RecordSource(
            "culturesynth",
            "n_scored",
            inspect_key="pair",
            metrics=culturesynth_metrics,
            outcome=PairOutcome,
        ),
    ),
    inspect_without_table={
        "culturesynth_answers": "it only generates answers (a baseline's); it has no report table",
    },
    lm_eval_without_table=("culturesynth_answers",),
    inspect_setting=_inspect_setting,
    inspect_subset=lambda task, metadata, task_args: (
        f"language={metadata['language']}" if metadata.get("language") else None
    ),
    lm_eval_setting=_lm_eval_setting,
    judged=True,
    jury=JURY,
    generation="inspect_culture.benchmarks.culturesynth.spec:GENERATION",
)
