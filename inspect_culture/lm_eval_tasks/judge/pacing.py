"""How many judge calls are in flight, following a hosted judge's rate limits.

A fixed concurrency either leaves quota unused (too few calls in flight for the allowed rate at
the judge's latency) or spends the run in 429s (too many). The pacer starts at
`judge_concurrency` and:

- on 429, holds every new call until the `Retry-After` the server gave, and cuts the limit by
  a third, once per round (calls sent before the cut do not cut it again);
- grows on each success while the `x-ratelimit-remaining-*` headers show quota for every call
  in flight and one more, by half the calls that quota has room for beyond those in flight (at
  least one): too few in flight for the allowed rate and the provider's bucket fills, so the
  limit grows fast; too many and it empties, growth stops, and a 429 cuts the limit;
- without such headers (a local vLLM or llama.cpp server), never grows past
  `judge_concurrency`, so a server that states no limits gets exactly what was asked for.

`judge_adaptive_concurrency=false` keeps the limit fixed at `judge_concurrency` (429s are still
retried after their `Retry-After`)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

CUT = 2 / 3  # the limit kept after a 429
FLOOR = 1
CHARS_PER_TOKEN = 4  # how providers estimate a request's tokens before running it


@dataclass(frozen=True)
class Quota:
    """What one reply's `x-ratelimit-remaining-*` headers say is left."""

    requests: float
    tokens: float  # inf when the reply states no token limit


def quota_of(headers: Mapping[str, str] | None) -> Quota | None:
    """The quota left that the reply states; None when it states none."""
    if not headers:
        return None
    try:
        requests = float(headers.get("x-ratelimit-remaining-requests") or "nan")
    except ValueError:
        return None
    if not requests >= 0:
        return None
    try:
        tokens = float(headers.get("x-ratelimit-remaining-tokens") or "inf")
    except ValueError:
        tokens = float("inf")
    return Quota(requests, tokens if tokens >= 0 else float("inf"))


class Pacer:
    """An async limiter whose size follows the judge's rate-limit signals. One event loop, so
    no lock: the fast path (a free slot, no hold) takes no await at all."""

    def __init__(self, start: int, maximum: int, adaptive: bool = True) -> None:
        self.start = start
        self.maximum = max(start, maximum)
        self.adaptive = adaptive
        self.limit = float(start)
        self.in_flight = 0
        self.peak = 0  # most calls in flight at once
        self.cuts = 0  # times a 429 cut the limit
        self._resume_at = 0.0  # monotonic: no new call before (Retry-After)
        self._cut_at = float("-inf")
        self._waiting: deque[asyncio.Future[None]] = deque()

    def _slots(self) -> int:
        return max(FLOOR, int(self.limit)) - self.in_flight

    async def acquire(self) -> float:
        """Wait for a slot (and any Retry-After hold); the send time, for `rate_limited`."""
        while True:
            hold = self._resume_at - time.monotonic()
            if hold > 0:
                await asyncio.sleep(hold)
                continue
            if self._slots() > 0 and not self._waiting:
                break
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)
            if self._slots() > 0 and self._resume_at <= time.monotonic():
                break
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self._wake()  # a grown limit may have room for more than one
        return time.monotonic()

    def _wake(self) -> None:
        free = self._slots()
        for waiter in list(self._waiting)[: max(0, free)]:
            self._waiting.remove(waiter)
            if not waiter.done():
                waiter.set_result(None)

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def rate_limited(self, sent_at: float, retry_after: float | None) -> None:
        """A 429: hold new calls for the wait the server asked, and cut once per round."""
        if retry_after:
            self._resume_at = max(self._resume_at, time.monotonic() + retry_after)
        if self.adaptive and sent_at > self._cut_at:
            self.limit = max(float(FLOOR), self.limit * CUT)
            self._cut_at = time.monotonic()
            self.cuts += 1

    def succeeded(self, headers: Mapping[str, str] | None, cost: float = 0.0) -> None:
        """A reply: grow while the quota left covers every call in flight and one more (`cost`:
        the tokens a call is charged); without such headers, back up to the start."""
        if not self.adaptive:
            return
        quota = quota_of(headers)
        if quota is None:
            ceiling, step = float(self.start), 1 / max(1.0, self.limit)
        elif quota.requests > self.in_flight and quota.tokens > self.in_flight * cost:
            # half the calls the quota left has room for beyond those in flight, at least one:
            # a slow judge reaches the allowed rate in a round or two, not one call a reply
            room = min(quota.requests, quota.tokens / cost if cost > 0 else float("inf"))
            ceiling, step = float(self.maximum), max(1.0, (room - self.in_flight) / 2)
        else:
            return
        if self.in_flight >= int(self.limit) and self.limit < ceiling:  # the limit binds
            self.limit = min(ceiling, self.limit + step)
            self._wake()
