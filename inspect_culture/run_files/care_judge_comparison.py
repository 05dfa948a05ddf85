"""`culture-evals agreement` for CARE's 1-10 ratings: exact, distance, correlations, kappa."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_culture.benchmark_registry import benchmark
from inspect_culture.benchmarks.care.spec import CareOutcome
from inspect_culture.datasets_hub.hashing import sha256_text
from inspect_culture.judging.reasons import JUDGE_LATER
from inspect_culture.run_files import RunsError
from inspect_culture.run_files import lm_eval_outputs as lm
from inspect_culture.run_files.finder import LM_EVAL_SAMPLES, SAMPLES_NAME, run_files
from inspect_culture.run_files.judge_comparison import decimal_cell, judge_warnings, table_text
from inspect_culture.stats.human_agreement import correlations

# the judged CARE tasks, as the registry names them for `culture-evals judge`
_TASK = re.compile(benchmark("care").lm_eval_judged[0].pattern)
OUTCOME_KEY = (
    "rating"  # the metric field whose per-doc CareOutcome record is read (`outcome_record`)
)
SCALE = range(1, 11)


@dataclass
class CareJudgements:
    judge: str
    ratings: dict[tuple[str, str], float | None] = field(default_factory=dict)  # None: unscored
    answers: dict[tuple[str, str], str] = field(default_factory=dict)  # digests


def care_samples_files(path: str | Path) -> list[Path]:
    """CARE samples files under `path` (newest per folder and task), or `path` itself."""
    path = Path(path).expanduser()
    if not path.exists():
        raise RunsError(f"{path} does not exist")
    files = [path] if path.is_file() else run_files(path, [LM_EVAL_SAMPLES])
    return lm.newest_samples(files, _TASK)


def holds(path: str | Path) -> bool:
    return bool(care_samples_files(path))


def read_care_judgements(path: str | Path) -> CareJudgements:
    """Every CARE rating under `path`; all must come from one judge."""
    if not (files := care_samples_files(path)):
        raise RunsError(f"no CARE samples file (samples_care_<lang>_<timestamp>.jsonl) in {path}")
    judges: set[str] = set()
    found = CareJudgements("")
    for file in files:
        task = SAMPLES_NAME.match(file.name)["task"]  # type: ignore[index]
        for where, key, line in lm.samples(file):
            if OUTCOME_KEY not in line:
                raise RunsError(f"{where}: no {OUTCOME_KEY!r} result (not a judged CARE run?)")
            try:
                outcome = CareOutcome.from_record(lm.outcome_record(line, OUTCOME_KEY) or {})
            except (TypeError, ValueError, KeyError):
                raise RunsError(f"{where}: field {OUTCOME_KEY!r} is not a CARE outcome") from None
            reply = lm.judge_reply_of(line)
            if not reply.get("judge_model") and str(reply.get("error")).startswith(JUDGE_LATER):
                raise RunsError(
                    f"{where}: not judged (judge_later run); judge it with culture-evals judge"
                )
            judges.add(str(reply.get("judge_model") or "unknown judge"))
            found.ratings[(task, key)] = outcome.rating
            found.answers[(task, key)] = sha256_text(json.dumps(line.get("resps")))
    if len(judges) > 1:
        raise RunsError(f"{path}: several judges ({', '.join(sorted(judges))}); give one each")
    found.judge = judges.pop()
    return found


def weighted_kappa(a: Sequence[int], b: Sequence[int], scale: Sequence[int] = SCALE) -> float:
    """Cohen's kappa with quadratic weights over `scale` (scikit-learn's); NaN when the expected
    disagreement is zero: no ratings, or one and the same rating from both judges throughout."""
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} vs {len(b)}")
    values = list(scale)
    if outside := sorted(set(a).union(b).difference(values)):
        raise ValueError(f"ratings {outside} are not on the scale {values}")
    if len(set(a).union(b)) < 2:  # scikit-learn would warn, and older releases divide by zero
        return math.nan
    from sklearn.metrics import cohen_kappa_score  # slow to import: only when agreement is asked

    return float(cohen_kappa_score(a, b, labels=values, weights="quadratic"))


def rating_agreement(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Two judges' ratings of the same answers (both scored)."""
    if not a:
        keys = ("exact", "within_1", "mad", "pearson", "spearman", "kappa_quadratic")
        return dict.fromkeys(keys, math.nan)
    n = len(a)
    rounded_a = [int(math.floor(x + 0.5)) for x in a]
    rounded_b = [int(math.floor(x + 0.5)) for x in b]
    found = correlations(a, b)
    return {
        "exact": 100 * sum(x == y for x, y in zip(rounded_a, rounded_b)) / n,
        "within_1": 100 * sum(abs(x - y) <= 1 for x, y in zip(a, b)) / n,
        "mad": sum(abs(x - y) for x, y in zip(a, b)) / n,
        "pearson": found["pearson"],
        "spearman": found["spearman"],
        "kappa_quadratic": weighted_kappa(rounded_a, rounded_b),
    }


