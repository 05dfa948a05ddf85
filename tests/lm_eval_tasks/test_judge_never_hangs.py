"""Judging never hangs, by construction: property tests of the pacer and the client's retry loop.

Thousands of random schedules of judge replies (429 with and without `Retry-After` and
`x-ratelimit-*` headers, 5xx, timeouts, successes) over random concurrency limits and budgets,
run on a virtual clock (`tests/support/virtual_clock.py`), so an hour of holds takes
milliseconds and a wait that nothing can end is caught (`Hang`) instead of waiting forever.
For every schedule:

- every judgment ends, scored or unscored with a reason;
- no judgment spends more than its `judge_retry_budget` on attempts, backoffs and rate-limit
  holds (time queued behind healthy judgments is not counted), plus a small margin;
- no judgment is asked again once it has a verdict;
- no call is sent while the calls in flight fill the limit;
- while judgments queue and none is in flight, one is sent as soon as the hold ends.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspect_culture.judging.http_client import OpenAICompatibleJudge
from inspect_culture.judging.options import JudgeSettings
from inspect_culture.judging.pacing import FLOOR, Pacer, now
from inspect_culture.judging.reasons import HTTPFailure
from tests.support.virtual_clock import Hang, run_virtual

MARGIN = 0.01  # seconds beyond the budget: float rounding of the virtual clock
KINDS = (
    "ok",
    "ok-quota",
    "429",
    "429-retry-after",
    "429-quota",
    "500",
    "503-retry-after",
    "timeout",
)
RETRY_AFTER = {"429-retry-after", "429-quota", "503-retry-after"}
CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("judgment")


@dataclass(frozen=True)
class Reply:
    kind: str
    latency: float
    retry_after: float


@dataclass(frozen=True)
class Schedule:
    judgments: int
    start: int
    maximum: int
    adaptive: bool
    budget: float
    max_retries: int
    timeout: float
    replies: list[Reply]
    tail: str  # every reply past the list: "ok" (the storm clears) or a 429 storm forever

    def reply(self, number: int) -> Reply:
        if number < len(self.replies):
            return self.replies[number]
        return Reply(self.tail, 0.05, 2.0)


replies = st.builds(
    Reply,
    kind=st.sampled_from(KINDS),
    latency=st.floats(0.001, 8.0),
    retry_after=st.floats(0.05, 40.0),
)


@st.composite
def schedules(draw: Any) -> Schedule:
    start = draw(st.integers(1, 6))
    return Schedule(
        judgments=draw(st.integers(1, 20)),
        start=start,
        maximum=draw(st.integers(start, 12)),
        adaptive=draw(st.booleans()),
        budget=draw(st.floats(1.0, 90.0)),
        max_retries=draw(st.integers(0, 8)),
        timeout=draw(st.floats(0.2, 30.0)),
        replies=draw(st.lists(replies, max_size=60)),
        tail=draw(st.sampled_from(["ok", "429-retry-after"])),
    )


@dataclass
class FakeJudge:
    """Answers the client's requests as the schedule says, and watches every property."""

    schedule: Schedule
    pacer: Pacer
    sent: int = 0
    in_flight: int = 0
    verdicts: set[str] = field(default_factory=set)
    violations: list[str] = field(default_factory=list)
    holds: list[tuple[float, float]] = field(default_factory=list)  # Retry-After of a 429
    cut_at: set[float] = field(default_factory=set)  # when a 429 reached the client
    requests: list[tuple[float, float]] = field(default_factory=list)

    async def request(
        self, _client: Any, messages: Any, _fmt: Any = None, max_tokens: Any = None,
        timeout: float | None = None,
    ) -> tuple[str, dict[str, str], None]:  # fmt: skip
        judgment, began = messages[0]["content"], now()
        if judgment in self.verdicts:
            self.violations.append(f"{judgment} asked again after its verdict")
        self.in_flight += 1
        allowed = max(FLOOR, int(self.pacer.limit))
        if self.in_flight > self.pacer.maximum or (
            self.in_flight > allowed and began not in self.cut_at
        ):
            self.violations.append(f"{self.in_flight} in flight at t={began:.3f}, limit {allowed}")
        reply = self.schedule.reply(self.sent)
        self.sent += 1
        try:
            if timeout is not None and reply.latency > timeout:
                await asyncio.sleep(timeout)
                raise asyncio.TimeoutError
            await asyncio.sleep(reply.latency)
        finally:
            self.in_flight -= 1
            self.requests.append((began, now()))
        return self._answer(judgment, reply)

    def _answer(self, judgment: str, reply: Reply) -> tuple[str, dict[str, str], None]:
        quota = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s"}
        if reply.kind.startswith("ok"):
            self.verdicts.add(judgment)
            room = {"x-ratelimit-remaining-requests": "40", "x-ratelimit-remaining-tokens": "9e5"}
            return "Rating: [[5]]", room if reply.kind == "ok-quota" else {}, None  # no usage
        headers = {"retry-after": repr(reply.retry_after)} if reply.kind in RETRY_AFTER else {}
        if reply.kind == "429-quota":
            headers.update(quota)
        status = int(reply.kind[:3])
        if status == 429:
            self.cut_at.add(now())
            if headers:
                self.holds.append((now(), now() + reply.retry_after))
        raise HTTPFailure(status, "refused", headers)


