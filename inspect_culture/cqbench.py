"""CQ-Bench for Inspect AI: attitude detection (AD), value selection (VS), value extraction (VE).

    inspect eval inspect_culture/cqbench_ad --model vllm/<model> -T setting=social
    inspect eval inspect_culture/cqbench_vs --model ... -T setting=ethical -T reasoning=true
    inspect eval inspect_culture/cqbench_ve --model ... --model-role grader=... -T setting=social

Parameters, prompts, parsing and metrics come from `benchmarks/cqbench/` (the lm-eval adapter reads
the same). Absolute imports only: Inspect also loads this file by path.
"""

from __future__ import annotations

from collections.abc import Callable
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
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench, load_ve_stories
from inspect_culture.benchmarks.cqbench.judging import VeJudging, ve_scores_format
from inspect_culture.benchmarks.cqbench.metrics import ad_metrics, ve_metrics, vs_metrics
from inspect_culture.benchmarks.cqbench.parse import score_ad, score_vs
from inspect_culture.benchmarks.cqbench.prompts import task_messages, ve_extraction_messages
from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.errors import scorer_setup_errors, task_setup_errors
from inspect_culture.inspect_adapter.judge import checked_grader
from inspect_culture.inspect_adapter.judged_task import judge_sample, judged_metrics
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.inspect_adapter.metrics import outcome_metrics
from inspect_culture.inspect_adapter.params import judge_parameters
from inspect_culture.judging.constraints import constraint_record
from inspect_culture.judging.options import SCORER, TASK, JudgeOptions

# the record fields each task's scorer (and VE's second step) reads from the sample
_SAMPLE_FIELDS = {
    "ad": ("options", "gold", "category"),
    "vs": ("options", "gold_values", "category"),
    "ve": ("story", "category", "gold_values"),
}


def record_to_sample(record: dict[str, Any], params: spec.Params) -> Sample:
    """One loaded CQ-Bench record as a sample of the task `params` describes."""
    messages = to_chat_messages(task_messages(record, params))
    metadata = {field: record[field] for field in _SAMPLE_FIELDS[params.task]}
    return Sample(id=record["id"], input=messages, metadata=metadata)


def _task(
    params: spec.Params, scorer: Scorer, solver: Callable[[list[str]], list[Solver]] | None = None
) -> Task:
    """`solver`: the task's solvers given its sample ids (else generate only)."""
    metadata = {"benchmark": spec.BENCHMARK, **params.record()}
    with task_setup_errors():
        if params.task == "ve":
            loaded, metadata["stories_without_gold"] = load_ve_stories(params.setting)
            metadata.update(constraint_record(params.judge_constraint))
        else:
            loaded = load_cqbench(params.task, params.setting)
    return Task(
        dataset=MemoryDataset(
            [record_to_sample(r, params) for r in loaded.records],
            name=f"cqbench_{params.task}_{params.setting}",
        ),
        solver=solver([str(r["id"]) for r in loaded.records])
        if solver
        else [engine_defaults(), generate()],
        scorer=scorer,
        config=GenerateConfig(**spec.GENERATION.inspect_config()),
        version=spec.TASK_VERSION,
        metadata={
            **metadata,
            "prompt_version": spec.PROMPT_VERSION,
            "matcher_version": spec.PARSER_VERSION,
            "dataset": loaded.provenance,
        },
    )


@task
def cqbench_ad(
    setting: str = "random",
    reasoning: bool = False,
    shots: int = 0,
    merged: bool = False,
    prompt_fidelity: str = "paper",
) -> Task:
    """Attitude detection: which option states a character's attitude to a value.

    Args:
        setting: random, political, social, religious, ethical or multiple.
        reasoning: the step-by-step prompt (answer after `[Answer]:`).
        shots: 0 or 1 (one-shot demonstration; reasoning prompts only).
        merged: also accept the paired near-synonym option (the paper's "Merged" row).
        prompt_fidelity: paper (readable options) or upstream (byte-for-byte upstream rendering).
    """
    with task_setup_errors():
        arguments = {"setting": setting, "reasoning": reasoning, "shots": shots, "merged": merged}
        params = spec.validate("ad", {**arguments, "prompt_fidelity": prompt_fidelity})
    return _task(params, cqbench_ad_scorer(params.merged))


@metric(scores="unreduced")
def ad_breakdown() -> Metric:
    """Accuracy, macro-F1, unparsed rate, accuracy per category; epochs per benchmarks/cqbench."""
    return outcome_metrics(spec.AdOutcome.from_record, ad_metrics)


@scorer(metrics=[ad_breakdown()])
def cqbench_ad_scorer(merged: bool = False) -> Scorer:
    with scorer_setup_errors():
        params = spec.validate("ad", {"merged": merged})

    async def score(state: TaskState, target: Target) -> Score:
        option, rule, outcome = score_ad(
            str(state.sample_id), state.metadata, state.output.completion, params.merged
        )
        return Score(
            value=CORRECT if outcome.pred == outcome.gold else INCORRECT,
            answer=option if option is not None else "(unparsed)",
            explanation=f"match={rule}",
            metadata=outcome.to_record(),
        )

    return score


