"""Thin lm-eval adapter for CQ-Bench VE: no lm-eval task sees another's outputs, so its two steps
are two runs: `cqbench_ve_summary_<setting>` logs summaries, `cqbench_ve_<setting>` reads them."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_ve_stories
from inspect_culture.benchmarks.cqbench.judging import VeJudging, ve_scores_format
from inspect_culture.benchmarks.cqbench.metrics import ve_metrics
from inspect_culture.benchmarks.cqbench.prompts import (
    ve_extraction_messages,
    ve_summary_messages,
)
from inspect_culture.datasets_hub.errors import DatasetUnavailableError
from inspect_culture.judging.jury import JURY_KEY
from inspect_culture.judging.jury_agreement import jury_metrics
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.cqbench.utils import check_cqbench_keys
from inspect_culture.lm_eval_tasks.generic import OutcomeMetrics, outcome_fields
from inspect_culture.lm_eval_tasks.judge.batch import (
    announce_judge_calls,
    judged_filter,
    judged_outcome,
    keep_task_options,
    load_options,
)
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance
from inspect_culture.run_files.lm_eval_outputs import lm_eval_samples_file, read_lm_eval_samples

log = logging.getLogger(__name__)
_VERSIONS = {"prompt_version": spec.PROMPT_VERSION}


def _setting(family: str, variant: Mapping[str, Any], metadata: dict[str, Any]) -> str:
    setting = variant["setting"]
    check_cqbench_keys(f"cqbench_{family}_{setting}", family, metadata)
    spec.validate("ve", metadata, fixed={"setting": setting})
    return setting


def _doc(record: dict[str, Any], messages: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    system, user = messages
    return {
        **{key: record[key] for key in ("id", "category", "story", "gold_values")},
        "system_prompt": system["content"],
        "user_prompt": user["content"],
        **extra,
    }


@one_line_in_cli
def load_summary_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """Step 1: one doc per story, asking for the summary of its themes."""
    setting = _setting("ve_summary", variant, metadata)
    loaded, _ = load_ve_stories(setting)
    record_provenance(f"cqbench_ve_summary_{setting}", metadata, loaded.provenance, _VERSIONS)
    docs = [_doc(r, ve_summary_messages(r)) for r in loaded.records]
    return {"test": datasets.Dataset.from_list(docs)}


@one_line_in_cli
def load_extraction_docs(
    variant: Mapping[str, Any], **metadata: Any
) -> dict[str, datasets.Dataset]:
    """Step 2: one doc per story that has a step-1 summary; the others are counted and logged."""
    setting = _setting("ve", variant, metadata)
    judge = load_options(metadata)  # before the local checks
    step1, source = f"cqbench_ve_summary_{setting}", metadata.get("ve_summaries")
    if not source:
        raise DatasetUnavailableError(
            f"cqbench_ve_{setting} needs the step-1 summaries of the same model. Run "
            f"`lm_eval --tasks {step1} --log_samples --output_path DIR` (or the group "
            f'cqbench_ve_summary) first, then pass --metadata \'{{"ve_summaries": "DIR", ...}}\''
        )
    summaries = read_lm_eval_samples(lm_eval_samples_file(source, step1))
    loaded, _ = load_ve_stories(setting)
    records = loaded.records
    with_summary = [r for r in records if r["id"] in summaries.responses]
    missing = [r["id"] for r in records if r["id"] not in summaries.responses]
    for record in with_summary:
        if summaries.docs[record["id"]].get("story") != record["story"]:
            raise DatasetUnavailableError(
                f"{summaries.path}: the story of {record['id']} differs from the dataset's; the "
                "summaries come from another dataset revision. Rerun the summary task."
            )
    if not with_summary:
        raise DatasetUnavailableError(f"{summaries.path}: no summary for any {setting} story")
    task = f"cqbench_ve_{setting}"
    keep_task_options(task, metadata, judge, ve_scores_format(2))  # after the local checks
    if missing:
        log.warning(
            "cqbench_ve_%s: %d of %d stories have no step-1 summary in %s and are not evaluated "
            "(first: %s)", setting, len(missing), len(records), summaries.path, ", ".join(missing[:5]),
        )  # fmt: skip
    docs = [
        _doc(
            record,
            ve_extraction_messages(record, summaries.responses[record["id"]]),
            summary=summaries.responses[record["id"]],
            stories_without_summary=len(missing),
            lm_eval_task=task,
        )
        for record in with_summary
    ]
    step1_file = {"summaries_file": str(summaries.path), "summaries_sha256": summaries.sha256}
    record_provenance(task, metadata, loaded.provenance, _VERSIONS, step1_file)  # not per doc
    ids = [d["id"] for d in docs]  # one a story; tokens estimated too
    announce_judge_calls(task, 1, ids, judging=VeJudging(), docs=docs)
    return {"test": datasets.Dataset.from_list(docs)}


def process_results_summary(doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
    [name] = spec.HEADLINE_METRICS["ve_summary"]  # the empty-summary rate (lm-eval's `mean`)
    return {name: float(not (results[0] or "").strip())}


def judge_filter(resps: Sequence[str | None], docs: Sequence[dict[str, Any]]) -> list[str]:
    """Judge every story's extracted values in one concurrent batch (after `take_first`)."""
    return judged_filter(VeJudging(), resps, docs, _VERSIONS, summary=(_jury_figures, None))


def _jury_figures(items: list[dict[str, Any]]) -> dict[str, float]:
    """What a VE jury's run says when judged (VE prints no interval to widen)."""
    return jury_metrics([item.get(JURY_KEY) for item in items], spec.JURY_VOTES)


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """The outcome record and the run's count of stories without a summary, for aggregation."""
    item = {**judged_outcome(results), "stories_without_summary": doc["stories_without_summary"]}
    return outcome_fields(spec.HEADLINE_METRICS["ve"], item)


def all_metrics(items: list[dict[str, Any]]) -> dict[str, float]:
    """Every VE step-2 metric of the outcome records (per category included), and a jury's."""
    without = float(items[0]["stories_without_summary"]) if items else 0.0
    metrics = ve_metrics([spec.VeOutcome.from_record(item) for item in items])
    return {**metrics, "stories_without_summary": without, **_jury_figures(items)}


_metric = OutcomeMetrics(all_metrics).value


def agg_recall(items: list[Any]) -> float:
    return _metric(items, "recall")


def agg_n_scored(items: list[Any]) -> float:
    return _metric(items, "n_scored")


def agg_n_unscored(items: list[Any]) -> float:
    return _metric(items, "n_unscored")


def agg_stories_without_summary(items: list[Any]) -> float:
    return _metric(items, "stories_without_summary")
