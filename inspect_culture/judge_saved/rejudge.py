"""Judge one task's saved generations through the benchmark's own lm-eval functions:
`judge_filter` (judge calls), `process_results` (per-doc outcome) and `agg_<metric>` (metrics),
exactly as lm-eval calls them after generating, so the numbers match an in-run judge."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from inspect_culture.judge_saved.errors import JudgeSavedError
from inspect_culture.judge_saved.saved import SavedTask
from inspect_culture.judge_saved.tasks import JudgedTask

DEFAULT_FILTER = "judged"


@dataclass(frozen=True)
class TaskJudgement:
    task: str
    filter_name: str
    lines: list[dict[str, Any]]  # the sample lines, re-judged
    metrics: dict[str, Any]  # "metric,filter" -> value, as lm-eval's results hold them
    n_scored: int
    n_unscored: int


def filter_name(config: dict[str, Any]) -> str:
    for entry in config.get("filter_list") or []:
        if isinstance(entry, dict) and entry.get("name"):
            return str(entry["name"])
    return DEFAULT_FILTER


def metric_names(config: dict[str, Any], task: str) -> list[str]:
    names = [m["metric"] for m in config.get("metric_list") or [] if isinstance(m, dict)]
    if not names:
        raise JudgeSavedError(f"results file: configs.{task}.metric_list is missing or empty")
    return names


def _count(metrics: dict[str, Any], name: str, flt: str) -> int:
    value = metrics.get(f"{name},{flt}")
    return int(value) if isinstance(value, int | float) and not math.isnan(value) else 0


def judge_task(
    saved: SavedTask, config: dict[str, Any], judged: JudgedTask, judge_settings: str
) -> TaskJudgement:
    """Judge every logged doc of `saved` with the judge `judge_settings` (a doc field, JSON)."""
    module = judged.load()
    flt = filter_name(config)
    names = metric_names(config, saved.task)
    docs = [{**doc, "judge_settings": judge_settings} for doc in saved.docs]
    replies = module.judge_filter(saved.responses(), docs)
    items: dict[str, list[Any]] = {name: [] for name in names}
    lines = []
    for line, doc, reply in zip(saved.lines, docs, replies, strict=True):
        per_doc = module.process_results(doc, [reply])
        for name in names:
            items[name].append(per_doc[name])
        lines.append({**line, "doc": doc, "filtered_resps": [reply], "filter": flt, **per_doc})
    metrics: dict[str, Any] = {}
    for name in names:
        metrics[f"{name},{flt}"] = getattr(module, f"agg_{name}")(items[name])
        metrics[f"{name}_stderr,{flt}"] = "N/A"  # lm-eval's value for these aggregations
    return TaskJudgement(
        saved.task,
        flt,
        lines,
        metrics,
        _count(metrics, "n_scored", flt),
        _count(metrics, "n_unscored", flt),
    )


def judge_settings_of(saved: SavedTask) -> dict[str, Any]:
    """The judge settings the docs were generated with (e.g. `{"judge_later": true}`)."""
    try:
        return json.loads(saved.docs[0]["judge_settings"])
    except (TypeError, json.JSONDecodeError):
        raise JudgeSavedError(f"{saved.path}: field 'doc.judge_settings' is not JSON") from None
