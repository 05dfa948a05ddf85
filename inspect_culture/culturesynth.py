"""CultureSynth-7 for Inspect AI: the model's answer against a baseline model's answer, judged
pairwise against the reference answer (paper Fig. 18); metric = net win rate.

    inspect eval inspect_culture/culturesynth --model vllm/<model> \
        --model-role grader=openai/gpt-4o --model-role baseline=vllm/google/gemma-2-27b-it
    inspect eval inspect_culture/culturesynth --model vllm/<model> \
        --model-role grader=openai/gpt-4o -T baseline_responses=gemma2_baseline.json

Absolute imports only: Inspect also loads this file by path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy, GenerateConfig, Model
from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from inspect_culture.benchmarks.culturesynth import spec
from inspect_culture.benchmarks.culturesynth.baseline_responses import (
    BaselineResponses,
    read_baseline_responses,
)
from inspect_culture.benchmarks.culturesynth.data import load_culturesynth
from inspect_culture.benchmarks.culturesynth.judging import (
    CultureSynthJudging,
    estimate_items,
    pairwise_verdict_format,
)
from inspect_culture.benchmarks.culturesynth.metrics import culturesynth_metrics
from inspect_culture.benchmarks.culturesynth.prompts import answer_messages
from inspect_culture.benchmarks.spec_types import LoadedDataset
from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.errors import scorer_setup_errors, task_setup_errors
from inspect_culture.inspect_adapter.failures import (
    attempts_of,
    judge_failure_reason,
    output_error_reason,
)
from inspect_culture.inspect_adapter.judge import (
    CostEstimate,
    bounded_generate,
    checked_grader,
    judgment_timeout,
)
from inspect_culture.inspect_adapter.judged_task import judge_sample, judged_metrics
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.inspect_adapter.params import judge_parameters
from inspect_culture.inspect_adapter.preflight import preflight
from inspect_culture.inspect_adapter.roles import BASELINE_ROLE, prerequisite_error, role_model
from inspect_culture.judging.options import SCORER, TASK, JudgeOptions

GENERATION = GenerateConfig(**spec.GENERATION.inspect_config())
# baseline answers never expire: every model compared with one baseline reuses them
BASELINE_CACHE = CachePolicy(expiry=None, per_epoch=False)

NO_BASELINE = (
    "CultureSynth compares the model with a baseline model's answers, and none is given. Bind the "
    "baseline model with --model-role baseline=vllm/google/gemma-2-27b-it (the paper's baseline; "
    "its answers are cached and shared by later runs), or pass a baseline answers file with "
    "-T baseline_responses=FILE (made by `culture-evals baseline export`)."
)


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One question, asked alone (as in the paper); the target is the judge's reference."""
    return Sample(
        id=record["id"],
        input=to_chat_messages(answer_messages(record["question"])),
        target=record["answer"],
        metadata={
            k: record[k] for k in ("question", "language", "primary_topic", "secondary_topic")
        },
    )


def _dataset(languages: Sequence[str] | None, name: str) -> tuple[MemoryDataset, LoadedDataset]:
    loaded = load_culturesynth(languages)
    samples = [record_to_sample(r) for r in loaded.records]
    return MemoryDataset(samples, name=name), loaded


def _attach_baseline(
    dataset: MemoryDataset, baseline: BaselineResponses, provenance: dict[str, Any]
) -> list[str]:
    """A baseline answers file's answer in each sample's metadata, as `baseline_answer` would
    put it there: the same metadata at the end of each sample, without a solver span a sample
    (two transcript events, each written to Inspect's sample buffer and log). Returns the
    questions the file has no answer for (`check_questions`, which logs them)."""
    missing = baseline.check_questions([str(s.id) for s in dataset], provenance.get("sha256"))
    for sample in dataset:
        sample.metadata = {
            **(sample.metadata or {}),
            "baseline_answer": baseline.responses.get(str(sample.id)),
            "baseline_model": baseline.model,
        }
    return missing


