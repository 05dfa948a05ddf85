"""Judge failures in Inspect: a failed or hung judgment leaves its sample unscored with a reason
in words (what happened, attempts, judge host and model), the eval goes on, no API key reaches
the log or stderr, and a run with no scored sample says so."""

from __future__ import annotations

import math
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, get_model

from inspect_culture.care import care
from inspect_culture.inspect_adapter.eval_hooks import ALL_UNSCORED
from inspect_culture.inspect_adapter.failures import judge_failure_reason
from inspect_culture.judging.redaction import redact
from tests.support.openai_stub import StubOpenAIServer, care_responder

pytestmark = pytest.mark.slow
SECRET = "sk-test-SECRET-0123456789abcdef"


class EchoingKeyServer(StubOpenAIServer):
    """A judge that fails with a body echoing the request's key, as some servers do."""

    def __init__(self, status: int) -> None:
        super().__init__()
        self.status = status

    async def _respond(
        self, method: str, path: str, raw: bytes
    ) -> tuple[int | None, dict[str, Any]]:
        if method == "POST":
            self._record({})
            self._done()
            message = f"Incorrect API key provided: {SECRET}. Authorization: Bearer {SECRET}"
            return self.status, {"error": {"message": message, "api_key": SECRET}}
        return await super()._respond(method, path, raw)


def _run(task: Any, model_server: StubOpenAIServer, log_dir: Path, **kwargs: Any) -> Any:
    [log] = inspect_eval(
        task,
        model="openai-api/stub/evaluated",
        model_base_url=model_server.base_url,
        log_dir=str(log_dir),
        display="none",
        **kwargs,
    )
    return log


def _grader(server: StubOpenAIServer, **kwargs: Any) -> Any:
    return get_model("openai-api/stub/judge", base_url=server.base_url, api_key=SECRET, **kwargs)


def _unscored_reasons(log: Any) -> list[str]:
    scores = [s.scores["care_judge"] for s in log.samples]
    assert all(isinstance(s.value, float) and math.isnan(s.value) for s in scores)
    return [str(s.reason) for s in scores]


def _whole_log_text(log_dir: Path) -> str:
    texts = []
    for path in log_dir.rglob("*.eval"):
        with zipfile.ZipFile(path) as archive:
            texts += [archive.read(name).decode("utf-8", "replace") for name in archive.namelist()]
    assert texts
    return "\n".join(texts)


@pytest.mark.parametrize(
    ("status", "words", "retries"), [(401, "HTTP 401", 0), (500, "HTTP 500", 1)]
)
def test_failed_judgment_reason_has_no_key_anywhere(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], status: int, words: str, retries: int
) -> None:
    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        EchoingKeyServer(status) as judge,
    ):
        log = _run(
            care(language="zh", per_category=1, judge_preflight=False),
            model_server,
            tmp_path / "logs",
            model_roles={"grader": _grader(judge)},
            max_retries=retries,
            limit=2,
        )
        sent = len(judge.requests)
    assert log.status == "success", log.error
    # attempts are the HTTP requests the judge got: Inspect's retries times the OpenAI SDK's
    # own (it retries a 500 twice inside each of Inspect's attempts, a 401 never)
    per_sample = sent // 2
    assert per_sample == (1 if status == 401 else 3 * (retries + 1)), sent
    for reason in _unscored_reasons(log):
        assert reason.startswith(f"judge call failed after {per_sample} attempt"), reason
        assert words in reason and "127.0.0.1" in reason and "openai-api/stub/judge" in reason
        assert "Future at" not in reason and "0x" not in reason
    captured = capfd.readouterr()
    for text in (_whole_log_text(tmp_path / "logs"), captured.err, captured.out):
        assert SECRET not in text
        assert "Bearer sk-" not in text
    assert "[redacted]" in _whole_log_text(tmp_path / "logs")  # Inspect recorded the scrubbed error