def _judge(schedule: Schedule) -> tuple[OpenAICompatibleJudge, FakeJudge]:
    options = JudgeSettings(
        model="judge", base_url="http://127.0.0.1:9/v1", concurrency=schedule.start,
        max_concurrency=schedule.maximum, adaptive_concurrency=schedule.adaptive,
        timeout=schedule.timeout, max_retries=schedule.max_retries, retry_budget=schedule.budget,
    )  # fmt: skip
    judge = OpenAICompatibleJudge(options)
    fake = FakeJudge(schedule, judge.pacer)
    judge._request = fake.request  # type: ignore[method-assign]
    return judge, fake


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _overlap(a: float, b: float, spans: list[tuple[float, float]]) -> float:
    return sum(max(0.0, min(b, y) - max(a, x)) for x, y in spans)


def _stalled(waits: list[tuple[float, float]], fake: FakeJudge) -> float:
    """Seconds during which a judgment waited, nothing was in flight and no hold was on."""
    events: list[tuple[float, int, int]] = []
    for kind, spans in enumerate((waits, fake.requests, fake.holds)):
        for a, b in spans:
            events += [(a, kind, 1), (b, kind, -1)]
    events.sort()
    counts, stalled, last = [0, 0, 0], 0.0, 0.0
    for at, kind, step in events:
        if counts[0] > 0 and counts[1] == 0 and counts[2] == 0:
            stalled += at - last
        counts[kind] += step
        last = at
    return stalled


def _run(schedule: Schedule) -> tuple[list[Any], FakeJudge, dict[str, float], float]:
    judge, fake = _judge(schedule)
    waits: dict[str, list[tuple[float, float]]] = defaultdict(list)
    acquire = judge.pacer.acquire

    async def tracked_acquire(*budget: Any) -> float:
        began = now()
        try:
            return await acquire(*budget)
        finally:
            waits[CURRENT.get()].append((began, now()))

    judge.pacer.acquire = tracked_acquire  # type: ignore[method-assign]
    took: dict[str, float] = {}

    async def one(judgment: str) -> Any:
        CURRENT.set(judgment)
        began = now()
        reply = await judge._call_with_retries(None, [{"role": "user", "content": judgment}])  # type: ignore[arg-type]
        took[judgment] = now() - began
        return reply

    async def every() -> list[Any]:
        return await asyncio.gather(*(one(f"j{i}") for i in range(schedule.judgments)))

    horizon = schedule.judgments * (schedule.budget + schedule.timeout + 10) + 100
    results, _ = run_virtual(every(), horizon)
    holds = _union(fake.holds)
    used = {j: took[j] - sum(b - a - _overlap(a, b, holds) for a, b in waits[j]) for j in took}
    all_waits = [span for spans in waits.values() for span in spans]
    return results, fake, used, _stalled(all_waits, fake)


