"""CARE for Inspect AI: free-text answers to culture questions, rated 1-10 by an LLM judge
against the human reference answer (one rubric per category).

    inspect eval inspect_culture/care --model vllm/<model> --model-role grader=openai/gpt-4o \
        -T language=zh -T prompting=zero_shot

Absolute imports only: Inspect also loads this file by path.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.data import first_per_category, load_care
from inspect_culture.benchmarks.care.judging import CareJudging, care_rating_format
from inspect_culture.benchmarks.care.metrics import care_metrics
from inspect_culture.benchmarks.care.prompts import JUDGE_FILES, generation_messages
from inspect_culture.benchmarks.care.spec import CareOutcome
from inspect_culture.inspect_adapter.errors import scorer_setup_errors, task_setup_errors
from inspect_culture.inspect_adapter.judge import (
    checked_grader,
    explanation_of,
    judge_sample,
    judged_score,
    judges_shown,
)
from inspect_culture.inspect_adapter.live import judged_metrics
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.inspect_adapter.params import as_bool, as_optional_int, as_optional_seconds
from inspect_culture.judging.constraints import constraint_record
from inspect_culture.judging.jury import DEFAULT_RATING_RULE, JURY_KEY
from inspect_culture.judging.jury_agreement import with_jury
from inspect_culture.judging.repeats import check_repeats


@task
def care(
    language: str = "zh",
    prompting: str = "zero_shot",
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING,
    self_grade: bool = False,
    per_category: int | None = None,
    judge_constraint: str = "none",
    judge_preflight: bool = True,
    judge_timeout: float | None = None,
    judge_later: bool = False,
    jury_rule: str = DEFAULT_RATING_RULE,
    judge_repeats: int = 1,
    rejudge_fraction: float = 1.0,
) -> Task:
    """CARE (Guo et al., EMNLP 2025).

    Args:
        language: zh, ar or ja (150 questions each).
        prompting: zero_shot, cot or role_play (paper Fig. 8).
        judge_mapping: paper (rubric by content, default) or upstream (by file name).
        per_category: keep only the first N questions of each category (quick runs).
        judge_constraint: none (the paper's protocol), or constrain the judge's decoding so
            that every reply ends in "Rating: [[n]]": regex (vLLM), grammar (llama.cpp) or
            json_schema (OpenAI-style); a documented deviation, for small local judges.
        self_grade, judge_preflight, judge_timeout, judge_later: the judge parameters of every
            judged task (`inspect_adapter/judge.py`, docs/judge.md).
        jury_rule: with a jury (--model-role grader_2=... and more), the rating of an answer is
            the mean of its judges' ratings (default) or their median (docs/judge.md, "Juries").
        judge_repeats, rejudge_fraction: judge each answer judge_repeats times (default 1), or
            only a fraction of them chosen by id; the rating interval then includes the judge's
            noise (docs/judge.md, "How much to trust a judged number").
    """
    with task_setup_errors():
        per_category = as_optional_int("per_category", per_category, minimum=1)
        judge_preflight = as_bool("judge_preflight", judge_preflight)
        judge_later = as_bool("judge_later", judge_later)
        judge_timeout = as_optional_seconds("judge_timeout", judge_timeout)
        options = spec.validate(
            language=language, prompting=prompting, judge_mapping=judge_mapping,
            self_grade=self_grade, judge_constraint=judge_constraint, jury_rule=jury_rule,
        )  # fmt: skip
        repeats = check_repeats(judge_repeats, rejudge_fraction)
        loaded = load_care(options.language)
        records = first_per_category(loaded.records, per_category)
    return Task(
        dataset=MemoryDataset(
            [record_to_sample(r, options.prompting) for r in records], name=f"care_{language}"
        ),
        solver=[
            checked_grader(  # also the engine defaults: one solver span a sample
                options.self_grade,
                options.judge_constraint,
                care_rating_format(),
                judge_preflight,
                judge_later,
                judge_calls=repeats.calls(r["id"] for r in records),  # one rating a judging
                task_label=f"care_{options.language} ({options.prompting})",
                rejudging=repeats.k > 1,
                judge_timeout=judge_timeout,  # unset: the worst case of a 429 is said
            ),
            generate(),
        ],
        scorer=care_judge(
            options.judge_mapping,
            options.self_grade,
            options.judge_constraint,
            judge_timeout,
            judge_later,
            options.jury_rule,
            repeats.k,
            repeats.fraction,
        ),
        config=GenerateConfig(**spec.GENERATION.inspect_config()),
        version=spec.TASK_VERSION,
        metadata={
            "benchmark": spec.BENCHMARK,
            "language": options.language,
            "prompting": options.prompting,
            "judge_mapping": options.judge_mapping,
            "judge_files": JUDGE_FILES[options.judge_mapping],
            **spec.JUDGE_VERSIONS,
            "dataset": loaded.provenance,
            "per_category": per_category,
            **constraint_record(options.judge_constraint),
            **repeats.settings(),
        },
    )


def record_to_sample(record: dict[str, Any], prompting: str) -> Sample:
    """One normalized CARE record (benchmarks.care.data) as a sample with the prompting's messages."""
    messages = generation_messages(record["question"], record["language"], prompting)
    return Sample(
        id=record["id"],
        input=to_chat_messages(messages),
        target=record["answer"],
        metadata={
            k: record[k] for k in ("question", "category", "geographic_scope", "culture_type")
        },
    )


@metric(scores="unreduced")
def care_breakdown() -> Metric:
    """`care_metrics` over every epoch's score (it counts each question once)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        outcomes = [CareOutcome.from_record(s.score.metadata) for s in scores if s.score.metadata]
        juries = [(s.score.metadata or {}).get(JURY_KEY) for s in scores]
        metrics = with_jury(partial(care_metrics, outcomes), juries, spec.JURY_VOTES)
        return judged_metrics("care", scores, metrics, spec.UNSCORED_COUNTS)

    return compute


@scorer(metrics=[care_breakdown()])
def care_judge(
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING,
    self_grade: bool = False,
    judge_constraint: str = "none",
    judge_timeout: float | None = None,
    judge_later: bool = False,
    jury_rule: str = DEFAULT_RATING_RULE,
    judge_repeats: int = 1,
    rejudge_fraction: float = 1.0,
) -> Scorer:
    """The grader rates the answer 1-10 with the category's rubric; no rating = unscored. A
    jury's rating is the mean (or median) of its judges'."""
    with scorer_setup_errors():
        options = spec.validate(
            judge_mapping=judge_mapping,
            self_grade=self_grade,
            judge_constraint=judge_constraint,
            jury_rule=jury_rule,
        )
        timeout = as_optional_seconds("judge_timeout", judge_timeout)
        later = as_bool("judge_later", judge_later)
        repeats = check_repeats(judge_repeats, rejudge_fraction)

    judging = CareJudging(options.judge_mapping)

    async def score(state: TaskState, target: Target) -> Score:
        item = {**state.metadata, "id": str(state.sample_id), "answer": target.text}
        judges, judged, replies = await judge_sample(
            judging,
            item,
            state.output.completion,
            options,
            timeout,
            later,
            options.jury_rule,
            repeats,
        )
        details = {
            **judged.record,
            **judges_shown(judges, judged),
            "judge_mapping": options.judge_mapping,
            **spec.JUDGE_VERSIONS,
            **constraint_record(options.judge_constraint),
            **repeats.settings(),
        }
        return judged_score(judged, explanation=explanation_of(replies), metadata=details)

    return score