@pytest.mark.compat  # the timeout is anyio's on every Python (asyncio.timeout is 3.11+)
def test_hung_judgment_ends_unscored_at_judge_timeout_and_the_eval_goes_on(tmp_path: Path) -> None:
    def hang_first(number: int, body: dict[str, Any]) -> float | None:
        return 60.0 if number == 0 else None

    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder, fault=hang_first) as judge,
    ):
        started = time.monotonic()
        log = _run(
            care(language="zh", per_category=1, judge_preflight=False, judge_timeout=2),
            model_server,
            tmp_path,
            model_roles={"grader": _grader(judge)},
            limit=3,
            max_connections=1,
        )
        elapsed = time.monotonic() - started
    assert log.status == "success", log.error
    assert elapsed < 30, elapsed
    reasons = [s.scores["care_judge"].reason for s in log.samples]
    timed_out = [r for r in reasons if r and "judge_timeout=2 s" in r]
    assert len(timed_out) == 1, reasons
    assert "127.0.0.1" in timed_out[0] and "openai-api/stub/judge" in timed_out[0]
    assert len(judge.requests) == 3  # the other samples were judged


def test_judge_timeout_is_validated() -> None:
    from inspect_culture.inspect_adapter.errors import TaskSetupError

    for bad in (0, -1, "soon"):
        with pytest.raises(TaskSetupError, match="judge_timeout"):
            care(language="zh", per_category=1, judge_timeout=bad)


def test_no_scored_sample_is_said_on_stderr_and_in_the_results(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=lambda prompt, body: "no verdict here") as judge,
    ):
        log = _run(care(language="zh", per_category=1, judge_preflight=False), model_server,
                   tmp_path, model_roles={"grader": _grader(judge)}, limit=3)  # fmt: skip
    assert log.status == "success", log.error
    [score] = log.results.scores
    assert score.scored_samples == 0 and score.unscored_samples == 3
    assert score.metrics[ALL_UNSCORED].value == 1.0
    assert score.metrics["n_scored"].value == 0.0
    err = capfd.readouterr().err
    assert err.count("NO SAMPLE WAS SCORED") == 1, err


