"""The judge in Inspect: the `grader` model role, called through Inspect's model API so that
transcripts, token usage and Inspect's cache apply to judge calls."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import anyio
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
    get_model,
    model_roles,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from inspect_culture.inspect_adapter.build_checks import (
    refuse,
    refuse_other_reducers,
    refuse_repeated_roles,
    refuse_role_credentials,
)
from inspect_culture.inspect_adapter.compat import active_model
from inspect_culture.inspect_adapter.engines import apply_engine_defaults
from inspect_culture.inspect_adapter.eval_hooks import first_time, watch_judged_tasks
from inspect_culture.inspect_adapter.failures import (
    ATTEMPTS,
    ATTEMPTS_NOTE,
    REFUSED_NOTE,
    Attempts,
    attempts_of,
    judge_failure_reason,
    model_secrets,
    output_error_reason,
)
from inspect_culture.inspect_adapter.judge_cache import judge_id, learn_identity_once, request_key
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.inspect_adapter.preflight import (
    JudgmentCheck,
    Probe,
    dead_quota_text,
    judge_key,
    preflight,
    preflight_at_build,
)
from inspect_culture.inspect_adapter.roles import GRADER_ROLE, prerequisite_error, role_model
from inspect_culture.judging.cache import JudgeCache, JudgeCacheError, identity_of, open_cache
from inspect_culture.judging.constraints import (
    JudgeConstraintError,
    VerdictFormat,
    reply_text,
    request_fields,
)
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS, DEFAULT_SEED
from inspect_culture.judging.jury import estimated_calls_text, jury_roles_in_order
from inspect_culture.judging.options import JudgeOptions
from inspect_culture.judging.preflight import Judgment, first_judgment
from inspect_culture.judging.protocol import Item, JudgeReply, JudgeRequest, Judging
from inspect_culture.judging.repeats import Repeats, repeat_seed
from inspect_culture.judging.usage import Price, TokenUsage

DEFAULT_OPTIONS = JudgeOptions()  # every judge option at its default
JUDGE_CONFIG = GenerateConfig(temperature=0.0, seed=DEFAULT_SEED, max_tokens=DEFAULT_MAX_TOKENS)
DEFAULT_JUDGE_TIMEOUT = 600.0  # judge_timeout's default; none batched (a batch may take 24 h)
DEFAULT_ATTEMPT_TIMEOUT = 120  # seconds per attempt, unless the grader role sets attempt_timeout
JUDGE_CACHE_NOTE = "judging/cache.py; INSPECT_CULTURE_JUDGE_CACHE=off disables it"


# The judge parameters of every judged task (CARE, CultureSynth-7, CQ-Bench VE) are declared in
# `judging/options.py` (OPTIONS) and reach the judge as one `JudgeOptions`.

NO_GRADER = (
    "This task is scored by an LLM judge, and no judge is bound. Bind one with "
    "--model-role grader=openai/gpt-4o (any provider works, e.g. "
    "--model-role grader=vllm/Qwen/Qwen2.5-72B-Instruct), or pass -T self_grade=true to let the "
    "evaluated model judge itself."
)


def grader_model(self_grade: bool, judge_later: bool = False) -> Model | None:
    """Call while the eval runs (roles bound); None only for judge_later with no grader bound."""
    if judge_later and not self_grade and model_roles().get(GRADER_ROLE) is None:
        return None
    return role_model(GRADER_ROLE, NO_GRADER, default=get_model() if self_grade else None)


def jury_roles(self_grade: bool, judge_later: bool = False) -> dict[str, Model]:
    """Every judge, by role: the grader (the evaluated model with self_grade), then each bound
    `grader_<n>` role in number order (n >= 2); {} for judge_later with no grader bound."""
    first = grader_model(self_grade, judge_later)
    if first is None:
        return {}
    others = [role for role in jury_roles_in_order(model_roles()) if role != GRADER_ROLE]
    if stray := [r for r in model_roles() if r.startswith("grader_") and r not in others]:
        raise prerequisite_error()(
            f"model role {stray[0]!r} is no judge of the jury: the grader is the first judge, and "
            'the others are grader_2, grader_3, ... (docs/judge.md, "Juries")'
        )
    jury = {GRADER_ROLE: first, **{role: role_model(role, NO_GRADER) for role in others}}
    refuse_repeated_roles(jury)  # one model twice: paid twice for one judge's verdicts
    return jury


@solver
def require_grader(
    options: JudgeOptions = DEFAULT_OPTIONS,
    verdict_format: VerdictFormat | None = None,
    required_roles: dict[str, str] | None = None,
    judge_calls: int = 0,
    task_label: str = "",
    estimate: CostEstimate | None = None,
) -> Solver:
    """The first solver of a judged task, before any generation: the engine defaults
    (`engines.py`), then fails when a role in `required_roles` is unbound (its message), when no
    judge is bound, or when the judge cannot answer (`preflight.py`) or ignores the verdict
    constraint (the constraint probe, then the preflight). judge_preflight false skips both
    requests; judge_later needs no judge at all. A check already passed when Inspect built the
    task (`checked_grader`) is not repeated. A run says first how many judge calls each judge
    will get (`judge_calls` per epoch), with their tokens (`estimate`) and, with judge_price,
    their cost; a run whose
    judgments no limit of the user's bounds (`judge_timeout`, the -T value, and no `timeout`)
    says how long a judge answering 429 forever holds each. One solver, not one per check: each
    solver costs every sample a transcript span and a copy and diff of its state
    (docs/performance.md)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        apply_engine_defaults()
        refuse_other_reducers()  # known once the task started (`eval_hooks`)
        for role, missing in (required_roles or {}).items():
            role_model(role, missing)
        refuse_role_credentials()  # a task built before the eval: its header is written, though
        if options.judge_later:
            return state
        jury = _jury_and_probes(options, verdict_format, estimate)
        graders = [grader for _, grader, _ in jury]
        if options.judge_preflight:  # first: the estimate counts its judgment's reply
            for role, grader, probe in jury:  # every judge of a jury, before any generation
                if problem := await preflight(grader, role, probe):
                    raise prerequisite_error()(problem)
                await learn_identity_once(grader)  # the checkpoint the cache's replies come from
        _say_costs(task_label, graders, judge_calls, estimate, options.judge_price)
        if options.judge_timeout is None:
            _say_once(f"{task_label} 429", lambda: dead_quota_text(task_label, _limits(graders)))
        return state

    return solve


