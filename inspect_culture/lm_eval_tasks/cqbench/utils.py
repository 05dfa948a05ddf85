"""Thin lm-eval adapter for CQ-Bench AD and VS; everything comes from `benchmarks.cqbench`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.benchmarks.cqbench.metrics import ad_metrics, vs_metrics
from inspect_culture.benchmarks.cqbench.parse import score_ad, score_vs
from inspect_culture.benchmarks.cqbench.prompts import task_messages
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.cqbench._generate_configs import template
from inspect_culture.lm_eval_tasks.generic import OutcomeMetrics, outcome_fields
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance


def check_cqbench_keys(name: str, family: str, metadata: dict[str, Any]) -> None:
    """The shared key check, with this family's options and YAML metadata."""
    task = "ve" if family.startswith("ve") else family
    step2 = ("ve_summaries",) if family == "ve" else ()
    options = ("setting", *spec.TASK_PARAMETERS[task], *step2)
    check_metadata_keys(name, metadata, options=options, yaml_metadata=template(family)["metadata"])


@one_line_in_cli
def load_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset` of the AD and VS tasks; `variant` fixes family, setting and reasoning."""
    task, setting, reasoning = variant["family"], variant["setting"], variant["reasoning"]
    name = f"cqbench_{task}_{setting}" + ("_reasoning" if reasoning else "")
    check_cqbench_keys(name, task, metadata)
    params = spec.validate(task, metadata, fixed={"setting": setting, "reasoning": reasoning})
    loaded = load_cqbench(task, setting)
    record_provenance(name, metadata, loaded.provenance)  # once, not per doc
    per_task = {"merged": params.merged, "skip_empty": params.skip_empty}  # process_results'
    docs = []
    for record in loaded.records:
        system, user = task_messages(record, params)
        prompts = {"system_prompt": system["content"], "user_prompt": user["content"]}
        docs.append({**record, **prompts, **per_task})
    return {"test": datasets.Dataset.from_list(docs)}


def process_results_ad(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    _, _, outcome = score_ad(doc["id"], doc, results[0], doc["merged"])
    return outcome_fields(spec.HEADLINE_METRICS["ad"], outcome.to_record())


def process_results_vs(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    outcome = score_vs(doc["id"], doc, results[0], doc["skip_empty"])
    return outcome_fields(spec.HEADLINE_METRICS["vs"], outcome.to_record())


# every AD and VS metric of the outcome records (per category included)
all_ad_metrics = OutcomeMetrics(ad_metrics, spec.AdOutcome)
all_vs_metrics = OutcomeMetrics(vs_metrics, spec.VsOutcome)


def agg_ad_accuracy(items: list[Any]) -> float:
    return all_ad_metrics.value(items, "accuracy")


def agg_ad_macro_f1(items: list[Any]) -> float:
    return all_ad_metrics.value(items, "macro_f1")


def agg_ad_unparsed_rate(items: list[Any]) -> float:
    return all_ad_metrics.value(items, "unparsed_rate")


def agg_vs_precision(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "precision")


def agg_vs_recall(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "recall")


def agg_vs_f1(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "f1")


def agg_vs_mean_story_f1(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "mean_story_f1")


def agg_vs_empty_rate(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "empty_rate")


def agg_vs_n_stories(items: list[Any]) -> float:
    return all_vs_metrics.value(items, "n_stories")