def test_a_partly_scored_run_reports_no_banner(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with StubOpenAIServer(responder=care_responder) as server:
        log = _run(care(language="zh", per_category=2, judge_preflight=False), server, tmp_path,
                   model_roles={"grader": _grader(server)})  # fmt: skip
    assert log.status == "success", log.error
    assert ALL_UNSCORED not in log.results.scores[0].metrics
    assert "NO SAMPLE WAS SCORED" not in capfd.readouterr().err


def test_batch_setting_of_the_grader_role_reaches_the_judge_call(tmp_path: Path) -> None:
    """Inspect's batch mode set on the role survives our judge config (the effective config
    Inspect records on each grader model event)."""
    grader = get_model(
        "mockllm/judge",
        config=GenerateConfig(batch=True),
        custom_outputs=_mock_ratings(),
    )
    with StubOpenAIServer(responder=care_responder) as model_server:
        log = _run(care(language="zh", per_category=1, judge_preflight=False), model_server,
                   tmp_path, model_roles={"grader": grader}, limit=2)  # fmt: skip
    assert log.status == "success", log.error
    events = [
        e for s in log.samples for e in s.events
        if e.event == "model" and e.role == "grader"
    ]  # fmt: skip
    assert len(events) == 2
    for event in events:
        assert event.config.batch is True
        assert event.config.temperature == 0.0 and event.config.seed is not None


def test_a_batch_graders_reason_claims_no_attempt_count(monkeypatch) -> None:
    """A batch grader's HTTP requests are the batcher's uploads and polls, not attempts of the
    judgment: its reason gives no count, where a plain grader's does."""
    import asyncio

    from inspect_culture.inspect_adapter import failures, judge

    async def failing(*_: Any, **__: Any) -> Any:
        exc = ConnectionError("refused")
        exc.__notes__ = [f"{failures.ATTEMPTS_NOTE}7"]  # (add_note is Python 3.11+)
        raise exc

    monkeypatch.setattr(judge, "bounded_generate", failing)
    monkeypatch.setattr(judge, "reply_cache", lambda: None)
    reasons = {}
    for batch in (True, False):
        grader = get_model("mockllm/judge", config=GenerateConfig(batch=batch))
        reply = asyncio.run(judge.judge_call(grader, "Rate this."))
        reasons[batch] = reply.error
        assert reply.text is None
    assert "after 7 attempts" in reasons[False], reasons[False]
    assert "attempt" not in reasons[True], reasons[True]


def _mock_ratings() -> list[Any]:
    from inspect_ai.model import ModelOutput

    return [ModelOutput.from_content("mockllm/judge", "Fine.\nRating: [[7]]") for _ in range(10)]


def test_reason_words_for_common_failures() -> None:
    import httpx
    import openai

    grader = get_model(
        "openai-api/stub/judge", base_url="http://judge.example:8001/v1", api_key=SECRET
    )
    request = httpx.Request("POST", "http://judge.example:8001/v1/chat/completions")
    refused = openai.APIConnectionError(request=request)
    response = httpx.Response(429, request=request, json={"error": {"message": SECRET}})
    limited = openai.RateLimitError(f"rate limited {SECRET}", response=response, body=None)
    assert "could not connect" in judge_failure_reason(refused, grader)
    reason = judge_failure_reason(limited, grader, attempts=6)
    assert reason == (
        "judge call failed after 6 attempts: HTTP 429 (rate limited); "
        "judge openai-api/stub/judge at judge.example:8001"
    )
    assert "no reply within judge_timeout=5 s" in judge_failure_reason(TimeoutError(), grader, 5)
    assert redact(f"x <Future at 0x7f00 state=finished> Bearer {SECRET}") == (
        "x <object> [redacted]"
    )


def test_a_hung_attempt_is_abandoned_and_retried(tmp_path: Path) -> None:
    """The judge layer gives each attempt a limit (the role's attempt_timeout, else 120 s), so
    a hung judge call is retried by Inspect's own loop instead of costing the sample."""
    judge_requests = []

    def hang_first(number: int, body: dict[str, Any]) -> float | None:
        judge_requests.append(number)
        return 30.0 if len(judge_requests) == 1 else None

    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder, fault=hang_first) as judge,
    ):
        grader = _grader(judge, config=GenerateConfig(attempt_timeout=1))
        started = time.monotonic()
        log = _run(
            care(language="zh", per_category=1, judge_preflight=False),
            model_server, tmp_path, model_roles={"grader": grader}, max_samples=1,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    assert log.status == "success", log.error
    assert log.results.scores[0].unscored_samples == 0
    assert len(judge_requests) == 6  # five judgments, one of them tried twice
    assert elapsed < 25, elapsed  # not the 30-s hang


def test_judge_attempt_limit_defaults_and_keeps_the_roles(monkeypatch) -> None:
    from inspect_culture.inspect_adapter.judge import DEFAULT_ATTEMPT_TIMEOUT, judge_config

    monkeypatch.setenv("STUB_API_KEY", "k")
    plain = get_model("openai-api/stub/judge", base_url="http://127.0.0.1:9/v1")
    own = get_model(
        "openai-api/stub/judge", base_url="http://127.0.0.1:9/v1",
        config=GenerateConfig(attempt_timeout=7),
    )  # fmt: skip
    assert judge_config(plain).attempt_timeout == DEFAULT_ATTEMPT_TIMEOUT == 120
    assert judge_config(own).attempt_timeout is None  # the role's own 7 is left in place
    assert own.config.merge(judge_config(own)).attempt_timeout == 7


def test_judge_timeout_counts_from_the_first_attempt_not_the_connection_queue(
    tmp_path: Path,
) -> None:
    """Five judgments through one connection, 0.7 s each, the last one hanging: the four
    that wait up to 2.1 s for their slot (longer than judge_timeout=1.2) are judged, since a
    busy healthy judge is not a slow one; the hung one is cut 1.2 s after it was sent."""
    judge_requests: list[int] = []

    def hang_last(number: int, body: dict[str, Any]) -> float | None:
        judge_requests.append(number)
        return 60.0 if len(judge_requests) == 5 else None

    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder, latency=0.7, fault=hang_last) as judge,
    ):
        grader = _grader(judge, config=GenerateConfig(max_connections=1, max_retries=0))
        started = time.monotonic()
        log = _run(
            care(language="zh", per_category=1, judge_preflight=False, judge_timeout=1.2),
            model_server, tmp_path, model_roles={"grader": grader},
        )  # fmt: skip
        elapsed = time.monotonic() - started
    assert log.status == "success", log.error
    reasons = [s.scores["care_judge"].reason for s in log.samples]
    assert log.results.scores[0].unscored_samples == 1, reasons
    assert sum("no reply within judge_timeout=1.2 s" in (r or "") for r in reasons) == 1, reasons
    assert elapsed < 20, elapsed  # not the 60-s hang, nor the 120-s attempt limit


