"""One task's saved generations judged by its own `judge_filter`, `process_results`, `agg_*`."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, NamedTuple

from inspect_culture.judge_command.tasks import JudgedTask
from inspect_culture.judging.cache import open_cache
from inspect_culture.judging.http_client import cache_key, served_identity
from inspect_culture.judging.openai_batch import JudgeLaterError
from inspect_culture.judging.options import JudgeConfigError, JudgeOptions, JudgeSettings
from inspect_culture.judging.preflight import Judgment, first_judgment
from inspect_culture.judging.protocol import JudgeReply
from inspect_culture.judging.usage import DEFAULT_VERDICT_TOKENS, messages_tokens
from inspect_culture.lm_eval_tasks.judge.batch import (
    task_record,
    use_judge_backend,
    use_task_options,
)
from inspect_culture.lm_eval_tasks.task_provenance import JUDGED_SLOTS
from inspect_culture.run_files.lm_eval_outputs import DamagedLine, samples


@dataclass(frozen=True)
class SavedTask:
    """One task's logged samples, sorted by doc_id as lm-eval filters them."""

    task: str
    path: Path
    lines: list[dict[str, Any]]
    wheres: tuple[str, ...]  # each line's file and line number, for messages
    skipped: tuple[DamagedLine, ...] = ()  # damaged lines left out, each named

    def where(self, index: int) -> str:
        return f"{self.wheres[index]}, doc_id {self.lines[index]['doc_id']}"

    def responses(self) -> list[str | None]:
        """lm-eval's `take_first`, the filter before the judge: each doc's first response."""
        return [_first_response(line, self.path) for line in self.lines]


def _first_response(line: dict[str, Any], path: Path) -> str | None:
    first: Any = line.get("resps")
    while isinstance(first, list):
        if not first:
            raise JudgeLaterError(
                f"{path}, doc_id {line.get('doc_id')}: field 'resps' is empty (no generation)"
            )
        first = first[0]
    if first is not None and not isinstance(first, str):
        raise JudgeLaterError(
            f"{path}, doc_id {line.get('doc_id')}: field 'resps' holds {type(first).__name__}, "
            "not generated text (was this a generation task?)"
        )
    return first


def read_samples(task: str, path: Path) -> SavedTask:
    """The sample lines of one task, checked for the fields judging needs; a line that is no
    JSON object (cut short by a killed run, garbage) is left out and named in `skipped`."""
    skipped: list[DamagedLine] = []
    found = sorted(samples(path, JudgeLaterError, by="doc_id", skipped=skipped), key=lambda x: x[1])
    if not found:
        raise JudgeLaterError("; ".join([f"{path}: no samples", *map(str, skipped)]))
    lines, wheres = [line for *_, line in found], tuple(w for w, *_ in found)
    return SavedTask(task, path, lines, wheres, tuple(skipped))


@dataclass(frozen=True)
class TaskJudgement:
    task: str
    filter_name: str
    lines: list[dict[str, Any]]  # the sample lines, re-judged
    metrics: dict[str, Any]  # "metric,filter" -> value, as lm-eval's results hold them
    n_scored: int
    n_unscored: int
    # what the judging cost and a jury's agreement (`metadata.judge_cost`, `.jury_agreement`)
    judging: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Prepared:
    """A task ready for its own filter: its adapter module, its metric names (each computed by
    this version) and its docs as the judge prompts read them."""

    module: Any
    names: list[str]
    docs: list[dict[str, Any]]


@contextmanager
def _prepared(
    saved: SavedTask, config: dict[str, Any], judged: JudgedTask, options: JudgeOptions
) -> Iterator[_Prepared]:
    """The task prepared for judging, with `options` in force for its filter in the block."""
    module = import_module(judged.module)
    names = [m["metric"] for m in config.get("metric_list") or [] if isinstance(m, dict)]
    if not names:
        raise JudgeLaterError(f"results file: configs.{saved.task}.metric_list is missing or empty")
    if unknown := [n for n in names if not callable(getattr(module, f"agg_{n}", None))]:
        known = sorted(n.removeprefix("agg_") for n in dir(module) if n.startswith("agg_"))
        raise JudgeLaterError(
            f"results file: configs.{saved.task}.metric_list names {', '.join(map(repr, unknown))}, "
            f"which this version of the task does not compute (it computes: {', '.join(known)}); "
            "was the run made with another version of inspect-culture?"
        )
    docs = [{**line["doc"], "lm_eval_task": saved.task} for line in saved.lines]
    with use_task_options(saved.task, options):
        yield _Prepared(module, names, docs)


class _Checked(Exception):
    """Every judge prompt of the task was built: the dry pass ends here, before any call."""


def _refuse_all(*_: Any) -> list[Any]:
    raise _Checked


class JudgeCalls(NamedTuple):
    each: int  # the judge calls each judge gets, every judging counted
    cached: int  # of all the judges' calls, those the judge cache answers (none is then made)
    # the (prompt, completion) tokens of the calls to make, all judges together: the prompts
    # as sent (`usage.messages_tokens`), each reply the benchmark's declared verdict
    tokens: tuple[int, int] = (0, 0)
    made: int = 0  # the calls to make, all judges together
    # the judge check's one judgment (`preflight.first_judgment`: the first doc's reference
    # standing in for the answer, as the harnesses have it), and the judging it is of
    judgment: Judgment | None = None


