"""Read CultureSynth-7 runs of either harness: the baseline model's answers (to export them into a
baseline answers file) and the judged outcomes (to measure how often two judges agree, Table 7).

Inputs are what the harnesses write, unchanged:
- Inspect logs (`.eval` or `.json`) of `culturesynth_answers` (answers only) or `culturesynth`
  (answers of the evaluated model, the baseline's answer and the judged outcome per sample);
- lm-eval `--log_samples` output: `samples_<task>_<timestamp>.jsonl` of
  `culturesynth_answers_<lang>` or `culturesynth_<lang>` (`<lang>` may be `all`), next to the
  run's `results_<timestamp>.json` (model name, generation settings).

A path may be any of those files, or a folder searched recursively for them. Of several lm-eval
samples files of one task in one folder only the newest counts (lm-eval never overwrites), as in
`run_outputs.lm_eval_samples_file`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_culture.datasets_hub.baseline_responses import BaselineResponses
from inspect_culture.datasets_hub.culturesynth import LANGUAGES
from inspect_culture.scorers.culturesynth_metrics import (
    mean_agreement,
    strict_agreement,
    strict_agreement_by,
)

INSPECT = "inspect"
LM_EVAL = "lm-eval"
BASELINE_ROLE = "baseline"
GRADER_ROLE = "grader"
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


class RunsError(ValueError):
    """A problem with the given runs that the user can fix; the message is one line."""


def _stderr(message: str) -> None:
    print(f"culture-evals: {message}", file=sys.stderr)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _first(ids: Sequence[str], n: int = 5) -> str:
    return ", ".join(ids[:n]) + (", ..." if len(ids) > n else "")


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


def find_run_files(path: str | Path, report: Report = _stderr) -> list[RunFile]:
    """The CultureSynth run files a command-line argument names: the file itself, the samples files
    of an lm-eval results file, or every such file below a folder (newest samples file per task
    and folder)."""
    path = Path(path).expanduser()
    if not path.exists():
        raise RunsError(f"{path} does not exist")
    if path.is_file():
        return _explicit_file(path)
    found: list[RunFile] = []
    for candidate in sorted(path.rglob("*")):
        if not candidate.is_file() or candidate.name == "logs.json":
            continue
        if candidate.suffix == ".jsonl":
            run = _samples_file(candidate)
            if run:
                found.append(run)
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
    return _newest_per_task(found, report)


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


def _newest_per_task(runs: list[RunFile], report: Report) -> list[RunFile]:
    newest: dict[tuple[Path, str], RunFile] = {}
    kept: list[RunFile] = []
    for run in runs:
        if run.harness == INSPECT:
            kept.append(run)
            continue
        key = (run.path.parent, run.task)
        if key in newest:
            older, newer = sorted((newest[key], run), key=lambda r: r.stamp)
            report(f"{older.path}: ignored, {newer.path} is a newer run of {run.task}")
            newest[key] = newer
        else:
            newest[key] = run
    return kept + sorted(newest.values(), key=lambda r: str(r.path))


# --- lm-eval files ------------------------------------------------------------------------------


def _samples_lines(path: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RunsError(f"{path}: not UTF-8 text") from None
    for number, text in enumerate(content.splitlines(), start=1):
        if not text.strip():
            continue
        where = f"{path}, line {number}"
        try:
            line = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RunsError(f"{where}: not JSON ({exc.msg})") from None
        doc = line.get("doc") if isinstance(line, dict) else None
        if not isinstance(doc, dict) or "id" not in doc:
            raise RunsError(f"{where}: field 'doc.id' is missing")
        yield where, line


def _lm_eval_results(run: RunFile) -> dict[str, Any] | None:
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


def _lm_eval_model(results: Mapping[str, Any] | None) -> str | None:
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


def _task_config(results: Mapping[str, Any] | None, task: str) -> dict[str, Any]:
    config = ((results or {}).get("configs") or {}).get(task)
    return config if isinstance(config, dict) else {}


def _answer_text(line: Mapping[str, Any]) -> str | None:
    """The model's raw answer, `resps[0][0]` (the filters of an answers task keep it as is)."""
    resps = line.get("resps")
    try:
        text = resps[0][0]  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return None
    return text if isinstance(text, str) else None


# --- baseline export ----------------------------------------------------------------------------