def _cost_estimate(
    settings: Any, records: list[dict[str, Any]], baseline: Any, judge: JudgeOptions
) -> CostEstimate:
    """Each question the judge will see, by the benchmark's one rule (`estimate_items`, as
    lm-eval reads them): the reference stands in for the model's answer, and for the
    baseline's where no file gives one (the `baseline` role answers during the run)."""
    items = estimate_items(records, baseline.responses if baseline is not None else None)
    judging = CultureSynthJudging(settings.swap, settings.seed)
    return CostEstimate(judging, items, judge.repeats)


@task
@judge_parameters(TASK)
def culturesynth(
    language: str | None = None,
    swap: bool = True,
    baseline_responses: str | None = None,
    seed: int = 0,
    *,
    judge: JudgeOptions,
    **judge_parameters: Any,  # the judge's, declared in judging/options.py
) -> Task:
    """CultureSynth-7 (Zhang et al., Findings of EMNLP 2025).

    Args:
        language: ar, es, fr, ja, ko, pt or zh (or a comma-separated list); None = all seven.
        swap: judge both answer orders (default); False = one order per question by a coin.
        baseline_responses: baseline answers file; else the `baseline` model role answers.
        seed: seed of the answer-order coin (swap=False) and of the bootstrap.
        judge_constraint: none (the paper's protocol), or constrain the judge's decoding so
            that every reply ends in [[A]], [[B]] or [[C]]: regex (vLLM), grammar (llama.cpp)
            or json_schema (OpenAI-style); a documented deviation.
        self_grade, judge_preflight, judge_timeout, judge_later: the judge parameters of every
            judged task (`judging/options.py`, docs/judge.md), as `judge`; the preflight and
            judge_timeout apply to the `baseline` role too, when it answers.
        judge_repeats, rejudge_fraction: judge each answer judge_repeats times (default 1), or
            only a fraction of them chosen by id; the net win rate's interval then includes the
            judge's noise (docs/judge.md, "How much to trust a judged number").
    """
    with task_setup_errors():
        settings = spec.validate(language, swap, seed)
        dataset, loaded = _dataset(settings.languages, "culturesynth")
        baseline = read_baseline_responses(baseline_responses) if baseline_responses else None
    ids, provenance = [str(r["id"]) for r in loaded.records], loaded.provenance
    missing = _attach_baseline(dataset, baseline, provenance) if baseline else []
    estimate = _cost_estimate(settings, loaded.records, baseline, judge)
    return Task(
        dataset=dataset,
        solver=[
            # the engine defaults, the baseline's source and the judge checks: one solver span
            checked_grader(
                judge,
                pairwise_verdict_format(),
                required_roles=None if baseline else {BASELINE_ROLE: NO_BASELINE},
                # each question with a baseline answer: both orders with swap, else one
                judge_calls=judge.repeats.calls(set(ids) - set(missing))
                * (2 if settings.swap else 1),
                task_label=f"culturesynth ({language or 'every language'})",
                estimate=estimate,
            ),
            # a file's answers are in each sample already (`_attach_baseline`); the role answers
            # during the run
            *([] if baseline else [baseline_answer(judge.judge_preflight, judge.judge_timeout)]),
            generate(),
        ],
        scorer=culturesynth_judge(swap=settings.swap, seed=settings.seed, **judge.scorer_args()),
        config=GENERATION,
        version=spec.TASK_VERSION,
        metadata={
            **_task_metadata(language, settings, provenance, baseline, missing),
            **judge.record(),
        },
    )


