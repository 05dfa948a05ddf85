"""A hosted API's rate limits for the stub server: requests and tokens per minute, enforced the
way OpenAI documents them (buckets that refill continuously, the request's prompt plus its
`max_tokens` counted against the token limit), 429 with `Retry-After` beyond them, and the
`x-ratelimit-*` headers on every reply. `minute` scales time: a "minute" of 6 real seconds
lets a benchmark see a run of many minutes in one."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RateLimits:
    requests: int  # per minute
    tokens: int  # per minute
    minute: float = 60.0  # real seconds one minute of the limits lasts

    def requests_per_second(self) -> float:
        return self.requests / self.minute

    def tokens_per_second(self) -> float:
        return self.tokens / self.minute


def request_tokens(body: dict[str, Any]) -> int:
    """What the provider charges a request before it runs: about 4 characters a token of every
    message, plus the completion it may produce (`max_tokens`)."""
    if "messages" in body:
        chars = 0
        for message in body["messages"]:
            content = message.get("content") or ""
            if isinstance(content, list):
                content = "".join(str(part.get("text", "")) for part in content)
            chars += len(str(content))
    else:
        chars = len(str(body.get("prompt", "")))
    completion = body.get("max_completion_tokens") or body.get("max_tokens") or 0
    return math.ceil(chars / 4) + int(completion)


def duration(seconds: float) -> str:
    """A reset time as OpenAI writes it: "1m4.5s", "820ms"."""
    if seconds < 1:
        return f"{max(0, round(seconds * 1000))}ms"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{rest:.3g}s" if minutes else f"{rest:.3g}s"


class Buckets:
    """One account's request and token buckets. Thread-safe; the clock is injectable for
    known-answer tests."""

    def __init__(self, limits: RateLimits, clock: Any = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._requests = float(limits.requests)
        self._tokens = float(limits.tokens)
        self._at = clock()
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._at)
        self._at = now
        limits = self.limits
        self._requests = min(
            limits.requests, self._requests + elapsed * limits.requests_per_second()
        )
        self._tokens = min(limits.tokens, self._tokens + elapsed * limits.tokens_per_second())

    def take(self, tokens: int) -> tuple[bool, float, dict[str, str]]:
        """(admitted, seconds to wait before it would be, the x-ratelimit headers)."""
        limits = self.limits
        with self._lock:
            self._refill(self.clock())
            if tokens > limits.tokens:
                wait = math.inf  # never: the request alone is over the limit
            else:
                short_requests = max(0.0, 1 - self._requests)
                short_tokens = max(0.0, tokens - self._tokens)
                wait = max(
                    short_requests / limits.requests_per_second(),
                    short_tokens / limits.tokens_per_second(),
                )
            admitted = wait == 0
            if admitted:
                self._requests -= 1
                self._tokens -= tokens
            headers = {
                "x-ratelimit-limit-requests": str(limits.requests),
                "x-ratelimit-limit-tokens": str(limits.tokens),
                "x-ratelimit-remaining-requests": str(int(self._requests)),
                "x-ratelimit-remaining-tokens": str(int(self._tokens)),
                "x-ratelimit-reset-requests": duration(
                    (limits.requests - self._requests) / limits.requests_per_second()
                ),
                "x-ratelimit-reset-tokens": duration(
                    (limits.tokens - self._tokens) / limits.tokens_per_second()
                ),
            }
        if not admitted and math.isfinite(wait):
            headers["retry-after"] = f"{wait:.3f}"
            headers["retry-after-ms"] = str(math.ceil(wait * 1000))
        return admitted, wait, headers
