"""Find and read CultureSynth-7 runs of either harness: Inspect logs of `culturesynth[_answers]`
and lm-eval `samples_culturesynth[_answers]_<lang>_<ts>.jsonl` files, or folders holding them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.run_files import RunsError, UnreadableLog, finder, report_to_stderr
from inspect_culture.run_files import lm_eval_outputs as lm
from inspect_culture.run_files.inspect_outputs import read_log

INSPECT = "inspect"
LM_EVAL = "lm-eval"
SCORER = "culturesynth_judge"
# lm-eval puts the same per-question result under every metric key; this one is always declared.
LM_EVAL_OUTCOME_KEY = "net_win_rate"

INSPECT_ANSWERS_TASK = "culturesynth_answers"
INSPECT_JUDGED_TASK = "culturesynth"
# culturesynth[_answers]_<lang>, and _all (all seven languages in one task)
_LM_EVAL_TASK = re.compile(r"^culturesynth(?P<answers>_answers)?_(?P<lang>[a-z]{2}|all)$")

# GenerateConfig settings of how a request is sent, never of what the model answers: not recorded
TRANSPORT_SETTINGS = frozenset(
    [
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "batch",
        "cache",
        "fail_on_refusal",
    ]
)

Report = Callable[[str], None]


@dataclass(frozen=True)
class RunFile:
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
    try:
        header = read_log(path, header_only=True)
    except UnreadableLog:
        return None
    name = header.eval.task.rsplit("/", 1)[-1].replace("-", "_")
    if name not in (INSPECT_ANSWERS_TASK, INSPECT_JUDGED_TASK):
        return None
    return name, str(header.status)


def _samples_file(path: Path) -> RunFile | None:
    match = finder.SAMPLES_NAME.match(path.name)
    if not match or not _LM_EVAL_TASK.match(match.group("task")):
        return None
    return RunFile(path, LM_EVAL, match.group("task"), match.group("stamp"))


def find_run_files(path: str | Path, report: Report = report_to_stderr) -> list[RunFile]:
    """The CultureSynth run files a path names: a file, a results file's samples, or a folder's."""
    path = Path(path).expanduser()
    if not path.exists():
        raise RunsError(f"{path} does not exist")
    if path.is_file():
        return _explicit_file(path)
    found: list[RunFile] = []
    for candidate in finder.run_files(path, [finder.INSPECT_LOG]):
        if candidate.name == "logs.json" or (found_task := _inspect_task(candidate)) is None:
            continue
        task, status = found_task
        # failed or interrupted attempts beside the run that worked: read only when named
        if status == "success":
            found.append(RunFile(candidate, INSPECT, task))
        else:
            report(f"{candidate}: skipped, the run's status is {status}")
    lm_eval = lm.newest_samples(
        finder.run_files(path, [finder.LM_EVAL_SAMPLES]), _LM_EVAL_TASK, report
    )
    return found + [run for p in lm_eval if (run := _samples_file(p))]


def _explicit_file(path: Path) -> list[RunFile]:
    if path.suffix == ".jsonl":
        if (run := _samples_file(path)) is None:
            raise RunsError(
                f"{path}: not an lm-eval samples file of a CultureSynth task (expected "
                "samples_culturesynth[_answers]_<lang>_<timestamp>.jsonl)"
            )
        return [run]
    if finder.is_results_file(path):
        [lm_eval_run] = lm.find_runs(path, error=RunsError)
        samples = sorted(lm_eval_run.samples.values())
        runs = [run for candidate in samples if (run := _samples_file(candidate))]
        if not runs:
            raise RunsError(f"{path}: no CultureSynth samples files of this run next to it")
        return runs
    if (found_task := _inspect_task(path)) is None:
        raise RunsError(
            f"{path}: not an Inspect log of culturesynth or culturesynth_answers, nor an lm-eval "
            "samples or results file"
        )
    return [RunFile(path, INSPECT, found_task[0])]


def log_with_samples(run: RunFile) -> Any:
    """The Inspect log of `run`, refused in one line when unreadable or without samples."""
    try:
        log = read_log(run.path)
    except UnreadableLog as exc:  # one line for the user, never a traceback
        raise RunsError(f"{run.path}: {exc}") from None
    if not log.samples:
        raise RunsError(
            f"{run.path}: the log holds no samples (status {log.status}; samples are logged "
            "unless --no-log-samples)"
        )
    return log


def role_model_names(config: Any) -> str | None:
    """The model (or models, joined) a log's role config names; None when none."""
    if config is None:
        return None
    configs = config if isinstance(config, list) else [config]
    return " + ".join(str(c.model) for c in configs) or None
