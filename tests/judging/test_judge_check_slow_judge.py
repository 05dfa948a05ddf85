"""A judge too slow to write one full verdict within the check's limit (CPU llama.cpp, vLLM) is
not refused for it: when the check's judgment times out (only then), the one-token check is sent
within the same limit; if it answers, the run goes on and the estimate assumes the declared
verdict, saying why; if it times out too, the run is refused as before. Inspect, lm-eval and
`culture-evals judge`, on a stub (127.0.0.1 only) that delays only the check's judgment past a
shortened limit (answering the one-token check at once)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.care.judging import CareJudging
from inspect_culture.cli import main
from inspect_culture.judging import http_client
from inspect_culture.judging.http_client import OpenAICompatibleJudge, judge_key
from inspect_culture.judging.options import resolve_judge_settings
from inspect_culture.judging.preflight import PREFLIGHT_PROMPT, Judgment, first_judgment
from inspect_culture.judging.usage import verdict_length
from inspect_culture.lm_eval_tasks.judge import batch
from tests.support.harness_runs import run_lm_eval
from tests.support.openai_stub import StubOpenAIServer, care_responder, is_check, last_user_text

pytestmark = pytest.mark.slow
LIMIT = 1.0  # the check's limit in these tests (30 s in a run)
WHY = "the judge took over 1 s for one judgment"
ASSUMED = f"(completion assumed {CareJudging.verdict_tokens} a verdict: {WHY})"
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


def _slow_judgment(_: int, body: dict[str, Any]) -> float | None:
    """The check's judgment waits past the limit; the one-token check and the run's judgments
    are answered at once."""
    return 3.0 if is_check(body) and last_user_text(body) != PREFLIGHT_PROMPT else None


def _slow_everything(_: int, body: dict[str, Any]) -> float | None:
    return 3.0 if is_check(body) else None


def _judgment() -> Judgment:
    judgment = first_judgment(CareJudging(), [ITEM])
    assert judgment is not None
    return judgment


def _kinds(server: StubOpenAIServer) -> list[str]:
    """Each check's kind, in order: "judgment" or "one token"."""
    return [
        "one token" if last_user_text(b) == PREFLIGHT_PROMPT else "judgment" for b in server.checks
    ]


@pytest.fixture(autouse=True)
def _short_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_culture.inspect_adapter import preflight

    monkeypatch.setattr(http_client, "PREFLIGHT_TIMEOUT", LIMIT)
    monkeypatch.setattr(preflight, "PREFLIGHT_TIMEOUT", LIMIT)
    monkeypatch.setattr(batch, "_CHECKED", set())
    monkeypatch.delenv("INSPECT_CULTURE_JUDGE_PREFLIGHT", raising=False)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")


def _lm_eval_check(server: StubOpenAIServer) -> tuple[str | None, str]:
    settings = resolve_judge_settings({"judge_model": "judge", "judge_base_url": server.base_url})
    problem = asyncio.run(OpenAICompatibleJudge(settings).preflight(None, _judgment()))
    return problem, judge_key(settings)


def _inspect_check(server: StubOpenAIServer) -> tuple[str | None, str]:
    from inspect_ai.model import GenerateConfig, get_model

    from inspect_culture.inspect_adapter import preflight

    grader = get_model("openai-api/stub/judge", base_url=server.base_url, api_key="sk-t")
    check = preflight.JudgmentCheck(_judgment(), GenerateConfig(temperature=0.0))
    problem = preflight.preflight_at_build(grader, "grader", check, remember=False)
    return problem, preflight.judge_key(grader)


@pytest.mark.parametrize("check", [_lm_eval_check, _inspect_check], ids=["lm_eval", "inspect"])
def test_a_judge_too_slow_for_one_judgment_passes_by_one_token(check: Any) -> None:
    with StubOpenAIServer(responder=care_responder, fault=_slow_judgment) as server:
        problem, key = check(server)
        kinds = _kinds(server)
    assert problem is None and kinds == ["judgment", "one token"]
    verdict = verdict_length(CareJudging(), None, [key])
    assert not verdict.measured and verdict.tokens == CareJudging.verdict_tokens
    assert verdict.words() == f"assumed {CareJudging.verdict_tokens} a verdict: {WHY}"


@pytest.mark.parametrize("check", [_lm_eval_check, _inspect_check], ids=["lm_eval", "inspect"])
def test_a_judge_too_slow_for_one_token_too_is_refused_as_before(check: Any) -> None:
    with StubOpenAIServer(responder=care_responder, fault=_slow_everything) as server:
        problem, _ = check(server)
        kinds = _kinds(server)
    assert kinds == ["judgment", "one token"]
    assert problem is not None and "no reply within 1 s (timeout)" in problem
    assert "server is up and not overloaded" in problem


@pytest.mark.parametrize("check", [_lm_eval_check, _inspect_check], ids=["lm_eval", "inspect"])
def test_only_a_timeout_falls_back(check: Any) -> None:
    """A judgment refused otherwise (here HTTP 401) stops the run at once, as before."""
    with StubOpenAIServer(responder=care_responder, fault=lambda n, body: 401) as server:
        problem, _ = check(server)
        sent = len(server.requests)
    assert problem is not None and "HTTP 401" in problem and sent == 1


def test_lm_eval_run_goes_on_and_its_estimate_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubOpenAIServer(responder=care_responder, fault=_slow_judgment) as server:
        judge = {"judge_model": "judge", "judge_base_url": server.base_url}
        run_lm_eval(server, ["care_zh"], judge, limit=2, output_path=tmp_path / "out")
        kinds, judged = _kinds(server), len(server.run_requests())
    assert kinds == ["judgment", "one token"] and judged == 4  # 2 answers, 2 judgments
    assert ASSUMED in capsys.readouterr().err


def test_culture_evals_judge_goes_on_and_its_estimate_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubOpenAIServer(responder=care_responder, fault=_slow_judgment) as server:
        later = {"judge_later": True}
        run_lm_eval(server, ["care_zh"], later, limit=2, output_path=tmp_path / "gen")
        server.requests.clear()
        server.checks.clear()
        capsys.readouterr()
        args = ["--judge-model", "judge", "--judge-base-url", server.base_url]
        assert main(["judge", str(tmp_path / "gen"), "-o", str(tmp_path / "judged"), *args]) == 0
        kinds, judged = _kinds(server), len(server.run_requests())
    printed = capsys.readouterr()
    assert kinds == ["judgment", "one token"] and judged == 2
    assert ASSUMED in printed.out + printed.err


def test_inspect_eval_goes_on_and_its_estimate_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.model import get_model

    from inspect_culture.care import care
    from tests.support.harness_runs import inspect_eval_on_stub

    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder, fault=_slow_judgment) as judge,
    ):
        grader = get_model("openai-api/stub/judge", base_url=judge.base_url, api_key="sk-t")
        log = inspect_eval_on_stub(care(language="zh", per_category=1), model_server, tmp_path,
                                   model_roles={"grader": grader})  # fmt: skip
        kinds, judged = _kinds(judge), len(judge.run_requests())
    assert log.status == "success", log.error
    assert kinds == ["judgment", "one token"] and judged == len(log.samples)
    assert ASSUMED in capsys.readouterr().err
