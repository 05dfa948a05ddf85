"""Write CARE's lm-eval YAML from the spec: one task per language and prompting, the shared
template and the zero-shot group.

    python -m inspect_culture.lm_eval_tasks.care._generate_configs [--check]
"""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.care import spec
from inspect_culture.benchmarks.care.source import CARE
from inspect_culture.datasets_hub.languages import LANGUAGES
from inspect_culture.lm_eval_tasks.yaml_generation import (
    function,
    generation_template,
    group,
    main,
    metric_list,
    render,
    variant_task,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.care._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.care.utils"
TEMPLATE = "_care_template_yaml"
# lm-eval's table: the rating with its interval and the counts; the per-category and per-scope
# ratings are `culture-evals report`'s (from the samples file's outcome records)
METRICS = ("n_scored", "n_unscored", "unscored_rate", "rating", "rating_ci_low", "rating_ci_high")
TEMPLATE_NOTE = """Shared settings of the CARE tasks. Not indexed (no .yaml suffix); included by
each task, which fixes language and prompting (dataset_kwargs.variant). Per-category ratings:
`culture-evals report` of a --log_samples run. description: the prompting's system prompt (empty for zero-shot), a system message
under --apply_chat_template. Generation: paper App. B (scorers.care.spec.GENERATION).
judge_mapping: paper (rubric by content), or by file name with
--metadata '{"judge_mapping": "upstream"}'."""


def template() -> dict[str, Any]:
    return generation_template(
        generation=spec.GENERATION.lm_eval_kwargs(),
        custom_dataset=function(UTILS, "load_docs"),
        process_results=function(UTILS, "process_results"),
        metric_list=metric_list(UTILS, METRICS, spec.UNSCORED_COUNTS),
        description="{{system_prompt}}",
        doc_to_target="{{answer}}",
        judge_filter=function(UTILS, "judge_filter"),
        metadata={
            "version": spec.TASK_VERSION,
            "judge_mapping": spec.DEFAULT_JUDGE_MAPPING,
            **spec.JUDGE_VERSIONS,
            "dataset": CARE.repo,
            "dataset_revision": CARE.revision,
        },
    )


def task(language: str, prompting: str) -> dict[str, Any]:
    alias = f"CARE {LANGUAGES[language].name}, {spec.PROMPTING_LABELS[prompting]}"
    name = spec.task_name(language, prompting)
    return variant_task(TEMPLATE, name, alias, language=language, prompting=prompting)


def zero_shot_group() -> dict[str, Any]:
    tasks = [spec.task_name(language, "zero_shot") for language in spec.CARE_LANGUAGES]
    rating = {"metric": spec.GROUP_METRIC, "filter_list": "judged", "weight_by_size": True}
    return group("care", "CARE (zero-shot)", tasks, spec.TASK_VERSION, [rating])


def generate() -> dict[str, str]:
    files = {
        TEMPLATE: render(template(), generator=GENERATOR, comment=TEMPLATE_NOTE),
        "care.yaml": render(zero_shot_group(), generator=GENERATOR),
    }
    for language in spec.CARE_LANGUAGES:
        for prompting in spec.PROMPTINGS:
            files[f"{spec.task_name(language, prompting)}.yaml"] = render(
                task(language, prompting), generator=GENERATOR
            )
    return files


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
