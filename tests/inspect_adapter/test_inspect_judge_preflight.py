"""The preflight: a grader (or CultureSynth's baseline role) that cannot answer stops
`inspect eval` before the first generation, with one message naming the URL, the model and
what to fix; it costs one small request and is switched off with `judge_preflight=false`."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from inspect_culture.care import care
from inspect_culture.cqbench import cqbench_ve
from inspect_culture.culturesynth import culturesynth
from inspect_culture.judging.usage import TOKENS_KEY
from tests.support.openai_stub import StubOpenAIServer, care_responder, last_user_text

pytestmark = pytest.mark.slow


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(task: Any, model_server: StubOpenAIServer, tmp_path: Path, **kwargs: Any) -> Any:
    kwargs.setdefault("max_retries", 2)  # would retry connection errors; the preflight must not
    [log] = inspect_eval(
        task,
        model="openai-api/stub/evaluated",
        model_base_url=model_server.base_url,
        log_dir=str(tmp_path),
        display="none",
        **kwargs,
    )
    return log


def _grader(base_url: str, model: str = "judge") -> Any:
    return get_model(f"openai-api/stub/{model}", base_url=base_url, api_key="sk-test-preflight")


def _assert_stopped(log: Any, model_server: StubOpenAIServer, *fragments: str) -> str:
    assert log.status == "error"
    message = log.error.message
    for fragment in fragments:
        assert fragment in message, message
    assert "Fix:" in message and "judge_preflight=false" in message
    assert model_server.requests == []  # the evaluated model generated nothing
    assert "sk-test-preflight" not in message
    return message


def test_unreachable_grader_stops_before_generation_without_hanging(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with StubOpenAIServer() as model_server:
        started = time.monotonic()
        log = _run(care(language="zh", per_category=1), model_server, tmp_path,
                   model_roles={"grader": _grader(url)})  # fmt: skip
        elapsed = time.monotonic() - started
    message = _assert_stopped(log, model_server, url, "openai-api/stub/judge", "could not connect")
    assert "server is running" in message
    assert elapsed < 60, elapsed  # with Inspect's retry loop this would wait much longer


@pytest.mark.parametrize(
    ("status", "expected", "fix"),
    # the name as sent: openai-api/stub/judge sends `judge`
    [(401, "HTTP 401", "API key"), (404, "HTTP 404", "model name ('judge' is what is sent)")],
)
def test_refused_key_or_unknown_model_stops_with_its_fix(
    tmp_path: Path, status: int, expected: str, fix: str
) -> None:
    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(fault=lambda n, body: status) as judge,
    ):
        log = _run(care(language="zh", per_category=1), model_server, tmp_path,
                   model_roles={"grader": _grader(judge.base_url)})  # fmt: skip
    _assert_stopped(log, model_server, judge.base_url, "openai-api/stub/judge", expected, fix)
    assert len(judge.requests) == 1  # one request, no retry


def test_base_url_naming_the_endpoint_is_refused_with_the_root_to_use(tmp_path: Path) -> None:
    with StubOpenAIServer() as model_server, StubOpenAIServer() as judge:
        wrong = f"{judge.base_url}/chat/completions"
        log = _run(care(language="zh", per_category=1), model_server, tmp_path,
                   model_roles={"grader": _grader(wrong)})  # fmt: skip
    message = _assert_stopped(log, model_server, wrong, "/chat/completions")
    assert f"use {judge.base_url}" in message
    assert judge.requests == []


def test_hung_grader_is_cut_by_the_preflight_wall_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_culture.inspect_adapter import preflight

    monkeypatch.setattr(preflight, "PREFLIGHT_TIMEOUT", 1.0)
    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(fault=lambda n, body: 30.0) as judge,
    ):
        started = time.monotonic()
        log = _run(care(language="zh", per_category=1), model_server, tmp_path,
                   model_roles={"grader": _grader(judge.base_url)})  # fmt: skip
        elapsed = time.monotonic() - started
    _assert_stopped(log, model_server, judge.base_url, "no reply within 1 s")
    assert elapsed < 25, elapsed


def test_cqbench_ve_grader_is_checked_too(tmp_path: Path, full_mirror: Path) -> None:
    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(fault=lambda n, body: 401) as judge,
    ):
        log = _run(cqbench_ve(setting="social"), model_server, tmp_path / "logs",
                   model_roles={"grader": _grader(judge.base_url)})  # fmt: skip
    _assert_stopped(log, model_server, judge.base_url, "HTTP 401")


def test_culturesynth_baseline_role_is_checked(tmp_path: Path, full_mirror: Path) -> None:
    with (
        StubOpenAIServer() as model_server,
        StubOpenAIServer(responder=lambda p, b: "[[A]]") as judge,
        StubOpenAIServer(fault=lambda n, body: 404) as baseline,
    ):
        roles = {
            "grader": _grader(judge.base_url),
            "baseline": _grader(baseline.base_url, "gemma"),
        }
        log = _run(culturesynth(), model_server, tmp_path / "logs", model_roles=roles, limit=2)
    message = _assert_stopped(log, model_server, baseline.base_url, "baseline model", "HTTP 404")
    assert "openai-api/stub/gemma" in message
    assert len(baseline.requests) == 1


def test_one_check_per_eval_and_switch_off(tmp_path: Path) -> None:
    """The judge's check is one request, a real judgment of the benchmark (the first record,
    its reference standing in for the answer), not counted among the run's judgments."""
    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder) as judge,
    ):
        roles = {"grader": _grader(judge.base_url)}
        on = _run(care(language="zh", per_category=2), model_server, tmp_path / "on",
                  model_roles=roles)  # fmt: skip
        checks = judge.checks
        judged = len(judge.requests) - len(checks)
        assert on.status == "success", on.error
        assert len(checks) == 1 and last_user_text(checks[0]).startswith("Please serve as")
        assert judged == len(on.samples)
        tokens = [s.scores["care_judge"].metadata[TOKENS_KEY]["judge_1"] for s in on.samples]
        assert sum(t["calls"] for t in tokens) == judged  # the check is not in the totals

        judge.requests.clear()
        judge.checks.clear()
        off = _run(care(language="zh", per_category=2, judge_preflight=False), model_server,
                   tmp_path / "off", model_roles=roles)  # fmt: skip
        assert off.status == "success", off.error
        assert not judge.checks  # (its judgments: from the judge cache)