@dataclass
class _Harvest:
    """Answers of one run file, with who answered and how."""

    model: str | None
    settings: dict[str, Any]
    answers: dict[str, str]
    left_out: list[str]
    source: dict[str, Any]


def _non_none(config: Any) -> dict[str, Any]:
    values = config.model_dump(exclude_none=True) if config is not None else {}
    return {k: v for k, v in values.items() if k not in TRANSPORT_SETTINGS}


def _inspect_source(run: RunFile, role: str | None) -> dict[str, Any]:
    source = {"harness": INSPECT, "path": str(run.path), "sha256": _sha256(run.path)}
    source["task"] = run.task
    if role:
        source["role"] = role
    return source


def _read_inspect_log(run: RunFile) -> Any:
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


def _inspect_answers(run: RunFile, role: str | None) -> _Harvest:
    log = _read_inspect_log(run)
    answers: dict[str, str] = {}
    left_out: list[str] = []
    if role is None:
        # How the evaluated model was called: its own config, overridden by the task's and the
        # eval's (`Model._resolve_config`; `plan.config` is the task config merged with the eval's).
        settings = _non_none(log.eval.model_generate_config.merge(log.plan.config))
        model = log.eval.model
        for sample in log.samples:
            if sample.epoch != 1:
                continue
            text = sample.output.completion if sample.output else ""
            if sample.error or not text.strip():
                left_out.append(str(sample.id))
            else:
                answers[str(sample.id)] = text
        return _Harvest(model, settings, answers, left_out, _inspect_source(run, role))
    if run.task != INSPECT_JUDGED_TASK:
        raise RunsError(
            f"{run.path}: --role {role} needs a culturesynth log (task {run.task} has no "
            "baseline answers)"
        )
    models: set[str] = set()
    for sample in log.samples:
        if sample.epoch != 1:
            continue
        score = (sample.scores or {}).get(SCORER)
        meta = (score.metadata or {}) if score else {}
        text = meta.get("baseline_answer")
        if isinstance(text, str) and text.strip():
            answers[str(sample.id)] = text
            if meta.get("baseline_model"):
                models.add(str(meta["baseline_model"]))
        else:
            left_out.append(str(sample.id))
    if len(models) > 1:
        raise RunsError(
            f"{run.path}: baseline answers of several models: {', '.join(sorted(models))}"
        )
    roles = log.eval.model_roles or {}
    model = next(iter(models), None) or _role_model(roles.get(role))
    settings = _role_settings(log, role)
    return _Harvest(model, settings, answers, left_out, _inspect_source(run, role))


def _role_model(config: Any) -> str | None:
    if config is None:
        return None
    configs = config if isinstance(config, list) else [config]
    return " + ".join(str(c.model) for c in configs) or None


def _role_settings(log: Any, role: str) -> dict[str, Any]:
    """What the baseline role was called with, as the transcript recorded it; a baseline read
    from a file carries the file's own settings in the eval metadata."""
    from inspect_ai.event import ModelEvent

    for sample in log.samples:
        for event in sample.events or []:
            if isinstance(event, ModelEvent) and event.role == role:
                return _non_none(event.config)
    recorded = (log.eval.metadata or {}).get("baseline_generation_settings")
    if isinstance(recorded, dict):
        return dict(recorded)
    return {}


def _lm_eval_answers(run: RunFile, role: str | None, report: Report) -> _Harvest:
    if role is not None:
        raise RunsError(
            f"{run.path}: --role {role} reads the baseline answers recorded in Inspect culturesynth "
            "logs; export an lm-eval run of the baseline model itself (culturesynth_answers_<lang>) "
            "without --role"
        )
    results = _lm_eval_results(run)
    if results is None:
        report(
            f"{run.path}: no results_{run.stamp}.json next to it, so the generation settings are "
            "not recorded"
        )
    settings = _task_config(results, run.task).get("generation_kwargs")
    if results is not None and not isinstance(settings, dict):
        report(f"{run.path}: its results file has no generation_kwargs for {run.task}")
    settings = settings if isinstance(settings, dict) else {}
    answers: dict[str, str] = {}
    left_out: list[str] = []
    for where, line in _samples_lines(run.path):
        key = str(line["doc"]["id"])
        text = _answer_text(line)
        if key in answers or key in left_out:
            raise RunsError(f"{where}: doc id {key!r} appears twice")
        if text is None or not text.strip():
            left_out.append(key)
        else:
            answers[key] = text
    source = {"harness": LM_EVAL, "path": str(run.path), "sha256": _sha256(run.path)}
    source["task"] = run.task
    settings = {k: v for k, v in settings.items() if v is not None}
    return _Harvest(_lm_eval_model(results), settings, answers, left_out, source)


