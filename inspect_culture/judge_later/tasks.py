"""Which lm-eval tasks carry a judge, and where their scoring functions live (from the
registry's `lm_eval_judged` families).

A task is judged when its docs carry `judge_settings`; its module holds `judge_filter`,
`process_results` and `agg_<metric>`, the same functions the task YAML names.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from types import ModuleType

from inspect_culture.judging.constraints import VerdictFormat
from inspect_culture.registry import benchmarks, resolve


@dataclass(frozen=True)
class JudgedTask:
    """A judged benchmark: its lm-eval adapter module and the verdict format a constrained
    judge is probed with."""

    benchmark: str
    module: str
    probe_format: VerdictFormat

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


def judged_task(task: str) -> JudgedTask | None:
    """The judged benchmark of an lm-eval task name; None for tasks without a judge."""
    for family in (f for b in benchmarks() for f in b.lm_eval_judged):
        if re.fullmatch(family.pattern, task):
            probe = resolve(family.probe_format)(*family.probe_args)
            return JudgedTask(family.label, family.module, probe)
    return None


def judged_labels() -> list[str]:
    """The judged task families, as messages name them ("CARE", "CQ-Bench VE", ...)."""
    return [family.label for b in benchmarks() for family in b.lm_eval_judged]
