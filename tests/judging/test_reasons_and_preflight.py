"""The words both harnesses use for a failed judge call, an unscored run and the check before
generation (judging/reasons.py, judging/preflight.py): hand-worked answers."""

from __future__ import annotations

import asyncio

import pytest

from inspect_culture.judging.preflight import Knobs, check_outcome, endpoint_problem, timed_out
from inspect_culture.judging.reasons import (
    COULD_NOT_CONNECT,
    Failure,
    HTTPFailure,
    all_unscored_alarm,
    call_failed,
    classify,
)

KNOBS = Knobs(key="THE_KEY_VAR", base_url="the_url", concurrency="the_limit", switch_off="off")


class APIStatusError(Exception):  # shaped like the openai SDK's: a status code, a message
    status_code = 401


class APIConnectionError(Exception):
    pass


def test_one_classification_of_any_client_error() -> None:
    assert classify(APIStatusError("sk-secret123456 refused")).what == "HTTP 401 (unauthorized)"
    assert classify(APIConnectionError("boom")).what == COULD_NOT_CONNECT
    assert classify(asyncio.TimeoutError(), 1.5).what == "no reply within 1.5 s (timeout)"
    bad = classify(HTTPFailure(400, "max_tokens too large; key sk-abcdefgh123"), 10, ())
    assert bad.what.startswith("HTTP 400 (bad request): max_tokens too large")
    assert "sk-abcdefgh123" not in bad.what and not bad.retryable
    assert classify(HTTPFailure(503, "busy")).retryable and classify(HTTPFailure(429, "")).retryable
    odd = classify(ValueError("first line\nsecond"))
    assert odd.what == "ValueError: first line" and not odd.retryable


def test_the_call_failed_reason() -> None:
    assert call_failed("HTTP 500 (server error)", "j", "h:1", attempts=3, seconds=1.25) == (
        "judge call failed after 3 attempts over 1.2 s: HTTP 500 (server error); judge j at h:1"
    )
    assert call_failed("x", "b", "h", attempts=1, role="baseline") == (
        "baseline call failed after 1 attempt: x; baseline b at h"
    )


def test_the_alarm_only_when_nothing_was_scored() -> None:
    assert all_unscored_alarm("t", ["a", None]) is None
    assert all_unscored_alarm("t", []) is None
    alarm = all_unscored_alarm("t", ["failed after 3 attempts", "failed after 4 attempts", "x"])
    assert alarm is not None and "NO SAMPLE WAS SCORED" in alarm
    assert "all 3 judged samples of t are unscored: failed after 3 attempts (2 of 3)" in alarm
    assert "NO SAMPLE WAS SCORED" in (all_unscored_alarm("t") or "")  # Inspect: no reasons seen


def test_an_endpoint_url_is_not_an_api_root() -> None:
    problem = endpoint_problem("http://u:pw@h:8000/v1/chat/completions", "the_url")
    assert problem is not None and "pw" not in problem and "use http://h:8000/v1" in problem
    assert endpoint_problem("http://h:8000/v1", "the_url") is None


@pytest.mark.parametrize(
    ("failure", "stops", "fix"),
    [
        (None, False, ""),
        (Failure("HTTP 400 (bad request)", False, 400), False, ""),  # refused the 1-token cap
        (Failure("HTTP 401 (unauthorized)", False, 401), True, "check THE_KEY_VAR"),
        (Failure("HTTP 404 (not found)", False, 404), True, "('m' is what is sent)"),
        (
            Failure("no reply within 30 s (timeout)", True, timed_out=True),
            True,
            "up and not overloaded",
        ),
        (Failure(COULD_NOT_CONNECT, True), True, "the_url (host, port)"),
    ],
)
def test_the_one_token_check(failure: Failure | None, stops: bool, fix: str) -> None:
    message = check_outcome(failure, None, "judge", "m", "http://h/v1", "m", KNOBS)
    assert (message is not None) is stops
    if stops:
        assert message.startswith("The judge 'm' at http://h/v1 cannot answer: ")
        assert fix in message and message.endswith("Nothing was generated (off).")


def test_a_rate_limited_check_goes_on_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    limited = Failure("HTTP 429 (rate limited)", True, 429)
    assert check_outcome(limited, None, "judge", "m", "http://h/v1", "m", KNOBS) is None
    assert "rate limiting (HTTP 429)" in capsys.readouterr().err


def test_a_timeout_is_told_by_its_field_not_its_words() -> None:
    """The check falls back to one token only on a timeout, whatever an error's text says."""
    assert timed_out(classify(asyncio.TimeoutError(), 30.0))
    assert timed_out(classify(asyncio.TimeoutError()))
    assert not timed_out(classify(ConnectionRefusedError("refused")))
    # a provider's error text (Inspect's output.error) that happens to use the words
    assert not timed_out(Failure("no reply within the provider's budget: overloaded", False))