def test_preflight_off_lets_an_offline_replay_run(tmp_path: Path) -> None:
    """With the check off, an unreachable grader no longer stops the eval before generation:
    the samples generate and are left unscored with a reason."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with StubOpenAIServer() as model_server:
        log = _run(care(language="zh", per_category=1, judge_preflight="false"), model_server,
                   tmp_path, model_roles={"grader": _grader(url)}, max_retries=0)  # fmt: skip
    assert log.status == "success", log.error
    assert model_server.requests
    for sample in log.samples:
        score = sample.scores["care_judge"]
        assert score.value != score.value  # NaN: unscored, never 0
        assert "could not connect" in str(score.reason), score.reason


def test_a_server_inspect_starts_itself_gets_its_start_up_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """vLLM started by Inspect loads its model on the first generate: the check waits for the
    start-up outside its own wall clock, then gives the started server its usual limit."""
    import asyncio

    from inspect_culture.inspect_adapter import preflight

    monkeypatch.setattr(preflight, "PREFLIGHT_TIMEOUT", 1.0)
    with StubOpenAIServer() as judge:
        model = _grader(judge.base_url, "local")
        started: list[bool] = []

        async def slow_start() -> None:
            await asyncio.sleep(1.5)  # longer than the check's wall clock
            started.append(True)

        model.api._ensure_server_started = slow_start  # type: ignore[attr-defined]
        assert asyncio.run(preflight.preflight(model, "grader")) is None
        assert started == [True] and len(judge.requests) == 1

        async def failed_start() -> None:
            raise RuntimeError("vLLM server exited")

        model.api._ensure_server_started = failed_start  # type: ignore[attr-defined]
        problem = asyncio.run(preflight.preflight(model, "grader"))
        assert problem is not None and "its server did not start" in problem


def _rate_limit_checks(_: int, body: dict[str, Any]) -> int | None:
    return 429 if body.get("max_tokens") == 1 else None


def test_rate_limited_grader_passes_the_check(tmp_path: Path) -> None:
    """A 429 at the check means the endpoint, key and model were reached: the eval goes on (the
    judgments' own retries wait the limit out), and stderr says so."""
    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(
            responder=care_responder, fault=lambda n, _: 429 if n == 0 else None
        ) as judge,
    ):
        log = _run(care(language="zh", per_category=1), model_server, tmp_path,
                   model_roles={"grader": _grader(judge.base_url)})  # fmt: skip
    assert log.status == "success", log.error
    assert len(model_server.requests) == 5  # generation went ahead
    checks = judge.checks
    assert checks and len(judge.requests) == len(checks) + 5  # every judgment went through