def export_baseline(
    inputs: Sequence[str | Path],
    role: str | None = None,
    model: str | None = None,
    *,
    report: Report = _stderr,
) -> BaselineResponses:
    """The answers of one baseline model keyed by question id, from Inspect logs and/or lm-eval
    samples files, so that every later run (either harness) compares against the same answers.

    `role="baseline"` takes the baseline role's answers recorded in Inspect `culturesynth` logs
    instead of the evaluated model's. `model` names the model (overriding what the runs say).
    Unanswered or failed questions are left out and reported; conflicting inputs are errors."""
    if role is not None and role != BASELINE_ROLE:
        raise RunsError(f"--role {role}: the only role with answers is {BASELINE_ROLE!r}")
    runs = [run for path in inputs for run in find_run_files(path, report)]
    if not runs:
        raise RunsError(
            f"no CultureSynth run in {', '.join(map(str, inputs))} (expected Inspect logs of "
            "culturesynth_answers or culturesynth, or lm-eval samples_culturesynth*_<ts>.jsonl)"
        )
    harvests = [
        _inspect_answers(run, role)
        if run.harness == INSPECT
        else _lm_eval_answers(run, role, report)
        for run in runs
    ]
    name = model or _one_model(harvests)
    settings = _one_setting(harvests)
    responses: dict[str, str] = {}
    origin: dict[str, str] = {}
    left_out: list[str] = []
    for harvest in harvests:
        where = harvest.source["path"]
        for key, text in harvest.answers.items():
            if key in responses and responses[key] != text:
                raise RunsError(
                    f"question {key} has different answers in {origin[key]} and {where}; "
                    "export one run per question"
                )
            responses[key] = text
            origin.setdefault(key, where)
        left_out += [k for k in harvest.left_out if k not in harvest.answers]
    left_out = sorted(set(left_out) - responses.keys())
    if left_out:
        report(
            f"{len(left_out)} question(s) left out: no answer, or the sample failed "
            f"(first: {_first(left_out)})"
        )
    if not responses:
        raise RunsError("no answers to export: every question failed or is empty")
    return BaselineResponses(
        model=name,
        responses=responses,
        generation_settings=settings,
        sources=[h.source for h in harvests],
    )


def _one_model(harvests: Sequence[_Harvest]) -> str:
    named = {h.model: h.source["path"] for h in harvests if h.model}
    if not named:
        raise RunsError(
            "the runs do not name the model (lm-eval samples without their results_<ts>.json): "
            "pass --model NAME"
        )
    if len(named) > 1:
        (a, a_path), (b, b_path) = list(named.items())[:2]
        raise RunsError(
            f"the runs hold answers of different models: {a} ({a_path}) and {b} ({b_path}); "
            "export one model's runs (or name the model with --model)"
        )
    return next(iter(named))


def _one_setting(harvests: Sequence[_Harvest]) -> dict[str, Any]:
    first = harvests[0]
    for other in harvests[1:]:
        if other.settings != first.settings:
            raise RunsError(
                f"the answers were generated with different settings: {first.settings} "
                f"({first.source['path']}) and {other.settings} ({other.source['path']}); a "
                "baseline file records one set, so export these runs separately"
            )
    return dict(first.settings)


# --- judged runs --------------------------------------------------------------------------------


@dataclass
class RunOutcomes:
    """One target model's judged questions under one judge."""

    judge: str
    # question id -> (outcome +1/0/-1 or None = unscored, language)
    outcomes: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    # question id -> digest of what the judge was shown (target and baseline answers), to tell
    # runs that differ in more than the judge
    answer_digests: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)


