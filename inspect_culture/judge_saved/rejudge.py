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
from inspect_culture.lm_eval_tasks.judge.batch import use_judge_backend

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


class _Checked(Exception):
    """Every judge prompt of the task was built: the dry pass ends here, before any call."""


def _refuse_all(*_: Any) -> list[Any]:
    raise _Checked


def check_before_judging(
    module: Any, saved: SavedTask, docs: list[dict[str, Any]], names: list[str]
) -> None:
    """What would fail only after the judge was paid, found first: a metric the task's module
    cannot aggregate, and a doc without a field its judge prompt needs (every prompt is built,
    none is sent)."""
    unknown = [name for name in names if not callable(getattr(module, f"agg_{name}", None))]
    if unknown:
        known = sorted(n.removeprefix("agg_") for n in dir(module) if n.startswith("agg_"))
        raise JudgeSavedError(
            f"results file: configs.{saved.task}.metric_list names {', '.join(map(repr, unknown))}, "
            f"which this version of the task does not compute (it computes: {', '.join(known)}); "
            "was the run made with another version of inspect-culture?"
        )
    try:
        with use_judge_backend(_refuse_all):
            module.judge_filter(saved.responses(), docs)
    except _Checked:
        return
    except KeyError as exc:
        field = exc.args[0] if exc.args else "?"
        at = next((i for i, doc in enumerate(docs) if field not in doc), None)
        where = f"doc_id {saved.lines[at]['doc_id']}" if at is not None else "a doc"
        raise JudgeSavedError(
            f"{saved.path}, {where}: field 'doc.{field}' is missing, which the judge prompt "
            "needs (samples written by another version, or edited?); nothing was judged"
        ) from None


def judge_task(
    saved: SavedTask, config: dict[str, Any], judged: JudgedTask, judge_settings: str
) -> TaskJudgement:
    """Judge every logged doc of `saved` with the judge `judge_settings` (a doc field, JSON)."""
    module = judged.load()
    flt = filter_name(config)
    names = metric_names(config, saved.task)
    docs = [{**doc, "judge_settings": judge_settings} for doc in saved.docs]
    check_before_judging(module, saved, docs, names)
    replies = module.judge_filter(saved.responses(), docs)
    items: dict[str, list[Any]] = {name: [] for name in names}
    lines = []
    for line, doc, reply in zip(saved.lines, docs, replies, strict=True):
        try:
            per_doc = module.process_results(doc, [reply])
        except KeyError as exc:  # the verdicts stay in the judge cache: a rerun pays nothing
            raise JudgeSavedError(
                f"{saved.path}, doc_id {line['doc_id']}: field 'doc.{exc.args[0]}' is missing, "
                "which scoring needs; the verdicts are in the judge cache"
            ) from None
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
