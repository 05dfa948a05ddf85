"""NormAd-ETI tables: accuracy by context and by IW cluster, macro-F1 and unparsed rate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from inspect_culture.benchmarks.normad.metrics import normad_metrics
from inspect_culture.benchmarks.normad.release import PAPER_RELEASE, UNKNOWN
from inspect_culture.benchmarks.normad.spec import CONTEXTS, DEFAULT_PARSER, LABELS, NormadOutcome
from inspect_culture.benchmarks.normad.taxonomy import IW_CLUSTERS
from inspect_culture.report import figures
from inspect_culture.report.model import Column, RunInfo, Table
from inspect_culture.report.published import published_rows
from inspect_culture.report.records import with_record_metrics
from inspect_culture.report.section import Layout, RecordSource, ReportSection, figure
from inspect_culture.report.tables.common import (
    Rows,
    describe,
    header_cell,
    mean_cell,
    of_benchmark,
    records_or_warn,
    resampled_cell,
    table,
)
from inspect_culture.stats import classification

BENCHMARK = "NormAd-ETI"
PERCENT = 100.0
_DEFAULTS = {"parser": DEFAULT_PARSER}

CONTEXT_LABELS = {
    "rot": "RoT",
    "value_country": "Value+Country",
    "country": "Country",
    "none": "No context",
}
IW_LABELS = {
    "african_islamic": "African-Islamic",
    "orthodox_europe": "Orthodox Europe",
    "confucian": "Confucian",
    "catholic_europe": "Catholic Europe",
    "protestant_europe": "Protestant Europe",
    "english_speaking": "English-speaking",
    "latin_america": "Latin America",
    "west_south_asia": "West & South Asia",
}
BY_CONTEXT = Layout(
    "normad_context",
    BENCHMARK,
    "NormAd-ETI: accuracy by context",
    "accuracy (%)",
    tuple(Column(k, v) for k, v in CONTEXT_LABELS.items()),
)
BY_CLUSTER = Layout(
    "normad_iw",
    BENCHMARK,
    "NormAd-ETI: accuracy by Inglehart-Welzel cluster",
    "accuracy (%)",
    tuple(Column(c, IW_LABELS[c]) for c in IW_CLUSTERS),
    group_label="Context",
    groups=tuple(CONTEXT_LABELS),
    group_labels=CONTEXT_LABELS,
)
SECONDARY = Layout(
    "normad_secondary",
    BENCHMARK,
    "NormAd-ETI: macro-F1 and unparsed answers",
    "percent",
    (Column("macro_f1", "Macro-F1 (%)"), Column("unparsed_rate", "Unparsed (%)")),
    group_label="Context",
    groups=tuple(CONTEXT_LABELS),
    group_labels=CONTEXT_LABELS,
    secondary=True,
)


def normad_tables(all_runs: Sequence[RunInfo], warnings: list[str]) -> list[Table]:
    runs = [r for r in of_benchmark(all_runs, BENCHMARK) if r.setting.get("context") in CONTEXTS]
    by_context, by_cluster, secondary = Rows(), Rows(), Rows()
    for run in runs:
        context = run.setting["context"]
        setting = _row_setting(run)
        by_context.get(run, None, setting).put(
            context, header_cell(run, "accuracy", PERCENT, run.samples), run
        )
        if (records := records_or_warn(run, warnings)) is None:
            continue
        metrics = with_record_metrics(run, records).metrics
        for cluster in BY_CLUSTER.columns:
            chosen = [r for r in records if r["iw_cluster"] == cluster.key]
            correct = [float(r["gold"] == r["pred"]) for r in chosen]
            header = metrics.get(f"accuracy_iw_{cluster.key}")
            cell = mean_cell(correct, [r["sample_id"] for r in chosen], PERCENT, header)
            by_cluster.get(run, context, setting).put(cluster.key, cell, run)
        builder = secondary.get(run, context, setting)
        ids = [r["sample_id"] for r in records]
        unparsed = mean_cell([float(r["pred"] is None) for r in records], ids, PERCENT)
        if (header := run.metrics.get("unparsed_rate")) is not None:
            unparsed = replace(unparsed, value=header * PERCENT)
        builder.put("unparsed_rate", unparsed, run)
        statistic = classification.resampled_macro_f1(
            [r["gold"] for r in records], [r["pred"] for r in records], LABELS
        )
        f1 = resampled_cell(records, statistic, PERCENT, run.metrics.get("macro_f1"))
        builder.put("macro_f1", replace(f1, n=len(dict.fromkeys(ids))), run)
    caption = (
        "Accuracy (%) with its 95% bootstrap interval (1,000 resamples of questions) and the "
        "number of questions n, as each harness reported it."
    )
    tables = [
        *table("normad_context", by_context, caption),
        *table(
            "normad_iw",
            by_cluster,
            "Accuracy (%) per Inglehart-Welzel cluster; interval and n from the run's "
            "per-question records (the value is the harness's own).",
        ),
        *table(
            "normad_secondary",
            secondary,
            "Macro-F1 over yes/no/neutral (unparsed answers count as wrong) and the share of "
            "answers no parser rule could read; intervals resample questions.",
        ),
    ]
    warnings.extend(release_warnings(tables, runs))
    return tables


def _row_setting(run: RunInfo) -> str:
    """The release first (rows of two releases never share a line), then the other settings."""
    release = run.setting.get("release")
    return "; ".join(p for p in (release and f"release={release}", describe(run, _DEFAULTS)) if p)


def release_warnings(tables: Sequence[Table], runs: Sequence[RunInfo]) -> list[str]:
    """One warning for each mix of NormAd releases that tables put side by side, naming each
    release with its runs; the paper's published rows count as its release (2024)."""
    by_path = {str(run.path): run for run in runs}
    titles_by_mix: dict[str, list[str]] = {}
    for built in tables:
        fed = [by_path[p] for row in built.rows for p in row.runs if p in by_path]
        members: dict[str, dict[str, None]] = {}
        for run in fed:
            if release := run.setting.get("release"):
                name = release if release != UNKNOWN else f"unknown (sha256 {_short(run)})"
                members.setdefault(name, {})[f"{run.model} [{run.harness}]"] = None
        if published_rows(built.key):
            members.setdefault(PAPER_RELEASE, {})["the paper's published rows"] = None
        if len(members) > 1:
            mix = "; ".join(f"{name}: {', '.join(who)}" for name, who in sorted(members.items()))
            titles_by_mix.setdefault(mix, []).append(built.title)
    return [
        f"{BENCHMARK}: {' and '.join(repr(t) for t in titles)} "
        f"{'puts' if len(titles) == 1 else 'put'} different NormAd releases "
        f"side by side ({mix}). The releases differ on the neutral rows' Country, which the "
        "Country and Value+Country prompts show, so these rows are not directly comparable "
        "(docs/normad.md, Releases)."
        for mix, titles in titles_by_mix.items()
    ]


