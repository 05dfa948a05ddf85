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
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.care._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.care.utils"
TEMPLATE = "_care_template_yaml"
TEMPLATE_NOTE = """Shared settings of the CARE tasks. Not indexed (no .yaml suffix); included by
each task. description: the prompting's system prompt (empty for zero-shot), a system message
under --apply_chat_template. Generation: paper App. B (scorers.care.spec.GENERATION).
judge_mapping: paper (rubric by content), or by file name with
--metadata '{"judge_mapping": "upstream"}'."""


def template() -> dict[str, Any]:
    return generation_template(
        generation=spec.GENERATION.lm_eval_kwargs(),
        process_results=function(UTILS, "process_results"),
        metric_list=metric_list(UTILS, spec.metric_names(), spec.UNSCORED_COUNTS),
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


def loader_name(language: str, prompting: str) -> str:
    """The `custom_dataset` of each task YAML: load_care_zh, load_care_zh_cot, ..."""
    return f"load_{spec.task_name(language, prompting)}"


def task(language: str, prompting: str) -> dict[str, Any]:
    return {
        "include": TEMPLATE,
        "task": spec.task_name(language, prompting),
        "custom_dataset": function(UTILS, loader_name(language, prompting)),
        "task_alias": f"CARE {LANGUAGES[language].name}, {spec.PROMPTING_LABELS[prompting]}",
    }


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
