"""Before the first generation, one request per eval and role model, without retries: a role
model that cannot answer stops the eval at once with what to fix, instead of retrying until
Inspect's timeout. A judge's is one real judgment of its benchmark (`JudgmentCheck`) when there is one
and no verdict constraint (then the constraint probe), else one token. `-T judge_preflight=false`
switches it off (offline replays)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, get_model

from inspect_culture.inspect_adapter.compat import (
    INSPECT_BACKOFF,
    active_generate_config,
    server_starter,
)
from inspect_culture.inspect_adapter.failures import (
    endpoint,
    guard_secrets,
    model_secrets,
    sent_model_name,
    unwrap,
)
from inspect_culture.inspect_adapter.messages import to_chat_messages
from inspect_culture.judging.constraints import PROBE_MESSAGES, VerdictFormat
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS
from inspect_culture.judging.preflight import (
    CHECK_HEADERS,
    PREFLIGHT_PROMPT,
    PREFLIGHT_TIMEOUT,
    Judgment,
    Knobs,
    Sent,
    check_outcome,
    endpoint_problem,
    judgment_answered,
    judgment_or_one_token,
)
from inspect_culture.judging.preflight import failure_message as shared_message
from inspect_culture.judging.reasons import Failure, classify
from inspect_culture.judging.redaction import redact, without_userinfo
from inspect_culture.judging.usage import TokenUsage, judging_name

# never batched: a batch grader gets a direct request (a batch may take hours to answer)
DIRECT = GenerateConfig(max_retries=0, batch=False)
PREFLIGHT_CONFIG = DIRECT.merge(GenerateConfig(max_tokens=1, temperature=0.0, timeout=30))
# the check's judgment: the judge's own settings, no retry, the check's limit and header
SAMPLE_CONFIG = DIRECT.merge(GenerateConfig(timeout=30, extra_headers=CHECK_HEADERS))
_PREFLIGHTS: dict[tuple[int, str, str, str, str, str], asyncio.Future[str | None]] = {}
_PASSED_AT_BUILD: set[tuple[str, str, str, str, str]] = set()
KNOBS = Knobs(
    key="the API key for this endpoint (the provider's API key environment variable, e.g. "
    "OPENAI_API_KEY, or model_args api_key)",
    base_url="base_url",
    concurrency="--max-connections",
    switch_off="a one-request check before generation; -T judge_preflight=false switches it off",
)


def wrong_path(model: Model) -> str | None:
    base_url = getattr(model.api, "base_url", None)
    return endpoint_problem(str(base_url) if base_url else None, "base_url")


def failure_message(role: str, model: Model, problem: str, fix: str) -> str:
    return shared_message(f"{role} model {str(model)!r}", endpoint(model), problem, fix, KNOBS)


async def _check(
    model: Model, role: str, timeout: float, probe: Probe | JudgmentCheck | None = None
) -> str | None:
    guard_secrets(model)
    if path_problem := wrong_path(model):
        return failure_message(role, model, path_problem, "correct base_url")
    # A server Inspect starts itself (`vllm/` starts it on the first generate) is started first,
    # outside the check's wall clock (loading a model takes minutes; its own limit applies).
    if (ensure := server_starter(model)) is not None:
        try:
            await ensure()
        except Exception as exc:  # noqa: BLE001 - reported in words
            problem = f"its server did not start ({classify(unwrap(exc)[0]).what})"
            return failure_message(role, model, problem, "see the server's log above")
    slow = ""
    if isinstance(probe, JudgmentCheck):  # a judge too slow for one judgment in time: one token
        sent, slow = await judgment_or_one_token(
            lambda judged: _send(model, probe if judged else None, timeout), timeout
        )
    else:
        sent = await _send(model, probe, timeout)
    failure, reply, usage = sent
    fmt, constraint = (probe.fmt, probe.constraint) if isinstance(probe, Probe) else (None, "none")
    max_tokens = probe.config.max_tokens if isinstance(probe, Probe) else None
    problem = check_outcome(
        failure, reply, f"{role} model", str(model), endpoint(model), sent_model_name(model),
        KNOBS, fmt, constraint, max_tokens or DEFAULT_MAX_TOKENS,
    )  # fmt: skip
    if problem is None and (failure is None or slow) and isinstance(probe, JudgmentCheck):
        who, secrets = f"{role} model {str(model)!r}", model_secrets(model)
        judgment_answered(judge_key(model), probe.judgment, reply, usage, who, secrets, slow)
    return problem


async def _send(model: Model, probe: Probe | JudgmentCheck | None, timeout: float) -> Sent:
    """One request of the check, no retry, not cached, within `timeout`: what it gave."""
    messages, config = _request(probe)
    try:
        output = await asyncio.wait_for(
            model.generate(messages, config=config, cache=False), timeout
        )
    except Exception as exc:  # noqa: BLE001 - reported in words
        return classify(unwrap(exc)[0], timeout, model_secrets(model)), None, None
    usage = None
    if output.usage is not None and not output.error:
        usage = TokenUsage(output.usage.input_tokens, output.usage.output_tokens)
    # unconstrained, an error returned as output (a refused one-token cap) is an answer
    if isinstance(probe, Probe) and output.error:
        return Failure(redact(output.error, model_secrets(model))[:300], False), None, None
    return None, output.completion, usage


def _request(probe: Probe | JudgmentCheck | None) -> tuple[list[ChatMessage], GenerateConfig]:
    """The check's messages and config: the constraint probe's, the judgment's, or one token."""
    if isinstance(probe, Probe):
        return to_chat_messages(PROBE_MESSAGES), probe.config.merge(DIRECT)
    if isinstance(probe, JudgmentCheck):
        messages = [dict(m) for m in probe.judgment.request.messages]
        return to_chat_messages(messages), probe.config.merge(SAMPLE_CONFIG)
    return [ChatMessageUser(content=PREFLIGHT_PROMPT)], PREFLIGHT_CONFIG


