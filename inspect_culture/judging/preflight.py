"""The check before generation: each harness sends it its own way; it is judged and said here."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlparse

from inspect_culture.judging.constraints import VerdictFormat, probe_failure
from inspect_culture.judging.defaults import DEFAULT_MAX_TOKENS
from inspect_culture.judging.protocol import Item, JudgeReply, JudgeRequest, Judging
from inspect_culture.judging.reasons import Failure
from inspect_culture.judging.redaction import redact, without_userinfo
from inspect_culture.judging.usage import TokenUsage, remember_verdict

PREFLIGHT_PROMPT = "Reply with the single word OK."
PREFLIGHT_TIMEOUT = 30.0  # seconds: the check's own wall-clock limit
_ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/responses")
# Sent with the check's request, so a server's logs (and the tests' stub) can tell it from the
# run's judgments; any server ignores a header it does not know, and the body is a judgment's
CHECK_HEADERS = {"X-Culture-Evals-Check": "preflight"}


@dataclass(frozen=True)
class Judgment:
    """The one real judgment a judge's check before generation sends (unconstrained): the
    first item's first judge request, its reference answer standing in for the model's, as the
    estimate has it. Its reply's `usage` gives the estimate's completion tokens, and its verdict
    shows the judge answers in the benchmark's format."""

    judging: Judging
    item: Item
    request: JudgeRequest
    requests: int  # the item's requests: the one reply stands in for each when it is read


def first_judgment(judging: Judging, items: Iterable[Item]) -> Judgment | None:
    """The check's judgment: the first item that makes a request (None: none does)."""
    for item in items:
        if requests := judging.requests(item, item.get("answer")):
            return Judgment(judging, item, requests[0], len(requests))
    return None


# What one request of the check gave: its failure (None: answered), its text and its `usage`
Sent = tuple[Failure | None, str | None, TokenUsage | None]


def timed_out(failure: Failure | None) -> bool:
    """Whether a request failed by getting no reply in time."""
    return failure is not None and failure.timed_out


async def judgment_or_one_token(
    send: Callable[[bool], Awaitable[Sent]], limit: float
) -> tuple[Sent, str]:
    """The check's judgment (`send(True)`) and, only when it timed out, the one-token check
    (`send(False)`, within the same limit): a slow judge (CPU llama.cpp, vLLM) that cannot write
    a full verdict within the check's limit is not refused for it. Also why, after the fallback,
    the estimate assumes the declared verdict ("" when the judgment answered or failed)."""
    sent = await send(True)
    if not timed_out(sent[0]):
        return sent, ""
    return await send(False), f"the judge took over {limit:g} s for one judgment"


def verdict_warning(judgment: Judgment, text: str | None, who: str) -> str | None:
    """One line when the reply to the check's judgment gives no verdict in the benchmark's
    format; None when it does. A warning, not a refusal: unconstrained, the check refuses no
    reply (the paper's protocol leaves a reply without a verdict unscored)."""
    if text is None:
        return None
    replies = [JudgeReply(text)] * judgment.requests
    judged = judgment.judging.outcome(judgment.item, judgment.item.get("answer"), replies)
    if judged.value is not None:
        return None
    return (
        f"culture-evals: warning: the {who} answered one judgment before generation without a "
        f"verdict in the benchmark's format ({judged.reason}; it said {text[:120]!r}); going "
        "on, but each such reply leaves its sample unscored"
    )


def judgment_answered(
    judge: str,
    judgment: Judgment,
    reply: str | None,
    usage: TokenUsage | None,
    who: str,
    secrets: tuple[str, ...],
    slow: str = "",
) -> None:
    """The check's judgment answered, in either harness: its completion tokens kept for the
    estimate (by `judge`, `usage.remember_verdict`), and one line, without the judge's
    `secrets`, when its reply gives no verdict in the benchmark's format (`verdict_warning`,
    naming `who`). `slow`: it timed out and one token answered instead (nothing measured,
    nothing to read; why kept for the estimate)."""
    remember_verdict(judge, judgment.judging, usage, slow)
    if slow:
        return
    if warning := verdict_warning(judgment, reply, who):
        print(redact(warning, secrets), file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Knobs:
    """How the harness names what a user can change: in messages, fixes name these."""

    key: str  # where the API key comes from
    base_url: str  # the option naming the API root
    concurrency: str  # the option bounding concurrent calls
    switch_off: str  # what the check is and how to skip it


def endpoint_problem(base_url: str | None, knob: str) -> str | None:
    """A base URL that names an endpoint (`.../chat/completions`) instead of the API root."""
    if not base_url:
        return None
    shown = without_userinfo(base_url)
    path = urlparse(shown).path.rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.endswith(suffix):
            return (
                f"{knob} {shown} should end in /v1 (the API root), not {suffix}, which is "
                f"appended to it: use {shown.rstrip('/').removesuffix(suffix)}"
            )
    return None


def fix_for(status: int | None, timed_out: bool, model_name: str, knobs: Knobs) -> str:
    if status in (401, 403):
        return f"check {knobs.key}: the endpoint refused the key it was sent"
    if status == 404:
        return (
            f"check that the model name ({model_name!r} is what is sent) is in the model list at "
            f"that endpoint (GET <{knobs.base_url}>/models) and that {knobs.base_url} is the API "
            "root, ending in /v1, not /chat/completions"
        )
    if status == 429:
        return f"the endpoint is rate limiting; wait, or lower {knobs.concurrency}"
    if status is not None and status >= 500:
        return "the server failed; check its logs"
    if timed_out:
        return "check that the server is up and not overloaded"
    return f"check that the server is running and that {knobs.base_url} (host, port) is right"


def failure_message(who: str, url: str, problem: str, fix: str, knobs: Knobs) -> str:
    """The one message that stops a run whose judge (or baseline) cannot answer."""
    return (
        f"The {who} at {url} cannot answer: {problem}. Fix: {fix}. Nothing was generated "
        f"({knobs.switch_off})."
    )


def check_outcome(
    failure: Failure | None,
    reply: str | None,
    role: str,
    shown_name: str,
    url: str,
    model_name: str,
    knobs: Knobs,
    fmt: VerdictFormat | None = None,
    constraint: str = "none",
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> str | None:
    """None to go on, else the message to stop with. Unconstrained, any answer (even a 400/422
    refusing the one-token cap) passes; with a verdict format, the reply must follow it."""
    who = f"{role} {shown_name!r}"
    if failure is not None and failure.status == 429:
        # endpoint, key and model were reached, and the judgments' own retries wait the limit
        # out: the run goes on, with a word on what went unchecked
        unchecked = f"; judge_constraint={constraint} could not be checked before generation"
        print(
            f"culture-evals: the {who} at {url} is rate limiting (HTTP 429) at the check before "
            f"generation; going on, its calls will be retried{unchecked if fmt else ''}",
            file=sys.stderr,
            flush=True,
        )
        return None
    rejected = failure is not None and failure.status in (400, 422)
    if failure is not None and not (rejected and (fmt is None or constraint != "none")):
        fix = fix_for(failure.status, failure.timed_out, model_name, knobs)
        return failure_message(who, url, failure.what, fix, knobs)
    if fmt is None:
        return None
    error = failure.what if failure is not None else None
    return probe_failure(fmt, constraint, max_tokens, reply, error, f"{shown_name!r} at {url}")
