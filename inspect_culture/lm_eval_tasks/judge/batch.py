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
from inspect_culture.judging.http_client import OpenAICompatibleJudge, judge_key, run_sync
from inspect_culture.judging.jury import (
    JURY_KEY,
    JuryJudging,
    estimated_calls_text,
    jury_label,
)
from inspect_culture.judging.jury_agreement import agreement_record, jury_text
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
    judge_names,
    judges_named,
)
from inspect_culture.judging.preflight import Judgment, first_judgment
from inspect_culture.judging.protocol import Item, Judged, JudgeReply, JudgeRequest, Judging
from inspect_culture.judging.reasons import (
    HOW_TO_JUDGE,
    all_unscored_alarm,
    judge_later_note,
)
from inspect_culture.judging.repeats import ONCE, REPEATS_KEY, repeat_seed
from inspect_culture.judging.usage import (
    TOKENS_KEY,
    cost_lines,
    cost_record,
    judging_name,
    run_tokens,
    verdict_tokens,
)
from inspect_culture.lm_eval_tasks.compat import simple_evaluate_call
from inspect_culture.lm_eval_tasks.task_provenance import (
    JUDGE_COST,
    JURY_AGREEMENT,
    judged_slots,
)

# A task's judges: one, or a jury (`judge_models`), in the order given
Jury = tuple[JudgeSettings, ...]

# Judges already checked in this process: (settings, verdict format name or "", the benchmark
# whose judgment was the check or "")
_CHECKED: set[tuple[JudgeSettings, str, str]] = set()

# Each task's verdict format, kept when it loads: its check is made when its docs are known
_TASK_FORMATS: dict[str, VerdictFormat | None] = {}

# Each task's judge options, built from its --metadata when it loads (`load_options`); outside a
# run, the judges are resolved when the filter first needs them (`_LazyOptions`)
_TASK_OPTIONS: dict[str, JudgeOptions | _LazyOptions] = {}

# Each task's metadata mappings its judging fills (`task_provenance.judged_slots`), kept when it
# loads and filled by its filter: lm-eval writes them into the results file
_TASK_SLOTS: dict[str, list[dict[str, dict[str, Any]]]] = {}

# Each task's last judging in this process: what `culture-evals judge` writes of it
_TASK_RECORDS: dict[str, dict[str, Any]] = {}

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


def check_judges(
    options: JudgeOptions,
    verdict_format: VerdictFormat | None = None,
    judgment: Judgment | None = None,
) -> None:
    """Each judge checked by one request, once per process and benchmark (unless the preflight
    is off): with a `judgment` (and no verdict constraint, whose probe is then the check), that
    real judgment, whose reply's tokens the estimate then counts (`usage.remember_verdict`)."""
    if not options.judge_preflight:
        return
    for judge in options.judges:
        fmt = verdict_format if judge.constraint != "none" else None
        sample = judgment if fmt is None else None
        benchmark = judging_name(sample.judging) if sample is not None else ""
        key = (judge, fmt.name if fmt is not None else "", benchmark)
        if key in _CHECKED:
            continue
        client = OpenAICompatibleJudge(judge)
        if failure := run_sync(lambda: client.preflight(fmt, sample)):  # noqa: B023 - run here
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
class _LazyOptions:
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
    """After the loader's own checks: the task's options kept for its filter (judges,
    re-judging) and its count of judge calls, its judges checked by one request each (in a run
    that judges) when it announces them (`announce_judge_calls`: the check is one judgment of
    its first doc); the metadata mappings its judging fills kept too (`judged_slots`)."""
    _TASK_SLOTS.setdefault(task, []).append(judged_slots(task, metadata))
    if run_judges() is None:
        _TASK_OPTIONS[task] = _LazyOptions(dict(metadata), verdict_format)
        return
    _TASK_FORMATS[task] = verdict_format
    _TASK_OPTIONS[task] = options


