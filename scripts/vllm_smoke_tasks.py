"""The Inspect side of `scripts/vllm-smoke`: every benchmark family as one task file, so that one
`inspect eval scripts/vllm_smoke_tasks.py --model vllm/<dir>` runs them all on one vLLM server
(the task settings match the lm-eval tasks the smoke runs). Read by path: absolute imports only.

Environment: SMOKE_BASELINE (CultureSynth baseline answers file), SMOKE_JUDGE_CONSTRAINT.
"""

import os

from inspect_ai import Task, task

from inspect_culture.care import care
from inspect_culture.cqbench import cqbench_ad, cqbench_ve, cqbench_vs
from inspect_culture.culturesynth import culturesynth
from inspect_culture.normad import normad

CONSTRAINT = os.environ.get("SMOKE_JUDGE_CONSTRAINT", "regex")


@task
def normad_rot() -> Task:
    return normad(context="rot")


@task
def normad_value_country() -> Task:
    return normad(context="value_country")


@task
def normad_country() -> Task:
    return normad(context="country")


@task
def normad_none() -> Task:
    return normad(context="none")


@task
def care_zh() -> Task:
    return care(language="zh", per_category=1, judge_constraint=CONSTRAINT)


@task
def cqbench_ad_social() -> Task:
    return cqbench_ad(setting="social")


@task
def cqbench_vs_social() -> Task:
    return cqbench_vs(setting="social")


@task
def cqbench_ve_social() -> Task:
    return cqbench_ve(setting="social", judge_constraint=CONSTRAINT)


@task
def culturesynth_zh() -> Task:
    return culturesynth(
        language="zh", baseline_responses=os.environ["SMOKE_BASELINE"], judge_constraint=CONSTRAINT
    )
