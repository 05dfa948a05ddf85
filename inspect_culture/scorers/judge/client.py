"""Concurrent judge calls to any OpenAI-compatible endpoint, with retries, timeouts and a cache.

A call that still fails after its retries returns a JudgeResult with `error` set: callers mark
the sample unscored with that reason; nothing here turns a failure into a score.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from inspect_culture.scorers.judge.cache import JudgeCache, cache_key
from inspect_culture.scorers.judge.settings import JudgeSettings

Messages = Sequence[Mapping[str, str]]
_RETRY_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class JudgeResult:
    text: str | None
    error: str | None = None
    cached: bool = False


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError | asyncio.TimeoutError):
        return True  # includes APITimeoutError and dropped connections
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {type(exc).__name__}"
    return type(exc).__name__


class OpenAICompatibleJudge:
    def __init__(
        self,
        settings: JudgeSettings,
        cache: JudgeCache | None = None,
        *,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 30.0,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.calls = 0  # requests actually sent, for tests and benchmarks

    def _client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            base_url=self.settings.base_url,
            api_key=self.settings.api_key or "not-needed",
            max_retries=0,  # retries are ours, so that they are counted and bounded
            timeout=self.settings.timeout,
        )

    def _key(self, messages: Messages) -> str:
        return cache_key(
            self.settings.model,
            self.settings.base_url,
            messages,
            self.settings.generation_settings(),
        )

    async def judge_all(self, batch: Sequence[Messages]) -> list[JudgeResult]:
        """Judge every message list, at most `settings.concurrency` at a time, in input order."""
        semaphore = asyncio.Semaphore(self.settings.concurrency)
        async with self._client() as client:

            async def one(messages: Messages) -> JudgeResult:
                key = self._key(messages)
                if self.cache is not None and (hit := self.cache.get(key)) is not None:
                    return JudgeResult(hit, cached=True)
                async with semaphore:
                    result = await self._call_with_retries(client, messages)
                if result.text is not None and self.cache is not None:
                    self.cache.put(key, result.text)
                return result

            return list(await asyncio.gather(*(one(m) for m in batch)))

    def judge_all_sync(self, batch: Sequence[Messages]) -> list[JudgeResult]:
        """For synchronous callers (lm-eval filters); safe inside a running event loop too."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.judge_all(batch))
        results: list[JudgeResult] = []
        worker = threading.Thread(target=lambda: results.extend(asyncio.run(self.judge_all(batch))))
        worker.start()
        worker.join()
        return results

    async def _call_with_retries(
        self, client: openai.AsyncOpenAI, messages: Messages
    ) -> JudgeResult:
        error = "no attempt"
        for attempt in range(self.settings.max_retries + 1):
            try:
                self.calls += 1
                text = await asyncio.wait_for(
                    self._request(client, messages), timeout=self.settings.timeout
                )
            except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded reason
                error = _describe(exc)
                if not _retryable(exc) or attempt == self.settings.max_retries:
                    break
                delay = min(self.retry_max_delay, self.retry_base_delay * 2**attempt)
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
                continue
            if text is None or not text.strip():
                return JudgeResult(None, error="empty judge response")
            return JudgeResult(text)
        return JudgeResult(None, error=f"judge call failed after {attempt + 1} attempt(s): {error}")

    async def _request(self, client: openai.AsyncOpenAI, messages: Messages) -> str | None:
        extra: dict[str, Any] = {}
        if self.settings.seed is not None:
            extra["seed"] = self.settings.seed
        response = await client.chat.completions.create(
            model=self.settings.model,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            **extra,
        )
        return response.choices[0].message.content if response.choices else None
