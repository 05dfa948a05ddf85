"""Thin lm-eval adapter for CARE judge-human agreement: the evaluated model is the judge. It
rates CARE's human-rated responses with the CARE rubrics; the metrics are Inspect's
`care_judge_agreement`'s, from the same function (`benchmarks/care/metrics.judge_agreement`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.judging import judge_record
from inspect_culture.benchmarks.care.metrics import judge_agreement
from inspect_culture.benchmarks.care.prompts import judge_prompt
from inspect_culture.benchmarks.care.ratings import load_care_ratings
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.generic import OutcomeMetrics, outcome_fields
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from inspect_culture.lm_eval_tasks.task_provenance import record_provenance
from inspect_culture.lm_eval_tasks.yaml_generation import generation_template

OPTIONS = ("judge_mapping",)  # the --metadata keys these tasks read
# lm-eval's table; the per-category correlations and the histograms: the samples' records
HEADLINE_METRICS = (
    "n_scored", "n_unscored", "pearson", "pearson_ci_low", "pearson_ci_high", "spearman",
    "spearman_ci_low", "spearman_ci_high", "kendall",
)  # fmt: skip


def task_name(language: str | None) -> str:
    return "care_judge_agreement" + (f"_{language}" if language else "")


def agreement_template() -> dict[str, Any]:
    """The agreement tasks' shared YAML (`_generate_configs.py` writes it; the loader checks
    --metadata against its metadata)."""
    template = generation_template(
        "inspect_culture.lm_eval_tasks.care.human_agreement",
        spec.AGREEMENT_SETTINGS,
        HEADLINE_METRICS,
        lower_is_better=("n_unscored",),
        doc_to_text="{{prompt}}",
        metadata={
            "version": spec.TASK_VERSION,
            "agreement_version": spec.AGREEMENT_VERSION,
            "judge_mapping": spec.DEFAULT_JUDGE_MAPPING,
            **spec.JUDGE_VERSIONS,
            "dataset": "geyang627/CARE",
        },
    )
    template["generation_kwargs"]["seed"] = spec.AGREEMENT_GENERATION["seed"]
    return template


@one_line_in_cli
def load_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """Every human-rated response of the variant's language (None: all) as its judge prompt."""
    language, name = variant["language"], task_name(variant["language"])
    yaml_metadata = agreement_template()["metadata"]
    check_metadata_keys(name, metadata, options=OPTIONS, yaml_metadata=yaml_metadata)
    mapping = metadata.get("judge_mapping", spec.DEFAULT_JUDGE_MAPPING)
    spec.validate_agreement(language, mapping)
    loaded = load_care_ratings(language)
    docs = [
        {
            "id": r["id"],
            "category": r["category"],
            "human_rating": r["human_rating"],
            "prompt": judge_prompt(
                r["category"], r["question"], r["answer"], r["response"], mapping
            ),
            "judge_mapping": mapping,
        }
        for r in loaded.records
    ]
    record_provenance(name, metadata, loaded.provenance, spec.JUDGE_VERSIONS)  # once, not per doc
    return {"test": datasets.Dataset.from_list(docs)}


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """The response's rating as the model judged it (None: no rating, unscored, never 0)."""
    rating, _ = judge_record(results[0])
    record = spec.AgreementOutcome.judged(str(doc["id"]), doc, rating).to_record()
    return outcome_fields(HEADLINE_METRICS, record)


all_metrics = OutcomeMetrics(judge_agreement, spec.AgreementOutcome)


def agg_n_scored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_scored")


def agg_n_unscored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_unscored")


def agg_pearson(items: list[Any]) -> float:
    return all_metrics.value(items, "pearson")


def agg_pearson_ci_low(items: list[Any]) -> float:
    return all_metrics.value(items, "pearson_ci_low")


def agg_pearson_ci_high(items: list[Any]) -> float:
    return all_metrics.value(items, "pearson_ci_high")


def agg_spearman(items: list[Any]) -> float:
    return all_metrics.value(items, "spearman")


def agg_spearman_ci_low(items: list[Any]) -> float:
    return all_metrics.value(items, "spearman_ci_low")


def agg_spearman_ci_high(items: list[Any]) -> float:
    return all_metrics.value(items, "spearman_ci_high")


def agg_kendall(items: list[Any]) -> float:
    return all_metrics.value(items, "kendall")
