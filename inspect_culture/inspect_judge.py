"""The judge in Inspect: the `grader` model role, called through Inspect's model API so that
transcripts, token usage and Inspect's cache apply to judge calls."""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_culture.scorers.judge.settings import DEFAULT_MAX_TOKENS, DEFAULT_SEED

GRADER_ROLE = "grader"
JUDGE_CONFIG = GenerateConfig(temperature=0.0, seed=DEFAULT_SEED, max_tokens=DEFAULT_MAX_TOKENS)
# Judge outputs never expire: re-scoring the same outputs, or resuming, repeats no judge call.
JUDGE_CACHE = CachePolicy(expiry=None, per_epoch=False)

NO_GRADER = (
    "This task is scored by an LLM judge, and no judge is bound. Bind one with "
    "--model-role grader=openai/gpt-4o (any provider works, e.g. "
    "--model-role grader=vllm/Qwen/Qwen2.5-72B-Instruct), or pass -T self_grade=true to let the "
    "evaluated model judge itself."
)


def grader_model(self_grade: bool) -> Model:
    """Call inside a solver or scorer: roles are bound only while the eval runs."""
    if GRADER_ROLE in model_roles():
        return get_model(role=GRADER_ROLE)
    if self_grade:
        return get_model()
    raise PrerequisiteError(NO_GRADER)


@solver
def require_grader(self_grade: bool = False) -> Solver:
    """First solver of a judged task: fails before any generation when no judge is bound."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        grader_model(self_grade)
        return state

    return solve


def judge_config(grader: Model) -> GenerateConfig:
    """Temperature 0 and a fixed seed always; the reply cap from the grader's own config when it
    sets one (a thinking judge needs more than the default)."""
    if grader.config.max_tokens is None:
        return JUDGE_CONFIG
    return JUDGE_CONFIG.merge(GenerateConfig(max_tokens=grader.config.max_tokens))


async def judge_reply(
    grader: Model, prompt: str | list[ChatMessage]
) -> tuple[str | None, str | None]:
    """(reply, error) of one judge call with the judge's config and cache. A call that fails
    after Inspect's own retries becomes an error reason, so the sample is unscored and the run
    goes on."""
    try:
        output = await grader.generate(prompt, config=judge_config(grader), cache=JUDGE_CACHE)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded reason
        return None, f"judge call failed: {type(exc).__name__}: {exc}"
    return output.completion, output.error
