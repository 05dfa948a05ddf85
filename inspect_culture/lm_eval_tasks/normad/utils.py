"""Thin lm-eval adapter for NormAd-ETI: everything delegates to the code Inspect runs."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmark_registry import benchmark
from inspect_culture.benchmarks.choices import check_fixed
from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.metrics import normad_metrics
from inspect_culture.benchmarks.normad.parse import score_answer
from inspect_culture.benchmarks.normad.prompts import render_prompt
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.generic import OutcomeMetrics, outcome_fields
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from inspect_culture.lm_eval_tasks.normad._generate_configs import template
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance

logger = logging.getLogger(__name__)


@one_line_in_cli
def load_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset` of every task: its `variant` fixes the context; the parser is an option."""
    context = variant["context"]
    options, yaml_metadata = benchmark("normad").lm_eval_options, template()["metadata"]
    check_metadata_keys(f"normad_{context}", metadata, options=options, yaml_metadata=yaml_metadata)
    check_fixed(f"normad_{context}", metadata, context=context)
    parser = metadata.get("parser", spec.DEFAULT_PARSER)
    spec.validate(context=context, parser=parser, dataset_revision=metadata.get("dataset_revision"))
    loaded = load_normad()
    logger.info("NormAd-ETI for normad_%s: %s", context, loaded.provenance)
    versions = {"parser_version": spec.PARSER_VERSION}
    record_provenance(f"normad_{context}", metadata, loaded.provenance, versions)  # not per doc
    per_task = {"context": context, "parser": parser}  # what `process_results` reads
    # what an Inspect sample keeps, and the prompt: the story, value, rule of thumb and
    # background are in the prompt, and carried again they cost lm-eval time per doc
    kept = ("id", *spec.SAMPLE_FIELDS)
    docs = [
        {**{k: r[k] for k in kept}, "prompt": render_prompt(context, r), **per_task}
        for r in loaded.records
    ]
    return {"test": datasets.Dataset.from_list(docs)}


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """The per-doc outcome record, carried by the first metric (`outcome_fields`); the
    aggregations compute every metric from it."""
    record = score_answer(doc, results[0], doc["parser"]).to_record()
    return outcome_fields(spec.HEADLINE_METRICS, record)


all_metrics = OutcomeMetrics(normad_metrics, spec.NormadOutcome)  # breakdowns included


def agg_accuracy(items: list[Any]) -> float:
    return all_metrics.value(items, "accuracy")


def agg_macro_f1(items: list[Any]) -> float:
    return all_metrics.value(items, "macro_f1")


def agg_unparsed_rate(items: list[Any]) -> float:
    return all_metrics.value(items, "unparsed_rate")


def agg_accuracy_ci_low(items: list[Any]) -> float:
    return all_metrics.value(items, "accuracy_ci_low")


def agg_accuracy_ci_high(items: list[Any]) -> float:
    return all_metrics.value(items, "accuracy_ci_high")
