"""lm-eval judge: Retry-After, the retry-time budget, unscored reasons in words (never a key),
the all-unscored alarm, and generation-only (judge_later) runs."""

from __future__ import annotations

import json
import threading
import time
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from inspect_culture.benchmarks.care.judging import care_rating_format
from inspect_culture.judging.http_client import OpenAICompatibleJudge, run_sync
from inspect_culture.judging.options import JudgeSettings, metadata_options
from inspect_culture.judging.protocol import JudgeReply, JudgeRequest, user_message
from inspect_culture.judging.reasons import JUDGE_LATER_REASON, all_unscored_alarm, retry_after
from inspect_culture.lm_eval_tasks.judge import batch
from tests.support.harness_runs import lm_eval_metrics, run_lm_eval
from tests.support.judge_sync import judge_all_sync
from tests.support.openai_stub import StubOpenAIServer, care_responder

KEY = "sk-echoed-by-the-server-5150"
JUDGE_PREFIX = "Please serve as"


def _judge(server: StubOpenAIServer, **options) -> OpenAICompatibleJudge:
    settings = JudgeSettings(model="gpt-judge", base_url=server.base_url, **options)
    return OpenAICompatibleJudge(settings, retry_base_delay=0.01)


def _one() -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": "rate this"}]]


class Clock:
    """Records when each request reached the stub."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._lock = threading.Lock()

    def mark(self) -> None:
        with self._lock:
            self.times.append(time.monotonic())


def test_retry_after_is_waited_out() -> None:
    clock = Clock()

    def fault(number: int, body):
        clock.mark()
        return {"status": 429, "headers": {"Retry-After": "2"}} if number == 0 else None

    with StubOpenAIServer(responder=lambda p, b: "Rating: [[7]]", fault=fault) as server:
        [result] = judge_all_sync(_judge(server, retry_budget=30), _one())
    assert result.text == "Rating: [[7]]"
    first, second = clock.times
    assert second - first >= 2.0  # the backoff alone would have been about 0.01 s


def test_retry_after_as_an_http_date() -> None:
    class Headers(dict):
        pass

    later = retry_after(Headers({"retry-after": formatdate(time.time() + 5, usegmt=True)}))
    assert later is not None and 3.5 <= later <= 5.0
    assert retry_after(Headers({"retry-after": "1.5"})) == 1.5
    assert retry_after(Headers({"retry-after": "soon"})) is None


def test_a_short_rate_limit_window_ends_scored() -> None:
    start = time.monotonic()

    def fault(number: int, body):  # rate limited for the first 1.5 s, as a window resets
        limited = time.monotonic() - start < 1.5
        return {"status": 429, "headers": {"Retry-After": "0.5"}} if limited else None

    with StubOpenAIServer(responder=lambda p, b: "Rating: [[5]]", fault=fault) as server:
        results = judge_all_sync(_judge(server, retry_budget=10, max_retries=10), _one() * 3)
    assert [r.text for r in results] == ["Rating: [[5]]"] * 3


def test_a_spent_budget_ends_unscored_saying_so() -> None:
    fault = lambda n, b: {"status": 503, "headers": {"Retry-After": "1"}}  # noqa: E731
    with StubOpenAIServer(fault=fault) as server:
        start = time.monotonic()
        [result] = judge_all_sync(_judge(server, retry_budget=2.5, max_retries=100), _one())
        elapsed = time.monotonic() - start
    assert result.text is None and elapsed < 4
    assert "HTTP 503 (server error); judge gpt-judge at 127.0.0.1:" in result.error
    assert "judge_retry_budget of 2.5 s spent" in result.error
    assert "the server asked to wait 1 s" in result.error


def test_a_wait_that_wakes_past_the_budget_is_reported_as_spent(monkeypatch) -> None:
    """The backoff fitted in the budget, but the event loop woke after its end: no attempt with
    no time left (it would be misreported as a timeout); the reason says the budget is spent."""
    import inspect_culture.judging.http_client as client_module

    reads = []

    def late_clock() -> float:
        reads.append(1)  # batch start, start, the attempt's end, before the backoff, after it
        return time.monotonic() + (10.0 if len(reads) > 4 else 0.0)

    monkeypatch.setattr(client_module, "now", late_clock)
    with StubOpenAIServer(fault=lambda n, b: 500) as server:
        [result] = judge_all_sync(_judge(server, retry_budget=5, max_retries=3), _one())
        assert len(server.requests) == 1
    assert "after 1 attempt over" in result.error
    assert (
        "HTTP 500 (server error)" in result.error
        and "(judge_retry_budget of 5 s spent)" in result.error
    )


def test_the_budget_bounds_a_hanging_judgment() -> None:
    with StubOpenAIServer(fault=lambda n, b: 5.0) as server:
        start = time.monotonic()
        [result] = judge_all_sync(_judge(server, timeout=60, retry_budget=1), _one())
    assert time.monotonic() - start < 3
    assert "no reply within 1 s (timeout)" in result.error


def test_reason_in_words() -> None:
    with StubOpenAIServer(fault=lambda n, b: 500) as server:
        [result] = judge_all_sync(_judge(server, max_retries=2), _one())
    error = result.error
    assert error.startswith("judge call failed after 3 attempts over ")
    assert f"HTTP 500 (server error); judge gpt-judge at 127.0.0.1:{server.port}" in error
    assert "(judge_max_retries=2 reached)" in error
    assert "Future" not in error and "0x" not in error


@pytest.mark.slow
@pytest.mark.parametrize("preflight", [True, False])
def test_a_key_echoed_by_the_server_is_never_written(
    tmp_path: Path, monkeypatch, capfd, preflight: bool
) -> None:
    """The judge answers the preflight, then refuses every call with a 401 whose body holds the
    key (or, with the preflight off, refuses everything). Every sample is unscored with a
    reason, the alarm is raised, and the key is in no output file and not on stderr."""
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_API_KEY", KEY)
    monkeypatch.setenv("INSPECT_CULTURE_JUDGE_CACHE", "off")
    monkeypatch.setattr(batch, "_CHECKED", set())
    body = {"error": {"message": f"Incorrect API key provided: {KEY}", "code": "invalid_api_key"}}

    def fault(number: int, request):
        return {"status": 401, "body": body} if number > 0 or not preflight else None

    out = tmp_path / "out"
    with (
        StubOpenAIServer(responder=care_responder) as model,
        StubOpenAIServer(responder=lambda p, b: "OK", fault=fault) as judge,
    ):
        metadata = {"judge_model": "j", "judge_base_url": judge.base_url, "judge_max_retries": 0}
        metadata["judge_preflight"] = preflight
        results = run_lm_eval(model, ["care_zh"], metadata, limit=3, output_path=out)
        assert len(model.requests) > 0
    metrics = lm_eval_metrics(results, "care_zh", "judged")
    assert metrics["n_scored"] == 0 and metrics["unscored_rate"] == 1.0
    replies = [json.loads(s["filtered_resps"][0]) for s in results["samples"]["care_zh"]]
    assert all("HTTP 401 (unauthorized); judge j at 127.0.0.1" in r["error"] for r in replies)
    stderr = capfd.readouterr().err
    assert "culture-evals: WARNING: all 3 judged samples of care_zh are unscored" in stderr
    assert "the numbers of this run are not results" in stderr
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written  # results and samples files
    for path in written:
        assert KEY not in path.read_text(encoding="utf-8"), path
    assert KEY not in stderr and KEY not in json.dumps(results, default=str)


@pytest.mark.slow
def test_judge_later_generates_without_a_judge(tmp_path: Path, monkeypatch, capfd) -> None:
    for name in ("INSPECT_CULTURE_JUDGE_MODEL", "INSPECT_CULTURE_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with StubOpenAIServer(responder=care_responder) as model:
        results = run_lm_eval(model, ["care_zh"], {"judge_later": True}, limit=3)
        assert not any(JUDGE_PREFIX in str(b["messages"]) for b in model.requests)
    samples = results["samples"]["care_zh"]
    # the judge is resolved per run, never carried in the docs
    assert not {"judge_settings", "judge_model"} & {key for s in samples for key in s["doc"]}
    replies = [json.loads(s["filtered_resps"][0]) for s in samples]
    assert all(r["judge_text"] is None and r["judge_model"] is None for r in replies)
    assert all(r["error"] == JUDGE_LATER_REASON for r in replies)
    assert "culture-evals judge" in JUDGE_LATER_REASON
    stderr = capfd.readouterr().err
    assert "care_zh: generation only (judge_later): 3 outputs left unjudged" in stderr
    assert "culture-evals: WARNING" not in stderr


def test_judge_backend_hook_replaces_the_client(monkeypatch) -> None:
    seen: list = []

    def backend(settings, messages, formats):
        seen.append((settings.model, messages, formats))
        return [JudgeReply("Rating: [[4]]") for _ in messages]

    options = metadata_options({"judge_model": "bj", "judge_preflight": False})

    async def client_used(*_: object) -> None:
        pytest.fail("client used")

    monkeypatch.setattr(OpenAICompatibleJudge, "judge_all", client_used)
    fmt = care_rating_format()
    requests = [JudgeRequest(user_message(p), fmt) for p in ("p1", "p2")]
    with batch.use_judge_backend(backend):
        [transport] = batch.transports("t", options)
        results = run_sync(lambda: transport.send(requests, 1))
    assert [r.text for r in results] == ["Rating: [[4]]"] * 2
    assert seen == [
        (
            "bj",
            [[{"role": "user", "content": "p1"}], [{"role": "user", "content": "p2"}]],
            [fmt] * 2,
        )
    ]
    with pytest.raises(BaseException, match="client used"):
        [transport] = batch.transports("t", options)  # outside the block: the default client
        run_sync(lambda: transport.send(requests[:1], 1))


def test_judge_later_in_the_pairwise_and_value_extraction_filters(capfd) -> None:
    """CultureSynth and CQ-Bench VE: no judge call, every sample unscored with the reason, a
    calm note and no alarm."""
    from inspect_culture.lm_eval_tasks.cqbench import ve
    from inspect_culture.lm_eval_tasks.culturesynth import utils as culturesynth

    later = metadata_options({"judge_later": True})
    with (
        batch.use_task_options("culturesynth_zh", later),
        batch.use_task_options("cqbench_ve_social", later),
    ):
        _judge_later_filters(ve, culturesynth)
    stderr = capfd.readouterr().err
    assert "culturesynth_zh: generation only (judge_later): 1 outputs" in stderr
    assert "cqbench_ve_social: generation only (judge_later): 1 outputs" in stderr
    assert "WARNING" not in stderr


def _judge_later_filters(ve: Any, culturesynth: Any) -> None:
    pair_doc = {
        "id": "q1", "question": "Q?", "answer": "A", "baseline_answer": "B",
        "swap": True, "seed": 0, "language": "zh", "primary_topic": "t",
        "lm_eval_task": "culturesynth_zh",
    }  # fmt: skip
    [reply] = culturesynth.judge_filter(["my answer"], [pair_doc])
    games = json.loads(reply)["games"]
    assert len(games) == 2 and all(g["error"] == JUDGE_LATER_REASON for g in games)
    outcome = next(iter(culturesynth.process_results(pair_doc, [reply]).values()))
    assert outcome["outcome"] is None
    ve_doc = {
        "id": "s1", "category": "social", "gold_values": ["honesty", "care"],
        "stories_without_summary": 0, "lm_eval_task": "cqbench_ve_social",
    }  # fmt: skip
    [reply] = ve.judge_filter(["[Final answer]: honesty"], [ve_doc])
    assert json.loads(reply)["error"] == JUDGE_LATER_REASON


def test_the_alarm_names_the_most_common_cause_and_stays_quiet_otherwise(capfd) -> None:
    timeout = "judge call failed after {} attempts over {} s: no reply within 1 s (timeout)"
    err = all_unscored_alarm(
        "care_zh", [timeout.format(3, 1.2), timeout.format(4, 9.5), "no rating"]
    )
    assert "all 3 judged samples of care_zh are unscored: " + timeout.format(3, 1.2) in err
    assert "(2 of 3)" in err
    assert all_unscored_alarm("care_zh", ["no rating", None]) is None  # one scored: no alarm
    assert all_unscored_alarm("care_zh", []) is None
