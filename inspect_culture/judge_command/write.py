"""Re-judged tasks' results in lm-eval's layout, so `report` and `agreement` read them as any run
(`run_files.lm_eval_outputs.write_run` writes the files)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from inspect_culture.judge_command.rejudge import TaskJudgement


def group_weighting(config: Mapping[str, Any]) -> dict[str, bool]:
    """Per metric key of a group YAML's `aggregate_metric_list`, whether lm-eval weights the
    subtasks by size; a metric without `filter_list` (every filter) is keyed by its bare name."""
    entries = config.get("aggregate_metric_list") or []
    weights: dict[str, bool] = {}
    for entry in [entries] if isinstance(entries, dict) else entries:
        if not isinstance(entry, dict) or "metric" not in entry:
            continue
        filters = entry.get("filter_list")
        for name in [filters] if isinstance(filters, str) else filters or [None]:
            key = entry["metric"] if name is None else f"{entry['metric']},{name}"
            weights[key] = bool(entry.get("weight_by_size", True))
    return weights


@cache
def _group_weighting() -> dict[str, dict[str, bool]]:
    """`group_weighting` of our group YAMLs, by group: the saved results keep no group configs."""
    import yaml

    from inspect_culture.lm_eval_tasks import include_path
    from inspect_culture.task_catalogue import TaskYamlLoader

    found: dict[str, dict[str, bool]] = {}
    for path in include_path().rglob("*.yaml"):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=TaskYamlLoader)
        if isinstance(config, dict) and isinstance(config.get("group"), str):
            found[config["group"]] = group_weighting(config)
    return found


def _group_metrics(
    group: str,
    subtasks: Sequence[str],
    results: Mapping[str, Any],
    sizes: Mapping[str, int],
    keys: list[str],
) -> dict[str, Any]:
    """A group's metrics exactly as lm-eval computes them in a run (`lm_eval.api.group`)."""
    from lm_eval.api import metrics

    aggregate_subtask_metrics = metrics.aggregate_subtask_metrics
    pooled_sample_stderr = metrics.pooled_sample_stderr
    # lm-eval 0.4.13 gave an unweighted group its own stderr; 0.4.12 pools it like a weighted one
    unweighted_mean_stderr = getattr(metrics, "unweighted_mean_stderr", None)

    weighting = _group_weighting().get(group, {})
    counts_of = {t: int(results.get(t, {}).get("sample_len") or sizes.get(t, 0)) for t in subtasks}
    merged: dict[str, Any] = {"sample_len": sum(counts_of.values())}
    sample_count: dict[str, int] = {}
    for key in keys:
        if "_stderr," in key or "," not in key:
            continue
        present = [t for t in subtasks if isinstance(results.get(t, {}).get(key), int | float)]
        counts = [counts_of[t] for t in present]
        by_size = weighting.get(key, weighting.get(key.split(",", 1)[0], True))
        if not present or (by_size and not sum(counts)):
            continue
        merged[key] = aggregate_subtask_metrics([results[t][key] for t in present], counts, by_size)
        sample_count[key] = sum(counts)
        stderr_key = key.replace(",", "_stderr,", 1)
        stderrs = [results[t].get(stderr_key) for t in present]
        if not all(isinstance(e, int | float) for e in stderrs):
            merged[stderr_key] = "N/A"
        elif by_size or unweighted_mean_stderr is None:
            merged[stderr_key] = pooled_sample_stderr(stderrs, counts)
        else:
            merged[stderr_key] = unweighted_mean_stderr(stderrs)
    if sample_count:
        merged["sample_count"] = sample_count
    return merged


def _count_judged(data: dict[str, Any], found: TaskJudgement) -> None:
    """The task's sample counts lowered to the lines judged when damaged lines of its samples
    file were left out (the group weights follow); never raised."""
    judged = len(found.lines)
    counts = (data.get("n-samples") or {}).get(found.task)
    for holder, key in ((data["results"][found.task], "sample_len"), (counts, "effective")):
        if (
            isinstance(holder, dict)
            and isinstance(holder.get(key), int)
            and 0 < judged < holder[key]
        ):
            holder[key] = judged


def judged_results(
    original: Mapping[str, Any],
    judged: Sequence[TaskJudgement],
    judge_record: dict[str, Any],
    judge_metadata: Mapping[str, Any],
) -> dict[str, Any]:
    """The original run's results file with the new metrics and the judge recorded."""
    data = copy.deepcopy(dict(original))
    names = {j.task for j in judged}
    data["results"] = {t: r for t, r in (data.get("results") or {}).items() if t in names}
    for found in judged:
        data["results"].setdefault(found.task, {"alias": found.task}).update(found.metrics)
        _count_judged(data, found)
        task_config = data["configs"][found.task]
        kept = {k: v for k, v in (task_config.get("metadata") or {}).items() if k != "judge_later"}
        task_config["metadata"] = {**kept, **judge_metadata, **found.judging}
    for field in ("configs", "versions", "n-shot", "higher_is_better", "n-samples"):
        if isinstance(data.get(field), dict):
            data[field] = {t: v for t, v in data[field].items() if t in names}
    sizes = {t: int((data.get("n-samples", {}).get(t) or {}).get("effective") or 0) for t in names}
    groups = {g: s for g, s in (data.get("group_subtasks") or {}).items() if s and set(s) <= names}
    for group, subtasks in groups.items():
        old = {
            **(original.get("results") or {}).get(group, {}),
            **(original.get("groups") or {}).get(group, {}),
        }
        names_of = {k: v for k, v in old.items() if k in ("alias", "name")}
        # the keys of the group's aggregate_metric_list, as lm-eval wrote them
        merged = _group_metrics(group, subtasks, data["results"], sizes, sorted(old))
        data["results"][group] = {**names_of, **merged}
    data["group_subtasks"] = groups
    if "groups" in data:
        data["groups"] = {g: data["results"][g] for g in groups}
    data["judge"] = judge_record
    return data
