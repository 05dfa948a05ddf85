"""The judge in lm-eval: checked per task when a run that judges loads it (before any generation)
and kept here, never in the docs (the API key never leaves the env); a filter judges the task's
responses in one batch. Task tooling builds tasks without a judge; `--predict_only` calls none."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from inspect_culture.judging.cache import open_cache
from inspect_culture.judging.constraints import (
    VerdictFormat,
    constraint_record,
)
from inspect_culture.judging.http_client import OpenAICompatibleJudge, run_sync
from inspect_culture.judging.jury import (
    JURY_KEY,
    JuryJudging,
    judge_calls_text,
    jury_label,
)
from inspect_culture.judging.jury_agreement import jury_text
from inspect_culture.judging.noise import judge_noise_text
from inspect_culture.judging.options import (
    JudgeConfigError,
    JudgeOptions,
    JudgeSettings,
    metadata_options,
)
from inspect_culture.judging.orchestration import (
    JudgedLater,
    Transport,
    judge_answers,
    judges_named,
)
from inspect_culture.judging.protocol import Judged, JudgeReply, JudgeRequest
from inspect_culture.judging.reasons import (
    HOW_TO_JUDGE,
    all_unscored_alarm,
    judge_later_note,
)
from inspect_culture.judging.repeats import ONCE, REPEATS_KEY, repeat_seed
from inspect_culture.lm_eval_tasks.compat import simple_evaluate_call

# A task's judges: one, or a jury (`judge_models`), in the order given
Jury = tuple[JudgeSettings, ...]

# Judges already checked in this process: (settings, verdict format name or "")
_CHECKED: set[tuple[JudgeSettings, str]] = set()

# Each task's judge options, built from its --metadata when it loads (`load_options`); outside a
# run, the judges are resolved when the filter first needs them (`_Later`)
_TASK_OPTIONS: dict[str, JudgeOptions | _Later] = {}

Messages = list[dict[str, str]]
JudgeBackend = Callable[
    [JudgeSettings, list[Messages], "list[VerdictFormat] | None"], list[JudgeReply]
]
_BACKEND: ContextVar[JudgeBackend | None] = ContextVar("judge_backend", default=None)


@contextmanager
def use_judge_backend(backend: JudgeBackend) -> Iterator[None]:
    """Within the block, every batch goes to `backend` (a batch API): one reply per message list."""
    token = _BACKEND.set(backend)
    try:
        yield
    finally:
        _BACKEND.reset(token)


def check_judges(options: JudgeOptions, verdict_format: VerdictFormat | None = None) -> None:
    """Each judge checked by one request, once per process (unless the preflight is off)."""
    if not options.judge_preflight:
        return
    for judge in options.judges:
        fmt = verdict_format if judge.constraint != "none" else None
        key = (judge, fmt.name if fmt is not None else "")
        if key in _CHECKED:
            continue
        client = OpenAICompatibleJudge(judge)
        if failure := run_sync(lambda: client.preflight(fmt)):  # noqa: B023 - run here
            raise JudgeConfigError(failure)
        run_sync(client.learn_identity)  # the checkpoint the cache's replies come from
        _CHECKED.add(key)


def run_judges() -> bool | None:
    """True in an lm-eval run that judges, False under `--predict_only`, None outside a run."""
    call = simple_evaluate_call()
    return None if call is None else not call.get("predict_only")


def load_options(metadata: Mapping[str, Any], judges: bool | None = None) -> JudgeOptions:
    """A judged task's options from its --metadata, for its loader to build before its own
    checks: every one checked (a bad one is said before the loader asks for its files), the
    judges too in a run that judges (none with `--predict_only`; outside a run, task tooling
    builds tasks without a judge: see `keep_task_options`), the cache opened."""
    options = metadata_options(metadata, judges=bool(run_judges()) if judges is None else judges)
    if options.judges:
        open_cache()  # a bad cache path fails now, not after generation
    return options


@dataclass(frozen=True)
class _Later:
    """A task loaded outside a run: its options built when its filter first needs them."""

    metadata: Mapping[str, Any]
    verdict_format: VerdictFormat | None

    def options(self) -> JudgeOptions:
        options = load_options(self.metadata, judges=True)
        check_judges(options, self.verdict_format)
        return options


def keep_task_options(
    task: str,
    metadata: Mapping[str, Any],
    options: JudgeOptions,
    verdict_format: VerdictFormat | None = None,
) -> None:
    """After the loader's own checks: the task's judges checked by one request each (in a run
    that judges), and its options kept for its filter (judges, re-judging) and its count of
    judge calls."""
    if run_judges() is None:
        _TASK_OPTIONS[task] = _Later(dict(metadata), verdict_format)
        return
    check_judges(options, verdict_format)
    _TASK_OPTIONS[task] = options


def announce_judge_calls(task: str, requests_each: int, ids: Iterable[object]) -> None:
    """A run with a jury or with re-judging says, when its task loads (before any generation),
    how many judge calls each judge will get: `requests_each` per judging of each sample id. The
    requests hold the answers, not generated yet: with the cache on, the count is an upper bound."""
    options = _TASK_OPTIONS.get(task)
    if not isinstance(options, JudgeOptions) or not options.judges:
        return
    if len(options.judges) > 1 or options.repeats.k > 1:
        calls = requests_each * options.repeats.calls(ids)
        cached = None if open_cache() is not None else 0
        models = [j.model for j in options.judges]
        print(
            judge_calls_text(task, calls, models, " (fewer with --limit)", cached), file=sys.stderr
        )


@contextmanager
def use_task_options(task: str, options: JudgeOptions) -> Iterator[None]:
    """Within the block, `task` is judged with `options` (saved outputs judged after the run)."""
    had, before = task in _TASK_OPTIONS, _TASK_OPTIONS.get(task)
    _TASK_OPTIONS[task] = options
    try:
        yield
    finally:
        if had:
            _TASK_OPTIONS[task] = before
        else:
            _TASK_OPTIONS.pop(task, None)


def _task_options(task: str) -> JudgeOptions:
    """The options the task's loader built (without judges: generation only)."""
    if task not in _TASK_OPTIONS:
        raise JudgeConfigError(
            f"{task}: no judge was resolved for this task in this process (its loader checks "
            "the judge before generation; a filter cannot run before the task loads)"
        )
    if isinstance(options := _TASK_OPTIONS[task], _Later):
        options = _TASK_OPTIONS[task] = options.options()
    return options


