"""A run's outcome records (those its harness's metrics came from), for what the header lacks:
a breakdown's interval or count, or lm-eval's breakdowns. Read once, on first use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_culture.judging.jury import JURY_KEY
from inspect_culture.judging.usage import run_tokens
from inspect_culture.report.model import RunInfo
from inspect_culture.report.section import RecordSource, section_of
from inspect_culture.run_files import inspect_outputs, lm_eval_outputs
from inspect_culture.run_files.inspect_outputs import score_metadata, summary_score_metadata
from inspect_culture.run_files.lm_eval_outputs import DamagedLine
from inspect_culture.run_files.lm_eval_outputs import outcome_records as read_outcome_records

# What Inspect puts in a summary in place of a metadata value over 1 kB
_THINNED = "Key removed from summary (> 1k)"

_cache: dict[Path, list[dict[str, Any]]] = {}
_skipped: dict[Path, list[DamagedLine]] = {}  # an lm-eval samples file's damaged lines, as read
_tokens: dict[Path, dict[str, dict[str, int]] | None] = {}  # a run's tokens by judge, as read
# each sample's token record, kept while its outcome records were read: parsed once, not twice
_found_tokens: dict[Path, list[Any]] = {}


class RecordsUnavailable(ValueError):
    """The run's per-sample records cannot be read (lm-eval run without --log_samples ...)."""


def outcome_records(run: RunInfo) -> list[dict[str, Any]]:
    """Every scored sample's outcome record (one per epoch), in the harness's order."""
    if (source := run.records_source) is None:
        raise RecordsUnavailable(
            f"{run.path}: {run.task} has no samples file beside it (run lm_eval with "
            "--log_samples for the breakdowns, their intervals and counts)"
        )
    if source not in _cache:
        reader = _inspect_records if run.harness == "inspect" else _lm_eval_records
        # by question id: the bootstrap resamples by position, so order must not vary by harness
        records = reader(source, _record_source(run))
        _cache[source] = sorted(
            records, key=lambda r: str(r.get("sample_id", r.get("question_id", "")))
        )
    return _cache[source]


def with_record_metrics(run: RunInfo, records: list[dict[str, Any]]) -> RunInfo:
    """The run with the record metrics its header lacks (lm-eval's breakdowns); the header wins."""
    computed = _record_source(run).record_metrics(records)
    return run if computed is None else replace(run, metrics={**computed, **run.metrics})


def _record_source(run: RunInfo) -> RecordSource:
    """Where the run's benchmark keeps the records of its task family (its report section)."""
    section, task = section_of(run.benchmark), run.task
    sources = section.records if section is not None else ()
    found = next((r for r in sources if task == r.prefix or task.startswith(r.prefix + "_")), None)
    if found is None:
        raise RecordsUnavailable(f"no outcome records for task {run.task!r}")
    return found


def _inspect_records(path: Path, family: RecordSource) -> list[dict[str, Any]]:
    """From the log's sample summaries; a sample thinned out of its summary is read in full."""
    records = []
    try:
        rows = list(summary_score_metadata(path))
        _found_tokens[path] = inspect_outputs.token_records(rows)
        for sample_id, epoch, metadata in rows:
            found = [_unnest(m, family) for m in metadata]
            if not any(found):
                found = [_unnest(m, family) for m in score_metadata(path, sample_id, epoch)]
            records.extend(record for record in found if record)
    except Exception as exc:  # noqa: BLE001 (a damaged sample section: say so, keep the header)
        raise RecordsUnavailable(f"{path}: samples unreadable ({type(exc).__name__})") from None
    return records


def _unnest(metadata: Mapping[str, Any] | None, family: RecordSource) -> dict[str, Any] | None:
    if not metadata:
        return None
    record = metadata.get(family.inspect_key) if family.inspect_key else metadata
    if not isinstance(record, Mapping):
        return None
    if family.inspect_key and JURY_KEY in metadata:  # a jury's votes sit beside a nested record
        record = {**record, JURY_KEY: metadata[JURY_KEY]}
    if any(v == _THINNED for v in record.values()):
        return None
    return dict(record)


def _lm_eval_records(path: Path, family: RecordSource) -> list[dict[str, Any]]:
    """Every intact line's record; a damaged line (cut by a killed run, garbage) costs only itself:
    it is kept in `_skipped` for `damaged_lines` to name."""
    _skipped[path], tokens = [], []
    records = read_outcome_records(
        path, family.lm_eval_field, RecordsUnavailable, _skipped[path], tokens
    )
    if not (tokens and tokens[0] is lm_eval_outputs.TOKENS_UNREAD):
        _found_tokens[path] = tokens
    return records


def damaged_lines(run: RunInfo) -> list[DamagedLine]:
    """The lines of the run's samples file its records leave out; none for a run whose records
    cannot be read at all (its tables say why)."""
    if run.harness != "lm-eval" or run.records_source is None:
        return []
    try:
        outcome_records(run)
    except RecordsUnavailable:
        return []
    return list(_skipped.get(run.records_source, []))


def with_damage_named(runs: Sequence[RunInfo], notes: list[str]) -> list[RunInfo]:
    """The runs, each lm-eval run with damaged samples lines counting only its intact samples,
    and for it one note naming each line left out (its tables use the intact lines)."""
    kept = []
    for run in runs:
        if damaged := damaged_lines(run):
            intact = len(outcome_records(run))
            lines = ", ".join(f"line {line.number} ({line.why})" for line in damaged)
            total = (
                "" if run.samples is None else f", its results file's figures of all {run.samples}"
            )
            notes.append(
                f"{run.benchmark} {run.task} of {run.model} ({run.harness}): skipped {lines} of "
                f"{damaged[0].path}; its breakdowns and sample count are those of its other "
                f"{intact} samples{total}"
            )
            run = replace(run, samples=None if run.samples is None else min(run.samples, intact))
        kept.append(run)
    return kept


def judge_tokens(run: RunInfo) -> dict[str, dict[str, int]] | None:
    """The run's tokens by judge (`judge_1`, ...) summed over its samples' token records, read
    alike from an Inspect log's score metadata and an lm-eval samples file's lines (`run_files`);
    an lm-eval run without samples: its results file's totals. None when no sample recorded
    any (a run made before they were recorded)."""
    if (source := run.records_source) is None:
        if run.judge_cost:  # lm-eval's results file: its totals, as its samples would sum
            return {name: dict(tokens) for name, tokens in run.judge_cost.items()}
        raise RecordsUnavailable(
            f"{run.path}: {run.task} has no samples file beside it (run lm_eval with "
            "--log_samples for the judge's tokens)"
        )
    if source not in _tokens:
        try:
            if run.harness == "inspect":
                found = _found_tokens.pop(source, None)
                _tokens[source] = inspect_outputs.judge_tokens(source, found)
            elif (found := _found_tokens.pop(source, None)) is not None:
                _tokens[source] = run_tokens(found) if found else None
            else:
                field = _family_field(run)
                _tokens[source] = lm_eval_outputs.judge_tokens(source, field, RecordsUnavailable)
        except RecordsUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 (a damaged sample section: say so, read on)
            raise RecordsUnavailable(
                f"{source}: samples unreadable ({type(exc).__name__})"
            ) from None
    return _tokens[source]


def _family_field(run: RunInfo) -> str | None:
    """The samples field of the run's outcome records, where a token record may sit too."""
    try:
        return _record_source(run).lm_eval_field
    except RecordsUnavailable:
        return None


def clear_cache() -> None:
    _cache.clear()
    _skipped.clear()
    _tokens.clear()
    _found_tokens.clear()
