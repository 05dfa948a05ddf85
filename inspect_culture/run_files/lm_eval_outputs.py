"""Read and write lm-eval samples files (`samples_<task>_<timestamp>.jsonl`, one line per doc
with its `filtered_resps`): for tasks whose input is an earlier run's output (CQ-Bench VE step 2
reads step 1's summaries) and for the readers of finished runs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.datasets_hub.errors import DatasetUnavailableError, DataValidationError
from inspect_culture.datasets_hub.hashing import sha256_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunOutputs:
    """Responses keyed by doc id, with where they came from."""

    responses: dict[str, str]
    docs: dict[str, dict[str, Any]]
    path: Path
    sha256: str


def lm_eval_samples_file(path: str | Path, task: str) -> Path:
    """`path` itself if it is a file, else the newest `samples_<task>_*.jsonl` below it."""
    path = Path(path).expanduser()
    if path.is_file():
        return path
    if not path.is_dir():
        raise DatasetUnavailableError(
            f"{path} does not exist (expected an lm-eval samples file or an --output_path folder)"
        )
    candidates = sorted(path.rglob(f"samples_{task}_*.jsonl"), key=lambda p: p.stat().st_mtime)
    if not candidates:
        raise DatasetUnavailableError(
            f"no samples_{task}_*.jsonl under {path}: run `lm_eval --tasks {task} "
            f"--output_path {path} --log_samples` first"
        )
    if len(candidates) > 1:
        log.warning(
            "%d samples files for %s under %s; using the newest, %s",
            len(candidates),
            task,
            path,
            candidates[-1],
        )
    return candidates[-1]


def _response(line: dict[str, Any], where: str) -> str:
    filtered = line.get("filtered_resps")
    if isinstance(filtered, list) and filtered:
        first = filtered[0]
        while isinstance(first, list) and first:  # unfiltered runs keep one list per request
            first = first[0]
        if isinstance(first, str):
            return first
    raise DataValidationError(f"{where}: field 'filtered_resps' holds no text response")


def iter_lm_eval_samples(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, line) for every sample line of an lm-eval samples file, each with `doc["id"]`;
    `where` names the file and line for error messages."""
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DataValidationError(f"{path}: not UTF-8 text") from None
    for number, text in enumerate(content.splitlines(), start=1):
        if not text.strip():
            continue
        where = f"{path}, line {number}"
        try:
            line = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataValidationError(f"{where}: not JSON ({exc.msg})") from None
        doc = line.get("doc") if isinstance(line, dict) else None
        if not isinstance(doc, dict) or "id" not in doc:
            raise DataValidationError(f"{where}: field 'doc.id' is missing")
        yield where, line


def samples_by_id(path: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, doc id, line) of every sample of an lm-eval samples file; an id twice is an error."""
    seen: set[str] = set()
    for where, line in iter_lm_eval_samples(path):
        key = str(line["doc"]["id"])
        if key in seen:
            raise DataValidationError(f"{where}: doc id {key!r} appears twice")
        seen.add(key)
        yield where, key, line


def read_lm_eval_samples(path: Path) -> RunOutputs:
    """Responses of one lm-eval samples file, keyed by doc id."""
    responses: dict[str, str] = {}
    docs: dict[str, dict[str, Any]] = {}
    for where, key, line in samples_by_id(path):
        responses[key] = _response(line, where)
        docs[key] = line["doc"]
    if not responses:
        raise DataValidationError(f"{path}: no samples in the file")
    return RunOutputs(responses, docs, path, sha256_file(path))


def save_lm_eval_outputs(tracker: Any, results: dict[str, Any]) -> None:
    """Write `results_<timestamp>.json` and one `samples_<task>_<timestamp>.jsonl` per task, as
    `lm_eval --output_path ... --log_samples` does after a run. `tracker` is the
    `lm_eval.loggers.EvaluationTracker` passed to `simple_evaluate` (it records the model)."""
    import copy

    aggregated = copy.deepcopy({k: v for k, v in results.items() if k != "samples"})
    tracker.save_results_aggregated(results=aggregated, samples=results["samples"])
    for task_name in results["configs"]:
        tracker.save_results_samples(task_name, copy.deepcopy(results["samples"][task_name]))


def judge_reply_of(line: Mapping[str, Any]) -> dict[str, Any]:
    """The judge's record a judged task's filter wrote as the line's filtered response (the
    judge used, its replies, the outcome); {} when the line has none."""
    try:
        reply = json.loads((line.get("filtered_resps") or [""])[0] or "{}")
    except (json.JSONDecodeError, TypeError):
        return {}
    return reply if isinstance(reply, dict) else {}
