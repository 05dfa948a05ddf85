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
retried after their `Retry-After`).

It never hangs, by construction (docs/judge.md, "Rate limits"): waiters queue first come, first
served, and a slot is handed over by `release`, by growth, or by a timer set for the end of a
`Retry-After` hold, so a queue with nothing in flight moves as soon as the hold ends; and no
waiter sleeps longer than `RECHECK` without looking again. A judgment's `Budget` counts the holds
it waits through: a hold longer than what is left of it ends the judgment at once
(`HoldPastBudget`), while time queued behind healthy calls costs it nothing."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

CUT = 2 / 3  # the limit kept after a 429
FLOOR = 1
CHARS_PER_TOKEN = 4  # how providers estimate a request's tokens before running it
RECHECK = 1.0  # seconds: the longest any waiter sleeps before it looks at the pacer again
_EPSILON = 1e-6  # a hold ending this close to now has ended (timers may fire a tick early)


def now() -> float:
    """The running event loop's clock (`time.monotonic`, unless a test runs a virtual one)."""
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


@dataclass
class Budget:
    """One judgment's `judge_retry_budget`: its attempts, backoffs and the rate-limit holds it
    waits through count against it; time queued behind healthy judgments does not, so a long
    healthy run never expires its last judgments."""

    seconds: float
    spent: float = 0.0

    def left(self) -> float:
        return self.seconds - self.spent

    def spend(self, seconds: float) -> None:
        self.spent += max(0.0, seconds)


class HoldPastBudget(Exception):
    """The judge's `Retry-After` hold outlasts what is left of a judgment's budget."""

    def __init__(self, hold: float) -> None:
        super().__init__(f"a rate-limit hold of {hold:.3g} s")
        self.hold = hold


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
    no lock: the fast path (a free slot, no hold, nobody queued) takes no await at all. A slot
    is counted in `in_flight` the moment it is handed to a waiter, so nothing can take it twice
    and `in_flight` never passes the limit through a new call."""

    def __init__(self, start: int, maximum: int, adaptive: bool = True) -> None:
        self.start = start
        self.maximum = max(start, maximum)
        self.adaptive = adaptive
        self.limit = float(start)
        self.in_flight = 0
        self.peak = 0  # most calls in flight at once
        self.cuts = 0  # times a 429 cut the limit
        self._resume_at = 0.0  # loop clock: no new call before (Retry-After)
        self._hold_start = 0.0  # when the current (or last) hold began
        self._held_before = 0.0  # seconds of holds that ended before the current one began
        self._cut_at = float("-inf")
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None  # wakes the queue when a hold ends
        self._timer_loop: Any = None
        self._changed: asyncio.Future[None] | None = None  # set when a new hold starts
        self.held_at_success = 0.0  # `held` at the last success: the storm before it is over

    def _slots(self) -> int:
        return max(FLOOR, int(self.limit)) - self.in_flight

    def held_since(self, mark: float) -> float:
        """The holds a judgment queued at `held` = `mark` has waited through in the storm still
        going on: none before the last success counts, so a healthy run's last judgments do not
        pay for its earlier, cleared storms."""
        return self.held(now()) - max(mark, self.held_at_success)

    def held(self, at: float) -> float:
        """Seconds of `Retry-After` holds up to `at`: the difference over a wait is the hold
        time a waiter spent (holds never overlap: a later 429 only extends the current one)."""
        return self._held_before + max(0.0, min(at, self._resume_at) - self._hold_start)

    def _take(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    async def acquire(self, budget: Budget | None = None) -> float:
        """Wait for a slot and any Retry-After hold; the send time, for `rate_limited`. The
        holds waited through are charged to `budget`; `HoldPastBudget` when one outlasts it."""
        if not self._waiting and self._slots() > 0 and self._resume_at - now() <= _EPSILON:
            self._take()
            return now()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        held_from = self.held(now())
        try:
            await self._await_turn(waiter, budget, held_from)
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a slot it will not use: pass it on
            elif waiter in self._waiting:
                self._waiting.remove(waiter)
            raise
        finally:
            if budget is not None:
                budget.spend(self.held(now()) - held_from)
        return now()

    async def _await_turn(
        self, waiter: asyncio.Future[None], budget: Budget | None, held_from: float
    ) -> None:
        while not waiter.done():
            at = now()
            hold = self._resume_at - at
            waited = self.held(at) - held_from
            if budget is not None and hold > _EPSILON and budget.left() - waited < hold:
                raise HoldPastBudget(hold)
            self._wake()
            if waiter.done():
                return
            timeout = min(RECHECK, hold) if hold > _EPSILON else RECHECK
            await asyncio.wait(
                (waiter, self._hold_signal()),
                timeout=timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )

    def _hold_signal(self) -> asyncio.Future[None]:
        """A future set when a new hold starts, so that waiters check their budgets at once."""
        loop = asyncio.get_running_loop()
        if self._changed is None or self._changed.done() or self._changed.get_loop() is not loop:
            self._changed = loop.create_future()
        return self._changed

    def _signal_hold(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None and not changed.done():
            with suppress(RuntimeError):  # its loop is closed: nobody waits on it
                changed.set_result(None)

    def _wake(self) -> None:
        """Hand free slots to the first waiters, in order; during a hold, set a timer for its
        end instead (the queue moves then even with nothing in flight to release)."""
        hold = self._resume_at - now()
        if hold > _EPSILON:
            self._arm(self._resume_at)
            return
        while self._waiting and self._slots() > 0:
            waiter = self._waiting.popleft()
            if not waiter.done():
                self._take()
                waiter.set_result(None)

    def _arm(self, at: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop, nobody waiting: the next `acquire` looks for itself
        timer = self._timer
        if timer is not None and not timer.cancelled() and self._timer_loop is loop:
            if timer.when() >= at:
                return
            timer.cancel()
        self._timer, self._timer_loop = loop.call_at(at, self._hold_ended), loop

    def _hold_ended(self) -> None:
        self._timer = None
        self._wake()

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def rate_limited(self, sent_at: float, retry_after: float | None) -> None:
        """A 429: hold new calls for the wait the server asked, and cut once per round."""
        at = now()
        if retry_after and at + retry_after > self._resume_at:
            if self._resume_at <= at:  # a new hold: the last one is history
                self._held_before, self._hold_start = self.held(at), at
            self._resume_at = at + retry_after
            self._signal_hold()
            self._arm(self._resume_at)
        if self.adaptive and sent_at > self._cut_at:
            self.limit = max(float(FLOOR), self.limit * CUT)
            self._cut_at = at
            self.cuts += 1

    def succeeded(self, headers: Mapping[str, str] | None, cost: float = 0.0) -> None:
        """A reply: grow while the quota left covers every call in flight and one more (`cost`:
        the tokens a call is charged); without such headers, back up to the start."""
        self.held_at_success = self.held(now())
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
