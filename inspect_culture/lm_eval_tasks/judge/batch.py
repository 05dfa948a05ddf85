"""The judge in lm-eval: settings resolved when a task loads (so a missing or unreachable judge,
a bad cache path or a judge that ignores the verdict constraint fails before any generation)
and one concurrent, bounded batch of judge calls per task, run from a filter.

Each doc carries the public judge settings as JSON (`judge_settings`); the API key stays in the
environment and never reaches docs, samples or results. `use_judge_backend` lets another
judging backend (a provider's batch API) replace the concurrent client.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Generic, TypeVar, overload

from inspect_culture.judging.cache import open_cache
from inspect_culture.judging.constraints import VerdictFormat, constraint_record
from inspect_culture.judging.reasons import all_unscored_alarm, judge_later_note, judge_later_reason
from inspect_culture.lm_eval_tasks.judge.client import JudgeResult, OpenAICompatibleJudge
from inspect_culture.lm_eval_tasks.judge.settings import (
    NUMERIC,
    JudgeConfigError,
    JudgeSettings,
    judge_later,
    preflight_on,
    resolve_judge_settings,
)

JUDGE_KNOBS = (*(f"judge_{name}" for name in NUMERIC), "judge_constraint")
JUDGE_LATER = {"judge_later": True}  # the docs' judge_settings of a generation-only run
HOW_TO_JUDGE = "`culture-evals judge`"
JUDGE_LATER_REASON = judge_later_reason(HOW_TO_JUDGE)
# Placeholder settings of a judge_later batch: no judge model, no endpoint.
NOT_JUDGED = JudgeSettings(model="", base_url=None)
# Judges already checked in this process: (settings, verdict format name or "")
_CHECKED: set[tuple[JudgeSettings, str]] = set()

Messages = list[dict[str, str]]
T = TypeVar("T")
JudgeBackend = Callable[
    [JudgeSettings, list[Messages], "list[VerdictFormat] | None"], list[JudgeResult]
]
_BACKEND: ContextVar[JudgeBackend | None] = ContextVar("judge_backend", default=None)


@contextmanager
def use_judge_backend(backend: JudgeBackend) -> Iterator[None]:
    """Within the block, `judge_batch` hands every batch to `backend(settings, messages,
    formats)` (one JudgeResult per message list, in order) instead of the concurrent client."""
    token = _BACKEND.set(backend)
    try:
        yield
    finally:
        _BACKEND.reset(token)


def check_judge_config(metadata: Mapping[str, Any]) -> None:
    """The checks that need no request (settings, cache path): for a loader to run before its
    own local checks, which then come before the preflight request."""
    if not judge_later(metadata):
        resolve_judge_settings(metadata)
        open_cache()


def judge_settings_field(
    metadata: Mapping[str, Any], verdict_format: VerdictFormat | None = None
) -> str:
    """Resolve the judge from `--metadata` / environment (raises if unset), open the cache and
    check, with one small request, that the judge answers (and applies the verdict constraint,
    when one is on): all before any generation. Returns the public part, for the docs."""
    if judge_later(metadata):
        return json.dumps(JUDGE_LATER)
    judge = resolve_judge_settings(metadata)
    open_cache()  # a bad cache path fails now, not after generation
    if preflight_on(metadata):
        fmt = verdict_format if judge.constraint != "none" else None
        key = (judge, fmt.name if fmt is not None else "")
        if key not in _CHECKED:
            client = OpenAICompatibleJudge(judge)
            if failure := client.preflight_sync(fmt):
                raise JudgeConfigError(failure)
            client.learn_identity_sync()  # the checkpoint the cache's replies come from
            _CHECKED.add(key)
    if judge.base_url and judge.shown_url() != judge.base_url:
        _FULL_URLS[judge.shown_url()] = judge.base_url
    return json.dumps(
        {
            **judge.public(),
            **judge.generation_settings(),
            **{k: metadata[k] for k in JUDGE_KNOBS if k in metadata},
            **constraint_record(judge.constraint),
        }
    )


class OnDemand(Sequence[T], Generic[T]):
    """Items made when first read, once each. The judge's workers read prompts as they take
    them, so the first requests leave at once and the rest are built while they are in flight,
    instead of all N (answers fenced, thousands of characters each) before the first call."""

    def __init__(self, size: int, make: Callable[[int], T]) -> None:
        self._make = make
        self._items: list[Any] = [_UNMADE] * size

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        item = self._items[index]
        if item is _UNMADE:
            item = self._items[index] = self._make(index % len(self._items))
        return item


_UNMADE = object()


# The doc field (logged with the samples) shows the judge URL without credentials; the calls
# need them back: the URL as given, by its shown form, for this process.
_FULL_URLS: dict[str, str] = {}


def batch_settings(doc: Mapping[str, Any]) -> JudgeSettings | None:
    """The judge settings a doc was loaded with; None for a generation-only (judge_later) run."""
    config = json.loads(doc["judge_settings"])
    if config.get("judge_later"):
        return None
    # a null judge_seed means "send no seed" (endpoints without seed support): keep it
    settings = resolve_judge_settings(
        {k: v for k, v in config.items() if v is not None or k == "judge_seed"}
    )
    full = _FULL_URLS.get(settings.base_url or "")
    return settings if full is None else replace(settings, base_url=full)


def judge_batch(
    prompts: Sequence[str | list[dict[str, str]]],
    docs: Sequence[Mapping[str, Any]],
    formats: Sequence[VerdictFormat] | None = None,
) -> tuple[JudgeSettings, list[JudgeResult]]:
    """Judge every prompt of a task concurrently (bounded, retried, cached); a prompt is one
    user message, or a full message list (system + user). `formats`: the verdict format of each
    prompt, which a constrained judge must follow. A judge_later run judges nothing: every
    result is unscored with JUDGE_LATER_REASON."""
    settings = batch_settings(docs[0])
    if settings is None:
        return NOT_JUDGED, [JudgeResult(None, error=JUDGE_LATER_REASON) for _ in prompts]

    def message_list(index: int) -> Messages:
        prompt = prompts[index]
        return [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)

    messages = OnDemand(len(prompts), message_list)
    backend = _BACKEND.get()
    if backend is not None:
        formats_list = None if formats is None else list(formats)
        return settings, backend(settings, list(messages), formats_list)
    judge = OpenAICompatibleJudge(settings, open_cache())
    return settings, judge.judge_all_sync(messages, formats)


def judged_reply(settings: JudgeSettings, result: JudgeResult, **versions: str) -> str:
    """The filtered response: a JSON record of the judge's reply, or of why it failed."""
    return json.dumps(
        {
            "judge_model": settings.model or None,
            **versions,
            **constraint_record(settings.constraint),
            "judge_text": result.text,
            "error": result.error,
            "cached": result.cached,
        },
        ensure_ascii=False,
    )


def report_unscored(task: str, reasons: Sequence[str | None], *, later: bool = False) -> None:
    """After a task's judging: a calm note for a judge_later run; the alarm when every judged
    sample is unscored (`reasons`: why each is, None when scored): its numbers then say nothing
    about the model."""
    if later:
        print(judge_later_note(task, HOW_TO_JUDGE, len(reasons)), file=sys.stderr)
    elif alarm := all_unscored_alarm(task, reasons):
        print(alarm, file=sys.stderr)
