"""NormAd-ETI for Inspect AI.

    inspect eval inspect_culture/normad --model vllm/<model> -T context=value_country

Contexts follow the paper's settings (rule-of-thumb, value+country, country, no context); the
prompts, temperature 0 and 50 output tokens are the authors' (`docs/normad.md`).
Absolute imports only: Inspect also loads this file by path (`inspect eval .../normad.py`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState, generate

from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.data import load_normad
from inspect_culture.benchmarks.normad.metrics import normad_metrics
from inspect_culture.benchmarks.normad.parse import score_answer
from inspect_culture.benchmarks.normad.prompts import render_prompt
from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.errors import task_setup_errors
from inspect_culture.inspect_adapter.metrics import outcome_metrics


@task
def normad(context: str = "rot", parser: str = spec.DEFAULT_PARSER) -> Task:
    """NormAd-ETI social-acceptability judgments (yes / no / neutral).

    Args:
        context: rot, value_country, country or none.
        parser: strict (unparsable answers are counted wrong and reported) or upstream (the
            authors' case-sensitive substring rules with a neutral fallback).
    """
    with task_setup_errors():
        spec.validate(context=context, parser=parser)
        loaded = load_normad()
    samples = [record_to_sample(record, context) for record in loaded.records]
    return Task(
        dataset=MemoryDataset(samples, name=f"normad_{context}"),
        solver=[engine_defaults(), generate()],
        scorer=normad_scorer(parser),
        config=GenerateConfig(**spec.GENERATION.inspect_config()),
        version=spec.TASK_VERSION,
        metadata={
            "benchmark": spec.BENCHMARK,
            "context": context,
            "upstream_conditioning": spec.UPSTREAM_CONDITIONING[context],
            "parser": parser,
            "parser_version": spec.PARSER_VERSION,
            "dataset": loaded.provenance,
        },
    )


def record_to_sample(record: dict[str, Any], context: str) -> Sample:
    return Sample(
        id=record["id"],
        input=render_prompt(context, record),
        target=record["gold_label"],
        metadata={key: record[key] for key in spec.SAMPLE_FIELDS},
    )


@metric(scores="unreduced")
def normad_breakdown() -> Metric:
    """Every NormAd number, from `normad_metrics` over every epoch's judgment."""
    return outcome_metrics(spec.NormadOutcome.from_record, normad_metrics)


@scorer(metrics=[normad_breakdown()])
def normad_scorer(parser: str = spec.DEFAULT_PARSER) -> Scorer:
    spec.validate(parser=parser)

    async def score(state: TaskState, target: Target) -> Score:
        record = {**state.metadata, "id": state.sample_id}
        outcome = score_answer(record, state.output.completion, parser)
        return Score(
            value=CORRECT if outcome.pred == outcome.gold else INCORRECT,
            answer=outcome.pred if outcome.pred is not None else "(unparsed)",
            explanation=f"parser={parser}, rule={outcome.rule}",
            metadata=outcome.to_record(),
        )

    return score
