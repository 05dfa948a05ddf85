"""Find the runs among the paths a user names: Inspect logs (`.eval`, `.json`), lm-eval output
folders (`results_*.json`), or folders holding any mix. Every named file that is not a usable
run of ours becomes one `Skipped` line; inside folders, files that are neither kind of run
(samples files, baseline answers, Inspect's `logs.json` listing) are passed over."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from inspect_culture.report.inspect_logs import NotReportable, read_inspect_log
from inspect_culture.report.lm_eval_results import (
    RESULTS_PREFIX,
    looks_like_lm_eval,
    read_lm_eval_results,
)
from inspect_culture.report.model import RunInfo, Skipped

_PEEK_BYTES = 4096


def read_runs(inputs: Sequence[str | Path]) -> tuple[list[RunInfo], list[Skipped]]:
    runs: list[RunInfo] = []
    skipped: list[Skipped] = []
    for path in _candidates(inputs, skipped):
        try:
            runs.extend(read_run(path))
        except NotReportable as exc:
            skipped.append(Skipped(path, str(exc)))
    return runs, skipped


def read_run(path: Path) -> list[RunInfo]:
    """The runs in one file; NotReportable says why there are none."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotReportable(f"cannot be read ({exc.strerror or exc})") from None
    if size == 0:
        raise NotReportable("empty file")
    if path.suffix == ".eval":
        return [read_inspect_log(path)]
    if path.suffix != ".json":
        raise NotReportable(
            "neither an Inspect log (.eval, .json) nor an lm-eval results file (results_*.json)"
        )
    head = _peek(path)
    if path.name.startswith(RESULTS_PREFIX) or '"results"' in head:
        data = _load_json(path)
        if looks_like_lm_eval(data):
            return read_lm_eval_results(path, data)
    if '"eval"' in head:
        return [read_inspect_log(path)]
    _load_json(path)  # a corrupt file says so, rather than "not a run"
    raise NotReportable(
        "JSON, but neither an Inspect log nor an lm-eval results file (no 'eval' header, no "
        "'results' and 'config')"
    )


def _candidates(inputs: Sequence[str | Path], skipped: list[Skipped]) -> Iterable[Path]:
    seen: set[Path] = set()
    for raw in inputs:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = sorted(_runs_in_folder(path))
            if not found:
                skipped.append(
                    Skipped(path, "no Inspect log (.eval/.json) or lm-eval results_*.json in it")
                )
            files = found
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


def _runs_in_folder(folder: Path) -> Iterable[Path]:
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        if (
            path.suffix == ".eval"
            or path.name.startswith(RESULTS_PREFIX)
            and path.suffix == ".json"
        ):
            yield path
        elif path.suffix == ".json" and '"eval"' in _peek(path) and '"version"' in _peek(path):
            yield path  # an Inspect log written with --log-format json


def _peek(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_PEEK_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _load_json(path: Path) -> object:
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except UnicodeDecodeError:
        raise NotReportable("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise NotReportable(f"corrupt JSON (line {exc.lineno}: {exc.msg})") from None
    except OSError as exc:
        raise NotReportable(f"cannot be read ({exc.strerror or exc})") from None