@dataclass(frozen=True)
class CostEstimate:
    """What a judged task's builder knows of its judge requests before any answer exists: its
    benchmark's judging and records (each with its reference answer under "answer", which
    stands in for the model's) and the re-judging (`usage.reference_estimate`)."""

    judging: Judging
    items: Sequence[Item]
    repeats: Repeats | None = None

    @cached_property
    def judgment(self) -> Judgment | None:
        """The judge check's one judgment (`preflight.first_judgment`), made once: every
        sample's first solver asks for it."""
        return first_judgment(self.judging, self.items)


def _say_costs(
    task_label: str,
    graders: list[Model],
    calls: int,
    estimate: CostEstimate | None = None,
    price: Price | None = None,
) -> None:
    """The judge calls each judge gets (`calls` per epoch; 0: nothing to say), with the tokens
    of all of them (`estimate`; costed at `price`), once per eval, as lm-eval says it. The
    requests hold answers not generated yet: the judge cache, when on, may answer some."""
    if not calls:
        return

    def text() -> str:
        cap = judge_config(graders[0]).max_tokens if graders else None
        return estimated_calls_text(
            task_label,
            calls,
            [str(grader) for grader in graders],
            keys=[judge_key(grader) for grader in graders],
            suffix=" per epoch (fewer with --limit)",
            price=price,
            judging=estimate.judging if estimate is not None else None,
            items=estimate.items if estimate is not None else (),
            repeats=estimate.repeats if estimate is not None else None,
            max_tokens=cap,
        )

    _say_once(task_label, text)


def _limits(graders: list[Model]) -> list[tuple[Model, float | None, float | None]]:
    """Each judge with its default limits: of a judgment (`judgment_timeout`) and an attempt."""
    return [(g, judgment_timeout(g, None), judge_config(g).attempt_timeout) for g in graders]


def _say_once(what: str, text: Callable[[], str | None]) -> None:
    """`text()`, once per eval and `what`, before any generation (made only then: this runs for
    every sample)."""
    if first_time(what) and (words := text()):
        print(words, file=sys.stderr, flush=True)


def checked_grader(
    options: JudgeOptions,
    verdict_format: VerdictFormat | None,
    required_roles: dict[str, str] | None = None,
    judge_calls: int = 0,
    task_label: str = "",
    estimate: CostEstimate | None = None,
) -> Solver:
    """`require_grader`, its checks made now when `inspect eval` is building the task (before any
    log exists), with the refusals only a build can make (`build_checks.py`)."""
    watch_judged_tasks()  # the eval's reducer, the all-unscored alarm (`eval_hooks`)
    grader_solver = require_grader(
        options, verdict_format, required_roles, judge_calls, task_label, estimate
    )
    if active_model() is None:  # not built by Inspect's eval: checked at the first sample
        return grader_solver
    refuse_role_credentials()
    if not options.judge_later:
        for role, grader, probe in _jury_and_probes(options, verdict_format, estimate):
            if options.judge_preflight and (problem := preflight_at_build(grader, role, probe)):
                refuse(problem)
    return grader_solver


