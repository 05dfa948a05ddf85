"""Read an lm-eval `results_<timestamp>.json` into one `RunInfo` per task of ours (and one per
group, which tables use for averages). Only the results file is read; the matching
`samples_<task>_<timestamp>.jsonl` is located, not opened (`records.py` opens it when a table
needs per-question records)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inspect_culture.report.inspect_logs import NotReportable
from inspect_culture.report.model import RunInfo
from inspect_culture.report.run_info import (
    LM_EVAL_WITHOUT_TABLE,
    canonical_lm_eval_model,
    dataset_label,
    lm_eval_benchmark,
)

RESULTS_PREFIX = "results_"


def looks_like_lm_eval(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("results"), dict) and "config" in data


def read_lm_eval_results(path: Path, data: dict[str, Any]) -> list[RunInfo]:
    """Every task and group of ours in one results file; NotReportable when it holds none."""
    config = data.get("config") or {}
    model = canonical_lm_eval_model(config, data.get("model_name"))
    groups = set(data.get("groups") or {}) | set(data.get("group_subtasks") or {})
    n_samples = data.get("n-samples") or {}
    configs = data.get("configs") or {}
    runs: list[RunInfo] = []
    foreign: list[str] = []
    for task, result in data["results"].items():
        benchmark = lm_eval_benchmark(task)
        if benchmark is None:
            foreign.append(task)
            continue
        task_config = configs.get(task) or {}
        metadata = dict(task_config.get("metadata") or _group_metadata(task, data, configs))
        runs.append(
            RunInfo(
                path=path,
                harness="lm-eval",
                benchmark=benchmark,
                task=task,
                setting=_setting(task, metadata, aggregate=task in groups),
                model=model,
                metrics=_metrics(result),
                samples=_samples(task, n_samples, result),
                limit=_limit(config.get("limit")),
                subset=_subset(metadata),
                dataset=dataset_label(metadata.get("dataset"), metadata.get("dataset_revision")),
                dataset_rows=(n_samples.get(task) or {}).get("original"),
                judge=metadata.get("judge_model"),
                versions={
                    "task_version": (data.get("versions") or {}).get(task),
                    **{k: v for k, v in metadata.items() if k.endswith("_version")},
                },
                unscored=_unscored(result),
                records_source=None if task in groups else samples_file(path, task),
            )
        )
    if not runs:
        named = ", ".join(sorted(foreign)[:5]) or "none"
        ours = [task for task in foreign if task.startswith(LM_EVAL_WITHOUT_TABLE)]
        if ours and len(ours) == len(foreign):
            raise NotReportable(f"its tasks have no report table ({named})")
        raise NotReportable(f"an lm-eval results file, but none of its tasks is ours ({named})")
    return runs


def samples_file(results: Path, task: str) -> Path | None:
    """`samples_<task>_<timestamp>.jsonl` beside `results_<timestamp>.json` (written by
    `--log_samples`); None when the run did not log samples."""
    stamp = results.stem.removeprefix(RESULTS_PREFIX)
    candidate = results.with_name(f"samples_{task}_{stamp}.jsonl")
    return candidate if candidate.is_file() else None


def _group_metadata(task: str, data: dict[str, Any], configs: dict[str, Any]) -> dict[str, Any]:
    """A group has no config of its own: take the shared metadata of its first subtask."""
    subtasks = (data.get("group_subtasks") or {}).get(task) or []
    for subtask in subtasks:
        metadata = (configs.get(subtask) or {}).get("metadata")
        if metadata:
            return {k: v for k, v in metadata.items() if k != "config_source"}
    return {}


def _setting(task: str, metadata: dict[str, Any], *, aggregate: bool) -> dict[str, Any]:
    """What the task name fixes, plus the `--metadata` choices that change numbers."""
    setting: dict[str, Any] = {"aggregate": True} if aggregate else {}
    parts = task.split("_")
    head = parts[0]
    if head == "normad":
        context = "_".join(parts[1:]) or None
        return {**setting, "context": context, "parser": metadata.get("parser", "strict")}
    if head == "care":
        language = parts[1] if len(parts) > 1 else None
        prompting = "_".join(parts[2:]) or "zero_shot"
        return {
            **setting,
            "language": language,
            "prompting": prompting,
            "judge_mapping": metadata.get("judge_mapping", "paper"),
            "judge_constraint": metadata.get("judge_constraint", "none"),
        }
    if head == "culturesynth":
        language = parts[1] if len(parts) > 1 else None
        return {
            **setting,
            "languages": None if language in (None, "all") else (language,),
            "swap": metadata.get("swap", True),
            "judge_constraint": metadata.get("judge_constraint", "none"),
        }
    # cqbench_<task>_<setting>[_reasoning]
    family = parts[1] if len(parts) > 1 else None
    rest = parts[2:]
    reasoning = bool(rest) and rest[-1] == "reasoning"
    category = "_".join(rest[:-1] if reasoning else rest) or None
    result = {**setting, "task": family, "setting": category, "reasoning": reasoning}
    for name in ("shots", "merged", "prompt_fidelity", "skip_empty", "judge_constraint"):
        if name in metadata:
            result[name] = metadata[name]
    return result


def _metrics(result: dict[str, Any]) -> dict[str, float]:
    """`name,filter` -> name; standard errors, "N/A" and NaN (absent groups) dropped."""
    metrics: dict[str, float] = {}
    for key, value in result.items():
        name, comma, _ = key.partition(",")
        if not comma or "_stderr" in name:
            continue
        if isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value):
            metrics[name] = float(value)
    return metrics


def _samples(task: str, n_samples: dict[str, Any], result: dict[str, Any]) -> int | None:
    counts = n_samples.get(task)
    if isinstance(counts, dict) and counts.get("effective") is not None:
        return int(counts["effective"])
    length = result.get("sample_len")
    return int(length) if isinstance(length, int | float) else None


def _unscored(result: dict[str, Any]) -> int | None:
    for key, value in result.items():
        if key.partition(",")[0] == "n_unscored" and isinstance(value, int | float):
            return int(value)
    return None


def _subset(metadata: dict[str, Any]) -> str | None:
    if metadata.get("per_category"):
        return f"per_category={metadata['per_category']}"
    return None


def _limit(limit: Any) -> int | None:
    if isinstance(limit, int | float) and not isinstance(limit, bool):
        return int(limit)
    return None
