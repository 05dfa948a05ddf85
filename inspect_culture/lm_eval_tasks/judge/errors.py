"""Judge failures in words: what happened, whether a retry can help, how long the server asked
to wait, and, before generation, what to fix. Messages never carry the API key: some servers
echo it in a 401 body, so response bodies are shown only for rejected requests (400/422), and
every message is scrubbed of the key and of bearer tokens."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import aiohttp

from inspect_culture.lm_eval_tasks.judge.settings import API_KEY_ENV, PREFLIGHT_ENV, JudgeSettings

_STATUS_WORDS = {
    400: "bad request",
    401: "unauthorized",
    403: "forbidden",
    404: "not found",
    408: "request timeout",
    409: "conflict",
    422: "unprocessable request",
    429: "rate limited",
}
_RETRY_STATUS = {408, 409, 429}
_BEARER = re.compile(r"(?i)bearer\s+\S+")


class HTTPFailure(Exception):
    """A non-2xx answer of the judge endpoint (or a 2xx one that is not a chat completion)."""

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
    what: str  # "HTTP 500 (server error)", "no reply within 120 s", ...
    retryable: bool
    status: int | None = None
    retry_after: float | None = None  # seconds the server asked to wait


def scrub(text: str, api_key: str) -> str:
    """The text without the key or any bearer token."""
    if api_key:
        text = text.replace(api_key, "[key]")
    return _BEARER.sub("Bearer [key]", text)


def retry_after(headers: object) -> float | None:
    """Retry-After in seconds (a number, or an HTTP date), or None."""
    value = getattr(headers, "get", lambda _: None)("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def classify(exc: BaseException, limit: float) -> Failure:
    """What an attempt's exception means; `limit` the attempt's timeout, in seconds."""
    if isinstance(exc, asyncio.TimeoutError):  # aiohttp's timeouts are TimeoutErrors too
        return Failure(f"no reply within {limit:.3g} s (timeout)", True)
    if isinstance(exc, aiohttp.ClientError | ConnectionError):
        return Failure("could not connect, or the connection was dropped", True)
    if isinstance(exc, HTTPFailure):
        code = exc.status
        words = _STATUS_WORDS.get(code, "server error" if code >= 500 else "error")
        what = f"HTTP {code} ({words})"
        if code in (400, 422) or code < 300:  # a rejected request says why (never 401/403)
            what += f": {exc.message[:300]}"
        wait = retry_after(exc.headers) if code in (429, 503) else None
        return Failure(what, code in _RETRY_STATUS or code >= 500, code, wait)
    return Failure(type(exc).__name__, False)


def _fix(settings: JudgeSettings, failure: Failure) -> str:
    if failure.status in (401, 403):
        return f"check {API_KEY_ENV} (or OPENAI_API_KEY): the endpoint refused the key it was sent"
    if failure.status == 404:
        return (
            f"check that {settings.model!r} is in the model list at that endpoint "
            "(GET <judge_base_url>/models) and that judge_base_url is the API root, ending in "
            "/v1, not /chat/completions"
        )
    if failure.status == 429:
        return "the endpoint is rate limiting; wait, or lower judge_concurrency"
    if failure.status is not None and failure.status >= 500:
        return "the judge server failed; check its logs"
    if "timeout" in failure.what:
        return "check that the judge server is up and not overloaded (judge_timeout)"
    return "check that the judge server is running and that judge_base_url (host, port) is right"


def preflight_message(settings: JudgeSettings, failure: Failure) -> str:
    """The one message that stops a run whose judge cannot answer."""
    url = settings.shown_url()
    text = (
        f"The judge {settings.model!r} at {url} cannot answer: {failure.what}. "
        f"Fix: {_fix(settings, failure)}. Nothing was generated (a one-request check when the "
        "task loads; --metadata '{\"judge_preflight\": false}' or "
        f"{PREFLIGHT_ENV}=off skips it, e.g. for offline replays from the judge cache)."
    )
    return scrub(text, settings.api_key)