def _jury_and_probes(
    options: JudgeOptions,
    verdict_format: VerdictFormat | None,
    estimate: CostEstimate | None = None,
) -> list[tuple[str, Model, Probe | JudgmentCheck | None]]:
    """Each judge by role (fails when no grader is bound), the cache opened, and each judge's
    check: its constraint probe if any (none without the preflight: the probe is one), else one
    judgment of the first item (`estimate`), sent with the judge's config, else one token."""
    if not options.judge_preflight:
        options = replace(options, judge_constraint="none")
    constraint = options.judge_constraint
    judgment = estimate.judgment if estimate is not None and options.judge_preflight else None
    try:
        open_cache()
        jury: list[tuple[str, Model, Probe | JudgmentCheck | None]] = []
        for role, grader in jury_roles(options.self_grade).items():
            if constraint == "none" or verdict_format is None:
                config = judge_config(grader, None, options)
                jury.append((role, grader, JudgmentCheck(judgment, config) if judgment else None))
                continue
            config = judge_config(grader, verdict_format, options)
            jury.append((role, grader, Probe(verdict_format, constraint, config)))
        return jury
    except (JudgeCacheError, JudgeConstraintError) as exc:
        raise prerequisite_error()(str(exc)) from None


def judge_config(
    grader: Model,
    verdict_format: VerdictFormat | None = None,
    options: JudgeOptions = DEFAULT_OPTIONS,
) -> GenerateConfig:
    """A fixed seed always, and what the options set of each request (temperature 0 unless
    told); the reply cap from the grader's own config when it sets one (a thinking judge needs
    more than the default); the verdict constraint if asked."""
    own = grader.config
    # the role's batch mode is kept so that nothing merged later drops it (a role model does not
    # inherit the eval's --batch); a hung attempt is retried, as in lm-eval, unless batched
    attempt = DEFAULT_ATTEMPT_TIMEOUT if own.attempt_timeout is None and not own.batch else None
    role = GenerateConfig(max_tokens=own.max_tokens, batch=own.batch, attempt_timeout=attempt)
    config = JUDGE_CONFIG.merge(GenerateConfig(**options.request_fields())).merge(role)
    constraint = options.judge_constraint
    if constraint == "none" or verdict_format is None:
        return config
    fields = request_fields(verdict_format, constraint, config.max_tokens or DEFAULT_MAX_TOKENS)
    if "response_format" not in fields:
        return config.merge(GenerateConfig(extra_body=fields["extra_body"]))
    if "maxLength" in (getattr(grader.api, "schema_exclude_fields", None) or ()):
        # Inspect's OpenAI-compatible providers drop the schema's `maxLength`, the bound that
        # makes the verdict certain: send it as it is, as the lm-eval judge does
        return config.merge(GenerateConfig(extra_body=fields))
    spec = fields["response_format"]["json_schema"]
    schema = ResponseSchema(
        name=spec["name"],
        json_schema=JSONSchema.model_validate(spec["schema"]),
        strict=spec["strict"],
    )
    return config.merge(GenerateConfig(response_schema=schema))


def reply_cache() -> JudgeCache | None:
    """The shared judge cache (tests patch it); None when off or unopenable (said before)."""
    try:
        return open_cache()
    except JudgeCacheError:
        return None


def judgment_timeout(model: Model, timeout: float | None) -> float | None:
    """The wall-clock limit of one call: the one given, else 600 s (none for a batch role)."""
    return timeout if timeout is not None or model.config.batch else DEFAULT_JUDGE_TIMEOUT


async def bounded_generate(
    model: Model,
    prompt: str | list[ChatMessage],
    config: GenerateConfig,
    timeout: float | None,
    cache: bool | CachePolicy | None = None,
) -> ModelOutput:
    """`model.generate` within `timeout` seconds (None: no limit) from the first call reaching
    the provider (not the max_connections queue); a failure notes the attempts it made."""
    cached = {} if cache is None else {"cache": cache}
    ended = False

    def start_clock() -> None:
        # a call after this judgment ended (from a task that copied its context) has no clock
        if timeout is not None and not ended:
            deadline.deadline = anyio.current_time() + timeout

    attempts = Attempts(start_clock)
    token = ATTEMPTS.set(attempts)
    try:
        # anyio's scope, not asyncio.timeout (Python 3.11+): TimeoutError once the deadline set
        # by the first provider call passes (anyio comes with inspect-ai, which requires 4.14)
        with anyio.fail_after(None) as deadline:
            return await model.generate(prompt, config=config, **cached)
    except Exception as exc:
        # HTTP requests sent when known, else provider calls: the attempts a reason names
        notes = [f"{ATTEMPTS_NOTE}{attempts.requests or attempts.count}"]
        notes += [f"{REFUSED_NOTE}{attempts.refused}"] if attempts.refused else []
        # (PEP 678's notes by hand: Python 3.10 has no add_note)
        exc.__notes__ = [*getattr(exc, "__notes__", []), *notes]
        raise
    finally:
        ended = True
        ATTEMPTS.reset(token)


