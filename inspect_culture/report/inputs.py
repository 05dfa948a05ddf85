"""The runs among the paths a user names (Inspect logs, lm-eval `results_*.json`, folders), as
`RunInfo`s: a named file that is no usable run is one `Skipped` line. `run_files` reads them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_culture.judging.jury import jury_label, model_names
from inspect_culture.judging.usage import FIELDS
from inspect_culture.report.inspect_logs import (
    NotReportable,
    dataset_label,
    is_number,
    limit_of,
    read_inspect_log,
    rejudged,
)
from inspect_culture.report.model import NOT_JUDGED, RunInfo, Skipped
from inspect_culture.report.section import ReportSection, lm_eval_owner
from inspect_culture.run_files import finder
from inspect_culture.run_files.lm_eval_outputs import (
    holds_results,
    model_args,
    results_json,
    sample_lines,
    samples_beside,
    task_provenance,
)


def read_runs(inputs: Sequence[str | Path]) -> tuple[list[RunInfo], list[Skipped]]:
    runs: list[RunInfo] = []
    skipped: list[Skipped] = []
    for path in _candidates(inputs, skipped):
        try:
            runs.extend(read_run(path))
        except NotReportable as exc:
            skipped.append(Skipped(path, str(exc), exc.by_design))
    return runs, skipped


def read_run(path: Path) -> list[RunInfo]:
    """The runs in one file; NotReportable says why there are none."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotReportable(f"cannot be read ({exc.strerror or exc})") from None
    if size == 0:
        raise NotReportable("empty file")
    if path.suffix != ".json":
        if finder.kind_of(path) == finder.INSPECT_LOG:
            return [read_inspect_log(path)]
        raise NotReportable(
            "neither an Inspect log (.eval, .json) nor an lm-eval results file (results_*.json)"
        )
    head = finder.peek(path)
    lm_eval = finder.is_results_file(path) or '"results"' in head
    if lm_eval and holds_results(data := results_json(path, NotReportable)):
        return read_lm_eval_results(path, data)
    if '"eval"' in head:
        return [read_inspect_log(path)]
    results_json(path, NotReportable)  # a corrupt file says so, rather than "not a run"
    raise NotReportable(
        "JSON, but neither an Inspect log nor an lm-eval results file (no 'eval' header, no "
        "'results' and 'config')"
    )


def _candidates(inputs: Sequence[str | Path], skipped: list[Skipped]) -> Iterable[Path]:
    seen: set[Path] = set()
    for raw in inputs:
        path = Path(raw).expanduser()
        if path.is_dir():
            if not (files := finder.run_files(path, (finder.INSPECT_LOG, finder.LM_EVAL_RESULTS))):
                skipped.append(
                    Skipped(path, "no Inspect log (.eval/.json) or lm-eval results_*.json in it")
                )
        elif path.exists():
            files = [path]
        else:
            skipped.append(Skipped(path, "does not exist"))
            continue
        for file in files:
            resolved = file.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield file


def read_lm_eval_results(path: Path, data: dict[str, Any]) -> list[RunInfo]:
    """Every task and group of ours in one results file; NotReportable when it holds none."""
    runs: list[RunInfo] = []
    foreign: list[str] = []
    without_table: list[str] = []
    for task, result in data["results"].items():
        if (owner := lm_eval_owner(task)) is None:
            foreign.append(task)
            continue
        benchmark, section = owner
        if task.startswith(section.lm_eval_without_table):
            foreign.append(task)
            without_table.append(task)
            continue
        runs.append(_lm_eval_task_run(path, data, task, result, benchmark.title, section))
    if not runs:
        named = ", ".join(sorted(foreign)[:5]) or "none"
        if without_table and len(without_table) == len(foreign):
            raise NotReportable(f"its tasks have no report table ({named})", True)
        raise NotReportable(f"an lm-eval results file, but none of its tasks is ours ({named})")
    return runs