@task
def cqbench_vs(
    setting: str = "random",
    reasoning: bool = False,
    shots: int = 0,
    prompt_fidelity: str = "paper",
    skip_empty: bool = False,
) -> Task:
    """Value selection: choose the story's values among 15 `statement--option` strings.

    Args:
        setting: random, political, social, religious or ethical.
        reasoning: the decomposed step-by-step prompt (answers after `[Final answer]:`).
        shots: 0 or 1 (one-shot demonstration; reasoning prompts only).
        prompt_fidelity: paper (the number of values filled in) or upstream (literal `{number}`).
        skip_empty: upstream behaviour, dropping stories whose output names no option.
    """
    with task_setup_errors():
        arguments = dict(setting=setting, reasoning=reasoning, shots=shots, skip_empty=skip_empty)
        params = spec.validate("vs", {**arguments, "prompt_fidelity": prompt_fidelity})
    return _task(params, cqbench_vs_scorer(params.skip_empty))


@metric(scores="unreduced")
def vs_breakdown() -> Metric:
    """The paper's F1 of mean precision and mean recall, mean per-story F1, empty rate."""
    return outcome_metrics(spec.VsOutcome.from_record, vs_metrics)


@scorer(metrics=[vs_breakdown()])
def cqbench_vs_scorer(skip_empty: bool = False) -> Scorer:
    with scorer_setup_errors():
        params = spec.validate("vs", {"skip_empty": skip_empty})

    async def score(state: TaskState, target: Target) -> Score:
        outcome = score_vs(
            str(state.sample_id), state.metadata, state.output.completion, params.skip_empty
        )
        return Score(
            value=outcome.f1,
            explanation="no option named" if outcome.empty else None,
            metadata=outcome.to_record(),
        )

    return score


@task
@judge_parameters(TASK)
def cqbench_ve(setting: str = "random", *, judge: JudgeOptions, **judge_parameters: Any) -> Task:
    """Value extraction: summarize the story's themes, then list its values (two generations,
    as upstream); a judge scores each gold value 1 / 0.5 / 0 against the extracted values.

    Args:
        setting: random, political, social, religious or ethical.
        judge_constraint: none (the paper's protocol), or constrain the judge's decoding so
            that every reply ends in its `[Final answer]:` block: regex (vLLM), grammar
            (llama.cpp) or json_schema (OpenAI-style); a documented deviation.
        self_grade, judge_preflight, judge_timeout, judge_later: the judge parameters of every
            judged task (`judging/options.py`, docs/judge.md), as `judge`.
        judge_repeats, rejudge_fraction: judge each story judge_repeats times (default 1), or
            only a fraction of them chosen by id; each gold value's score is then the majority
            of its judgings (docs/judge.md, "How much to trust a judged number").
    """
    with task_setup_errors():
        chosen = {"self_grade": judge.self_grade, "judge_constraint": judge.judge_constraint}
        params = spec.validate("ve", {"setting": setting, **chosen})  # recorded in the metadata

    def solver(ids: list[str]) -> list[Solver]:
        return [
            checked_grader(  # also the engine defaults: one solver span a sample
                judge,
                ve_scores_format(2),
                judge_calls=judge.repeats.calls(ids),  # one judgment a judging of a story
                task_label=f"cqbench_ve_{params.setting}",
            ),
            ve_two_step(),
        ]

    return _task(params, cqbench_ve_judge(**judge.scorer_args()), solver)


@solver
def ve_two_step() -> Solver:
    """Step 1 (summary) and step 2 (values, given the summary) as two single-turn prompts."""

    async def solve(state: TaskState, generate_: Generate) -> TaskState:
        state = await generate_(state)
        summary = state.output.completion
        state.metadata["summary"] = summary
        state.messages = to_chat_messages(ve_extraction_messages(state.metadata, summary))
        return await generate_(state)

    return solve


@metric(scores="unreduced")
def ve_breakdown() -> Metric:
    """Recall pooled over the judged stories' gold values (1 / 0.5 / 0), and `n_scored`."""
    outcome = spec.VeOutcome.from_record
    return judged_metrics(outcome, ve_metrics, spec.JURY_VOTES, spec.UNSCORED_COUNTS)


@scorer(metrics=[ve_breakdown()])
@judge_parameters(SCORER)
def cqbench_ve_judge(*, judge: JudgeOptions, **judge_parameters: Any) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        judgment = await judge_sample(VeJudging(), state, judge)  # VE's judge reads no reference
        judged = judgment.judged
        metadata = {
            **judged.record,
            **judged.details,
            **judgment.judges_shown(),
            "prompt_version": spec.PROMPT_VERSION,
            **judge.record(),
        }
        return judgment.score(metadata=metadata, explanation=judgment.explanation())

    return score
