"""`culture-evals baseline export`: a model's answers from either harness as one baseline file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.culturesynth.baseline_responses import BaselineResponses
from inspect_culture.datasets_hub.hashing import sha256_file
from inspect_culture.judging.jury import BASELINE_ROLE
from inspect_culture.run_files import RunsError
from inspect_culture.run_files import culturesynth_runs as runs
from inspect_culture.run_files import lm_eval_outputs as lm


@dataclass
class _Harvest:
    model: str | None
    settings: dict[str, Any]
    answers: dict[str, str]
    left_out: list[str]
    source: dict[str, Any]


def _non_none(config: Any) -> dict[str, Any]:
    values = config.model_dump(exclude_none=True) if config is not None else {}
    return {k: v for k, v in values.items() if k not in runs.TRANSPORT_SETTINGS}


def _source(
    run: runs.RunFile, dataset_sha256: str | None, role: str | None = None
) -> dict[str, Any]:
    source = {"harness": run.harness, "path": str(run.path), "sha256": sha256_file(run.path)}
    source.update(task=run.task, dataset_sha256=dataset_sha256)
    return {**source, "role": role} if role else source


def _inspect_answers(run: runs.RunFile, role: str | None) -> _Harvest:
    """The evaluated model's answers, or with `role` the baseline answers a judged log recorded."""
    log = runs.log_with_samples(run)
    if role is not None and run.task != runs.INSPECT_JUDGED_TASK:
        raise RunsError(
            f"{run.path}: --role {role} needs a culturesynth log (task {run.task} has no "
            "baseline answers)"
        )
    answers: dict[str, str] = {}
    left_out: list[str] = []
    models: set[str] = set()
    for sample in log.samples:
        if sample.epoch != 1:
            continue
        if role is None:
            meta: dict[str, Any] = {}
            text = None if sample.error or not sample.output else sample.output.completion
        else:
            score = (sample.scores or {}).get(runs.SCORER)
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
    if role is None:
        # its own config under the task's and eval's (`plan.config`), as `Model._resolve_config`
        model = log.eval.model
        settings = _non_none(log.eval.model_generate_config.merge(log.plan.config))
    else:
        model = next(iter(models), None) or runs.role_model_names(
            (log.eval.model_roles or {}).get(role)
        )
        settings = _role_settings(log, role)
    dataset = (log.eval.metadata or {}).get("dataset") or {}
    dataset_sha256 = dataset.get("sha256") if isinstance(dataset, dict) else None
    return _Harvest(model, settings, answers, left_out, _source(run, dataset_sha256, role))


def _role_settings(log: Any, role: str) -> dict[str, Any]:
    """The baseline role's settings from the transcript, else those of the file it was read from."""
    from inspect_ai.event import ModelEvent

    for sample in log.samples:
        for event in sample.events or []:
            if isinstance(event, ModelEvent) and event.role == role:
                return _non_none(event.config)
    recorded = (log.eval.metadata or {}).get("baseline_generation_settings")
    return dict(recorded) if isinstance(recorded, dict) else {}


def _lm_eval_answers(run: runs.RunFile, role: str | None, report: runs.Report) -> _Harvest:
    if role is not None:
        raise RunsError(
            f"{run.path}: --role {role} reads the baseline answers recorded in Inspect culturesynth "
            "logs; export an lm-eval run of the baseline model itself (culturesynth_answers_<lang>) "
            "without --role"
        )
    if (results := lm.results_of(run.path, RunsError)) is None:
        report(
            f"{run.path}: no results_{run.stamp}.json next to it, so the generation settings are "
            "not recorded"
        )
    kwargs = lm.task_config(results, run.task).get("generation_kwargs")
    if results is not None and not isinstance(kwargs, dict):
        report(f"{run.path}: its results file has no generation_kwargs for {run.task}")
    answers: dict[str, str] = {}
    left_out: list[str] = []
    dataset_sha256: str | None = lm.task_provenance(results, run.task).get("sha256")
    for _, key, line in lm.samples(run.path):
        dataset_sha256 = dataset_sha256 or lm.task_provenance(None, run.task, line["doc"]).get(
            "sha256"
        )  # a run made before the task's metadata recorded it
        text = lm.answer_text(line)
        if text is None or not text.strip():
            left_out.append(key)
        else:
            answers[key] = text
    settings = (
        {k: v for k, v in kwargs.items() if v is not None} if isinstance(kwargs, dict) else {}
    )
    return _Harvest(lm.model_of(results), settings, answers, left_out, _source(run, dataset_sha256))


