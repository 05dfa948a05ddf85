"""Why a judgment has no verdict, in the same words in both harnesses and `culture-evals judge`.
No text here carries a key: adapters pass what they did not write through `redaction.redact`."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from inspect_culture.judging.redaction import redact

STATUS_WORDS = {
    400: "bad request",
    401: "unauthorized",
    403: "forbidden",
    404: "not found",
    408: "request timeout",
    409: "conflict",
    413: "request too large",
    422: "unprocessable request",
    429: "rate limited",
}
RETRY_STATUS = {408, 409, 429}
COULD_NOT_CONNECT = "could not connect (connection refused, host unreachable or connection dropped)"
_TIMEOUT_NAMES = {"APITimeoutError", "TimeoutError", "ReadTimeout", "TimeoutException"}
_CONNECTION_NAMES = {
    "APIConnectionError", "ConnectError", "ConnectionError", "ConnectTimeout", "ClientError",
}  # fmt: skip
_NUMBERS = re.compile(r"\d+(?:\.\d+)?")

# every judged sample of a generation-only run is left unscored with this reason
JUDGE_LATER = "not judged: generation-only run (judge_later)"
HOW_TO_JUDGE = {
    "Inspect": "inspect score LOG --model-role grader=<model>",
    "lm-eval": "`culture-evals judge`",
}
JUDGE_LATER_REASON = f"{JUDGE_LATER}; judge it with " + " or ".join(
    f"{how} ({harness})" for harness, how in HOW_TO_JUDGE.items()
)


def judge_later_note(task: str, how: str, count: int | None = None) -> str:
    left = f"{count} outputs left unjudged" if count is not None else "nothing judged yet"
    return f"culture-evals: {task}: generation only (judge_later): {left}; judge with {how}"


class HTTPFailure(Exception):
    """A non-2xx answer of a judge endpoint (or a 2xx one that is not a chat completion)."""

    def __init__(self, status: int, message: str, headers: object = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.message = message
        self.headers = headers

    @classmethod
    def of(cls, status: int, raw: bytes, headers: object) -> HTTPFailure:
        try:
            error = json.loads(raw).get("error")
            message = error.get("message") if isinstance(error, dict) else str(error)
        except (ValueError, AttributeError):
            message = raw.decode("utf-8", "replace")
        return cls(status, str(message or ""), headers)


@dataclass(frozen=True)
class Failure:
    what: str  # "HTTP 500 (server error)", "no reply within 120 s (timeout)", ...
    retryable: bool
    status: int | None = None
    retry_after: float | None = None  # seconds the server asked to wait
    timed_out: bool = False  # no reply within the limit: the check's fallback and fix read it


def status_code(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        code = getattr(holder, "status_code", getattr(holder, "status", None))
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


def retry_after(headers: object) -> float | None:
    """Retry-After in seconds (a number, or an HTTP date), or None."""
    value = getattr(headers, "get", lambda _: None)("retry-after")
    if not value:
        return None
    with suppress(ValueError):
        return max(0.0, float(value))
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def classify(
    exc: BaseException, limit: float | None = None, secrets: tuple[str, ...] = ()
) -> Failure:
    """Whichever client raised it; a refused key's body is never shown (servers echo keys)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    code = status_code(exc)
    if code is not None:
        what = f"HTTP {code} ({STATUS_WORDS.get(code, 'server error' if code >= 500 else 'error')})"
        if isinstance(exc, HTTPFailure) and (code in (400, 422) or code < 300):
            what += f": {redact(exc.message, secrets)[:300]}"
        wait = retry_after(getattr(exc, "headers", None)) if code in (429, 503) else None
        return Failure(what, code in RETRY_STATUS or code >= 500, code, wait)
    if isinstance(exc, asyncio.TimeoutError) or names & _TIMEOUT_NAMES:
        within = f"no reply within {limit:.3g} s (timeout)" if limit else "the request timed out"
        return Failure(within, True, timed_out=True)
    if names & _CONNECTION_NAMES:
        return Failure(COULD_NOT_CONNECT, True)
    detail = f": {line}" if (line := first_line(str(exc), secrets)) else ""
    return Failure(f"{type(exc).__name__}{detail}", False)


def first_line(text: str, secrets: tuple[str, ...] = ()) -> str:
    """An error's first line, redacted, at most 200 characters; "" when it says nothing."""
    lines = redact(text, secrets).strip().splitlines()
    return lines[0][:200] if lines else ""


def call_failed(
    what: str,
    who: str,
    host: str,
    *,
    attempts: int | None = None,
    seconds: float | None = None,
    ended: str = "",
    role: str = "judge",
) -> str:
    """The reason of a sample whose judge call failed; names the judge, never its key."""
    tries = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts else ""
    over = f" over {seconds:.1f} s" if seconds is not None else ""
    return f"{role} call failed{tries}{over}: {what}; {role} {who} at {host}{ended}"


def empty_reply(who: str, host: str) -> str:
    return f"empty judge response; judge {who} at {host}"


def all_unscored_alarm(task: str, reasons: Sequence[str | None] | None = None) -> str | None:
    """The banner of a run with no judged sample scored; reasons differing in numbers are one."""
    if reasons is None:
        head = (
            f"{task}: NO SAMPLE WAS SCORED: every judgment failed or had no verdict (the "
            "reasons are in each sample's score: `inspect view`)"
        )
    elif not reasons or any(reason is None for reason in reasons):
        return None
    else:
        [(group, count)] = Counter(_NUMBERS.sub("#", str(r)) for r in reasons).most_common(1)
        reason = next(r for r in reasons if _NUMBERS.sub("#", str(r)) == group)
        head = (
            f"all {len(reasons)} judged samples of {task} are unscored: {reason} ({count} of "
            f"{len(reasons)}); NO SAMPLE WAS SCORED"
        )
    bar = "!" * 78
    return (
        f"\n{bar}\nculture-evals: WARNING: {head}; the numbers of this run are not results\n{bar}\n"
    )
