"""Thin lm-eval adapter for CultureSynth-7: `culturesynth_<lang|all>` judge the model against a
baseline file, which `culturesynth_answers_<lang>` runs of the baseline model make."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from inspect_culture.benchmark_registry import benchmark
from inspect_culture.benchmarks.culturesynth import spec
from inspect_culture.benchmarks.culturesynth.baseline_responses import read_baseline_responses
from inspect_culture.benchmarks.culturesynth.data import load_culturesynth
from inspect_culture.benchmarks.culturesynth.judging import (
    CultureSynthJudging,
    estimate_items,
    pairwise_verdict_format,
)
from inspect_culture.benchmarks.culturesynth.metrics import culturesynth_metrics
from inspect_culture.datasets_hub.errors import DatasetUnavailableError
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.culturesynth._generate_configs import ANSWERS, JUDGED, template
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

_FIELDS = ("id", "question", "answer", "language", "primary_topic", "secondary_topic")
VERSIONS = {
    "judge_prompt_version": spec.JUDGE_PROMPT_VERSION,
    "pairwise_parser_version": spec.PAIRWISE_PARSER_VERSION,
}


def _records(language: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    loaded = load_culturesynth([language] if language else None)
    return [{k: r[k] for k in _FIELDS} for r in loaded.records], loaded.provenance


def _language(kind: str, variant: Mapping[str, Any], metadata: dict[str, Any]) -> str | None:
    language = variant["language"]
    task, options = f"{kind}_{language or 'all'}", benchmark("culturesynth").lm_eval_options
    check_metadata_keys(task, metadata, options=options, yaml_metadata=template(kind)["metadata"])
    spec.validate(metadata.get("language", language), task_language=language)
    return language


@one_line_in_cli
def load_answer_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """Generation only (the baseline model's run): no judge, no baseline needed."""
    language = _language(ANSWERS, variant, metadata)
    records, provenance = _records(language)
    record_provenance(f"{ANSWERS}_{language or 'all'}", metadata, provenance)  # not per doc
    return {"test": datasets.Dataset.from_list(records)}


@one_line_in_cli
def load_judged_docs(variant: Mapping[str, Any], **metadata: Any) -> dict[str, datasets.Dataset]:
    """Every question with the baseline's answer (None: counted as n_missing_baseline)."""
    language = _language(JUDGED, variant, metadata)
    judge = load_options(metadata)  # before the local checks
    settings = spec.validate(**{k: metadata[k] for k in spec.LM_EVAL_PARAMS if k in metadata})
    if not (source := metadata.get("baseline_responses")):
        raise DatasetUnavailableError(
            "CultureSynth compares the model with a baseline model's answers: pass "
            "--metadata '{\"baseline_responses\": FILE, ...}'. Make FILE by running the baseline "
            "model (the paper's is google/gemma-2-27b-it) on the culturesynth_answers tasks with "
            "--log_samples --output_path DIR, then `culture-evals baseline export DIR -o FILE`."
        )
    baseline = read_baseline_responses(source)
    records, provenance = _records(language)
    baseline.check_questions([r["id"] for r in records], provenance.get("sha256"))
    task = f"culturesynth_{language or 'all'}"
    keep_task_options(task, metadata, judge, pairwise_verdict_format())  # after the local checks
    docs = [
        {
            **r,
            "baseline_answer": baseline.responses.get(r["id"]),
            "swap": settings.swap,
            "seed": settings.seed,
            "lm_eval_task": task,
        }
        for r in records
    ]
    record_provenance(task, metadata, provenance, VERSIONS, baseline.provenance())  # once
    judging = CultureSynthJudging(settings.swap, settings.seed)  # tokens estimated too
    # the questions judged (those with a baseline answer), by the rule Inspect's estimate reads
    items = estimate_items(records, baseline.responses)
    judged = [item["id"] for item in items]
    announce_judge_calls(task, 2 if settings.swap else 1, judged, judging=judging, docs=items)
    return {"test": datasets.Dataset.from_list(docs)}


def judge_filter(resps: Sequence[str | None], docs: Sequence[dict[str, Any]]) -> list[str]:
    """Judge every game of the task in one batch: two per question with swap, none unanswered."""
    if not docs:
        return []
    judging = CultureSynthJudging(docs[0]["swap"], docs[0]["seed"])
    return judged_filter(
        judging, resps, docs, VERSIONS, games=True, summary=(all_metrics, spec.GROUP_METRIC)
    )


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    return outcome_fields(spec.HEADLINE_METRICS, judged_outcome(results))


def process_answers(doc: dict[str, Any], results: Sequence[str]) -> dict[str, float]:
    return {spec.ANSWERED: float(bool((results[0] or "").strip()))}


# per language and topic too, and a jury's figures
all_metrics = OutcomeMetrics(
    culturesynth_metrics, spec.PairOutcome, jury=(spec.JURY_VOTES, spec.JURY_SCALE)
)


def agg_n_scored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_scored")


def agg_n_unscored(items: list[Any]) -> float:
    return all_metrics.value(items, "n_unscored")


def agg_n_missing_baseline(items: list[Any]) -> float:
    return all_metrics.value(items, "n_missing_baseline")


def agg_net_win_rate(items: list[Any]) -> float:
    return all_metrics.value(items, "net_win_rate")


def agg_net_win_rate_ci_low(items: list[Any]) -> float:
    return all_metrics.value(items, "net_win_rate_ci_low")


def agg_net_win_rate_ci_high(items: list[Any]) -> float:
    return all_metrics.value(items, "net_win_rate_ci_high")


def agg_weighted_average(items: list[Any]) -> float:
    return all_metrics.value(items, "weighted_average")