def export_baseline(
    inputs: Sequence[str | Path],
    role: str | None = None,
    model: str | None = None,
    *,
    report: runs.Report = runs.report_to_stderr,
) -> BaselineResponses:
    """One model's answers by question id; `role="baseline"`: those Inspect `culturesynth` logs
    recorded; `model` overrides the runs'. Unanswered questions are reported, conflicts errors."""
    if role is not None and role != BASELINE_ROLE:
        raise RunsError(f"--role {role}: the only role with answers is {BASELINE_ROLE!r}")
    if not (found := [run for path in inputs for run in runs.find_run_files(path, report)]):
        raise RunsError(
            f"no CultureSynth run in {', '.join(map(str, inputs))} (expected Inspect logs of "
            "culturesynth_answers or culturesynth, or lm-eval samples_culturesynth*_<ts>.jsonl)"
        )
    harvests = [
        _inspect_answers(run, role)
        if run.harness == runs.INSPECT
        else _lm_eval_answers(run, role, report)
        for run in found
    ]
    named = _model_named(harvests, model)
    first = harvests[0]
    for other in harvests[1:]:
        if other.settings != first.settings:
            raise RunsError(
                f"the answers were generated with different settings: {first.settings} "
                f"({first.source['path']}) and {other.settings} ({other.source['path']}); a "
                "baseline file records one set, so export these runs separately"
            )
    datasets = {h.source["dataset_sha256"]: h.source["path"] for h in harvests}
    datasets.pop(None, None)
    responses = _merged_answers(harvests, report)
    if len(datasets) > 1:
        listed = "; ".join(f"{path}: {sha}" for sha, path in datasets.items())
        raise RunsError(f"the inputs answered different dataset files: {listed}")
    return BaselineResponses(
        model=named,
        responses=responses,
        generation_settings=dict(first.settings),
        sources=[h.source for h in harvests],
        dataset_sha256=next(iter(datasets), None),
    )


def _model_named(harvests: list[_Harvest], model: str | None) -> str:
    """`model`, else the one model the runs name."""
    named = {h.model: h.source["path"] for h in harvests if h.model}
    if not model and not named:
        raise RunsError(
            "the runs do not name the model (lm-eval samples without their results_<ts>.json): "
            "pass --model NAME"
        )
    if not model and len(named) > 1:
        (a, a_path), (b, b_path) = list(named.items())[:2]
        raise RunsError(
            f"the runs hold answers of different models: {a} ({a_path}) and {b} ({b_path}); "
            "export one model's runs (or name the model with --model)"
        )
    return model or next(iter(named))


def _merged_answers(harvests: list[_Harvest], report: runs.Report) -> dict[str, str]:
    """Every run's answers, one per question (the same answer twice is fine, two an error)."""
    responses: dict[str, str] = {}
    origin: dict[str, str] = {}
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
    if left_out := sorted({key for h in harvests for key in h.left_out} - responses.keys()):
        shown = ", ".join(left_out[:5]) + (", ..." if len(left_out) > 5 else "")
        report(
            f"{len(left_out)} question(s) left out: no answer, or the sample failed "
            f"(first: {shown})"
        )
    if not responses:
        raise RunsError("no answers to export: every question failed or is empty")
    return responses
