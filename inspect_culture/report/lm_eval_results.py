"""Read an lm-eval `results_<timestamp>.json` into one `RunInfo` per task of ours (and one per
group, which tables use for averages). Only the results file is read; the matching samples file
is located (`run_files/lm_eval_outputs.py`), not opened (`records.py` opens it when a table needs
per-question records)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_culture.report.inspect_logs import NotReportable, is_number, limit_of
from inspect_culture.report.model import RunInfo
from inspect_culture.report.run_info import canonical_lm_eval_model, dataset_label
from inspect_culture.report.section import lm_eval_owner
from inspect_culture.run_files.lm_eval_outputs import RESULTS_PREFIX as RESULTS_PREFIX
from inspect_culture.run_files.lm_eval_outputs import samples_beside


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
    without_table: list[str] = []
    for task, result in data["results"].items():
        owner = lm_eval_owner(task)
        if owner is None:
            foreign.append(task)
            continue
        benchmark, section = owner
        if task.startswith(section.lm_eval_without_table):
            foreign.append(task)
            without_table.append(task)
            continue
        task_config = configs.get(task) or {}
        metadata = dict(task_config.get("metadata") or _group_metadata(task, data, configs))
        runs.append(
            RunInfo(
                path=path,
                harness="lm-eval",
                benchmark=benchmark.title,
                task=task,
                setting={
                    **({"aggregate": True} if task in groups else {}),
                    **section.lm_eval_setting(task, metadata),
                },
                model=model,
                metrics=_metrics(result),
                samples=_samples(task, n_samples, result),
                limit=limit_of(config.get("limit")),
                subset=section.lm_eval_subset(task, metadata),
                dataset=dataset_label(metadata.get("dataset"), metadata.get("dataset_revision")),
                dataset_rows=(n_samples.get(task) or {}).get("original"),
                judge=metadata.get("judge_model"),
                versions={
                    "task_version": (data.get("versions") or {}).get(task),
                    **{k: v for k, v in metadata.items() if k.endswith("_version")},
                },
                unscored=_unscored(result),
                records_source=None if task in groups else samples_beside(path, task),
            )
        )
    if not runs:
        named = ", ".join(sorted(foreign)[:5]) or "none"
        if without_table and len(without_table) == len(foreign):
            raise NotReportable(f"its tasks have no report table ({named})")
        raise NotReportable(f"an lm-eval results file, but none of its tasks is ours ({named})")
    return runs


def _group_metadata(task: str, data: dict[str, Any], configs: dict[str, Any]) -> dict[str, Any]:
    """A group has no config of its own: take the shared metadata of its first subtask."""
    subtasks = (data.get("group_subtasks") or {}).get(task) or []
    for subtask in subtasks:
        metadata = (configs.get(subtask) or {}).get("metadata")
        if metadata:
            return {k: v for k, v in metadata.items() if k != "config_source"}
    return {}


def _metrics(result: dict[str, Any]) -> dict[str, float]:
    """`name,filter` -> name; standard errors, "N/A" and NaN (absent groups) dropped."""
    named = ((key.partition(","), value) for key, value in result.items())
    return {
        name: float(value)
        for (name, comma, _), value in named
        if comma and "_stderr" not in name and is_number(value)
    }


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
