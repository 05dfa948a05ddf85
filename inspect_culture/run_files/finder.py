"""The one finder of finished runs' files: Inspect logs (`.eval`, or `.json` with an Inspect
header), lm-eval `results_<ts>.json` and their `samples_<task>_<ts>.jsonl`, by name and a peek."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

INSPECT_LOG = "inspect log"
LM_EVAL_RESULTS = "lm-eval results"
LM_EVAL_SAMPLES = "lm-eval samples"

RESULTS_PREFIX = "results_"
SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>[^_]+)\.jsonl$")
_PEEK_BYTES = 4096


def is_results_file(path: Path) -> bool:
    return path.suffix == ".json" and path.name.startswith(RESULTS_PREFIX)


def samples_path(results: Path, task: str) -> Path:
    """Where lm-eval writes a task's samples beside a results file (it may not exist)."""
    stamp = results.stem.removeprefix(RESULTS_PREFIX)
    return results.with_name(f"samples_{task}_{stamp}.jsonl")


def peek(path: Path) -> str:
    """The file's first bytes as text ("" when unreadable): enough to see a JSON file's header."""
    try:
        with path.open("rb") as handle:
            return handle.read(_PEEK_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def kind_of(path: Path) -> str | None:
    """Which run file `path` is by its name (and a `.json` file's first bytes); None: no run's."""
    if path.suffix == ".eval":
        return INSPECT_LOG
    if path.suffix == ".jsonl":
        return LM_EVAL_SAMPLES if SAMPLES_NAME.match(path.name) else None
    if path.suffix != ".json":
        return None
    if is_results_file(path):
        return LM_EVAL_RESULTS
    head = peek(path)
    return INSPECT_LOG if '"eval"' in head and '"version"' in head else None  # --log-format json


def run_files(folder: Path, kinds: Collection[str]) -> list[Path]:
    """Every file below `folder` of one of `kinds`, sorted by path."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and kind_of(p) in kinds)