def judge_key(model: Model) -> str:
    """A judge as its measured verdict length is kept (`usage.remember_verdict`)."""
    return f"{model} at {without_userinfo(str(getattr(model.api, 'base_url', None)))}"


def _which(
    model: Model, role: str, probe: Probe | JudgmentCheck | None
) -> tuple[str, str, str, str, str]:
    shown = without_userinfo(str(getattr(model.api, "base_url", None)))
    if isinstance(probe, JudgmentCheck):
        return (role, str(model), shown, "judgment", judging_name(probe.judgment.judging))
    return (role, str(model), shown, *((probe.constraint, probe.fmt.name) if probe else ("", "")))


async def preflight(
    model: Model, role: str, probe: Probe | JudgmentCheck | None = None
) -> str | None:
    """The problem with `model` in words, or None when it answered (and, with `probe`, applied
    the verdict constraint: the constraint probe is then the preflight). Once per event loop
    (one eval), role, model, endpoint and probe: concurrent samples await the same check."""
    if str(model).startswith(("mockllm/", "none/")):
        return None  # nothing to reach (and a mock's scripted outputs are not spent on a check)
    loop = asyncio.get_running_loop()
    check = _PREFLIGHTS.get(key := (id(loop), *_which(model, role, probe)))
    if (check is None or check.get_loop() is not loop) and key[1:] in _PASSED_AT_BUILD:
        _PASSED_AT_BUILD.discard(key[1:])  # this eval's build checked it: once, not per port reused
        check = _PREFLIGHTS[key] = loop.create_future()
        check.set_result(None)
    if check is None or check.get_loop() is not loop:
        if server_starter(model) is not None:  # the eval's own server: started here
            work = _check(model, role, PREFLIGHT_TIMEOUT, probe)
        else:  # outside the sample's context, so no sample limit counts the check
            work = loop.run_in_executor(None, preflight_at_build, model, role, probe, False)
        check = _PREFLIGHTS[key] = asyncio.ensure_future(work)
    return await asyncio.shield(check)


def preflight_at_build(
    model: Model, role: str, probe: Probe | JudgmentCheck | None = None, remember: bool = True
) -> str | None:
    """`preflight` in a thread of its own, on a private copy of the model: while Inspect builds
    the task (its loop runs) or outside a sample. A server Inspect starts is checked in-loop."""
    if str(model).startswith(("mockllm/", "none/")) or server_starter(model) is not None:
        return None
    args = {"base_url": model.api.base_url, "api_key": model.api.api_key, **model.model_args}
    copy = get_model(str(model), config=model.config, memoize=False, **args)
    with ThreadPoolExecutor(1) as thread:
        problem = thread.submit(asyncio.run, _check(copy, role, PREFLIGHT_TIMEOUT, probe)).result()
    if problem is None and remember:
        _PASSED_AT_BUILD.add(_which(model, role, probe))
    return problem