def _digest(*parts: str | None) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def _pair(values: Any, where: str) -> tuple[int | None, str]:
    if not isinstance(values, (list, tuple)) or len(values) != 5:
        raise RunsError(f"{where}: expected a judged result [outcome, language, topic, ...]")
    outcome, language = values[0], values[1]
    if outcome is not None and (
        isinstance(outcome, bool)
        or not isinstance(outcome, (int, float))
        or outcome not in (-1, 0, 1)
    ):
        raise RunsError(f"{where}: outcome {outcome!r} is not +1, 0, -1 or null")
    return (None if outcome is None else int(outcome)), str(language)


def _inspect_outcomes(
    run: RunFile,
) -> tuple[str, str, dict[str, tuple[int | None, str]], dict[str, str]]:
    log = _read_inspect_log(run)
    grader = _role_model((log.eval.model_roles or {}).get(GRADER_ROLE))
    judge = grader or log.eval.model  # no grader role: the task graded itself (self_grade)
    outcomes: dict[str, tuple[int | None, str]] = {}
    digests: dict[str, str] = {}
    for sample in log.samples:
        score = (sample.scores or {}).get(SCORER)
        if sample.epoch != 1 or score is None:
            continue  # a failed sample has no score: it counts as unmatched
        meta = score.metadata or {}
        key = str(sample.id)
        outcomes[key] = _pair(meta.get("pair"), f"{run.path}, sample {key}")
        completion = sample.output.completion if sample.output else None
        digests[key] = _digest(completion, meta.get("baseline_answer"))
    return log.eval.model, judge, outcomes, digests


def _lm_eval_judge(
    line: Mapping[str, Any], results: Mapping[str, Any] | None, task: str
) -> str | None:
    settings = line["doc"].get("judge_settings")
    if isinstance(settings, str):
        try:
            settings = json.loads(settings)
        except json.JSONDecodeError:
            settings = None
    if isinstance(settings, dict) and settings.get("judge_model"):
        return str(settings["judge_model"])
    metadata = _task_config(results, task).get("metadata") or {}
    if isinstance(metadata, dict) and metadata.get("judge_model"):
        return str(metadata["judge_model"])
    return None


def _lm_eval_outcomes(
    run: RunFile, report: Report
) -> tuple[str, str, dict[str, tuple[int | None, str]], dict[str, str]]:
    results = _lm_eval_results(run)
    target = _lm_eval_model(results)
    if target is None:
        target = run.path.parent.name  # lm-eval names the folder after the model
        report(
            f"{run.path}: no results_{run.stamp}.json next to it; target model taken as {target}"
        )
    judges: set[str] = set()
    outcomes: dict[str, tuple[int | None, str]] = {}
    digests: dict[str, str] = {}
    for where, line in _samples_lines(run.path):
        key = str(line["doc"]["id"])
        if key in outcomes:
            raise RunsError(f"{where}: doc id {key!r} appears twice")
        if LM_EVAL_OUTCOME_KEY not in line:
            raise RunsError(f"{where}: no {LM_EVAL_OUTCOME_KEY!r} result (not a judged run?)")
        outcomes[key] = _pair(line[LM_EVAL_OUTCOME_KEY], where)
        digests[key] = _digest(_answer_text(line), line["doc"].get("baseline_answer"))
        judge = _lm_eval_judge(line, results, run.task)
        if judge:
            judges.add(judge)
    if len(judges) > 1:
        raise RunsError(f"{run.path}: several judges in one run: {', '.join(sorted(judges))}")
    return target, next(iter(judges), "unknown judge"), outcomes, digests


def read_judged_runs(path: str | Path, report: Report = _stderr) -> dict[str, RunOutcomes]:
    """Judged CultureSynth outcomes under `path` (a run, or a folder of runs), per target model;
    the runs of one target (e.g. one per language) are merged and must share one judge."""
    runs = [run for run in find_run_files(path, report) if run.judged]
    if not runs:
        raise RunsError(
            f"no judged CultureSynth run in {path} (expected Inspect culturesynth logs or lm-eval "
            "samples_culturesynth_<lang>_<ts>.jsonl)"
        )
    by_target: dict[str, RunOutcomes] = {}
    origin: dict[tuple[str, str], str] = {}
    for run in runs:
        if run.harness == INSPECT:
            target, judge, outcomes, digests = _inspect_outcomes(run)
        else:
            target, judge, outcomes, digests = _lm_eval_outcomes(run, report)
        merged = by_target.setdefault(target, RunOutcomes(judge))
        if merged.judge != judge:
            raise RunsError(
                f"{path}: {target} is judged by {merged.judge} ({merged.sources[0]}) and by "
                f"{judge} ({run.path}); give each judge's runs separately"
            )
        for key, outcome in outcomes.items():
            if key in merged.outcomes and merged.outcomes[key] != outcome:
                raise RunsError(
                    f"{target}, question {key}: different outcomes in {origin[(target, key)]} "
                    f"and {run.path}; keep one run per question"
                )
            merged.outcomes[key] = outcome
            merged.answer_digests[key] = digests[key]
            origin.setdefault((target, key), str(run.path))
        merged.sources.append(str(run.path))
    return by_target


