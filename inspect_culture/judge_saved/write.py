"""Write re-judged tasks as lm-eval does: `results_<timestamp>.json` (results, configs,
versions, n-samples, config, ...) and `samples_<task>_<timestamp>.jsonl`, in a folder named
like the run's, so `culture-evals report` and `culture-evals agreement` read it as any run."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_culture.judge_saved.rejudge import TaskJudgement

JUDGE_RECORD = "judge"  # the results-file field recording the judge used


def timestamp() -> str:
    """lm-eval's file stamp: ISO time with ':' replaced, e.g. 2026-11-23T21-04-05.123456."""
    return datetime.now().isoformat().replace(":", "-")


def _group_metrics(
    subtasks: Sequence[str], results: Mapping[str, Any], sizes: Mapping[str, int], keys: list[str]
) -> dict[str, Any]:
    """A group's metrics as lm-eval's `weight_by_size` mean of its subtasks' (the groups of
    our judged tasks aggregate that way)."""
    merged: dict[str, Any] = {}
    for key in keys:
        if "_stderr," in key or "," not in key:
            continue
        pairs = [
            (results[t][key], sizes.get(t, 0))
            for t in subtasks
            if isinstance(results.get(t, {}).get(key), int | float)
        ]
        total = sum(size for _, size in pairs)
        if pairs and total:
            merged[key] = sum(value * size for value, size in pairs) / total
            merged[key.replace(",", "_stderr,", 1)] = "N/A"
    return merged


def judged_results(
    original: Mapping[str, Any],
    judged: Sequence[TaskJudgement],
    judge_record: dict[str, Any],
    judge_metadata: Mapping[str, Any],
) -> dict[str, Any]:
    """The results file of the re-judged tasks: the original run's fields (model, config,
    versions, ...) with the new metrics, the judge in each task's metadata and `judge`."""
    data = copy.deepcopy(dict(original))
    names = {j.task for j in judged}
    data["results"] = {t: r for t, r in (data.get("results") or {}).items() if t in names}
    for found in judged:
        entry = data["results"].setdefault(found.task, {"alias": found.task})
        entry.update(found.metrics)
        task_config = data["configs"][found.task]
        metadata = {
            k: v for k, v in (task_config.get("metadata") or {}).items() if k != "judge_later"
        }
        task_config["metadata"] = {**metadata, **judge_metadata}
    for field in ("configs", "versions", "n-shot", "higher_is_better", "n-samples"):
        if isinstance(data.get(field), dict):
            data[field] = {t: v for t, v in data[field].items() if t in names}
    sizes = {t: int((data.get("n-samples", {}).get(t) or {}).get("effective") or 0) for t in names}
    groups = {}
    for group, subtasks in (data.get("group_subtasks") or {}).items():
        if subtasks and set(subtasks) <= names:
            groups[group] = subtasks
            old = {
                **(original.get("results") or {}).get(group, {}),
                **(original.get("groups") or {}).get(group, {}),
            }
            keys = sorted(old)  # the group's aggregate_metric_list, as lm-eval wrote it
            data["results"][group] = {
                **{k: v for k, v in old.items() if k == "alias"},
                **_group_metrics(subtasks, data["results"], sizes, keys),
            }
    data["group_subtasks"] = groups
    if "groups" in data:
        data["groups"] = {g: data["results"][g] for g in groups}
    data[JUDGE_RECORD] = judge_record
    return data


def _json_default(value: Any) -> Any:
    return str(value)


def write_run(
    folder: Path, stamp: str, results: dict[str, Any], judged: Sequence[TaskJudgement]
) -> Path:
    """Write the results file and one samples file per task; returns the results file."""
    folder.mkdir(parents=True, exist_ok=True)
    for found in judged:
        path = folder / f"samples_{found.task}_{stamp}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for line in found.lines:
                out.write(json.dumps(line, ensure_ascii=False, default=_json_default) + "\n")
    path = folder / f"results_{stamp}.json"
    path.write_text(
        json.dumps(results, indent=2, ensure_ascii=False, default=_json_default), encoding="utf-8"
    )
    return path


def judged_at() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
