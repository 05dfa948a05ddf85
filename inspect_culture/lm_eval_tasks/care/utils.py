"""Thin lm-eval adapter for CARE. The judge (checked when the task loads) runs in a filter, which
lm-eval calls once per task: one concurrent batch, not a blocking call per doc."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmark_registry import benchmark
from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.data import CARE, first_per_category, load_care
from inspect_culture.benchmarks.care.judging import CareJudging, care_rating_format
from inspect_culture.benchmarks.care.metrics import care_metrics
from inspect_culture.benchmarks.care.prompts import generation_messages
from inspect_culture.benchmarks.choices import check_fixed
from inspect_culture.judging.jury import DEFAULT_RATING_RULE
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.generic import OutcomeMetrics, outcome_fields
from inspect_culture.lm_eval_tasks.judge.batch import (
    announce_judge_calls,
    judged_filter,
    judged_outcome,
    keep_task_options,
    load_options,
)
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance
from inspect_culture.lm_eval_tasks.yaml_generation import generation_template


def template() -> dict[str, Any]:
    """The CARE tasks' shared YAML (`_generate_configs.py` writes it; `load_docs` checks
    --metadata against its metadata)."""
    return generation_template(
        "inspect_culture.lm_eval_tasks.care.utils",
        spec.GENERATION,
        spec.HEADLINE_METRICS,
        lower_is_better=spec.UNSCORED_COUNTS,
        description="{{system_prompt}}",
        judged=True,
        metadata={
            "version": spec.TASK_VERSION,
            "judge_mapping": spec.DEFAULT_JUDGE_MAPPING,
            **spec.JUDGE_VERSIONS,
            "dataset": CARE.repo,
            "dataset_revision": CARE.revision,
        },
    )


@one_line_in_cli
def load_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset` of every task: language and prompting are fixed by its `variant`."""
    language, prompting = variant["language"], variant["prompting"]
    name = spec.task_name(language, prompting)
    options, yaml_metadata = benchmark("care").lm_eval_options, template()["metadata"]
    check_metadata_keys(name, metadata, options=options, yaml_metadata=yaml_metadata)
    check_fixed(name, metadata, language=language, prompting=prompting)
    mapping = metadata.get("judge_mapping", spec.DEFAULT_JUDGE_MAPPING)
    rule = metadata.get("jury_rule", DEFAULT_RATING_RULE)
    checked = spec.validate(
        language=language, prompting=prompting, judge_mapping=mapping, jury_rule=rule
    )
    judge = load_options(metadata)  # fails now if unset
    keep_task_options(name, metadata, judge, care_rating_format())  # or unconstrained
    loaded = load_care(language)
    record_provenance(name, metadata, loaded.provenance, spec.JUDGE_VERSIONS)  # once, not per doc
    # the judging settings the filter and `culture-evals judge` read from the docs
    per_task = {"lm_eval_task": name, "judge_mapping": checked.judge_mapping}
    if "jury_rule" in metadata or "judge_models" in metadata:  # a jury's docs say its rule
        per_task["jury_rule"] = checked.jury_rule
    docs = []
    for record in first_per_category(loaded.records, metadata.get("per_category")):
        messages = generation_messages(record["question"], language, prompting)
        system = "".join(m["content"] for m in messages if m["role"] == "system")
        user = messages[-1]["content"]
        docs.append({**record, "system_prompt": system, "user_prompt": user, **per_task})
    judging = CareJudging(checked.judge_mapping)  # one rating a judging; tokens estimated too
    announce_judge_calls(name, 1, [d["id"] for d in docs], judging=judging, docs=docs)
    return {"test": datasets.Dataset.from_list(docs)}


def judge_filter(resps: Sequence[str | None], docs: Sequence[dict[str, Any]]) -> list[str]:
    """Judge every response of the task in one concurrent batch (after `take_first`)."""
    mapping = docs[0]["judge_mapping"] if docs else spec.DEFAULT_JUDGE_MAPPING
    rule = docs[0].get("jury_rule", DEFAULT_RATING_RULE) if docs else DEFAULT_RATING_RULE
    return judged_filter(
        CareJudging(mapping),
        resps,
        docs,
        spec.JUDGE_VERSIONS,
        rule=rule,
        summary=(all_metrics, spec.GROUP_METRIC),
    )


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    return outcome_fields(spec.HEADLINE_METRICS, judged_outcome(results))


# per category and scope included, and a jury's figures
all_metrics = OutcomeMetrics(care_metrics, spec.CareOutcome, jury=(spec.JURY_VOTES, 1.0))


def agg_n_scored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_scored")


def agg_n_unscored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_unscored")


def agg_unscored_rate(items: list[Any]) -> float:
    return all_metrics.value(items, "unscored_rate")


def agg_rating(items: list[Any]) -> float:
    return all_metrics.value(items, "rating")


def agg_rating_ci_low(items: list[Any]) -> float:
    return all_metrics.value(items, "rating_ci_low")


def agg_rating_ci_high(items: list[Any]) -> float:
    return all_metrics.value(items, "rating_ci_high")
