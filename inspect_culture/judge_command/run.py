"""`culture-evals judge`: an lm-eval folder's judged tasks, one results file per one read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from inspect_culture import __version__
from inspect_culture.benchmark_registry import benchmarks
from inspect_culture.benchmarks.choices import BenchmarkOptionError
from inspect_culture.judge_command.rejudge import (
    JudgeCalls,
    SavedTask,
    TaskJudgement,
    check_task,
    judge_task,
    read_samples,
)
from inspect_culture.judge_command.tasks import JudgedTask, judged_task
from inspect_culture.judge_command.write import judged_results
from inspect_culture.judging.cache import open_cache
from inspect_culture.judging.http_client import judge_key
from inspect_culture.judging.jury import estimated_calls_text
from inspect_culture.judging.openai_batch import BatchJudge, BatchOptions, JudgeLaterError
from inspect_culture.judging.options import JudgeConfigError, JudgeOptions, metadata_options
from inspect_culture.lm_eval_tasks.judge.batch import (
    check_judges,
    public_settings,
    use_judge_backend,
)
from inspect_culture.lm_eval_tasks.judge.known_keys import check_judging_keys
from inspect_culture.run_files.lm_eval_outputs import LmEvalRun, find_runs, write_run

BATCH_STATE_DIR = ".judge_batches"  # in the output folder: batch ids of interrupted waits


@dataclass
class JudgeSummary:
    written: list[Path] = field(default_factory=list)
    tasks: list[TaskJudgement] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "task: why"
    batch: list[dict[str, Any]] = field(default_factory=list)  # the Batch API batches
    calls: list[str] = field(default_factory=list)  # per task: the judge calls each judge gets


def _plan(
    run: LmEvalRun,
    options: JudgeOptions,
    summary: JudgeSummary,
    dry_run: bool = False,
    judging: Mapping[str, Any] | None = None,
) -> tuple[LmEvalRun, list[tuple[SavedTask, dict[str, Any], JudgedTask]]]:
    """judge_task's arguments for each judged task of the run, checked before any judge call;
    the `judging` options given win over those the run saved in its docs."""
    tasks = []
    for task, config in run.results["configs"].items():
        if (found := judged_task(task)) is None:
            summary.skipped.append(f"{task}: has no judge")
            continue
        if task not in run.samples:
            summary.skipped.append(
                f"{task}: no samples_{task}_{run.stamp}.jsonl beside {run.results_path} "
                "(rerun lm_eval with --log_samples)"
            )
            continue
        saved = _with_options(read_samples(task, run.samples[task]), judging or {}, found.options)
        summary.skipped.extend(map(str, saved.skipped))  # damaged lines: the rest is judged
        calls = check_task(saved, config, found, options)  # asks no judge
        if not dry_run:  # a dry run asks no judge anything, not even the preflight
            try:  # each judge checked once per benchmark (one judgment) or verdict format
                check_judges(options, found.probe_format, calls.judgment)
            except JudgeConfigError as exc:
                raise JudgeLaterError(str(exc)) from None
        said = estimated_calls_text(
            f"{saved.task} ({saved.path.name})",
            calls.each,
            [judge.model for judge in options.judges],
            keys=[judge_key(judge) for judge in options.judges],
            cached=calls.cached,
            price=options.judge_price,
            # each reply: measured by the check, else declared; no check: as `check_task` counted
            judging=calls.judgment.judging if calls.judgment is not None else None,
            max_tokens=options.judges[0].max_tokens,
            tokens=partial(_tokens_to_make, calls),
        )
        summary.calls.append(said)
        tasks.append((saved, config, found))
    return run, tasks


def _tokens_to_make(calls: JudgeCalls, each: int | None) -> tuple[int, int]:
    """The (prompt, completion) tokens of the calls to make: as `check_task` counted them, each
    reply `each` tokens when the judge check measured or declared one."""
    return calls.tokens if each is None else (calls.tokens[0], calls.made * each)


def _checked_options(metadata: Mapping[str, Any]) -> tuple[JudgeOptions, dict[str, Any]]:
    """Every option checked, none ignored: the judge's and re-judging's (one `JudgeOptions`)
    and the judging options (`known_keys.JUDGING_OPTIONS`, returned apart); `judge_later` is
    checked and ignored (this command is the later judging); any other key is refused."""
    try:
        judging = check_judging_keys(metadata)
        return metadata_options(metadata, judging_now=True), judging
    except (JudgeConfigError, BenchmarkOptionError) as exc:
        raise JudgeLaterError(str(exc)) from None


def _with_options(saved: SavedTask, judging: Mapping[str, Any], read: Sequence[str]) -> SavedTask:
    """The saved docs with the judging options given that the task's benchmark reads (`read`: its
    `judge_filter` reads them from the docs), so they are judged, and written, with them."""
    given = {key: value for key, value in judging.items() if key in read}
    if not given:
        return saved
    lines = [
        {**line, "doc": {**line["doc"], **given}} if isinstance(line.get("doc"), dict) else line
        for line in saved.lines
    ]
    return replace(saved, lines=lines)


def _judging_record(
    source: Path, public: Mapping[str, Any], batches: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """What a judged results file says of its judging: the judge, its settings, the mode (and
    the OpenAI batches, when batched), when, from which run and by which tool."""
    record: dict[str, Any] = {
        "model": public.get("judge_model"),
        "base_url": public.get("judge_base_url"),
        "settings": public,
        "mode": "openai-batch" if batches is not None else "concurrent",
        "judged_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "source": str(source),
        "tool": f"culture-evals judge {__version__}",
    }
    if batches is not None:
        record["batches"] = [
            {k: b[k] for k in ("batch_id", "input_file_id", "status")} for b in batches
        ]
    return record


def judge_outputs(
    source: Path,
    output: Path,
    metadata: Mapping[str, Any],
    *,
    batch: BatchOptions | None = None,
    say: Callable[[str], None] = print,
    dry_run: bool = False,
) -> JudgeSummary:
    """Judge every judged task under `source` with `metadata`'s `judge_*` judge, into `output`."""
    source, output = source.expanduser(), output.expanduser()
    if output.resolve() == (source if source.is_dir() else source.parent).resolve():
        raise JudgeLaterError(f"-o {output}: must differ from the run folder it reads")
    options, judging = _checked_options(metadata)  # before any file is read
    if open_cache() is None:
        say(
            "the judge cache is off (INSPECT_CULTURE_JUDGE_CACHE=off): an interrupted run will "
            "send every judge request again"
        )
    summary = JudgeSummary()
    backend = BatchJudge(batch, log=summary.batch) if batch else None
    plans = [
        _plan(run, options, summary, dry_run, judging)
        for run in find_runs(source, output, JudgeLaterError)
    ]
    if dry_run:  # every task checked and counted; no judge call made
        if not summary.calls:
            raise JudgeLaterError(
                f"{source}: no judged task with logged samples; "
                + ("; ".join(summary.skipped) or "nothing found")
            )
        return summary
    for said in summary.calls:  # before judging: the calls and tokens, as --dry-run says them
        say(said)
    for run, tasks in plans:  # every run's tasks were checked above: no judge call before that
        if not tasks:
            continue
        first_batch = len(summary.batch)  # this run's batches, not the earlier runs'
        judged: list[TaskJudgement] = []
        for saved, config, found in tasks:
            say(f"{saved.task}: judging {len(saved.lines)} samples of {saved.path}")
            with use_judge_backend(backend) if backend else nullcontext():
                judged.append(judge_task(saved, config, found, options))
        public = {**public_settings(options.judges), **options.repeats.settings(), **judging}
        batches = summary.batch[first_batch:] if batch else None
        record = _judging_record(run.results_path, public, batches)
        results = judged_results(run.results, judged, record, public)
        # the output folder mirrors the run's (lm-eval names it after the model)
        parent = run.results_path.parent
        folder = output / (parent.relative_to(source) if source.is_dir() else parent.name)
        stamp = datetime.now().isoformat().replace(":", "-")  # lm-eval's file stamp
        summary.written.append(write_run(folder, stamp, results, {j.task: j.lines for j in judged}))
        summary.tasks.extend(judged)
    if not summary.tasks:  # the judged task families, as messages name them ("CARE", ...)
        labels = ", ".join(family.label for b in benchmarks() for family in b.lm_eval_judged)
        raise JudgeLaterError(
            f"{source}: no judged task ({labels}) with logged samples; "
            + ("; ".join(summary.skipped) or "nothing found")
        )
    return summary
