"""Find and read CultureSynth-7 runs of either harness: Inspect logs (`.eval`, `.json`) of
`culturesynth[_answers]`, and lm-eval `samples_culturesynth[_answers]_<lang>_<ts>.jsonl` (`<lang>`
may be `all`) next to their `results_<ts>.json`. A path may be any of those files, or a folder
searched recursively; of several samples files of one task in one folder the newest counts."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.run_files import RunsError

INSPECT = "inspect"
LM_EVAL = "lm-eval"
SCORER = "culturesynth_judge"
# lm-eval puts the same per-question result under every metric key; this one is always declared.
LM_EVAL_OUTCOME_KEY = "net_win_rate"

INSPECT_ANSWERS_TASK = "culturesynth_answers"
INSPECT_JUDGED_TASK = "culturesynth"
# culturesynth[_answers]_<lang>, and _all (all seven languages in one task)
_LM_EVAL_TASK = re.compile(r"^culturesynth(?P<answers>_answers)?_(?P<lang>[a-z]{2}|all)$")
_SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>[^_]+)\.jsonl$")

# Client-side settings of Inspect's GenerateConfig: they change how a request is sent, never what
# the model answers, so a baseline file does not record them.
TRANSPORT_SETTINGS = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "batch",
        "cache",
        "fail_on_refusal",
    }
)

Report = Callable[[str], None]


def report_to_stderr(message: str) -> None:
    print(f"culture-evals: {message}", file=sys.stderr)


# --- finding runs -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunFile:
    """One harness output file of a CultureSynth task."""

    path: Path
    harness: str  # INSPECT or LM_EVAL
    task: str  # culturesynth[_answers] (Inspect), culturesynth[_answers]_<lang> (lm-eval)
    stamp: str = ""  # lm-eval's timestamp, shared by a run's samples and results files

    @property
    def judged(self) -> bool:
        if self.harness == INSPECT:
            return self.task == INSPECT_JUDGED_TASK
        match = _LM_EVAL_TASK.match(self.task)
        return bool(match and not match.group("answers"))


def _inspect_task(path: Path) -> tuple[str, str] | None:
    """(CultureSynth task, status) of an Inspect log, None when it is not one (or not a log)."""
    from inspect_ai.log import read_eval_log

    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception:  # noqa: BLE001 - any unreadable file is "not an Inspect log"
        return None
    name = header.eval.task.rsplit("/", 1)[-1].replace("-", "_")
    if name not in (INSPECT_ANSWERS_TASK, INSPECT_JUDGED_TASK):
        return None
    return name, str(header.status)


def _samples_file(path: Path) -> RunFile | None:
    match = _SAMPLES_FILE.match(path.name)
    if not match or not _LM_EVAL_TASK.match(match.group("task")):
        return None
    return RunFile(path, LM_EVAL, match.group("task"), match.group("stamp"))


def _results_stamp(path: Path) -> str | None:
    """The timestamp of an lm-eval results file (`results_<ts>.json`), else None."""
    if path.suffix != ".json" or not path.name.startswith("results_"):
        return None
    return path.stem[len("results_") :]


def find_run_files(path: str | Path, report: Report = report_to_stderr) -> list[RunFile]:
    """The CultureSynth run files a command-line argument names: the file itself, the samples files
    of an lm-eval results file, or every such file below a folder (newest samples file per task
    and folder)."""
    path = Path(path).expanduser()
    if not path.exists():
        raise RunsError(f"{path} does not exist")
    if path.is_file():
        return _explicit_file(path)
    found: list[RunFile] = []
    newest: dict[tuple[Path, str], RunFile] = {}  # lm-eval samples files by folder and task
    for candidate in sorted(path.rglob("*")):
        if not candidate.is_file() or candidate.name == "logs.json":
            continue
        if candidate.suffix == ".jsonl":
            if (run := _samples_file(candidate)) is None:
                continue
            key = (candidate.parent, run.task)
            if key in newest:
                older, run = sorted((newest[key], run), key=lambda r: r.stamp)
                report(f"{older.path}: ignored, {run.path} is a newer run of {run.task}")
            newest[key] = run
        elif candidate.suffix in (".eval", ".json") and _results_stamp(candidate) is None:
            found_task = _inspect_task(candidate)
            if found_task is None:
                continue
            task, status = found_task
            # A log dir keeps failed and interrupted attempts next to the run that worked; name
            # such a log explicitly to read what it holds.
            if status == "success":
                found.append(RunFile(candidate, INSPECT, task))
            else:
                report(f"{candidate}: skipped, the run's status is {status}")
    return found + sorted(newest.values(), key=lambda r: str(r.path))


def _explicit_file(path: Path) -> list[RunFile]:
    if path.suffix == ".jsonl":
        run = _samples_file(path)
        if run is None:
            raise RunsError(
                f"{path}: not an lm-eval samples file of a CultureSynth task (expected "
                "samples_culturesynth[_answers]_<lang>_<timestamp>.jsonl)"
            )
        return [run]
    stamp = _results_stamp(path)
    if stamp is not None:
        runs = [
            run
            for candidate in sorted(path.parent.glob(f"samples_*_{stamp}.jsonl"))
            if (run := _samples_file(candidate))
        ]
        if not runs:
            raise RunsError(f"{path}: no CultureSynth samples files of this run next to it")
        return runs
    found_task = _inspect_task(path)
    if found_task is None:
        raise RunsError(
            f"{path}: not an Inspect log of culturesynth or culturesynth_answers, nor an lm-eval "
            "samples or results file"
        )
    return [RunFile(path, INSPECT, found_task[0])]


# --- lm-eval files ------------------------------------------------------------------------------


def lm_eval_results(run: RunFile) -> dict[str, Any] | None:
    """The run's results file: `results_<ts>.json`, or `<name>_<ts>.json` when lm-eval's
    --output_path was itself a .json path."""
    candidates = [run.path.parent / f"results_{run.stamp}.json"]
    candidates += sorted(run.path.parent.glob(f"*_{run.stamp}.json"))
    for candidate in candidates:
        if candidate.is_file():
            try:
                data = json.loads(candidate.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise RunsError(f"{candidate}: not a JSON lm-eval results file") from None
            if isinstance(data, dict):
                return data
    return None


def lm_eval_model(results: Mapping[str, Any] | None) -> str | None:
    """`model_name` of the results, else the model argument lm-eval names its folder after."""
    if not results:
        return None
    if results.get("model_name"):
        return str(results["model_name"])
    args = (results.get("config") or {}).get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    if isinstance(args, dict):
        for key in ("peft", "delta", "pretrained", "model", "path", "engine"):
            if args.get(key):
                return str(args[key])
    return None


def task_config(results: Mapping[str, Any] | None, task: str) -> dict[str, Any]:
    config = ((results or {}).get("configs") or {}).get(task)
    return config if isinstance(config, dict) else {}


def answer_text(line: Mapping[str, Any]) -> str | None:
    """The model's raw answer, `resps[0][0]` (the filters of an answers task keep it as is)."""
    resps = line.get("resps")
    try:
        text = resps[0][0]  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return None
    return text if isinstance(text, str) else None


def read_inspect_log(run: RunFile) -> Any:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(run.path))
    except Exception as exc:  # noqa: BLE001 - one line for the user, never a traceback
        raise RunsError(f"{run.path}: cannot read the Inspect log ({exc})") from None
    if not log.samples:
        raise RunsError(
            f"{run.path}: the log holds no samples (status {log.status}; samples are logged "
            "unless --no-log-samples)"
        )
    return log


def role_model(config: Any) -> str | None:
    if config is None:
        return None
    configs = config if isinstance(config, list) else [config]
    return " + ".join(str(c.model) for c in configs) or None
