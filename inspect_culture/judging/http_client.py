"""Concurrent judge calls to any OpenAI-compatible endpoint, with retries, timeouts and a cache.
A call that still fails returns a JudgeReply whose `error` says why (never a key), not a score."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, field, replace
from functools import partial
from typing import Any
from urllib.parse import urlparse

import aiohttp
from tqdm import tqdm

from inspect_culture.judging.cache import (
    IDENTITY_TIMEOUT,
    JudgeCache,
    identity_of,
    key,
    remember_listing,
)
from inspect_culture.judging.constraints import (
    PROBE_MESSAGES,
    JudgeConstraintError,
    VerdictFormat,
    reply_text,
    request_fields,
)
from inspect_culture.judging.jury import judge_calls_text
from inspect_culture.judging.options import DEFAULT_BASE_URL, KNOBS, JudgeSettings
from inspect_culture.judging.pacing import (
    CHARS_PER_TOKEN,
    Budget,
    HoldPastBudget,
    Pacer,
    now,
)
from inspect_culture.judging.preflight import (
    CHECK_HEADERS,
    PREFLIGHT_PROMPT,
    PREFLIGHT_TIMEOUT,
    Judgment,
    Sent,
    check_outcome,
    judgment_answered,
    judgment_or_one_token,
)
from inspect_culture.judging.protocol import JudgeReply
from inspect_culture.judging.reasons import (
    STATUS_WORDS,
    Failure,
    HTTPFailure,
    call_failed,
    classify,
    empty_reply,
)
from inspect_culture.judging.redaction import redact
from inspect_culture.judging.usage import TokenUsage, usage_of

Messages = Sequence[Mapping[str, str]]
# what a judgment that ended in a rate-limit hold, before any attempt of its own, heard
RATE_LIMITED = Failure(f"HTTP 429 ({STATUS_WORDS[429]})", True, 429)


async def _sleep_within(delay: float, budget: Budget) -> None:
    """Sleep `delay` seconds, charged to `budget`."""
    slept_from = now()
    await asyncio.sleep(delay)
    budget.spend(now() - slept_from)


def served_identity(settings: JudgeSettings) -> str | None:
    return identity_of(settings.judge_id())


def cache_key(settings: JudgeSettings, messages: Messages) -> str:
    return key(settings.judge_id(), messages, settings.sampling(), settings.constraint)


def request_body(
    settings: JudgeSettings,
    messages: Messages,
    fmt: VerdictFormat | None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The chat-completions body of a judge request (the concurrent client and the Batch API)."""
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": [dict(m) for m in messages],
        "temperature": settings.temperature,
        "max_tokens": max_tokens or settings.max_tokens,
    }
    if settings.seed is not None:
        body["seed"] = settings.seed
    if fmt is not None:
        fields = request_fields(fmt, settings.constraint, settings.max_tokens)
        body.update(fields.pop("extra_body", {}))  # the openai client sends these top-level
        body.update(fields)
    return body


def verdict_formats(
    settings: JudgeSettings, n: int, formats: Sequence[VerdictFormat] | None
) -> list[VerdictFormat | None]:
    """Each request's verdict format when the constraint is on (one each), else None."""
    if settings.constraint == "none":
        return [None] * n
    if formats is None or len(formats) != n:
        raise ValueError("a constrained judge needs one verdict format per request")
    return list(formats)


def readable(reply: JudgeReply, fmt: VerdictFormat | None, constraint: str) -> JudgeReply:
    """A constrained JSON reply in the paper's format (the cache keeps the raw reply)."""
    if fmt is None or reply.text is None:
        return reply
    return replace(reply, text=reply_text(fmt, constraint, reply.text))


