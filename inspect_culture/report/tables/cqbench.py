"""CQ-Bench table (paper Table 1) per setting and pooled; intervals and n from the records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inspect_culture.benchmarks.cqbench.spec import CATEGORIES, JURY_VOTES, f1_score
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
    resampled_cell,
    table,
)

BENCHMARK = "CQ-Bench"
_DEFAULTS = {
    "reasoning": False,
    "shots": 0,
    "merged": False,
    "prompt_fidelity": "paper",
    "skip_empty": False,
    "judge_constraint": "none",
}
_HEADER = {"ad": "accuracy", "vs": "f1", "ve": "recall"}  # each task's headline metric
LAYOUT = Layout(
    "cqbench",
    BENCHMARK,
    "CQ-Bench: attitude detection, value selection and value extraction",
    "score (0-1)",
    (Column("ad", "AD accuracy"), Column("vs", "VS F1"), Column("ve", "VE recall")),
    group_label="Setting",
    groups=(*CATEGORIES, "all"),
    group_labels={**{c: c for c in CATEGORIES}, "all": "average"},
    decimals=3,
)


def cqbench_tables(all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    rows = Rows()
    pooled: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    builders: dict[int, Any] = {}
    for run in of_benchmark(all_runs, BENCHMARK):
        family, category = run.setting.get("task"), run.setting.get("setting")
        if family not in _HEADER or category is None:
            continue
        if (records := records_or_warn(run, warnings)) is None:
            continue
        setting = describe(run, _DEFAULTS)
        cell = _cell(family, records, run.metrics.get(_HEADER[family]))
        rows.get(run, category, setting).put(family, cell, run)
        average = rows.get(run, "all", setting)
        builders[id(average)] = (average, run)
        pooled[(id(average), family)].extend(records)
    for (key, family), records in pooled.items():
        average, run = builders[key]
        average.put(family, _cell(family, records), run)
    return table(
        "cqbench",
        rows,
        "AD accuracy (the paper's micro-F1), VS F1 = 2PR/(P+R) of the mean per-story precision "
        "P and recall R, VE recall of the gold values the judge scored (1 / 0.5 / 0); 95% "
        "bootstrap intervals; n = questions (AD), stories (VS), gold values (VE). 'average' "
        "pools every setting the model was run on.",
    )


def _cell(family: str, records: list[dict[str, Any]], value: float | None = None) -> Cell:
    if family == "ad":
        values = [float(r["gold"] == r["pred"]) for r in records]
        return mean_cell(values, [r["sample_id"] for r in records], 1.0, value)
    if family == "vs":
        counted = [r for r in records if not r.get("skipped")]
        precision = np.array([r["precision"] for r in counted], dtype=float)
        recall = np.array([r["recall"] for r in counted], dtype=float)

        def statistic(indices: np.ndarray) -> np.ndarray:
            p, r = precision[indices].mean(axis=1), recall[indices].mean(axis=1)
            total = p + r
            return np.divide(2 * p * r, total, out=np.zeros(len(p)), where=total > 0)

        if value is None and counted:  # the point value exactly as the metric computes it
            value = f1_score(precision.mean(), recall.mean())
        return resampled_cell(counted, statistic, 1.0, value)
    scores = [
        (f"{r['sample_id']}#{i}", float(score))
        for r in records
        for i, score in enumerate(r.get("value_scores") or ())
        if score is not None
    ]
    return mean_cell([s for _, s in scores], [k for k, _ in scores], 1.0, value)


def _inspect_setting(
    task: str, metadata: Mapping[str, Any], task_args: Mapping[str, Any]
) -> dict[str, Any]:
    return {name: metadata[name] for name in ("task", "setting", *_DEFAULTS) if name in metadata}


def _lm_eval_setting(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """cqbench_<task>_<setting>[_reasoning]."""
    parts = task.split("_")
    rest = parts[2:]
    reasoning = bool(rest) and rest[-1] == "reasoning"
    return {
        "task": parts[1] if len(parts) > 1 else None,
        "setting": "_".join(rest[:-1] if reasoning else rest) or None,
        "reasoning": reasoning,
        **{k: metadata[k] for k in _DEFAULTS if k != "reasoning" and k in metadata},
    }


JURY = JurySpec(
    "cqbench_ve_judges",
    "VE recall per story",
    JURY_VOTES,
    vote_values=(0.0, 0.5, 1.0),
    vote_labels=("0", "0.5", "1"),
)

SECTION = ReportSection(
    tables=cqbench_tables,
    layouts=(LAYOUT,),
    published="cqbench.json",
    figures=(
        figure(
            "cqbench",
            figures.summary_bars,
            key="cqbench_tasks",
            title="CQ-Bench: scores by task",
            what=(
                "CQ-Bench attitude detection (AD, accuracy), value selection (VS, F1) and "
                "value extraction (VE, recall) per model, averaged over settings."
            ),
            summary_group="all",
            one_group_note="{series}: setting '{group}' only (no average over settings).",
            limits=(0.0, None),
        ),
        pairs_figure(JURY, figures.heatmap, "CQ-Bench VE"),
    ),
    records=(
        RecordSource("cqbench_ad", "accuracy"),
        RecordSource("cqbench_vs", "precision"),
        RecordSource("cqbench_ve", "recall"),
    ),
    lm_eval_without_table=("cqbench_ve_summary",),
    inspect_setting=_inspect_setting,
    lm_eval_setting=_lm_eval_setting,
    judged=True,
    jury=JURY,
    generation="inspect_culture.benchmarks.cqbench.spec:GENERATION",
)