@settings(
    max_examples=2500, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
@given(schedules())
def test_every_schedule_ends_within_budget_and_limits(schedule: Schedule) -> None:
    results, fake, used, stalled = _run(schedule)
    assert not fake.violations, fake.violations[:3]
    for judgment, reply in zip((f"j{i}" for i in range(schedule.judgments)), results):
        assert (reply.text is None) != (reply.error is None), reply  # scored, or a reason
        assert reply.text is None or judgment in fake.verdicts
        assert used[judgment] <= schedule.budget + MARGIN, (judgment, used[judgment], reply)
    assert stalled <= MARGIN, f"{stalled:.3f} s with judgments queued and nothing sent"


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(schedules())
def test_judge_all_ends_with_a_result_for_every_judgment(schedule: Schedule) -> None:
    """Through the workers of `judge_all` (the path lm-eval and `culture-evals judge` take)."""
    judge, fake = _judge(schedule)
    judge._client = _NoSession  # type: ignore[method-assign]
    batch = [[{"role": "user", "content": f"j{i}"}] for i in range(schedule.judgments)]
    horizon = schedule.judgments * (schedule.budget + schedule.timeout + 10) + 100
    results, _ = run_virtual(judge.judge_all(batch, label="test"), horizon)
    assert len(results) == schedule.judgments
    assert all((r.text is None) != (r.error is None) for r in results)
    assert judge.calls == fake.sent and not fake.violations


class _NoSession:
    """Stands in for the aiohttp session: the fake answers every request itself."""

    def __init__(self, *_: Any) -> None: ...

    async def __aenter__(self) -> _NoSession:
        return self

    async def __aexit__(self, *_: Any) -> None: ...


def test_a_429_storm_over_a_queue_with_nothing_in_flight_moves_when_the_hold_ends() -> None:
    """The sweep's case: start 2, 10 judgments, the first 6 answered 429 with Retry-After.
    Before the fix this ended with 0 finished, 10 waiting and 0 in flight, forever."""
    storm = [Reply("429-retry-after", 0.1, 1.0)] * 6
    schedule = Schedule(10, 2, 2, True, 60.0, 10, 30.0, storm, "ok")
    results, fake, used, stalled = _run(schedule)
    assert all(r.text == "Rating: [[5]]" for r in results)
    assert fake.sent == 16 and stalled <= MARGIN


def test_a_429_storm_forever_ends_every_judgment_within_its_budget() -> None:
    schedule = Schedule(12, 4, 8, True, 15.0, 10, 30.0, [], "429-retry-after")
    try:
        results, fake, used, _ = _run(schedule)
    except Hang as exc:  # pragma: no cover - the failure this test exists for
        raise AssertionError(f"judging hung: {exc}") from None
    assert all(r.text is None and "judge_retry_budget of 15 s" in r.error for r in results)
    assert all("HTTP 429 (rate limited)" in r.error for r in results)
    assert max(used.values()) <= 15.0 + MARGIN


def test_a_429_storm_forever_ends_the_whole_batch_within_one_budget() -> None:
    """Through `judge_all`'s workers: a judgment not started yet is charged the holds it waits
    through, so 40 judgments on 4 workers end within one budget, not ten in a row."""
    schedule = Schedule(40, 4, 8, True, 15.0, 10, 30.0, [], "429-retry-after")
    judge, fake = _judge(schedule)
    judge._client = _NoSession  # type: ignore[method-assign]
    batch = [[{"role": "user", "content": f"j{i}"}] for i in range(schedule.judgments)]
    results, took = run_virtual(judge.judge_all(batch, label="test"), 1000)
    assert all(r.text is None and "judge_retry_budget of 15 s" in r.error for r in results)
    assert took <= 15.0 + 0.05 + MARGIN  # the budget, and the last attempt's latency
    assert fake.sent < 40  # the queued judgments ended without a request the storm refuses


def _cleared_storms(judgments: int, every: int, hold: float) -> list[Reply]:
    """A 429 with Retry-After `hold` after every `every` successes: storms that clear."""
    ok, storm = Reply("ok", 0.2, 0.0), Reply("429-retry-after", 0.2, hold)
    return [storm if i % (every + 1) == every else ok for i in range(2 * judgments)]


@pytest.mark.parametrize(
    ("judgments", "start", "budget", "every", "hold"),
    [(2000, 8, 300.0, 100, 20.0), (60, 4, 15.0, 10, 6.0)],
)
def test_a_long_run_whose_storms_clear_never_expires_its_last_judgments(
    judgments: int, start: int, budget: float, every: int, hold: float
) -> None:
    """Holds before the last success are over: the sum of a long run's cleared storms past the
    budget must not fail its last judgments (the reviewer's case: 499 of 2000 unscored)."""
    replies = _cleared_storms(judgments, every, hold)
    schedule = Schedule(judgments, start, start, True, budget, 10, 30.0, replies, "ok")
    judge, fake = _judge(schedule)
    judge._client = _NoSession  # type: ignore[method-assign]
    batch = [[{"role": "user", "content": f"j{i}"}] for i in range(judgments)]
    results, took = run_virtual(judge.judge_all(batch, label="test"), 100_000)
    assert [r.error for r in results if r.text is None] == []
    assert took > budget  # the holds of the whole run added up past the budget
