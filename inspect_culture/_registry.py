"""Inspect AI entry point (`[project.entry-points.inspect_ai]`): importing it registers every task
and every scorer, so that `inspect score LOG --scorer inspect_culture/care_judge` finds a judge
scorer by its package-qualified name from any directory (docs/judge.md)."""

from inspect_culture.care import care, care_judge
from inspect_culture.care_agreement import care_judge_agreement
from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_ve_judge, cqbench_vs
from inspect_culture.culturesynth import culturesynth, culturesynth_answers, culturesynth_judge
from inspect_culture.normad import normad

# the judge scorers, for `inspect score --scorer inspect_culture/<name>`; __all__ lists tasks
JUDGE_SCORERS = (care_judge, culturesynth_judge, cqbench_ve_judge)

__all__ = [
    "care",
    "care_judge_agreement",
    "cqbench_ad",
    "cqbench_ve",
    "cqbench_vs",
    "culturesynth",
    "culturesynth_answers",
    "normad",
]
