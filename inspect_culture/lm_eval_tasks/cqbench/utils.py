"""Thin lm-eval adapter for CQ-Bench AD and VS: parameters, prompts, per-doc scoring and metrics
all come from `inspect_culture.benchmarks.cqbench`.

Setting and reasoning are fixed by the task name (`cqbench_<ad|vs>_<setting>[_reasoning]`);
`--metadata` sets `shots`, `prompt_fidelity`, `merged` (AD) and `skip_empty` (VS).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.benchmarks.cqbench.metrics import ad_metrics, vs_metrics
from inspect_culture.benchmarks.cqbench.parse import score_ad, score_vs
from inspect_culture.benchmarks.cqbench.prompts import task_messages
from inspect_culture.lm_eval_tasks.aggregation import cached_metrics
from inspect_culture.lm_eval_tasks.cqbench._generate_configs import (
    AD_METRICS,
    VS_METRICS,
    _template,
)
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys


def check_cqbench_keys(name: str, family: str, metadata: dict[str, Any]) -> None:
    """The shared key check, with this family's options and YAML metadata."""
    task = "ve" if family.startswith("ve") else family
    options = (
        "setting",
        *spec.TASK_PARAMETERS[task],
        *(("ve_summaries",) if family == "ve" else ()),
    )
    check_metadata_keys(
        name, metadata, options=options, yaml_metadata=_template(family)["metadata"]
    )


def load_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset` of the AD and VS tasks; the task's `variant` fixes family, setting and
    reasoning."""
    task, setting, reasoning = variant["family"], variant["setting"], variant["reasoning"]
    name = f"cqbench_{task}_{setting}" + ("_reasoning" if reasoning else "")
    check_cqbench_keys(name, task, metadata)
    params = spec.validate(task, metadata, fixed={"setting": setting, "reasoning": reasoning})
    loaded = load_cqbench(task, setting)
    docs = []
    for record in loaded.records:
        system, user = task_messages(record, params)
        docs.append(
            {
                **record,
                "system_prompt": system["content"],
                "user_prompt": user["content"],
                "merged": params.merged,
                "skip_empty": params.skip_empty,
                "dataset_revision": loaded.provenance["revision"],
            }
        )
    return {"test": datasets.Dataset.from_list(docs)}


def process_results_ad(doc: dict[str, Any], results: Sequence[str]) -> dict[str, dict]:
    _, _, outcome = score_ad(doc["id"], doc, results[0], doc["merged"])
    return {name: outcome.to_record() for name in AD_METRICS}


def process_results_vs(doc: dict[str, Any], results: Sequence[str]) -> dict[str, dict]:
    outcome = score_vs(doc["id"], doc, results[0], doc["skip_empty"])
    return {name: outcome.to_record() for name in VS_METRICS}


def all_ad_metrics(items: list[Any]) -> dict[str, float]:
    """Every AD metric of the outcome records (per category included)."""
    return ad_metrics([spec.AdOutcome.from_record(i) for i in items])


def all_vs_metrics(items: list[Any]) -> dict[str, float]:
    """Every VS metric of the outcome records (per category included)."""
    return vs_metrics([spec.VsOutcome.from_record(i) for i in items])


_ad = cached_metrics(all_ad_metrics)
_vs = cached_metrics(all_vs_metrics)


def agg_ad_accuracy(items: list[Any]) -> float:
    return _ad(items, "accuracy")


def agg_ad_macro_f1(items: list[Any]) -> float:
    return _ad(items, "macro_f1")


def agg_ad_unparsed_rate(items: list[Any]) -> float:
    return _ad(items, "unparsed_rate")


def agg_vs_precision(items: list[Any]) -> float:
    return _vs(items, "precision")


def agg_vs_recall(items: list[Any]) -> float:
    return _vs(items, "recall")


def agg_vs_f1(items: list[Any]) -> float:
    return _vs(items, "f1")


def agg_vs_mean_story_f1(items: list[Any]) -> float:
    return _vs(items, "mean_story_f1")


def agg_vs_empty_rate(items: list[Any]) -> float:
    return _vs(items, "empty_rate")


def agg_vs_n_stories(items: list[Any]) -> float:
    return _vs(items, "n_stories")