@dataclass(frozen=True)
class LmEvalJudge:
    """One judge of an lm-eval task as a transport: its HTTP client, or the batch backend in
    use (`use_judge_backend`); judging r sends the judge's seed plus r-1."""

    task: str
    settings: JudgeSettings
    backend: JudgeBackend | None

    async def send(self, requests: Sequence[JudgeRequest], judging: int) -> list[JudgeReply]:
        judge = self.settings
        if judging > 1:
            judge = replace(judge, seed=repeat_seed(judge.seed, judging))
        messages = [[dict(m) for m in r.messages] for r in requests]
        formats = [r.verdict_format for r in requests]
        if self.backend is not None:
            return self.backend(judge, messages, formats)
        client = OpenAICompatibleJudge(judge, open_cache())
        return await client.judge_all(messages, formats, f"Judging {self.task} ({judge.model})")


def transports(task: str, options: JudgeOptions) -> list[Transport]:
    """How the task's judgments are sent: to each judge (the batch backend in use, else its
    client), or, without judges, answered with how to judge later."""
    if not options.judges:
        return [JudgedLater()]
    return [LmEvalJudge(task, judge, _BACKEND.get()) for judge in options.judges]


def judged_filter(
    judging: JuryJudging,
    resps: Sequence[str | None],
    docs: Sequence[Mapping[str, Any]],
    versions: Mapping[str, str],
    *,
    games: bool = False,
    rule: str = "majority",
    summary: tuple[Callable[[list[Any]], Mapping[str, float]], str | None] | None = None,
) -> list[str]:
    """Each doc's filtered response: JSON of its judge replies, the judges used and the outcome
    (a jury's by `rule`, each judge's verdicts under `jury`: `judging/jury.py`; re-judged docs'
    judgings combined by `rule`, the later judgings' replies under `rejudged_replies`), judged
    by the one orchestration (`judging/orchestration.py`), a jury's judges one after another.
    With `summary` (the task's metrics over its items, and the headline metric whose interval
    re-judging widens), a jury's run says its judges' figures and a re-judged run how much of
    the headline interval judging makes: the figures Inspect's metrics show, which lm-eval's
    table has no rows for."""
    resps, docs = list(resps), list(docs)  # callers may hand iterators
    if len(resps) != len(docs):
        raise ValueError(f"{len(resps)} responses for {len(docs)} docs")
    if not docs:
        return []
    task = str(docs[0]["lm_eval_task"])
    options = _task_options(task)
    settings = options.judges or None
    repeats = options.repeats if settings is not None else ONCE
    sent = transports(task, options)
    answers = list(zip(docs, resps, strict=True))
    done = run_sync(
        lambda: judge_answers(
            judging, answers, sent, rule=rule, repeats=repeats, judges_together=False
        )
    )
    judged = [answer.judged for answer in done]
    reasons = [answer.judged.reason for answer in done if answer.asked]
    if settings is None:
        print(judge_later_note(task, HOW_TO_JUDGE["lm-eval"], len(reasons)), file=sys.stderr)
    elif alarm := all_unscored_alarm(task, reasons):
        print(alarm, file=sys.stderr)
    if summary is not None and settings is not None:
        _say_summary(task, summary, judged)
    head = {
        **judges_named([j.model for j in settings] if settings else []),
        **versions,
        **constraint_record(settings[0].constraint if settings else "none"),
        **repeats.settings(),
    }
    return [
        json.dumps(
            {**head, **_doc_fields(answer.judgings, answer.judged, games)}, ensure_ascii=False
        )
        for answer in done
    ]