def check_task(
    saved: SavedTask, config: dict[str, Any], judged: JudgedTask, options: JudgeOptions
) -> JudgeCalls:
    """What would fail after paying the judge, found first: an unknown metric, or an unfit doc.
    Returns the judge calls, every judging and judge counted, and how many the cache answers
    (no call is made: each batch is answered with no reply, and the pass stops after the
    filter). Exact, as the requests are (the saved answers are in them), unless the judge's
    served checkpoint changed since the cached verdicts: the run asks `/models`, this pass not."""
    counted: list[int] = []
    cached: list[int] = []
    prompt: list[int] = []  # of the requests to make
    store = open_cache()  # opened before the task was read: a bad path failed then

    def count_only(settings: JudgeSettings, messages: list[Any], *__: Any) -> list[Any]:
        """Counts a batch (judging r of an answer: seed + r - 1, its own cache key)."""
        counted.append(len(messages))
        hits = [False] * len(messages)
        if store is not None:
            judge = served_identity(settings)  # None until a run learns it: any checkpoint
            keys = [cache_key(settings, m) for m in messages]
            hits = [reply is not None for reply in store.get_many(keys, judge)]
            cached.append(sum(hits))
        prompt.extend(messages_tokens(m) for m, hit in zip(messages, hits) if not hit)
        return [JudgeReply(None, error="dry run: not asked") for _ in messages]

    with _prepared(saved, config, judged, options) as task:
        try:
            with use_judge_backend(count_only), redirect_stderr(io.StringIO()):
                task.module.judge_filter(saved.responses(), task.docs)  # its alarm: not said
            record = task_record(saved.task)
            each = record.get("verdict_tokens", DEFAULT_VERDICT_TOKENS)
            tokens = (sum(prompt), len(prompt) * each)
            judging = record.get("judging")
            judgment = first_judgment(judging, task.docs) if judging is not None else None
            each_judge = sum(counted) // len(options.judges)
            return JudgeCalls(each_judge, sum(cached), tokens, len(prompt), judgment)
        except JudgeConfigError as exc:  # the judge options, not the docs
            raise JudgeLaterError(str(exc)) from None
        except JudgeLaterError:
            raise
        except _UNFIT:
            raise JudgeLaterError(_first_unfit(task.module, saved, task.docs)) from None


_UNFIT = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _first_unfit(module: Any, saved: SavedTask, docs: list[dict[str, Any]]) -> str:
    """Where the first doc whose judge prompt cannot be built is, and why in words."""
    for index, (response, doc) in enumerate(zip(saved.responses(), docs, strict=True)):
        try:
            with use_judge_backend(_refuse_all):
                module.judge_filter([response], [doc])
        except _Checked:
            continue
        except KeyError as exc:
            field = exc.args[0] if exc.args else "?"
            return (
                f"{saved.where(index)}: field 'doc.{field}' is missing, which the judge prompt "
                "needs (samples written by another version, or edited?); nothing was judged"
            )
        except _UNFIT as exc:
            return (
                f"{saved.where(index)}: the doc does not fit the task's judge prompt "
                f"({type(exc).__name__}: {str(exc)[:200]}; samples written by another version, "
                "or edited?); nothing was judged"
            )
    return f"{saved.path}: a doc does not fit the task's judge prompt; nothing was judged"


def judge_task(
    saved: SavedTask, config: dict[str, Any], judged: JudgedTask, options: JudgeOptions
) -> TaskJudgement:
    """Judge every logged doc of `saved` with `options`' judges, once `check_task` passed, each
    judged as often as their re-judging says."""
    named = [f for f in config.get("filter_list") or [] if isinstance(f, dict) and f.get("name")]
    flt = str(named[0]["name"]) if named else "judged"
    with _prepared(saved, config, judged, options) as task:
        replies = task.module.judge_filter(saved.responses(), task.docs)
    module, names, docs = task.module, task.names, task.docs
    per_docs, lines = [], []
    for index, (line, doc, reply) in enumerate(zip(saved.lines, docs, replies, strict=True)):
        try:
            per_doc = module.process_results(doc, [reply])
        except KeyError as exc:  # the verdicts stay in the judge cache: a rerun pays nothing
            raise JudgeLaterError(
                f"{saved.where(index)}: field 'doc.{exc.args[0]}' is missing, which scoring "
                "needs; the verdicts are in the judge cache"
            ) from None
        per_docs.append(per_doc)
        lines.append({**line, "doc": doc, "filtered_resps": [reply], "filter": flt, **per_doc})
    metrics: dict[str, Any] = {}
    for name in names:
        metrics[f"{name},{flt}"] = getattr(module, f"agg_{name}")([p[name] for p in per_docs])
        metrics[f"{name}_stderr,{flt}"] = "N/A"  # lm-eval's value for these aggregations
    values = [metrics.get(f"{name},{flt}") for name in ("n_scored", "n_unscored")]
    counts = [int(v) if isinstance(v, int | float) and not math.isnan(v) else 0 for v in values]
    record = task_record(saved.task)  # this judging's tokens, cost and jury agreement
    judging = {key: record[key] for key in JUDGED_SLOTS if key in record}
    return TaskJudgement(saved.task, flt, lines, metrics, *counts, judging)
