"""The lm-eval judge's pacer: hand-worked steps of its limit, and the client against a stub that
enforces a provider's rate limits (429 with Retry-After, x-ratelimit-* headers)."""

from __future__ import annotations

import asyncio

import pytest

from inspect_culture.judging.http_client import OpenAICompatibleJudge
from inspect_culture.judging.options import JudgeConfigError, resolve_judge_settings
from inspect_culture.judging.pacing import Pacer, quota_of
from tests.support.judge_sync import judge_all_sync
from tests.support.openai_stub import StubOpenAIServer
from tests.support.rate_limits import Buckets, RateLimits, duration, request_tokens

ROOM = {"x-ratelimit-remaining-requests": "100", "x-ratelimit-remaining-tokens": "100000"}


def test_quota_of_reads_the_remaining_headers_or_none() -> None:
    assert quota_of(ROOM) is not None and quota_of(ROOM).requests == 100
    assert quota_of({"x-ratelimit-remaining-requests": "7"}).tokens == float("inf")
    assert quota_of({}) is None
    assert quota_of({"x-ratelimit-remaining-requests": "many"}) is None


def _saturate(pacer: Pacer) -> None:
    pacer.in_flight = int(pacer.limit)


def test_grows_by_half_the_room_left_while_the_quota_covers_every_call_in_flight() -> None:
    # 100 requests left (tokens: 100,000 / 10 = room for 10,000 calls), 4 in flight:
    # room for 96 more, half of it is 48, capped by the maximum
    pacer = Pacer(start=4, maximum=6)
    _saturate(pacer)
    pacer.succeeded(ROOM, cost=10)
    assert pacer.limit == 6
    pacer = Pacer(start=4, maximum=64)
    _saturate(pacer)
    pacer.succeeded({"x-ratelimit-remaining-requests": "10"}, cost=10)  # (10 - 4) / 2 = 3
    assert pacer.limit == 7
    _saturate(pacer)
    pacer.succeeded({"x-ratelimit-remaining-requests": "8"}, cost=10)  # (8 - 7) / 2: at least 1
    assert pacer.limit == 8
    # quota for no more requests than are in flight: no growth
    _saturate(pacer)
    pacer.succeeded({"x-ratelimit-remaining-requests": "8"}, cost=10)
    assert pacer.limit == 8
    # tokens bind: 8 in flight at 1,000 each need more than 7,999 left; 11,000 leave room for 11
    pacer.succeeded({**ROOM, "x-ratelimit-remaining-tokens": "7999"}, cost=1000)
    assert pacer.limit == 8
    pacer.succeeded({**ROOM, "x-ratelimit-remaining-tokens": "11000"}, cost=1000)
    assert pacer.limit == 9.5  # (11 - 8) / 2
    # not saturated (fewer in flight than the limit): the limit does not bind, no growth
    pacer.in_flight = 1
    pacer.succeeded(ROOM, cost=10)
    assert pacer.limit == 9.5


def test_without_rate_limit_headers_it_never_grows_past_the_start() -> None:
    pacer = Pacer(start=4, maximum=64)
    for _ in range(20):
        _saturate(pacer)
        pacer.succeeded({}, cost=10)
    assert pacer.limit == 4


def test_a_429_cuts_by_a_third_once_per_round_and_holds_new_calls() -> None:
    pacer = Pacer(start=9, maximum=64)
    pacer.rate_limited(sent_at=float("inf"), retry_after=0.0)  # sent after any cut
    assert pacer.limit == 6 and pacer.cuts == 1
    pacer.rate_limited(sent_at=0.0, retry_after=None)  # sent before that cut: no second cut
    assert pacer.limit == 6 and pacer.cuts == 1
    # back up: additive, 1/limit a success, up to the start
    _saturate(pacer)
    pacer.succeeded({}, cost=0)
    assert pacer.limit == pytest.approx(6 + 1 / 6)

    async def held() -> float:
        pacer.rate_limited(sent_at=0.0, retry_after=0.2)
        loop = asyncio.get_running_loop()
        start = loop.time()
        pacer.in_flight = 0
        await pacer.acquire()
        return loop.time() - start

    assert asyncio.run(held()) >= 0.19