def _task_metadata(
    language: str | None,
    settings: spec.Settings,
    provenance: dict[str, Any],
    baseline: BaselineResponses | None,
    missing: list[str],
) -> dict[str, Any]:
    """What the task's metadata says of its options, its data and its baseline."""
    return {
        "benchmark": spec.BENCHMARK,
        "language": language,
        "swap": settings.swap,
        "seed": settings.seed,
        "judge_prompt_version": spec.JUDGE_PROMPT_VERSION,
        "pairwise_parser_version": spec.PAIRWISE_PARSER_VERSION,
        "dataset": provenance,
        **(baseline.provenance() if baseline else {"baseline_model_role": BASELINE_ROLE}),
        "questions_without_baseline": missing,
    }


@task
def culturesynth_answers(language: str | None = None) -> Task:
    """Answers only, no judge: run it with the baseline model, then `culture-evals baseline
    export` the log into a baseline file that both harnesses read."""
    with task_setup_errors():
        settings = spec.validate(language)
        dataset, loaded = _dataset(settings.languages, "culturesynth_answers")
    return Task(
        dataset=dataset,
        solver=[engine_defaults(), generate()],
        config=GENERATION,
        version=spec.TASK_VERSION,
        metadata={"benchmark": spec.BENCHMARK, "language": language, "dataset": loaded.provenance},
    )


@solver
def baseline_answer(preflight_check: bool = True, timeout: float | None = None) -> Solver:
    """The baseline's answer from the `baseline` role (through Inspect's cache), when no file gave
    it (`_attach_baseline`); a role that fails the preflight stops the eval, a later failure
    leaves the sample unscored."""

    async def solve(state: TaskState, generate_: Generate) -> TaskState:
        model: Model = role_model(BASELINE_ROLE, NO_BASELINE)
        if preflight_check and (problem := await preflight(model, BASELINE_ROLE)):
            raise prerequisite_error()(problem)
        # our defaults, overridden by what the role itself was configured with
        config = GENERATION.merge(model.config)
        state.metadata["baseline_model"] = str(model)
        limit = judgment_timeout(model, timeout)
        answer = None
        try:
            output = await bounded_generate(model, state.input, config, limit, BASELINE_CACHE)
        except Exception as exc:  # noqa: BLE001 - the sample is unscored with the reason
            failure = judge_failure_reason(exc, model, limit, attempts_of(exc), BASELINE_ROLE)
        else:
            failure = output_error_reason(output.error, model) if output.error else "empty output"
            answer = output.completion if not output.error and output.completion.strip() else None
        state.metadata["baseline_answer"] = answer
        if answer is None:
            state.metadata["baseline_error"] = f"the baseline model gave no answer: {failure}"
        return state

    return solve


@metric(scores="unreduced")
def culturesynth_breakdown() -> Metric:
    """Net win rate and breakdowns; each question's epochs averaged first (docs/culturesynth.md)."""
    return judged_metrics(
        lambda record: spec.PairOutcome.from_record(record["pair"]),
        culturesynth_metrics,
        spec.JURY_VOTES,
        spec.UNSCORED_COUNTS,
        spec.JURY_SCALE,
    )


@scorer(metrics=[culturesynth_breakdown()])
@judge_parameters(SCORER)
def culturesynth_judge(
    swap: bool = True, seed: int = 0, *, judge: JudgeOptions, **judge_parameters: Any
) -> Scorer:
    """Both answer orders (or the coin's one) judged; +1 / 0 / -1 from the target's side."""
    with scorer_setup_errors():
        settings = spec.validate(swap=swap, seed=seed)
    judging = CultureSynthJudging(settings.swap, settings.seed)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        judgment = await judge_sample(judging, state, judge, target.text)
        judged, replies = judgment.judged, judgment.replies_shown()
        details = {
            "pair": judged.record,
            **judged.details,
            **(judgment.judges_shown() if len(judgment.judges) > 1 else {}),
            "judge_replies": replies,
            "baseline_model": meta.get("baseline_model"),
            "baseline_answer": meta.get("baseline_answer"),
            **judge.record(),
        }
        explanation = judgment.explanation() or judged.reason
        return judgment.score(metadata=details, explanation=explanation)

    return score