def test_a_batch_grader_gets_no_attempt_or_judgment_limit_by_default(monkeypatch) -> None:
    """A provider batch can take hours: the 120-s attempt limit and the 600-s judgment limit
    would cancel and resubmit every judgment of a batch grader. A judge_timeout given
    explicitly still applies."""
    from inspect_culture.inspect_adapter.judge import (
        DEFAULT_JUDGE_TIMEOUT,
        judge_config,
        judgment_timeout,
    )

    monkeypatch.setenv("STUB_API_KEY", "k")
    url = "http://127.0.0.1:9/v1"
    batch = get_model("openai-api/stub/judge", base_url=url, config=GenerateConfig(batch=True))
    sized = get_model("openai-api/stub/judge", base_url=url, config=GenerateConfig(batch=50))
    off = get_model("openai-api/stub/judge", base_url=url, config=GenerateConfig(batch=False))
    for grader in (batch, sized):
        assert judge_config(grader).attempt_timeout is None
        assert judgment_timeout(grader, None) is None
        assert judgment_timeout(grader, 30.0) == 30.0
    assert judge_config(off).attempt_timeout == 120
    assert judgment_timeout(off, None) == DEFAULT_JUDGE_TIMEOUT == 600.0


def test_credentials_in_the_base_url_are_never_printed(monkeypatch) -> None:
    from inspect_culture.inspect_adapter.failures import endpoint, host
    from inspect_culture.inspect_adapter.preflight import failure_message, wrong_path

    monkeypatch.setenv("STUB_API_KEY", "k")
    grader = get_model("openai-api/stub/judge", base_url="https://bob:hunter2pass@judge.example/v1")
    assert endpoint(grader) == "https://judge.example/v1"
    assert host(grader) == "judge.example"
    reason = judge_failure_reason(TimeoutError(), grader, 5)
    message = failure_message("grader", grader, "HTTP 401", "check the key")
    wrong = get_model(
        "openai-api/stub/judge", base_url="http://bob:hunter2pass@judge.example/v1/chat/completions"
    )
    path_problem = wrong_path(wrong)
    assert path_problem is not None and "use http://judge.example/v1" in path_problem
    for text in (reason, message, path_problem):
        assert "hunter2pass" not in text and "bob" not in text, text


def test_a_judgment_timed_out_in_a_429_storm_names_the_judges_last_answer(tmp_path: Path) -> None:
    """The reason of a judgment that ran out of `judge_timeout` while the judge kept refusing
    says what the judge kept answering; before, only "no reply within judge_timeout"."""
    with (
        StubOpenAIServer(responder=care_responder) as model_server,
        StubOpenAIServer(responder=care_responder, storm=-1) as judge,
    ):
        log = _run(
            care(language="zh", per_category=1, judge_preflight=False, judge_timeout=2),
            model_server, tmp_path, model_roles={"grader": _grader(judge)}, limit=1,
        )  # fmt: skip
    [reason] = _unscored_reasons(log)
    assert "no reply within judge_timeout=2 s" in reason, reason
    assert "the judge's last answer: HTTP 429 (rate limited)" in reason, reason