# --- agreement ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelAgreement:
    """Two judges on one target model's answers."""

    target: str
    judge_a: str
    judge_b: str
    overall: dict[str, float]  # strict_agreement
    by_language: dict[str, dict[str, float]]
    n_answers_differ: int  # questions whose answers differ between the runs


@dataclass(frozen=True)
class AgreementReport:
    models: list[ModelAgreement]
    average: float  # unweighted mean over models, as Table 7's "Average"
    only_a: list[str]
    only_b: list[str]


def judge_agreement(a: Mapping[str, RunOutcomes], b: Mapping[str, RunOutcomes]) -> AgreementReport:
    """Strict agreement (paper Table 7) of the judges of `a` and `b` on every target model judged
    in both, overall and per language; the models' mean is Table 7's Average."""
    common = sorted(a.keys() & b.keys())
    if not common:
        raise RunsError(
            f"no target model is judged in both runs (A: {', '.join(sorted(a)) or 'none'}; "
            f"B: {', '.join(sorted(b)) or 'none'})"
        )
    models = []
    for target in common:
        run_a, run_b = a[target], b[target]
        out_a = {k: v[0] for k, v in run_a.outcomes.items()}
        out_b = {k: v[0] for k, v in run_b.outcomes.items()}
        language = {k: v[1] for k, v in run_b.outcomes.items()}
        language.update({k: v[1] for k, v in run_a.outcomes.items()})
        differ = sum(
            1
            for k in run_a.answer_digests.keys() & run_b.answer_digests.keys()
            if run_a.answer_digests[k] != run_b.answer_digests[k]
        )
        models.append(
            ModelAgreement(
                target=target,
                judge_a=run_a.judge,
                judge_b=run_b.judge,
                overall=strict_agreement(out_a, out_b),
                by_language=strict_agreement_by(out_a, out_b, language.__getitem__),
                n_answers_differ=differ,
            )
        )
    average = mean_agreement({m.target: m.overall for m in models})
    return AgreementReport(
        models, average, sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
    )


def _rate(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.2f}"


def format_agreement(report: AgreementReport, label_a: str, label_b: str) -> str:
    """A table per target model (overall %, n compared, per-language %) and the Average row."""
    seen = {lang for m in report.models for lang in m.by_language}
    languages = [lang for lang in LANGUAGES if lang in seen] + sorted(seen - set(LANGUAGES))
    header = ["target model", "judge A", "judge B", "agreement", "n", "unscored", "unmatched"]
    header += languages
    rows = [header]
    for m in report.models:
        row = [m.target, m.judge_a, m.judge_b, _rate(m.overall["agreement"])]
        row += [str(int(m.overall[k])) for k in ("n_compared", "n_unscored", "n_unmatched")]
        row += [
            _rate(m.by_language[lang]["agreement"]) if lang in m.by_language else "-"
            for lang in languages
        ]
        rows.append(row)
    count = len(report.models)
    rows.append(
        [f"Average ({count} model{'s' if count != 1 else ''})", "", "", _rate(report.average)]
        + [""] * (len(header) - 4)
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "CultureSynth-7 judge agreement: strict, % of questions both judges scored with the same "
        "outcome (+1/0/-1), paper Table 7",
        f"A: {label_a}",
        f"B: {label_b}",
        "",
    ]
    for row in rows:
        cells = [
            cell.ljust(width) if i < 3 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.append(
        "n: questions scored by both judges; unscored: by one or both; unmatched: in one run only. "
        "Per-language columns: agreement %. Average: unweighted mean over target models."
    )
    return "\n".join(lines)
