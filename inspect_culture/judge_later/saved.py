"""An lm-eval `--output_path` folder as `culture-evals judge` reads it (through the one reader,
`run_files/lm_eval_outputs.py`): each task's logged samples rebuilt into the (doc, response)
pairs lm-eval handed to the task's filters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.judge_later.errors import JudgeLaterError
from inspect_culture.run_files import lm_eval_outputs
from inspect_culture.run_files.lm_eval_outputs import LmEvalRun as SavedRun


@dataclass(frozen=True)
class SavedTask:
    """One task's logged samples, sorted by doc_id as lm-eval filters them."""

    task: str
    path: Path
    lines: list[dict[str, Any]]
    wheres: tuple[str, ...] = ()  # each line's file and line number, for messages

    @property
    def docs(self) -> list[dict[str, Any]]:
        return [line["doc"] for line in self.lines]

    def where(self, index: int) -> str:
        """The file, line and doc_id of the `index`-th sample, for messages."""
        at = self.wheres[index] if index < len(self.wheres) else self.path
        return f"{at}, doc_id {self.lines[index]['doc_id']}"

    def responses(self) -> list[str | None]:
        """The raw generation of each doc (lm-eval's `take_first`, the filter before the
        judge): the first response of the first request."""
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


def find_runs(root: Path, skip: Path | None = None) -> list[SavedRun]:
    """Every results file under `root` (a folder, or one results file), except those under
    `skip` (our own output folder, when it lies inside the run folder)."""
    return lm_eval_outputs.find_runs(root, skip, JudgeLaterError)


def read_samples(task: str, path: Path) -> SavedTask:
    """The sample lines of one task, checked for the fields judging needs."""
    found = sorted(lm_eval_outputs.samples(path, JudgeLaterError, by="doc_id"), key=lambda x: x[1])
    if not found:
        raise JudgeLaterError(f"{path}: no samples")
    return SavedTask(task, path, [line for *_, line in found], tuple(w for w, *_ in found))