def test_fixed_concurrency_never_moves() -> None:
    pacer = Pacer(start=4, maximum=64, adaptive=False)
    pacer.rate_limited(sent_at=float("inf"), retry_after=None)
    _saturate(pacer)
    pacer.succeeded(ROOM, cost=1)
    assert pacer.limit == 4 and pacer.cuts == 0


def test_buckets_refill_continuously_and_say_when_to_retry() -> None:
    now = [0.0]
    buckets = Buckets(RateLimits(requests=60, tokens=6000, minute=60.0), clock=lambda: now[0])
    for _ in range(60):
        assert buckets.take(10)[0]
    admitted, wait, headers = buckets.take(10)
    assert not admitted and wait == pytest.approx(1.0)  # one request a second refills
    assert headers["retry-after"] == "1.000" and headers["retry-after-ms"] == "1000"
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert headers["x-ratelimit-remaining-tokens"] == "5400"
    assert headers["x-ratelimit-reset-requests"] == "1m0s"
    now[0] = 1.0
    assert buckets.take(10)[0]
    # tokens bind: at 3 s, 2 requests and 5,490 + 200 tokens left; 5,900 tokens wait 2.1 s
    now[0] = 3.0
    admitted, wait, _ = buckets.take(5900)
    assert not admitted and wait == pytest.approx(2.1)
    assert request_tokens({"messages": [{"content": "x" * 40}], "max_tokens": 5}) == 15
    assert duration(0.25) == "250ms" and duration(64.5) == "1m4.5s"


def test_settings_check_the_concurrency_options() -> None:
    base = {"judge_model": "j", "judge_base_url": "http://127.0.0.1:9/v1"}
    settings = resolve_judge_settings({**base}, env={})
    assert settings.adaptive_concurrency and settings.max_concurrency == 256
    settings = resolve_judge_settings(
        {**base, "judge_concurrency": 300, "judge_adaptive_concurrency": "false"}, env={}
    )
    assert settings.max_concurrency == 300 and not settings.adaptive_concurrency
    with pytest.raises(JudgeConfigError, match="judge_max_concurrency=8 is below"):
        resolve_judge_settings({**base, "judge_max_concurrency": 8}, env={})
    with pytest.raises(JudgeConfigError, match="judge_adaptive_concurrency='maybe'"):
        resolve_judge_settings({**base, "judge_adaptive_concurrency": "maybe"}, env={})


@pytest.mark.parametrize("adaptive", [True, False])
def test_the_client_judges_everything_at_a_providers_limits_without_paying_twice(
    adaptive: bool,
) -> None:
    """40 requests a 'minute' of 1 s, 20 judgments of 50 ms, 16 in flight: the limits refuse
    most of the first burst; every judgment still ends with a verdict, each admitted once, and
    429s are waited out (Retry-After), not counted as retries."""
    limits = RateLimits(requests=8, tokens=10**9, minute=0.2)
    with StubOpenAIServer(
        responder=lambda p, b: "Rating: [[7]]", latency=0.05, limits=limits
    ) as server:
        settings = resolve_judge_settings(
            {
                "judge_model": "j", "judge_base_url": server.base_url, "judge_concurrency": 16,
                "judge_adaptive_concurrency": adaptive, "judge_max_retries": 0,
            },
            env={},
        )  # fmt: skip
        judge = OpenAICompatibleJudge(settings, retry_base_delay=0.01)
        batch = [[{"role": "user", "content": f"judge {i}"}] for i in range(60)]
        replies = judge_all_sync(judge, batch)
        limited, admitted = server.limited, len(server.requests)
    assert limited > 0, "the limits must bind for this test to mean anything"
    if adaptive:
        assert all(r.text == "Rating: [[7]]" for r in replies), [r.error for r in replies]
        assert admitted == 60  # none paid twice
        assert judge.pacer.cuts >= 1 and judge.pacer.limit < 16
    else:  # fixed: a 429 is a retry, and judge_max_retries=0 leaves none
        failed = [r for r in replies if r.text is None]
        assert failed and "HTTP 429" in failed[0].error
        assert admitted == 60 - len(failed)
