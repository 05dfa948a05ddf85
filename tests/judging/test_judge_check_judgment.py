"""The judge's check before generation is one real judgment of the benchmark (issue 42, point 5):
the completion tokens the judge reports for it become each reply's in the cost estimate ("measured
from one judgment"); a judge that reports no `usage` leaves the declared figure ("assumed N a
verdict"); a reply without a verdict in the benchmark's format is said in one warning line and
the run goes on (unconstrained, the check refuses no reply). Both harnesses' senders, on the stub
(127.0.0.1 only)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.judging.http_client import OpenAICompatibleJudge, judge_key
from inspect_culture.judging.options import resolve_judge_settings
from inspect_culture.judging.preflight import CHECK_HEADERS, Judgment, first_judgment
from inspect_culture.judging.usage import verdict_length
from tests.support.openai_stub import StubOpenAIServer, is_check, stub_tokens

RATED = "The response is right and complete.\nRating: [[8]]"
ITEM = {
    "id": "q1",
    "language": "zh",
    "culture_type": "Cultural commonsense",
    "associated_culture": "Native (Chinese)",
    "geographic_scope": "Nationwide",
    "category": "commonsense",
    "question": "广州菜的口味通常是比较浓烈还是比较清淡的？",
    "answer": "广州菜通常是比较清淡的。",
}


def _judgment() -> Judgment:
    judgment = first_judgment(CareJudging(), [ITEM])
    assert judgment is not None
    return judgment


def _replying(text: str) -> Any:
    seen: list[bool] = []

    def respond(prompt: str, body: dict[str, Any]) -> str:
        seen.append(is_check(body))
        return text

    respond.seen = seen  # type: ignore[attr-defined]
    return respond


def _lm_eval_check(server: StubOpenAIServer) -> tuple[str | None, str]:
    settings = resolve_judge_settings({"judge_model": "judge", "judge_base_url": server.base_url})
    problem = asyncio.run(OpenAICompatibleJudge(settings).preflight(None, _judgment()))
    return problem, judge_key(settings)


def test_lm_eval_check_is_one_judgment_whose_tokens_the_estimate_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    responder = _replying(RATED)
    with StubOpenAIServer(responder=responder) as server:
        problem, key = _lm_eval_check(server)
        [body] = server.requests
    assert problem is None and responder.seen == [True]  # sent with CHECK_HEADERS
    assert body["messages"] == [dict(m) for m in _judgment().request.messages]
    assert "max_tokens" not in body or body["max_tokens"] > 1  # the judge's own cap
    verdict = verdict_length(CareJudging(), None, [key])
    assert verdict.measured and verdict.tokens == stub_tokens(RATED)
    assert verdict.words() == "measured from one judgment"
    assert capsys.readouterr().err == ""  # a verdict in CARE's format: nothing to say


def test_lm_eval_check_without_a_verdict_is_one_warning_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with StubOpenAIServer(responder=_replying("I cannot rate this.")) as server:
        problem, _ = _lm_eval_check(server)
    assert problem is None  # a warning, not a refusal
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "warning" in line and "without a verdict in the benchmark's format" in line
    assert "'I cannot rate this.'" in line


def test_a_judge_reporting_no_usage_leaves_the_declared_verdict() -> None:
    reply = {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": RATED}}],
    }  # no `usage`
    with StubOpenAIServer(fault=lambda n, body: {"status": 200, "body": reply}) as server:
        problem, key = _lm_eval_check(server)
    assert problem is None
    verdict = verdict_length(CareJudging(), None, [key])
    assert not verdict.measured and verdict.tokens == CareJudging.verdict_tokens
    assert verdict.words() == f"assumed {CareJudging.verdict_tokens} a verdict"


def test_inspect_check_is_the_same_judgment_measured_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.inspect_adapter import preflight

    responder = _replying("Rating: [[9]] and no more")
    with StubOpenAIServer(responder=responder) as server:
        grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="sk-t")
        check = preflight.JudgmentCheck(_judgment(), GenerateConfig(temperature=0.0))
        assert preflight.preflight_at_build(grader, "grader", check, remember=False) is None
        [body] = server.requests
    assert responder.seen == [True]
    assert body["messages"] == [dict(m) for m in _judgment().request.messages]
    verdict = verdict_length(CareJudging(), None, [preflight.judge_key(grader)])
    assert verdict.measured and verdict.tokens == stub_tokens("Rating: [[9]] and no more")
    assert capsys.readouterr().err == ""


def test_the_check_header_is_one_a_server_can_ignore() -> None:
    assert CHECK_HEADERS == {"X-Culture-Evals-Check": "preflight"}
