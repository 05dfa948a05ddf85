"""CARE for Inspect AI: free-text answers to culture questions, rated 1-10 by an LLM judge
against the human reference answer (one rubric per category).

    inspect eval inspect_culture/care --model vllm/<model> --model-role grader=openai/gpt-4o \
        -T language=zh -T prompting=zero_shot

Absolute imports only: Inspect also loads this file by path.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.data import first_per_category, load_care
from inspect_culture.benchmarks.care.judging import CareJudging, care_rating_format
from inspect_culture.benchmarks.care.metrics import care_metrics
from inspect_culture.benchmarks.care.prompts import JUDGE_FILES, generation_messages
from inspect_culture.benchmarks.care.spec import CareOutcome
from inspect_culture.inspect_adapter.errors import scorer_setup_errors, task_setup_errors
from inspect_culture.inspect_adapter.judge import CostEstimate, checked_grader
from inspect_culture.inspect_adapter.judged_task import judge_sample, judged_metrics
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.inspect_adapter.params import as_optional_int, judge_parameters
from inspect_culture.judging.jury import DEFAULT_RATING_RULE
from inspect_culture.judging.options import SCORER, TASK, JudgeOptions


@task
@judge_parameters(TASK)
def care(
    language: str = "zh",
    prompting: str = "zero_shot",
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING,
    per_category: int | None = None,
    jury_rule: str = DEFAULT_RATING_RULE,
    *,
    judge: JudgeOptions,
    **judge_parameters: Any,  # the judge's, declared in judging/options.py
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
            judged task (`judging/options.py`, docs/judge.md), as `judge`.
        jury_rule: with a jury (--model-role grader_2=... and more), the rating of an answer is
            the mean of its judges' ratings (default) or their median (docs/judge.md, "Juries").
        judge_repeats, rejudge_fraction: judge each answer judge_repeats times (default 1), or
            only a fraction of them chosen by id; the rating interval then includes the judge's
            noise (docs/judge.md, "How much to trust a judged number").
    """
    with task_setup_errors():
        per_category = as_optional_int("per_category", per_category, minimum=1)
        options = spec.validate(
            language=language, prompting=prompting, judge_mapping=judge_mapping, jury_rule=jury_rule
        )
        loaded = load_care(options.language)
        records = first_per_category(loaded.records, per_category)
    return Task(
        dataset=MemoryDataset(
            [record_to_sample(r, options.prompting) for r in records], name=f"care_{language}"
        ),
        solver=[
            checked_grader(  # also the engine defaults: one solver span a sample
                judge,
                care_rating_format(),
                judge_calls=judge.repeats.calls(r["id"] for r in records),  # one rating a judging
                task_label=f"care_{options.language} ({options.prompting})",
                estimate=CostEstimate(CareJudging(options.judge_mapping), records, judge.repeats),
            ),
            generate(),
        ],
        scorer=care_judge(
            judge_mapping=options.judge_mapping, jury_rule=options.jury_rule, **judge.scorer_args()
        ),
        config=GenerateConfig(**spec.GENERATION.inspect_config()),
        version=spec.TASK_VERSION,
        metadata={**_task_metadata(options, loaded.provenance, per_category), **judge.record()},
    )


def _task_metadata(
    options: spec.CareOptions, provenance: dict[str, Any], per_category: int | None
) -> dict[str, Any]:
    """What the task's metadata says of its benchmark options and its data."""
    return {
        "benchmark": spec.BENCHMARK,
        "language": options.language,
        "prompting": options.prompting,
        "judge_mapping": options.judge_mapping,
        "judge_files": JUDGE_FILES[options.judge_mapping],
        **spec.JUDGE_VERSIONS,
        "dataset": provenance,
        "per_category": per_category,
    }


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
    outcome = CareOutcome.from_record
    return judged_metrics(outcome, care_metrics, spec.JURY_VOTES, spec.UNSCORED_COUNTS)


@scorer(metrics=[care_breakdown()])
@judge_parameters(SCORER)
def care_judge(
    judge_mapping: str = spec.DEFAULT_JUDGE_MAPPING,
    jury_rule: str = DEFAULT_RATING_RULE,
    *,
    judge: JudgeOptions,
    **judge_parameters: Any,  # the judge's, declared in judging/options.py
) -> Scorer:
    """The grader rates the answer 1-10 with the category's rubric; no rating = unscored. A
    jury's rating is the mean (or median) of its judges'."""
    with scorer_setup_errors():
        options = spec.validate(judge_mapping=judge_mapping, jury_rule=jury_rule)

    judging = CareJudging(options.judge_mapping)

    async def score(state: TaskState, target: Target) -> Score:
        judgment = await judge_sample(judging, state, judge, target.text, options.jury_rule)
        details = {
            **judgment.judged.record,
            **judgment.judges_shown(),
            "judge_mapping": options.judge_mapping,
            **spec.JUDGE_VERSIONS,
            **judge.record(),
        }
        return judgment.score(explanation=judgment.explanation(), metadata=details)

    return score
