"""What to fix when the lm-eval judge cannot answer before generation, in words, without the
key (the failure words themselves are `judging/reasons.py`, shared with Inspect)."""

from __future__ import annotations

from inspect_culture.judging.reasons import Failure
from inspect_culture.judging.redaction import redact
from inspect_culture.lm_eval_tasks.judge.settings import API_KEY_ENV, PREFLIGHT_ENV, JudgeSettings


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
    return redact(text, (settings.api_key,))