@dataclass(frozen=True)
class CareJudgeComparison:
    judge_a: str
    judge_b: str
    overall: dict[str, float]
    by_task: dict[str, dict[str, float]]
    n_compared: int
    n_unscored: int  # unscored by one or both judges
    n_unmatched: int  # in one run only
    n_answers_differ: int


def _compare(
    a: CareJudgements, b: CareJudgements, keys: list[tuple[str, str]]
) -> tuple[dict[str, float], int]:
    both = [k for k in keys if a.ratings[k] is not None and b.ratings[k] is not None]
    found = rating_agreement([a.ratings[k] for k in both], [b.ratings[k] for k in both])  # type: ignore[misc]
    return {**found, "n": float(len(both))}, len(keys) - len(both)


def compare_care_judges(a: CareJudgements, b: CareJudgements) -> CareJudgeComparison:
    if not (common := sorted(a.ratings.keys() & b.ratings.keys())):
        raise RunsError("no CARE question is judged in both runs (same tasks and doc ids?)")
    overall, unscored = _compare(a, b, common)
    tasks = sorted({task for task, _ in common})
    by_task = {t: _compare(a, b, [k for k in common if k[0] == t])[0] for t in tasks}
    return CareJudgeComparison(
        a.judge,
        b.judge,
        overall,
        by_task,
        n_compared=int(overall["n"]),
        n_unscored=unscored,
        n_unmatched=len(a.ratings.keys() ^ b.ratings.keys()),
        n_answers_differ=sum(a.answers[k] != b.answers[k] for k in common),
    )


def compare(a: str | Path, b: str | Path) -> tuple[str, list[str]]:
    """`culture-evals agreement --benchmark care`: the table and the warnings."""
    report = compare_care_judges(read_care_judgements(a), read_care_judgements(b))
    rows = [["task", "n", "exact %", "within-1 %", "MAD", "pearson", "spearman", "kappa_q"]]
    rows += [
        [
            name,
            str(int(found["n"])),
            decimal_cell(found["exact"], 1),
            decimal_cell(found["within_1"], 1),
        ]
        + [decimal_cell(found[k]) for k in ("mad", "pearson", "spearman", "kappa_quadratic")]
        for name, found in [*report.by_task.items(), ("overall", report.overall)]
    ]
    text = table_text(
        "CARE judge agreement: two judges' 1-10 ratings of the same answers",
        f"{a} (judge {report.judge_a})",
        f"{b} (judge {report.judge_b})",
        rows,
        1,
        f"n: answers both judges rated; {report.n_unscored} unscored by one or both, "
        f"{report.n_unmatched} in one run only. exact: same rating (rounded); MAD: mean absolute "
        "difference; kappa_q: Cohen's kappa, quadratic weights over 1-10.",
    )
    return text, judge_warnings(report.judge_a, report.judge_b, report.n_answers_differ)