def _doc_fields(
    doc_judgings: Sequence[Mapping[str, Sequence[JudgeReply]]], result: Judged, games: bool
) -> dict[str, Any]:
    """A doc's filtered response beyond the run's judges: its replies (each judging's), the
    jury's and the re-judging's details, the outcome and the reason."""
    shown = [_shown(doc_replies) for doc_replies in doc_judgings]
    first = next(iter(shown[0].values()))
    if JURY_KEY in result.details:  # a jury judged it (not a doc no judge was asked of)
        fields: dict[str, Any] = {"judge_replies": shown[0], JURY_KEY: result.details[JURY_KEY]}
    elif games:
        fields = {"games": first}
    else:
        [one] = first
        fields = {"judge_text": one["text"], "error": one["error"], "cached": one["cached"]}
    if REPEATS_KEY in result.details:
        fields |= {"rejudged_replies": shown[1:], REPEATS_KEY: result.details[REPEATS_KEY]}
    return {**fields, "outcome": result.record, "reason": result.reason}


def _say_summary(
    task: str,
    summary: tuple[Callable[[list[Any]], Mapping[str, float]], str | None],
    judged: Sequence[Any],
) -> None:
    """A jury's figures and the judge's share of the interval, when the run has them."""
    jury = any(JURY_KEY in j.details for j in judged)
    if not jury and not any(REPEATS_KEY in j.details for j in judged):
        return
    compute, headline = summary
    items = [
        {**j.record, **{k: j.details[k] for k in (JURY_KEY,) if k in j.details}} for j in judged
    ]
    metrics = compute(items)
    said = [
        jury_text(task, metrics),
        judge_noise_text(task, headline, metrics) if headline else None,
    ]
    for text in filter(None, said):
        print(text, file=sys.stderr)


def _shown(replies: Mapping[str, Sequence[JudgeReply]]) -> dict[str, list[dict[str, Any]]]:
    return {
        name: [{"text": r.text, "error": r.error, "cached": r.cached} for r in rs]
        for name, rs in replies.items()
    }


def judged_outcome(results: Sequence[str]) -> dict[str, Any]:
    """The outcome record `judged_filter` put in a doc's filtered response (no parse again),
    with a jury's `jury` details beside it (its metrics read them)."""
    filtered = json.loads(results[0])
    if JURY_KEY in filtered:
        return {**filtered["outcome"], JURY_KEY: filtered[JURY_KEY]}
    return filtered["outcome"]


def public_settings(settings: JudgeSettings | Jury) -> dict[str, Any]:
    """What a results file records of the judges used: never the key, never URL credentials."""
    if isinstance(settings, tuple):
        if len(settings) > 1:
            label = jury_label([j.model for j in settings])  # as the report names a jury
            return {"judge_model": label, "judges": [public_settings(j) for j in settings]}
        [settings] = settings
    return {
        **settings.public(),
        **settings.generation_settings(),
        **constraint_record(settings.constraint),
    }
