"""Read an lm-eval `--output_path` folder: each `results_<timestamp>.json` and, beside it, the
`samples_<task>_<timestamp>.jsonl` that `--log_samples` wrote, rebuilt into the (doc, response)
pairs lm-eval handed to the task's filters."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.judge_later.errors import JudgeLaterError

RESULTS_PREFIX = "results_"


@dataclass(frozen=True)
class SavedTask:
    """One task's logged samples, sorted by doc_id as lm-eval filters them."""

    task: str
    path: Path
    lines: list[dict[str, Any]]
    numbers: tuple[int, ...] = ()  # each line's number in the file (1-based), for messages

    @property
    def docs(self) -> list[dict[str, Any]]:
        return [line["doc"] for line in self.lines]

    def where(self, index: int) -> str:
        """The file, line and doc_id of the `index`-th sample, for messages."""
        at = f", line {self.numbers[index]}" if index < len(self.numbers) else ""
        return f"{self.path}{at}, doc_id {self.lines[index]['doc_id']}"

    def responses(self) -> list[str | None]:
        """The raw generation of each doc (lm-eval's `take_first`, the filter before the
        judge): the first response of the first request."""
        return [_first_response(line, self.path) for line in self.lines]


@dataclass(frozen=True)
class SavedRun:
    """One results file of an lm-eval run and its samples files."""

    results_path: Path
    results: dict[str, Any]
    samples: dict[str, Path]  # task -> samples file

    @property
    def stamp(self) -> str:
        return self.results_path.stem.removeprefix(RESULTS_PREFIX)


def _first_response(line: dict[str, Any], path: Path) -> str | None:
    resps = line.get("resps")
    first: Any = resps
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


def find_runs(root: Path, skip: Path | None = None) -> list[SavedRun]:
    """Every results file under `root` (a folder, or one results file), except those under
    `skip` (our own output folder, when it lies inside the run folder)."""
    root = root.expanduser()
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(root.rglob(f"{RESULTS_PREFIX}*.json"))
        own = skip.expanduser().resolve() if skip is not None else None
        if own is not None and own.is_relative_to(root.resolve()):  # not when -o holds root
            paths = [p for p in paths if not p.resolve().is_relative_to(own)]
    else:
        raise JudgeLaterError(f"{root}: no such file or folder (expected an lm-eval --output_path)")
    if not paths:
        raise JudgeLaterError(
            f"{root}: no results_<timestamp>.json below it; pass the --output_path of an lm_eval "
            "run made with --log_samples"
        )
    runs = []
    for path in paths:
        try:
            results = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise JudgeLaterError(f"{path}: not a readable JSON results file ({exc})") from None
        if not isinstance(results, dict) or not isinstance(results.get("configs"), dict):
            raise JudgeLaterError(f"{path}: no 'configs' field: not an lm-eval results file")
        for task, config in results["configs"].items():
            if not isinstance(config, dict):
                raise JudgeLaterError(
                    f"{path}: field 'configs.{task}' is {type(config).__name__}, not an object: "
                    "not an lm-eval results file"
                )
        stamp = path.stem.removeprefix(RESULTS_PREFIX)
        samples = {
            task: path.with_name(f"samples_{task}_{stamp}.jsonl") for task in results["configs"]
        }
        runs.append(SavedRun(path, results, {t: p for t, p in samples.items() if p.is_file()}))
    return runs


def read_samples(task: str, path: Path) -> SavedTask:
    """The sample lines of one task, checked for the fields judging needs."""
    lines: list[tuple[int, dict[str, Any]]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeLaterError(f"{path}: cannot read ({exc})") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise JudgeLaterError(f"{path}, line {number}: not JSON ({exc.msg})") from None
        for name in ("doc_id", "doc", "resps"):
            if not isinstance(line, dict) or name not in line:
                raise JudgeLaterError(f"{path}, line {number}: field {name!r} is missing")
        doc_id = line["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, int):
            raise JudgeLaterError(
                f"{path}, line {number}: field 'doc_id' is {doc_id!r}, not a whole number "
                "(lm-eval writes each doc's index)"
            )
        if not isinstance(line["doc"], dict):
            raise JudgeLaterError(f"{path}, line {number}: field 'doc' is not an object")
        lines.append((number, line))
    if not lines:
        raise JudgeLaterError(f"{path}: no samples")
    ids = [line["doc_id"] for _, line in lines]
    if len(set(ids)) != len(ids):
        raise JudgeLaterError(f"{path}: a doc_id appears twice (several repeats or runs merged?)")
    ordered = sorted(lines, key=lambda pair: pair[1]["doc_id"])
    return SavedTask(task, path, [line for _, line in ordered], tuple(n for n, _ in ordered))
