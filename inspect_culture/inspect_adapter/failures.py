"""Judge and role-model failures in words, without secrets: a provider error can echo the API
key, and Inspect records it before our scorer sees it, so keys are scrubbed in place (type and
status kept, for Inspect's retry decision) and our own reasons never quote the raw body."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from inspect_ai.model import Model, ModelOutput

from inspect_culture.inspect_adapter.compat import http_event_hooks, wrap_provider_generate
from inspect_culture.judging.reasons import HTTPFailure, call_failed, classify, first_line
from inspect_culture.judging.redaction import (
    redact,
    redact_value,
    scrub_exception,
    url_secrets,
    without_userinfo,
)


@dataclass
class Attempts:
    """Provider calls and HTTP requests (the OpenAI SDK retries inside one call) of the current
    judgment; `on_first` starts its clock once a connection slot is held, not while queued."""

    on_first: Callable[[], None]
    count: int = 0
    requests: int = 0
    refused: str | None = None  # the last non-2xx answer, e.g. "HTTP 429 (rate limited)"


# the judgment whose provider calls a model `guard_secrets` wrapped counts, if any
ATTEMPTS: ContextVar[Attempts | None] = ContextVar("inspect_culture_attempts", default=None)


def model_secrets(model: Model) -> tuple[str, ...]:
    keys = (getattr(model.api, "api_key", None), getattr(model.api, "initial_api_key", None))
    in_url = url_secrets(str(getattr(model.api, "base_url", None) or ""))
    return tuple(k for k in keys if isinstance(k, str) and len(k) >= 8) + in_url


async def _count_request(_request: Any) -> None:
    if (box := ATTEMPTS.get()) is not None:
        box.requests += 1


async def _note_refusal(response: Any) -> None:
    """The judge's last refusal: a judgment that runs out of time says what it kept hearing."""
    code = getattr(response, "status_code", 200)
    if (box := ATTEMPTS.get()) is not None and isinstance(code, int) and code >= 400:
        box.refused = classify(HTTPFailure(code, "")).what


ATTEMPTS_NOTE = "inspect_culture: provider calls made: "
REFUSED_NOTE = "inspect_culture: the judge's last answer: "


def noted(exc: BaseException, prefix: str) -> str | None:
    """The note `bounded_generate` made on a failed judgment's exception under `prefix`, if any."""
    for note in getattr(exc, "__notes__", ()):
        if note.startswith(prefix):
            return note.removeprefix(prefix)
    return None


def attempts_of(exc: BaseException) -> int | None:
    """The provider calls a failed `bounded_generate` made (its note on the exception)."""
    return int(noted(exc, ATTEMPTS_NOTE) or 0) or None


def guard_secrets(model: Model) -> Model:
    """Redact the model's keys from every error its provider raises or returns, before Inspect
    records it (transcript, traceback, retry log). Idempotent; returns the model."""

    def guarded(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def generate(*args: Any, **kwargs: Any) -> Any:
            secrets = model_secrets(model)
            if (box := ATTEMPTS.get()) is not None:
                # checked every call: a credential refresh may replace the provider's client
                hooks = http_event_hooks(model)
                if hooks is not None and _count_request not in hooks.get("request", ()):
                    hooks.setdefault("request", []).append(_count_request)
                    hooks.setdefault("response", []).append(_note_refusal)
                box.count += 1
                if box.count == 1:
                    box.on_first()
            try:
                result = await original(*args, **kwargs)
            except Exception as exc:
                scrub_exception(exc, secrets)
                raise
            _redact_result(result, secrets)
            return result

        return generate

    wrap_provider_generate(model, guarded)
    return model


def _redact_result(result: Any, secrets: tuple[str, ...]) -> None:
    """A provider's output, or the error it returned, without `secrets`: a reply may echo the
    key, also with a 200."""
    output, call = result if isinstance(result, tuple) else (result, None)
    if isinstance(output, BaseException):
        scrub_exception(output, secrets)
    elif isinstance(output, ModelOutput):
        output.error = redact(output.error, secrets) if output.error else output.error
        output.completion = redact(output.completion, secrets)  # a field, not derived
        for message in (choice.message for choice in output.choices):
            if isinstance(message.content, str):
                message.content = redact(message.content, secrets)
            for part in message.content if isinstance(message.content, list) else ():
                if isinstance(text := getattr(part, "text", None), str):
                    part.text = redact(text, secrets)
    if call is not None and getattr(call, "response", None) is not None:
        call.response = redact_value(call.response, secrets)


def endpoint(model: Model) -> str:
    """The role model's base URL without `user:password@` (it is printed and stored)."""
    base_url = getattr(model.api, "base_url", None)
    return without_userinfo(str(base_url)) if base_url else "the provider's default endpoint"


def host(model: Model) -> str:
    if not getattr(model.api, "base_url", None):
        return "default endpoint"
    return urlparse(url := endpoint(model)).netloc or url


def sent_model_name(model: Model) -> str:
    """The model name as the request carries it (`openai-api/stub/judge` sends `judge`)."""
    service_name = getattr(model.api, "service_model_name", None)
    return str(service_name() if callable(service_name) else model.api.model_name)


def unwrap(exc: BaseException) -> tuple[BaseException, int | None]:
    """The error a retry loop (tenacity's RetryError) ended with, and its number of attempts."""
    attempts: int | None = None
    for _ in range(5):
        last = getattr(exc, "last_attempt", None)
        if last is None or not hasattr(last, "exception"):
            break
        attempts = getattr(last, "attempt_number", attempts)
        if (inner := last.exception()) is None:
            break
        exc = inner
    return exc, attempts


def judge_failure_reason(
    exc: BaseException,
    model: Model,
    timeout: float | None = None,
    attempts: int | None = None,
    role: str = "judge",
) -> str:
    """A reason for an unscored sample: what happened, attempts if known, host and model."""
    refused = noted(exc, REFUSED_NOTE)
    exc, retried = unwrap(exc)
    if isinstance(exc, TimeoutError) and timeout is not None:
        heard = f"; the judge's last answer: {refused}" if refused else ""
        happened = f"no reply within judge_timeout={timeout:g} s (retries included{heard})"
    else:
        happened = classify(exc).what
    return call_failed(happened, str(model), host(model), attempts=attempts or retried, role=role)


def output_error_reason(error: str, model: Model) -> str:
    """A reason from an error the provider returned as output (refusal, content filter)."""
    detail = first_line(error, model_secrets(model)) or "no detail"
    return f"the judge returned an error: {detail}; judge {model} at {host(model)}"
