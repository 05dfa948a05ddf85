"""Read an Inspect log's header (never its samples: `records.py` reads those) into a `RunInfo`;
and what the lm-eval reader shares with it: the dataset label, the limit, `is_number`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_culture.judging.jury import jury_label, jury_roles_in_order
from inspect_culture.report.model import NOT_JUDGED, RunInfo
from inspect_culture.report.section import inspect_owner
from inspect_culture.run_files import UnreadableLog, message_line
from inspect_culture.run_files.inspect_outputs import read_log


class NotReportable(ValueError):
    """An input the report skips, with the reason in words; `by_design`: a run of ours that has
    no table (a judge-agreement or answers-only run), listed but not an error."""

    def __init__(self, reason: str, by_design: bool = False) -> None:
        super().__init__(reason)
        self.by_design = by_design


def read_inspect_log(path: Path) -> RunInfo:
    try:
        log = read_log(path, header_only=True)
    except UnreadableLog as exc:
        raise NotReportable(str(exc)) from None
    task = log.eval.task.rsplit("/", 1)[-1]  # `inspect_culture/<task>` or a file's `<task>`
    if (owner := inspect_owner(task)) is None:
        raise NotReportable(f"task {log.eval.task!r} is not an inspect-culture task")
    benchmark, section = owner
    if task in section.inspect_without_table:
        raise NotReportable(f"task {task!r}: {section.inspect_without_table[task]}", True)
    if log.status != "success":
        detail = f": {message_line(log.error.message)}" if log.error else ""
        raise NotReportable(f"the run ended with status {log.status!r}{detail}")
    if not log.results or not log.results.scores:
        raise NotReportable("the log holds no scores (run with --no-score? score it first)")
    score = log.results.scores[0]
    metadata: dict[str, Any] = dict(log.eval.metadata or {})
    dataset = metadata.get("dataset") or {}
    roles = log.eval.model_roles or {}
    task_args = dict(log.eval.task_args or {})
    judges = [canonical_inspect_model(roles[r].model) for r in jury_roles_in_order(roles)]
    judge = jury_label(judges)  # the grader, or a jury's judges in order
    if task_args.get("judge_later") and not score.scored_samples:  # `inspect score` not run yet
        judge = NOT_JUDGED
    return RunInfo(
        path=path,
        harness="inspect",
        benchmark=benchmark.title,
        task=task,
        setting=section.inspect_setting(task, metadata, task_args),
        model=canonical_inspect_model(log.eval.model),
        metrics={name: float(m.value) for name, m in score.metrics.items() if is_number(m.value)},
        samples=log.results.completed_samples or log.results.total_samples,
        limit=limit_of(log.eval.config.limit),
        subset=section.inspect_subset(task, metadata, task_args),
        dataset=dataset_label(
            dataset.get("dataset"), dataset.get("revision"), dataset.get("pinned", True)
        ),
        dataset_sha256=dataset.get("sha256"),
        dataset_rows=dataset.get("rows"),
        judge=judge,
        versions={
            "task_version": log.eval.task_version,
            **{k: v for k, v in metadata.items() if k.endswith("_version")},
        },
        unscored=score.unscored_samples,
        records_source=path,
        rejudged=rejudged(task_args),
        judges=tuple(judges),
        judge_price=task_args.get("judge_price", metadata.get("judge_price")),
    )


def rejudged(settings: Any) -> bool:
    """Whether a run's options (task arguments, lm-eval metadata) asked for re-judging."""
    try:
        return int((settings or {}).get("judge_repeats") or 1) > 1
    except (TypeError, ValueError, AttributeError):
        return False


def limit_of(limit: Any) -> int | None:
    """A run's sample limit: a number, or a (start, stop) range."""
    if isinstance(limit, list | tuple) and len(limit) == 2:
        return int(limit[1]) - int(limit[0])
    return int(limit) if is_number(limit) else None


def is_number(value: Any) -> bool:
    """A number, not a bool and not NaN."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def canonical_inspect_model(model: str) -> str:
    """`vllm/Qwen/Q` -> `Qwen/Q`, `openai-api/local/x` -> x: lm-eval names have no provider."""
    provider, _, rest = model.partition("/")
    if not rest:
        return model
    if provider == "openai-api":  # openai-api/<service>/<model>
        return rest.partition("/")[2] or rest
    return rest


def dataset_label(name: object, revision: object, pinned: object = True) -> str | None:
    """`repo@revision` (12 characters), or `repo@unpinned` alike in both harnesses."""
    if not name:
        return None
    text = str(revision or "unknown")
    if pinned is False or text in ("unknown", "main") or "unpinned" in text:
        return f"{name}@unpinned"
    return f"{name}@{text[:12]}"
