"""Which lm-eval tasks carry a judge (the registry's `lm_eval_judged` families), and their module."""

from __future__ import annotations

import re
from dataclasses import dataclass

from inspect_culture.benchmark_registry import benchmarks, import_dotted
from inspect_culture.judging.constraints import VerdictFormat


@dataclass(frozen=True)
class JudgedTask:
    module: str  # the lm-eval adapter module
    probe_format: VerdictFormat  # what a constrained judge is probed with
    options: tuple[str, ...] = ()  # the benchmark's `--metadata` keys, which its docs carry


def judged_task(task: str) -> JudgedTask | None:
    """The judged benchmark of an lm-eval task name; None for tasks without a judge."""
    for owner in benchmarks():
        for family in owner.lm_eval_judged:
            if re.fullmatch(family.pattern, task):
                probe = import_dotted(family.probe_format)(*family.probe_args)
                return JudgedTask(family.module, probe, owner.lm_eval_options)
    return None