async def judge_call(
    grader: Model,
    prompt: str | list[ChatMessage],
    verdict_format: VerdictFormat | None = None,
    options: JudgeOptions = DEFAULT_OPTIONS,
    judging: int = 1,
) -> JudgeReply:
    """One judge call with the judge's config (`options`), cache and `judgment_timeout`: its
    reply and the tokens the provider reported (`usage`; a reply from our judge cache or
    Inspect's is `cached`, 0 new tokens); a failure becomes a reason in words (never the error
    body), so the run goes on. Judging r of a re-judged answer sends the judge seed plus r-1
    (`judging/repeats.py`)."""
    store = reply_cache()
    identity = identity_of(judge_id(grader)) if store is not None else None
    limit = judgment_timeout(grader, options.judge_timeout)
    constraint = options.judge_constraint
    try:
        config = judge_config(grader, verdict_format, options)
        if judging > 1:
            config = config.merge(GenerateConfig(seed=repeat_seed(config.seed, judging)))
        key = request_key(grader, prompt, config, constraint) if store is not None else ""
        hit = store.get(key, identity) if store is not None else None
        if hit is not None:
            transcript().info(f"judge reply from the judge cache ({JUDGE_CACHE_NOTE})")
            completion, error, usage, cached = hit, None, None, True
        else:
            output = await bounded_generate(grader, prompt, config, limit)
            completion = output.completion  # redacted by `guard_secrets`, as the transcript
            error = output_error_reason(output.error, grader) if output.error else None
            usage, cached = token_usage(output), from_inspect_cache(output)
            if store is not None and error is None and completion.strip():
                store.put(key, completion, identity, secrets=model_secrets(grader))
    except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded reason
        # a batch grader's HTTP requests are the batcher's (uploads, polls), not attempts
        attempts = None if grader.config.batch else attempts_of(exc)
        return JudgeReply(None, judge_failure_reason(exc, grader, limit, attempts))
    if verdict_format is not None:
        completion = reply_text(verdict_format, constraint, completion)
    return JudgeReply(completion, error, cached=cached, usage=usage)


def token_usage(output: ModelOutput) -> TokenUsage | None:
    """The tokens the provider reported for this reply: Inspect's `input_tokens` (with the
    prompt-cache reads and writes Inspect counts apart: the judge read them all) and
    `output_tokens`; None when the provider reported none."""
    usage = output.usage
    if usage is None:
        return None
    read, written = usage.input_tokens_cache_read or 0, usage.input_tokens_cache_write or 0
    return TokenUsage(usage.input_tokens + read + written, usage.output_tokens)


def from_inspect_cache(output: ModelOutput) -> bool:
    """Whether Inspect's own cache answered (the grader's config sets `cache`): Inspect then
    returns the stored reply with its first usage, counts no usage for it, and marks the
    sample's model event `cache="read"`; so do we (cached: 0 new tokens)."""
    history = getattr(transcript(), "history", None)
    try:
        if history is not None:
            event = history.find_last(lambda e: isinstance(e, ModelEvent) and e.output == output)
        else:  # Inspect releases before the bounded transcript history
            found = (e for e in reversed(transcript().events) if isinstance(e, ModelEvent))
            event = next((e for e in found if e.output == output), None)
    except Exception:  # noqa: BLE001 - a history we cannot read: a call made, as Inspect counts
        return False
    return event is not None and getattr(event, "cache", None) == "read"


class GraderTransport:
    """One Inspect grader as a judge transport: its requests at once, through Inspect's model
    API (`judge_call`)."""

    def __init__(self, grader: Model, options: JudgeOptions) -> None:
        self.grader, self.options = grader, options

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        """Each request's reply, with the tokens the provider reported (`judge_call`)."""
        results = await asyncio.gather(
            *(
                judge_call(
                    self.grader,
                    to_chat_messages(q.messages),
                    q.verdict_format,
                    self.options,
                    judging,
                )
                for q in requests
            )
        )
        return list(results)
