"""`culture-evals agreement` for CultureSynth-7: two judges' strict agreement (paper Table 7)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_culture.benchmarks.culturesynth.data import LANGUAGES
from inspect_culture.benchmarks.culturesynth.metrics import (
    mean_agreement,
    strict_agreement,
    strict_agreement_by,
)
from inspect_culture.benchmarks.culturesynth.spec import PairOutcome
from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.judging.jury import GRADER_ROLE
from inspect_culture.run_files import RunsError
from inspect_culture.run_files import culturesynth_runs as runs
from inspect_culture.run_files import lm_eval_outputs as lm
from inspect_culture.run_files.judge_comparison import decimal_cell, judge_warnings, table_text


@dataclass
class RunOutcomes:
    judge: str
    # question id -> (outcome +1/0/-1 or None = unscored, language)
    outcomes: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    # question id -> digest of the target and baseline answers the judge was shown
    answer_digests: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)


def _digest(*parts: str | None) -> str:
    return sha256_text(json.dumps(parts, ensure_ascii=False))


def _pair(values: Any, where: str) -> tuple[int | None, str]:
    """(outcome, language) of the spec's record, or of the list of runs before task version 2."""
    try:
        if isinstance(values, (list, tuple)) and len(values) >= 5:
            outcome, language = values[0], values[1]
        else:
            record = PairOutcome.from_record(values)
            outcome, language = record.outcome, record.language
    except (TypeError, ValueError):
        raise RunsError(f"{where}: expected a judged result (a PairOutcome record)") from None
    if outcome is not None and (isinstance(outcome, bool) or outcome not in (-1, 0, 1)):
        raise RunsError(f"{where}: outcome {outcome!r} is not +1, 0, -1 or null")
    return (None if outcome is None else int(outcome)), str(language)


def _inspect_outcomes(run: runs.RunFile) -> tuple[str, RunOutcomes]:
    """(target model, its outcomes); with no grader role the task graded itself (self_grade)."""
    log = runs.log_with_samples(run)
    found = RunOutcomes(
        runs.role_model_names((log.eval.model_roles or {}).get(GRADER_ROLE)) or log.eval.model
    )
    for sample in log.samples:
        score = (sample.scores or {}).get(runs.SCORER)
        if sample.epoch != 1 or score is None:
            continue  # a failed sample has no score: it counts as unmatched
        meta = score.metadata or {}
        key = str(sample.id)
        found.outcomes[key] = _pair(meta.get("pair"), f"{run.path}, sample {key}")
        completion = sample.output.completion if sample.output else None
        found.answer_digests[key] = _digest(completion, meta.get("baseline_answer"))
    return log.eval.model, found


def _lm_eval_outcomes(run: runs.RunFile, report: runs.Report) -> tuple[str, RunOutcomes]:
    """(target model, its outcomes) of an lm-eval samples file; one judge per run."""
    results = lm.results_of(run.path, RunsError)
    if (target := lm.model_of(results)) is None:
        target = run.path.parent.name  # lm-eval names the folder after the model
        report(
            f"{run.path}: no results_{run.stamp}.json next to it; target model taken as {target}"
        )
    judges: set[str] = set()
    outcomes: dict[str, tuple[int | None, str]] = {}
    digests: dict[str, str] = {}
    for where, key, line in lm.samples(run.path):
        if runs.LM_EVAL_OUTCOME_KEY not in line:
            raise RunsError(f"{where}: no {runs.LM_EVAL_OUTCOME_KEY!r} result (not a judged run?)")
        record = lm.outcome_record(line, runs.LM_EVAL_OUTCOME_KEY)  # an old run's list: as is
        outcomes[key] = _pair(line[runs.LM_EVAL_OUTCOME_KEY] if record is None else record, where)
        digests[key] = _digest(lm.answer_text(line), line["doc"].get("baseline_answer"))
        # the judge the filter used, else the task's metadata
        for found in (lm.judge_reply_of(line), lm.task_config(results, run.task).get("metadata")):
            if isinstance(found, dict) and found.get("judge_model"):
                judges.add(str(found["judge_model"]))
                break
    if len(judges) > 1:
        raise RunsError(f"{run.path}: several judges in one run: {', '.join(sorted(judges))}")
    return target, RunOutcomes(next(iter(judges), "unknown judge"), outcomes, digests)