def announce_judge_calls(
    task: str,
    requests_each: int,
    ids: Iterable[object],
    *,
    judging: Judging | None = None,
    docs: Sequence[Item] = (),
) -> None:
    """A run that judges says, when its task loads (before any generation), how many judge
    calls each judge will get: `requests_each` per judging of each sample id; with `judging`
    and the `docs`, the tokens too (each doc's reference answer standing in for the model's),
    and their cost when `judge_price` is set. First each judge is checked (`check_judges`), by
    one judgment of the first doc when there is one: its reply's tokens are each reply's in the
    estimate. The requests hold the answers, not generated yet: with the cache on, the count is
    an upper bound."""
    options = _TASK_OPTIONS.get(task)
    if not isinstance(options, JudgeOptions) or not options.judges:
        return
    if task in _TASK_FORMATS:  # loaded in a run that judges (`keep_task_options`)
        sample = first_judgment(judging, docs) if judging is not None else None
        check_judges(options, _TASK_FORMATS[task], sample)
    said = estimated_calls_text(
        task,
        requests_each * options.repeats.calls(ids),
        [j.model for j in options.judges],
        keys=[judge_key(j) for j in options.judges],
        suffix=" (fewer with --limit)",
        price=options.judge_price,
        judging=judging if docs else None,
        items=docs,
        repeats=options.repeats,
        max_tokens=options.judges[0].max_tokens,
    )
    print(said, file=sys.stderr)


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
    if isinstance(options := _TASK_OPTIONS[task], _LazyOptions):
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
    if settings is not None:
        figures = _summary_metrics(summary, judged)
        if figures is not None and summary is not None:
            _say_summary(task, summary[1], figures)
        record = _cost_and_agreement(judging, options, judged, figures)
        print(f"{task}: judge cost: {'; '.join(record['lines'])}", file=sys.stderr)
        _keep_record(task, {k: v for k, v in record.items() if k != "lines"})
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


def _cost_and_agreement(
    judging: JuryJudging,
    options: JudgeOptions,
    judged: Sequence[Judged],
    figures: Mapping[str, float] | None,
) -> dict[str, Any]:
    """What a task's judging cost (each judge's tokens, and money at `judge_price`) and, for a
    jury, how far its judges agreed; `lines`: the cost in words, one a judge; `verdict_tokens`:
    the reply the benchmark expects (`culture-evals judge --dry-run` estimates with it)."""
    models = {name: j.model for name, j in zip(judge_names(len(options.judges)), options.judges)}
    tokens = run_tokens(j.details.get(TOKENS_KEY) for j in judged)
    tokens = {name: tokens.get(name, run_tokens([])) for name in models}
    price = options.judge_price
    return {
        JUDGE_COST: cost_record(tokens, models, price),
        JURY_AGREEMENT: agreement_record(figures or {}),
        "lines": cost_lines(tokens, models, price),
        "verdict_tokens": verdict_tokens(judging, options.judges[0].max_tokens),
        "judging": judging,  # not written: `culture-evals judge` checks its judges with it
    }


def _keep_record(task: str, record: Mapping[str, Any]) -> None:
    """The task's judging record, into each metadata mapping its loads declared (lm-eval
    writes them to the results file), and kept for `culture-evals judge` (`task_record`)."""
    _TASK_RECORDS[task] = dict(record)
    for slots in _TASK_SLOTS.pop(task, []):
        for key, slot in slots.items():
            slot.clear()
            slot.update(record.get(key) or {})


def task_record(task: str) -> dict[str, Any]:
    """The last judging record of `task` in this process (`judge_cost`, `jury_agreement`)."""
    return _TASK_RECORDS.get(task, {})


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
    if TOKENS_KEY in result.details:  # the judges' tokens (absent: no judge was asked)
        fields[TOKENS_KEY] = result.details[TOKENS_KEY]
    return {**fields, "outcome": result.record, "reason": result.reason}


def _summary_metrics(
    summary: tuple[Callable[[list[Any]], Mapping[str, float]], str | None] | None,
    judged: Sequence[Judged],
) -> Mapping[str, float] | None:
    """The task's metrics with a jury's figures, when a jury or re-judging judged it."""
    jury = any(JURY_KEY in j.details for j in judged)
    if summary is None or (not jury and not any(REPEATS_KEY in j.details for j in judged)):
        return None
    items = [
        {**j.record, **{k: j.details[k] for k in (JURY_KEY,) if k in j.details}} for j in judged
    ]
    return summary[0](items)


def _say_summary(task: str, headline: str | None, metrics: Mapping[str, float]) -> None:
    """A jury's figures and the judge's share of the interval, when the run has them."""
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