def _short(run: RunInfo) -> str:
    return (run.dataset_sha256 or "not recorded")[:12]


def _inspect_setting(
    task: str, metadata: Mapping[str, Any], task_args: Mapping[str, Any]
) -> dict[str, Any]:
    setting = {"context": metadata.get("context"), "parser": metadata.get("parser")}
    return setting | _release(metadata.get("dataset"))


def _lm_eval_setting(task: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """normad_<context>; the group `normad` has none."""
    context = "_".join(task.split("_")[1:]) or None
    setting = {"context": context, "parser": metadata.get("parser", "strict")}
    return setting | _release(metadata.get("provenance"))


def _release(provenance: object) -> dict[str, str]:
    """The release the loader recorded (`provenance["release"]`: Inspect's `dataset` metadata,
    lm-eval's task `provenance`); a run made before it was recorded keeps its old setting."""
    release = provenance.get("release") if isinstance(provenance, Mapping) else None
    return {"release": str(release)} if release else {}


SECTION = ReportSection(
    tables=normad_tables,
    layouts=(BY_CONTEXT, BY_CLUSTER, SECONDARY),
    published="normad.json",
    figures=(
        figure(
            "normad_iw",
            figures.heatmap,
            key="normad_heatmap",
            title="NormAd-ETI: accuracy by cluster and context",
            what=(
                "NormAd-ETI accuracy (%) by Inglehart-Welzel cultural cluster (columns) and "
                "context (rows), one panel per model; all panels share one colour scale."
            ),
        ),
        figure(
            "normad_context",
            figures.bars,
            key="normad_context",
            title="NormAd-ETI: accuracy by context",
            what="NormAd-ETI accuracy (%) by the context given to the model, one bar per model.",
        ),
    ),
    records=(RecordSource("normad", "accuracy", metrics=normad_metrics, outcome=NormadOutcome),),
    inspect_setting=_inspect_setting,
    lm_eval_setting=_lm_eval_setting,
    generation="inspect_culture.benchmarks.normad.spec:GENERATION",
)