def read_judged_runs(
    path: str | Path, report: runs.Report = runs.report_to_stderr
) -> dict[str, RunOutcomes]:
    """Judged outcomes under `path` per target model; a target's runs merge and share one judge."""
    if not (judged := [run for run in runs.find_run_files(path, report) if run.judged]):
        raise RunsError(
            f"no judged CultureSynth run in {path} (expected Inspect culturesynth logs or lm-eval "
            "samples_culturesynth_<lang>_<ts>.jsonl)"
        )
    by_target: dict[str, RunOutcomes] = {}
    origin: dict[tuple[str, str], str] = {}
    for run in judged:
        if run.harness == runs.INSPECT:
            target, found = _inspect_outcomes(run)
        else:
            target, found = _lm_eval_outcomes(run, report)
        merged = by_target.setdefault(target, RunOutcomes(found.judge))
        if merged.judge != found.judge:
            raise RunsError(
                f"{path}: {target} is judged by {merged.judge} ({merged.sources[0]}) and by "
                f"{found.judge} ({run.path}); give each judge's runs separately"
            )
        for key, outcome in found.outcomes.items():
            if key in merged.outcomes and merged.outcomes[key] != outcome:
                raise RunsError(
                    f"{target}, question {key}: different outcomes in {origin[(target, key)]} "
                    f"and {run.path}; keep one run per question"
                )
            merged.outcomes[key] = outcome
            merged.answer_digests[key] = found.answer_digests[key]
            origin.setdefault((target, key), str(run.path))
        merged.sources.append(str(run.path))
    return by_target


# --- agreement ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelAgreement:
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


def compare_judges(a: Mapping[str, RunOutcomes], b: Mapping[str, RunOutcomes]) -> AgreementReport:
    """Table 7's strict agreement on each target judged in both, overall, by language; Average."""
    if not (common := sorted(a.keys() & b.keys())):
        raise RunsError(
            f"no target model is judged in both runs (A: {', '.join(sorted(a)) or 'none'}; "
            f"B: {', '.join(sorted(b)) or 'none'})"
        )
    models = []
    for target in common:
        run_a, run_b = a[target], b[target]
        out_a = {k: v[0] for k, v in run_a.outcomes.items()}
        out_b = {k: v[0] for k, v in run_b.outcomes.items()}
        language = {k: v[1] for run in (run_b, run_a) for k, v in run.outcomes.items()}
        digests_a, digests_b = run_a.answer_digests, run_b.answer_digests
        differ = sum(digests_a[k] != digests_b[k] for k in digests_a.keys() & digests_b.keys())
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


def compare(a: str | Path, b: str | Path) -> tuple[str, list[str]]:
    """`culture-evals agreement --benchmark culturesynth`: the table and the warnings."""
    report = compare_judges(read_judged_runs(a), read_judged_runs(b))
    seen = {lang for m in report.models for lang in m.by_language}
    languages = [lang for lang in LANGUAGES if lang in seen] + sorted(seen - set(LANGUAGES))
    header = ["target model", "judge A", "judge B", "agreement", "n", "unscored", "unmatched"]
    rows = [header + languages]
    for m in report.models:
        row = [m.target, m.judge_a, m.judge_b, decimal_cell(m.overall["agreement"])]
        row += [str(int(m.overall[k])) for k in ("n_compared", "n_unscored", "n_unmatched")]
        row += [
            decimal_cell(m.by_language[lang]["agreement"]) if lang in m.by_language else "-"
            for lang in languages
        ]
        rows.append(row)
    count = len(report.models)
    rows.append(
        [
            f"Average ({count} model{'s' if count != 1 else ''})",
            "",
            "",
            decimal_cell(report.average),
        ]
        + [""] * (len(rows[0]) - 4)
    )
    text = table_text(
        "CultureSynth-7 judge agreement: strict, % of questions both judges scored with the same "
        "outcome (+1/0/-1), paper Table 7",
        str(a),
        str(b),
        rows,
        3,
        "n: questions scored by both judges; unscored: by one or both; unmatched: in one run only. "
        "Per-language columns: agreement %. Average: unweighted mean over target models.",
    )
    warnings = [
        f"only in {side}, not compared: {', '.join(models)}"
        for side, models in (("A", report.only_a), ("B", report.only_b))
        if models
    ]
    for m in report.models:
        warnings += judge_warnings(m.judge_a, m.judge_b, m.n_answers_differ, f"{m.target}: ")
    return text, warnings