def run_sync(make: Any) -> Any:
    """Run a coroutine from synchronous code, also when an event loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1) as worker:  # its own loop; errors re-raised here
        return worker.submit(lambda: asyncio.run(make())).result()


def judge_key(settings: JudgeSettings) -> str:
    """A judge as its measured verdict length is kept (`usage.remember_verdict`)."""
    return f"{settings.model} at {settings.shown_url()}"


@dataclass(eq=False)
class OpenAICompatibleJudge:
    settings: JudgeSettings
    cache: JudgeCache | None = None
    _: KW_ONLY
    retry_base_delay: float = 0.5
    retry_max_delay: float = 30.0
    calls: int = field(default=0, init=False)  # requests actually sent, for tests and benchmarks
    pacer: Pacer = field(init=False)
    # each batch's cache keys by its message lists' ids, computed once for lookup and write
    _keys: dict[int, str] = field(default_factory=dict, init=False, repr=False)
    _secrets: tuple[JudgeSettings | None, tuple[str, ...]] = field(
        default=(None, ()), init=False, repr=False
    )

    def __post_init__(self) -> None:
        settings = self.settings
        self.pacer = Pacer(
            settings.concurrency, settings.max_concurrency, settings.adaptive_concurrency
        )

    def secrets(self) -> tuple[str, ...]:
        """The settings' secrets, worked out once (twice a judgment otherwise: a URL parse)."""
        settings, found = self._secrets
        if settings is not self.settings:
            settings, found = self._secrets = (self.settings, self.settings.secrets())
        return found

    def _client(self) -> aiohttp.ClientSession:
        """Plain aiohttp: the OpenAI SDK costs several times the call's CPU (docs/judge.md).
        Credentials in the URL go as basic auth, which aiohttp refuses beside a bearer header."""
        in_url = urlparse(self.settings.base_url or "")
        bearer = {"Authorization": f"Bearer {self.settings.api_key or 'not-needed'}"}
        return aiohttp.ClientSession(
            headers={} if in_url.username or in_url.password else bearer,
            timeout=aiohttp.ClientTimeout(total=self.settings.timeout),
            connector=aiohttp.TCPConnector(limit=self.pacer.maximum + 1),
            # compact UTF-8 JSON, as the OpenAI SDK sends: a third smaller for CJK or Arabic
            json_serialize=partial(json.dumps, ensure_ascii=False, separators=(",", ":")),
        )

    def _url(self, path: str) -> str:
        return (self.settings.base_url or DEFAULT_BASE_URL).rstrip("/") + path

    async def judge_all(
        self,
        batch: Sequence[Messages],
        formats: Sequence[VerdictFormat] | None = None,
        label: str = "Judging",
    ) -> list[JudgeReply]:
        """In order: workers take the next as they free up, the first at once; one worker per
        call the pacer allows in flight (more start when it grows, never idle hundreds).
        A progress bar (judgments done of the total), as lm-eval's own "Requesting API".
        A judgment not started yet is charged the rate-limit holds it waits through, as a
        started one is: a judge that answers 429 forever ends the whole batch within
        `judge_retry_budget`, not one budget per wave of workers."""
        fmts = verdict_formats(self.settings, len(batch), formats)
        held_from = self.pacer.held(now())
        results = self._cached_all(batch, fmts)
        asked = [i for i, hit in enumerate(results) if hit is None]
        if len(asked) < len(batch):  # what was said before the answers existed was "at most"
            cached = len(batch) - len(asked)
            said = judge_calls_text(label, len(batch), [self.settings.model], cached=cached)
            print(said, file=sys.stderr, flush=True)
        todo = iter(asked)  # shared: each index goes to exactly one worker
        with tqdm(total=len(asked), desc=label, unit="judgment") as progress:
            async with self._client() as client:
                workers: list[asyncio.Task[None]] = []

                def more_workers() -> None:
                    while len(workers) < min(int(self.pacer.limit), len(asked)):
                        workers.append(asyncio.ensure_future(worker()))

                async def worker() -> None:
                    for index in todo:
                        results[index] = await self._judge_one(
                            client, batch[index], fmts[index], held_from
                        )
                        progress.update()
                        more_workers()

                more_workers()
                try:
                    done = 0
                    while done < len(workers):  # the list grows while it is awaited
                        await workers[done]
                        done += 1
                finally:
                    for task in workers:
                        task.cancel()
                    for messages in batch:
                        self._keys.pop(id(messages), None)
        return [result or JudgeReply(None) for result in results]

    async def _judge_one(
        self,
        client: aiohttp.ClientSession,
        messages: Messages,
        fmt: VerdictFormat | None,
        held_from: float | None = None,
    ) -> JudgeReply:
        """The judge's reply (kept in the cache when there is one); `judge_all` has looked in the
        cache first (`_cached`)."""
        result = await self._call_with_retries(client, messages, fmt, held_from)
        if self.cache is not None and result.text is not None:
            # committed before the reply is handed on, so a killed `culture-evals judge` resumes
            # without asking again; by the cache's writer thread, so that the other judgments
            # go on meanwhile (a WAL checkpoint's fsync blocks its thread for milliseconds)
            key = self._keys.get(id(messages)) or cache_key(self.settings, messages)
            judge = served_identity(self.settings)
            await self.cache.commit_soon_async(key, result.text, judge, secrets=self.secrets())
        return readable(result, fmt, self.settings.constraint)

    def _cached_all(
        self, batch: Sequence[Messages], fmts: Sequence[VerdictFormat | None]
    ) -> list[JudgeReply | None]:
        """Each request's cached reply, or None (none, or the cache is off): one query a chunk
        of keys, each key kept for the reply's write (serial time before the first request)."""
        if self.cache is None:
            return [None] * len(batch)
        keys = [cache_key(self.settings, messages) for messages in batch]
        self._keys.update(zip(map(id, batch), keys))
        hits = self.cache.get_many(keys, served_identity(self.settings))
        constraint = self.settings.constraint
        return [
            None if hit is None else readable(JudgeReply(hit, cached=True), fmt, constraint)
            for hit, fmt in zip(hits, fmts, strict=True)
        ]

    async def learn_identity(self) -> str | None:
        """The checkpoint served as the judge's model, kept with cached replies: another misses."""
        try:
            async with self._client() as client:
                limit = aiohttp.ClientTimeout(total=IDENTITY_TIMEOUT)
                async with client.get(self._url("/models"), timeout=limit) as response:
                    listing = await response.json(content_type=None) if response.ok else {}
            entries = [e for e in listing.get("data") or [] if isinstance(e, dict)]
        except Exception:  # noqa: BLE001 - best effort
            return None
        return remember_listing(self.settings.judge_id(), entries)

    async def preflight(
        self, fmt: VerdictFormat | None = None, judgment: Judgment | None = None
    ) -> str | None:
        """One request, no retry, not cached (`fmt`'s constraint probe; else `judgment`, one
        real judgment sent as the run sends them, whose reply's tokens are kept for the
        estimate and whose verdict is read, or the one-token check when it times out; else one
        token): None, or why to stop."""
        if fmt is not None:
            try:  # max_tokens too small for the verdict: say so before calling anyone
                request_fields(fmt, self.settings.constraint, self.settings.max_tokens)
            except JudgeConstraintError as exc:
                return str(exc)
            judgment = None  # the probe is the check
        limit = min(PREFLIGHT_TIMEOUT, self.settings.timeout)
        if judgment is None:
            (failure, text, usage), slow = await self._check(fmt, None, limit), ""
        else:  # a judge too slow for one judgment within the limit: the one-token check
            (failure, text, usage), slow = await judgment_or_one_token(
                lambda judged: self._check(None, judgment if judged else None, limit), limit
            )
        settings = self.settings
        found = check_outcome(
            failure, text, "judge", settings.model, settings.shown_url(), settings.model, KNOBS,
            fmt, settings.constraint, settings.max_tokens,
        )  # fmt: skip
        if found is None and judgment is not None and (failure is None or slow):
            who = f"judge {settings.model!r}"
            judgment_answered(
                judge_key(settings), judgment, text, usage, who, settings.secrets(), slow
            )
        return None if found is None else redact(found, settings.secrets())

    async def _check(
        self, fmt: VerdictFormat | None, judgment: Judgment | None, limit: float
    ) -> Sent:
        """One request of the check, no retry, not cached: `fmt`'s constraint probe, else
        `judgment`, else one token; what it gave (`preflight.Sent`)."""
        messages = PROBE_MESSAGES if fmt else [{"role": "user", "content": PREFLIGHT_PROMPT}]
        if judgment is not None:
            messages = [dict(m) for m in judgment.request.messages]
        cap = None if fmt or judgment else 1
        try:
            async with self._client() as client:
                self.calls += 1
                text, _, usage = await asyncio.wait_for(
                    self._request(client, messages, fmt, cap, headers=CHECK_HEADERS), limit
                )
        except Exception as exc:  # noqa: BLE001 - reported in words
            return classify(exc, limit, self.settings.secrets()), None, None
        return None, text, usage

    async def _call_with_retries(
        self,
        client: aiohttp.ClientSession,
        messages: Messages,
        fmt: VerdictFormat | None = None,
        held_from: float | None = None,
    ) -> JudgeReply:
        """Attempts until a reply or a final failure, within `max_retries` and `retry_budget`.
        The budget counts the attempts, the backoffs and the rate-limit holds between them
        (`pacing.Budget`; `held_from`: the pacer's `held` when the judgment was queued, so the
        holds since, in a storm not yet cleared by a success, count too), and is checked before
        each of those waits: whatever the judge answers, the judgment ends."""
        settings = self.settings
        start, budget = now(), Budget(settings.retry_budget)
        if held_from is not None:  # the storm it waited through in the queue
            budget.spend(self.pacer.held_since(held_from))
        attempts, failure, ended, rate_limited = 0, None, "", 0
        spent = f" (judge_retry_budget of {settings.retry_budget:g} s spent"
        while True:
            if budget.left() <= 0:  # the waits ate the budget: say so
                # (before any attempt only rate-limit holds can have spent it)
                failure = failure or RATE_LIMITED
                ended = f"{spent})"
                break
            try:  # waits for a slot (free) and any Retry-After hold (charged to the budget)
                sent_at = await self.pacer.acquire(budget)
            except HoldPastBudget as held:
                failure = failure or RATE_LIMITED
                left = max(0.0, budget.left())
                ended = (
                    f" (judge_retry_budget of {settings.retry_budget:g} s: {left:.1f} s left, "
                    f"a rate-limit hold of {held.hold:.1f} s to go)"
                )
                break
            attempts += 1
            outcome = await self._attempt(client, messages, fmt, budget, sent_at)
            if isinstance(outcome, JudgeReply):
                return outcome
            failure = outcome
            if not failure.retryable:
                break
            # a 429 that says how long to wait is waited out by the pacer, within the budget,
            # and not counted as a retry: the request was refused unpaid, not failed
            paced = self.pacer.adaptive and failure.status == 429 and failure.retry_after
            if paced:
                attempts -= 1
                rate_limited += 1
            if attempts > settings.max_retries:
                ended = f" (judge_max_retries={settings.max_retries} reached)"
                break
            delay = self._retry_delay(failure, attempts, bool(paced))
            if delay >= budget.left():
                asked = failure.retry_after
                ended = spent + (f"; the server asked to wait {asked:g} s)" if asked else ")")
                break
            if delay and not paced:  # a paced 429 waits in the pacer's hold, at `acquire`
                await _sleep_within(delay, budget)
        assert failure is not None
        seconds = max(now() - start, budget.spent)
        return self._gave_up(failure, attempts + rate_limited, seconds, ended)

    def _gave_up(self, failure: Failure, attempts: int, seconds: float, ended: str) -> JudgeReply:
        """The judgment's end without a reply: the last failure, the attempts, the time."""
        settings = self.settings
        error = call_failed(
            failure.what, settings.model, settings.endpoint(),
            attempts=attempts, seconds=seconds, ended=ended,
        )  # fmt: skip
        return JudgeReply(None, error=redact(error, settings.secrets()))

    async def _attempt(
        self,
        client: aiohttp.ClientSession,
        messages: Messages,
        fmt: VerdictFormat | None,
        budget: Budget,
        sent_at: float,
    ) -> JudgeReply | Failure:
        """One attempt, sent at `sent_at` within what is left of `budget`: the reply, or the
        failure (a 429 told to the pacer); the slot released and the time spent either way."""
        settings = self.settings
        limit = min(settings.timeout, max(budget.left(), 0.001))
        self.calls += 1
        try:  # aiohttp's own timer (connect, send and read): no extra task per attempt
            text, headers, usage = await self._request(client, messages, fmt, timeout=limit)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded reason
            failure = classify(exc, limit, settings.secrets())
            if failure.status == 429:
                self.pacer.rate_limited(sent_at, failure.retry_after)
            return failure
        else:
            chars = sum(len(str(m.get("content") or "")) for m in messages)
            cost = chars / CHARS_PER_TOKEN + settings.max_tokens  # what a provider charges it
            self.pacer.succeeded(headers, cost)
            if text is None or not text.strip():  # paid for all the same: its usage is kept
                error = empty_reply(settings.model, settings.endpoint())
                return JudgeReply(None, error=error, usage=usage)
            return JudgeReply(redact(text, self.secrets()), usage=usage)  # an echoed key goes
        finally:
            self.pacer.release()
            budget.spend(now() - sent_at)

    def _retry_delay(self, failure: Failure, attempts: int, paced: bool) -> float:
        """The wait before the next attempt: the server's Retry-After, and unless the pacer
        holds it (`paced`), at least a jittered exponential backoff."""
        backoff = min(self.retry_max_delay, self.retry_base_delay * 2 ** (attempts - 1))
        delay = failure.retry_after or 0.0
        if not paced:
            delay = max(backoff * (0.5 + random.random() / 2), delay)
        return delay

    async def _request(
        self,
        client: aiohttp.ClientSession,
        messages: Messages,
        fmt: VerdictFormat | None = None,
        max_tokens: int | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[str | None, Mapping[str, str], TokenUsage | None]:
        """One chat completion's text, the reply's headers and its `usage` (None: the provider
        gave none); a non-2xx answer raises HTTPFailure. `headers`: beside the session's."""
        body = request_body(self.settings, messages, fmt, max_tokens)
        # no `timeout` argument at all keeps the session's (aiohttp reads None as "no limit")
        limit: dict[str, Any] = (
            {} if timeout is None else {"timeout": aiohttp.ClientTimeout(total=timeout)}
        )
        if headers:
            limit["headers"] = dict(headers)
        async with client.post(self._url("/chat/completions"), json=body, **limit) as response:
            raw = await response.read()
            if response.status >= 300:
                raise HTTPFailure.of(response.status, raw, response.headers)
        try:
            payload = json.loads(raw)
            choices = payload.get("choices") or []
            text = choices[0]["message"]["content"] if choices else None
            return text, response.headers, usage_of(payload)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            raise HTTPFailure(response.status, "a reply that is not a chat completion") from None