def _lm_eval_task_run(
    path: Path,
    data: dict[str, Any],
    task: str,
    result: dict[str, Any],
    benchmark: str,
    section: ReportSection,
) -> RunInfo:
    """One task's (or group's) run of a results file."""
    config = data.get("config") or {}
    groups = set(data.get("groups") or {}) | set(data.get("group_subtasks") or {})
    n_samples = data.get("n-samples") or {}
    configs = data.get("configs") or {}
    own = (configs.get(task) or {}).get("metadata")
    metadata = dict(own or _group_metadata(task, data, configs))
    metadata.pop("provenance", None)  # the data's record: read below (a group's: its first task's)
    unscored = (v for k, v in result.items() if k.partition(",")[0] == "n_unscored")
    members = ((data.get("group_subtasks") or {}).get(task) or []) if task in groups else [task]
    recorded = (_provenance(data, path, member) for member in members)  # checked
    provenance = next(filter(None, recorded), {})
    read = {
        f"dataset_{k}": provenance[k] for k in ("revision", "sha256", "rows") if k in provenance
    }
    judges = _judges_of(metadata)
    return RunInfo(
        path=path,
        harness="lm-eval",
        benchmark=benchmark,
        task=task,
        setting={
            **({"aggregate": True} if task in groups else {}),
            **section.lm_eval_setting(task, {**metadata, "provenance": provenance}),
        },
        model=canonical_lm_eval_model(config, data.get("model_name")),
        metrics=_metrics(result),
        samples=_samples(task, n_samples, result),
        limit=limit_of(config.get("limit")),
        subset=section.lm_eval_subset(task, metadata),
        dataset=dataset_label(
            metadata.get("dataset"),
            read.get("dataset_revision") or metadata.get("dataset_revision"),
        ),
        dataset_sha256=read.get("dataset_sha256"),
        dataset_rows=read.get("dataset_rows") or (n_samples.get(task) or {}).get("original"),
        judge=NOT_JUDGED
        if str(metadata.get("judge_later")).lower() == "true"
        else metadata.get("judge_model") or jury_label(judges),
        versions={
            "task_version": (data.get("versions") or {}).get(task),
            **{k: v for k, v in metadata.items() if k.endswith("_version")},
        },
        unscored=next((int(v) for v in unscored if isinstance(v, int | float)), None),
        records_source=None if task in groups else samples_beside(path, task),
        rejudged=rejudged(metadata) or rejudged(((data.get("judge") or {}).get("settings")) or {}),
        judges=judges,
        judge_price=metadata.get("judge_price"),
        judge_cost=_recorded_cost(metadata.get("judge_cost")),
    )


def _group_metadata(task: str, data: dict[str, Any], configs: dict[str, Any]) -> dict[str, Any]:
    """A group has no config of its own: take the shared metadata of its first subtask."""
    for subtask in (data.get("group_subtasks") or {}).get(task) or []:
        if metadata := (configs.get(subtask) or {}).get("metadata"):
            return {k: v for k, v in metadata.items() if k != "config_source"}
    return {}


def _metrics(result: dict[str, Any]) -> dict[str, float]:
    """`name,filter` -> name; standard errors, "N/A" and NaN (absent groups) dropped."""
    named = ((key.partition(","), value) for key, value in result.items())
    return {
        name: float(value)
        for (name, comma, _), value in named
        if comma and "_stderr" not in name and is_number(value)
    }


def _samples(task: str, n_samples: dict[str, Any], result: dict[str, Any]) -> int | None:
    counts = n_samples.get(task)
    if isinstance(counts, dict) and counts.get("effective") is not None:
        return int(counts["effective"])
    length = result.get("sample_len")
    return int(length) if isinstance(length, int | float) else None


def canonical_lm_eval_model(config: Mapping[str, Any], fallback: str | None) -> str:
    """The model of `config.model_args` (a dict or a `k=v,k=v` string) of a results file."""
    args = model_args(config)
    values = (args.get(key) for key in ("pretrained", "model", "path"))
    found = next((value for value in values if isinstance(value, str) and value), None)
    return found or fallback or str(config.get("model") or "unknown model")


def _provenance(data: dict[str, Any], path: Path, task: str) -> dict[str, Any]:
    """What the task recorded of the file read (revision checked against it, sha256, rows,
    release, ...), as an Inspect log's header does: from the task's metadata, or for a run made
    before that, from its docs; the task metadata names the revision the release reads."""
    if recorded := task_provenance(data, task):
        return recorded
    if (samples := samples_beside(path, task)) is None:
        return {}
    # the first intact line: a damaged one is named by the records' reading, not here
    first = next(sample_lines(samples, NotReportable, skipped=[]), (0, {}))[1]
    return task_provenance(None, task, first.get("doc"))


def _judges_of(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """Each judge's model in judge order: `judge_models` (a jury), else `judge_model`."""
    if names := model_names(metadata.get("judge_models")):
        return tuple(names)
    model = metadata.get("judge_model")
    return (str(model),) if model else ()


def _recorded_cost(recorded: object) -> dict[str, dict[str, int]] | None:
    """The totals by judge a results file recorded (`judge_cost.judges`), counts only."""
    judges = recorded.get("judges") if isinstance(recorded, Mapping) else None
    if not isinstance(judges, Mapping) or not judges:
        return None
    return {
        str(name): {k: int(v) for k, v in tokens.items() if k in FIELDS and is_number(v)}
        for name, tokens in judges.items()
        if isinstance(tokens, Mapping)
    } or None