@dataclass(frozen=True)
class Probe:
    """The constraint probe: the verdict format, the constraint and the judge's config."""

    fmt: VerdictFormat
    constraint: str
    config: GenerateConfig


@dataclass(frozen=True)
class JudgmentCheck:
    """An unconstrained judge's check: one real judgment, sent with the judge's config."""

    judgment: Judgment
    config: GenerateConfig


_BACKOFF_FIELDS = ("multiplier", "exp_base", "max", "jitter", "min")  # INSPECT_BACKOFF's order
DEAD_QUOTA = "answers HTTP 429 (rate limited) forever"


def dead_quota_text(
    task_label: str, judges: Sequence[tuple[Model, float | None, float | None]]
) -> str | None:
    """Said once before generation when no `timeout` bounds Inspect's retries (the role's, or the
    eval's, which a role inherits): how long a judge that answers 429 forever holds each
    judgment, and the option that bounds it; None when every judge has one. `judges`: each judge,
    the judge layer's limit of a judgment (None: none) and of an attempt. A jury: the longest."""
    holds = [
        (_dead_quota_hold(*judge), judge[0])
        for judge in judges
        if _retry_limits(judge[0])[0] is None
    ]
    if not holds:
        return None
    (hold, why), model = max(holds, key=lambda h: math.inf if h[0][0] is None else h[0][0])
    retried = "Inspect retries a 429 until its timeout, unset"
    if hold is None:
        waits = f"waits for it forever (a batch grader has no judge_timeout default; {retried})"
    elif why:
        waits = f"waits up to {hold:.0f} s for it before its sample is left unscored ({why})"
    else:
        why = f"judge_timeout's default, counted from its first call; {retried}"
        waits = f"waits {hold:.0f} s for it before its sample is left unscored ({why})"
    return (
        f"{task_label}: if {model} {DEAD_QUOTA}, each judgment {waits}; "
        "bound it with -T judge_timeout=<seconds>"
    )


def _retry_limits(model: Model) -> tuple[int | None, int | None]:
    """(timeout, max_retries) of Inspect's retry loop for `model`'s calls: the eval's, which a
    role model inherits, else the model's own (Model._resolve_config)."""
    active, own = active_generate_config(), model.config
    timeout = active.timeout if active.timeout is not None else own.timeout
    retries = active.max_retries if active.max_retries is not None else own.max_retries
    return timeout, retries


def _dead_quota_hold(
    model: Model, judgment: float | None, attempt: float | None
) -> tuple[float | None, str]:
    """The longest one judgment waits on a judge answering 429 forever (None: forever), and why
    when Inspect's `max_retries` ends it first ("" when the judge layer's limit does)."""
    retries = _retry_limits(model)[1]
    if retries is None or attempt is None or (waits := _retry_waits(model, retries)) is None:
        return judgment, ""
    by_retries = waits + (retries + 1) * attempt
    if judgment is not None and judgment <= by_retries:
        return judgment, ""
    return (
        by_retries,
        f"Inspect's {retries} retries, their waits and attempts of up to {attempt:g} s",
    )


def _retry_waits(model: Model, retries: int) -> float | None:
    """The longest Inspect waits between `retries` retries of one call; None: not known."""
    wait = model.api.retry_wait()  # a tenacity wait; read by its fields (tenacity is Inspect's)
    if isinstance(fixed := getattr(wait, "wait_fixed", None), int | float):
        return retries * fixed
    if wait is None:
        first, growth, longest, jitter, shortest = INSPECT_BACKOFF
    elif all(isinstance(getattr(wait, f, None), int | float) for f in _BACKOFF_FIELDS):
        first, growth, longest, jitter, shortest = (getattr(wait, f) for f in _BACKOFF_FIELDS)
    else:
        return None
    total, step = 0.0, first
    for _ in range(retries):
        total += max(shortest, min(step + jitter, longest))
        step = min(step * growth, longest)
    return total
