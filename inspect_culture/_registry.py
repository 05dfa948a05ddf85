"""Inspect AI entry point (`[project.entry-points.inspect_ai]`): importing it registers every task."""

from inspect_culture.care import care
from inspect_culture.care_agreement import care_judge_agreement
from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_vs
from inspect_culture.culturesynth import culturesynth, culturesynth_answers
from inspect_culture.normad import normad

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
