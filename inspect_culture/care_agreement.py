"""CARE judge-human agreement for Inspect AI: the evaluated model is the judge. It rates the
human-rated responses of the CARE resource with the CARE rubrics; the task reports Pearson,
Spearman and Kendall's tau against the human ratings, overall and per category, and both rating
histograms. The paper reports GPT-4o at 0.933 / 0.901 / 0.733 (App. C.2).

    inspect eval inspect_culture/care_judge_agreement --model openai/gpt-4o -T language=zh
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.judging import judge_record
from inspect_culture.benchmarks.care.metrics import judge_agreement
from inspect_culture.benchmarks.care.prompts import judge_prompt
from inspect_culture.benchmarks.care.ratings import load_care_ratings
from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.errors import task_setup_errors
from inspect_culture.inspect_adapter.metrics import outcome_metrics


@task
def care_judge_agreement(
    language: str | None = None, judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING
) -> Task:
    """Args:
    language: zh, ar or ja (by `associated_culture`); none = every rated response.
    judge_mapping: paper (rubric by content) or upstream (by file name).
    """
    with task_setup_errors():
        spec.validate_agreement(language, judge_mapping)
        loaded = load_care_ratings(language)
    samples = [record_to_sample(r, judge_mapping) for r in loaded.records]
    return Task(
        dataset=MemoryDataset(samples, name="care_judge_agreement"),
        solver=[engine_defaults(), generate()],
        scorer=judge_rating(),
        config=GenerateConfig(**spec.AGREEMENT_GENERATION),
        version=spec.TASK_VERSION,
        metadata={
            "benchmark": "CARE judge agreement",
            "judge_mapping": judge_mapping,
            "judge_prompt_version": spec.JUDGE_PROMPT_VERSION,
            "agreement_version": spec.AGREEMENT_VERSION,
            "dataset": loaded.provenance,
        },
    )


def record_to_sample(record: dict[str, Any], judge_mapping: str) -> Sample:
    """One human-rated response (datasets_hub.care_ratings) as the judge prompt to answer."""
    prompt_fields = [record[k] for k in ("category", "question", "answer", "response")]
    return Sample(
        id=record["id"],
        input=judge_prompt(*prompt_fields, judge_mapping),
        target=str(record["human_rating"]),
        metadata={"human_rating": record["human_rating"], "category": record["category"]},
    )


@metric(scores="unreduced")
def agreement() -> Metric:
    """`judge_agreement` over every epoch's score (each response once, with its mean rating)."""
    # Inspect counts unscored samples itself (unscored_samples)
    return outcome_metrics(spec.AgreementOutcome.from_record, judge_agreement, {"n_unscored"})


@scorer(metrics=[agreement()])
def judge_rating() -> Scorer:
    """The value is the judge's rating; an output with no rating is unscored, never a 0."""

    async def score(state: TaskState, target: Target) -> Score:
        rating, reason = judge_record(state.output.completion, state.output.error)
        outcome = spec.AgreementOutcome.judged(str(state.sample_id), state.metadata, rating)
        metadata = {**outcome.to_record(), **spec.JUDGE_VERSIONS}
        if rating is None:
            return Score.unscored(reason=reason, metadata=metadata)
        return Score(value=rating, answer=str(rating), metadata=metadata)

    return score
