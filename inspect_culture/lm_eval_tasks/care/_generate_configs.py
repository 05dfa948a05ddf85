"""Writes this folder's lm-eval YAML from the CARE spec; run it with `python -m` (`--check`)."""

from __future__ import annotations

from inspect_culture.benchmarks.care import spec
from inspect_culture.datasets_hub.languages import LANGUAGES
from inspect_culture.lm_eval_tasks.care.human_agreement import agreement_template, task_name
from inspect_culture.lm_eval_tasks.care.utils import template
from inspect_culture.lm_eval_tasks.yaml_generation import (
    family_files,
    group,
    main,
    render,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.care._generate_configs"
TEMPLATE_NOTE = """Shared settings of the CARE tasks. Not indexed (no .yaml suffix); included by
each task, which fixes language and prompting (dataset_kwargs.variant). Per-category ratings:
`culture-evals report` of a --log_samples run. description: the prompting's system prompt (empty for zero-shot), a system message
under --apply_chat_template. Generation: paper App. B (benchmarks.care.spec.GENERATION).
judge_mapping: paper (rubric by content), or by file name with
--metadata '{"judge_mapping": "upstream"}'."""


AGREEMENT_NOTE = """Shared settings of the CARE judge-agreement tasks: the evaluated model is the
judge, rating CARE's human-rated responses (Inspect's care_judge_agreement). Greedy, the judge
seed and the judge's reply cap. judge_mapping: paper, or upstream with --metadata."""


def generate() -> dict[str, str]:
    zero_shot = [spec.task_name(language, "zero_shot") for language in spec.CARE_LANGUAGES]
    rating = {"metric": spec.GROUP_METRIC, "filter_list": "judged", "weight_by_size": True}
    config = group("care", "CARE (zero-shot)", zero_shot, spec.TASK_VERSION, [rating])
    tasks = []
    for language in spec.CARE_LANGUAGES:
        for prompting in spec.PROMPTINGS:
            alias = f"CARE {LANGUAGES[language].name}, {spec.PROMPTING_LABELS[prompting]}"
            variant = {"language": language, "prompting": prompting}
            tasks.append((spec.task_name(language, prompting), alias, variant))
    files = family_files(GENERATOR, "_care_template_yaml", template(), TEMPLATE_NOTE, tasks)
    agreement = [
        (
            task_name(lang),
            f"CARE judge agreement, {LANGUAGES[lang].name if lang else 'every language'}",
            {"language": lang},
        )
        for lang in (None, *spec.CARE_LANGUAGES)
    ]
    files |= family_files(
        GENERATOR, "_care_agreement_template_yaml", agreement_template(), AGREEMENT_NOTE, agreement
    )
    return files | {"care.yaml": render(config, generator=GENERATOR)}


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
