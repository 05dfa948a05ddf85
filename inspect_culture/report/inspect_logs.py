"""Read an Inspect log of one of our tasks into a `RunInfo`: header only (results, task
arguments, metadata, model roles), never the samples; those are read later, and only when a
table needs per-question records (`records.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_culture.report.model import RunInfo
from inspect_culture.report.run_info import (
    INSPECT_BENCHMARKS,
    INSPECT_WITHOUT_TABLE,
    canonical_inspect_model,
    dataset_label,
    inspect_task_name,
)


class NotReportable(ValueError):
    """An input the report skips, with the reason in words."""


def read_inspect_log(path: Path) -> RunInfo:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # noqa: BLE001 (any reader failure means: not a usable log)
        raise NotReportable(f"not a readable Inspect log ({_short(exc)})") from None
    task = inspect_task_name(log.eval.task)
    if task in INSPECT_WITHOUT_TABLE:
        raise NotReportable(f"task {task!r}: {INSPECT_WITHOUT_TABLE[task]}")
    benchmark = INSPECT_BENCHMARKS.get(task)
    if benchmark is None:
        raise NotReportable(f"task {log.eval.task!r} is not an inspect-culture task")
    if log.status != "success":
        detail = f": {_first_line(log.error.message)}" if log.error else ""
        raise NotReportable(f"the run ended with status {log.status!r}{detail}")
    if not log.results or not log.results.scores:
        raise NotReportable("the log holds no scores (run with --no-score? score it first)")
    score = log.results.scores[0]
    metrics = {name: float(m.value) for name, m in score.metrics.items() if _number(m.value)}
    metadata: dict[str, Any] = dict(log.eval.metadata or {})
    dataset = metadata.get("dataset") or {}
    roles = log.eval.model_roles or {}
    grader = roles.get("grader")
    task_args = dict(log.eval.task_args or {})
    return RunInfo(
        path=path,
        harness="inspect",
        benchmark=benchmark,
        task=task,
        setting=_setting(task, metadata, task_args),
        model=canonical_inspect_model(log.eval.model),
        metrics=metrics,
        samples=log.results.completed_samples or log.results.total_samples,
        limit=_limit(log.eval.config.limit),
        subset=_subset(task, task_args, metadata),
        dataset=dataset_label(
            dataset.get("dataset"), dataset.get("revision"), dataset.get("pinned", True)
        ),
        dataset_sha256=dataset.get("sha256"),
        dataset_rows=dataset.get("rows"),
        judge=canonical_inspect_model(grader.model) if grader is not None else None,
        versions={
            "task_version": log.eval.task_version,
            **{k: v for k, v in metadata.items() if k.endswith("_version")},
        },
        unscored=score.unscored_samples,
        records_source=path,
    )


def _setting(task: str, metadata: dict[str, Any], task_args: dict[str, Any]) -> dict[str, Any]:
    """The parameters that define the numbers, named as lm-eval's reader names them."""
    if task == "normad":
        return {"context": metadata.get("context"), "parser": metadata.get("parser")}
    if task == "care":
        return {
            "language": metadata.get("language"),
            "prompting": metadata.get("prompting"),
            "judge_mapping": metadata.get("judge_mapping"),
            "judge_constraint": task_args.get("judge_constraint", "none"),
        }
    if task == "culturesynth":
        return {
            "languages": _languages(metadata.get("language")),
            "swap": metadata.get("swap"),
            "judge_constraint": task_args.get("judge_constraint", "none"),
        }
    names = ("task", "setting", "reasoning", "shots", "merged", "prompt_fidelity", "skip_empty")
    setting = {name: metadata[name] for name in names if name in metadata}
    if "judge_constraint" in metadata:
        setting["judge_constraint"] = metadata["judge_constraint"]
    return setting


def _languages(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return tuple(value)


def _subset(task: str, task_args: dict[str, Any], metadata: dict[str, Any]) -> str | None:
    if task == "care" and task_args.get("per_category"):
        return f"per_category={task_args['per_category']}"
    if task == "culturesynth" and metadata.get("language"):
        return f"language={metadata['language']}"
    return None


def _limit(limit: Any) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, int):
        return limit
    if isinstance(limit, list | tuple) and len(limit) == 2:  # a (start, stop) range
        return int(limit[1]) - int(limit[0])
    return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0][:200] if text and text.strip() else "no message"


def _short(exc: Exception) -> str:
    return f"{type(exc).__name__}: {_first_line(str(exc))}"
