"""The message that stops an lm-eval run whose judge cannot answer before generation: the
shared words of `judging/preflight.py`, with lm-eval's option names, never the key."""

from __future__ import annotations

from inspect_culture.judging.preflight import Knobs, failure_message, fix_for
from inspect_culture.judging.reasons import Failure
from inspect_culture.judging.redaction import redact
from inspect_culture.lm_eval_tasks.judge.settings import API_KEY_ENV, PREFLIGHT_ENV, JudgeSettings

KNOBS = Knobs(
    key=f"{API_KEY_ENV} (or OPENAI_API_KEY)",
    base_url="judge_base_url",
    concurrency="judge_concurrency",
    switch_off="a one-request check when the task loads; --metadata "
    f"'{{\"judge_preflight\": false}}' or {PREFLIGHT_ENV}=off skips it, e.g. for offline replays "
    "from the judge cache",
)


def preflight_message(settings: JudgeSettings, failure: Failure) -> str:
    timed_out = "no reply within" in failure.what
    fix = fix_for(failure.status, timed_out, settings.model, KNOBS)
    who = f"judge {settings.model!r}"
    return redact(
        failure_message(who, settings.shown_url(), failure.what, fix, KNOBS), (settings.api_key,)
    )
