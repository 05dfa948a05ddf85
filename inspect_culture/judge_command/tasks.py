"""Which lm-eval tasks carry a judge (the registry's `lm_eval_judged` families), and their module."""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_culture.benchmark_registry import benchmarks, resolve
from inspect_culture.judging.constraints import VerdictFormat


@dataclass(frozen=True)
class JudgedTask:
    module: str  # the lm-eval adapter module
    probe_format: VerdictFormat  # what a constrained judge is probed with


def judged_task(task: str) -> JudgedTask | None:
    """The judged benchmark of an lm-eval task name; None for tasks without a judge."""
    for family in (f for b in benchmarks() for f in b.lm_eval_judged):
        if re.fullmatch(family.pattern, task):
            return JudgedTask(family.module, resolve(family.probe_format)(*family.probe_args))
    return None
