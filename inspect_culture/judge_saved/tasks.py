"""Which lm-eval tasks carry a judge, and where their scoring functions live.

A task is judged when its docs carry `judge_settings`; its module holds `judge_filter`,
`process_results` and `agg_<metric>`, the same functions the task YAML names.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from types import ModuleType

from inspect_culture.scorers.judge.constraints import (
    VerdictFormat,
    care_rating_format,
    pairwise_verdict_format,
    ve_scores_format,
)


@dataclass(frozen=True)
class JudgedTask:
    """A judged benchmark: its lm-eval adapter module and the verdict format a constrained
    judge is probed with."""

    benchmark: str
    module: str
    probe_format: VerdictFormat

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


_JUDGED: tuple[tuple[re.Pattern[str], JudgedTask], ...] = (
    (
        re.compile(r"care_[a-z]{2}(_cot|_role_play)?"),
        JudgedTask("CARE", "inspect_culture.lm_eval_tasks.care.utils", care_rating_format()),
    ),
    (
        re.compile(r"culturesynth_(?!answers_)[a-z]+"),
        JudgedTask(
            "CultureSynth-7",
            "inspect_culture.lm_eval_tasks.culturesynth.utils",
            pairwise_verdict_format(),
        ),
    ),
    (
        re.compile(r"cqbench_ve_(?!summary_)[a-z]+"),
        JudgedTask("CQ-Bench VE", "inspect_culture.lm_eval_tasks.cqbench.ve", ve_scores_format(2)),
    ),
)


def judged_task(task: str) -> JudgedTask | None:
    """The judged benchmark of an lm-eval task name; None for tasks without a judge."""
    for pattern, found in _JUDGED:
        if pattern.fullmatch(task):
            return found
    return None
