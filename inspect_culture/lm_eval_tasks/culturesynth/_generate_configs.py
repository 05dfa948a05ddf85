"""Writes this folder's lm-eval YAML from the CultureSynth-7 spec (a judged and an answers-only
task per language and for all seven, two templates, two groups):
`python -m inspect_culture.lm_eval_tasks.culturesynth._generate_configs`."""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.culturesynth import spec
from inspect_culture.benchmarks.culturesynth.source import CULTURESYNTH
from inspect_culture.datasets_hub.languages import LANGUAGES as LANGUAGE_MAP
from inspect_culture.lm_eval_tasks.yaml_generation import (
    function,
    generation_template,
    group,
    main,
    metric_list,
    render,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.culturesynth._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.culturesynth.utils"
JUDGED, ANSWERS = "culturesynth", "culturesynth_answers"
TEMPLATE_NOTES = {
    JUDGED: """Shared settings of the judged CultureSynth-7 tasks. Not indexed (no .yaml suffix).
Needs --metadata '{"baseline_responses": FILE, "judge_model": ..., "judge_base_url": ...}'.
The metric list is every name of the spec's metric_names().""",
    ANSWERS: """CultureSynth-7 answers only (no judge): run with the baseline model and
--log_samples, then `culture-evals baseline export DIR -o FILE`. Not indexed (no .yaml suffix).""",
}
GENERATION_NOTE = """The paper states no decoding settings: greedy, up to 2048 new tokens
(docs/culturesynth.md). Each task's loader (`custom_dataset`) fixes its language."""
GROUP_NOTES = {
    JUDGED: 'Weighted by questions per language: the paper\'s "Weighted Average" (Table 3).',
    ANSWERS: "Answers only, for a baseline file.",
}
ALIASES = {
    JUDGED: (spec.BENCHMARK, "(net win rate vs the baseline file)"),
    ANSWERS: (f"{spec.BENCHMARK} answers only", "(for a baseline file)"),
}


def _template(kind: str) -> dict[str, Any]:
    if kind == ANSWERS:
        process, names, judge = "process_answers", [spec.ANSWERED], None
    else:
        process, names, judge = "process_results", spec.metric_names(), "judge_filter"
    return generation_template(
        generation=spec.GENERATION.lm_eval_kwargs(),
        process_results=function(UTILS, process),
        metric_list=metric_list(
            UTILS, names, spec.LOWER_IS_BETTER, prefix=None if kind == ANSWERS else "agg_"
        ),
        doc_to_text="{{question}}",
        doc_to_target="{{answer}}",
        judge_filter=function(UTILS, judge) if judge else None,
        metadata={
            "version": spec.TASK_VERSION,
            "judge_prompt_version": spec.JUDGE_PROMPT_VERSION,
            "pairwise_parser_version": spec.PAIRWISE_PARSER_VERSION,
            "dataset": CULTURESYNTH.repo,
            "dataset_revision": f"{CULTURESYNTH.revision} (unpinned; sha256 per doc)",
        },
    )


def _task(kind: str, language: str | None) -> dict[str, Any]:
    suffix = language or "all"
    where = LANGUAGE_MAP[language].name if language else "all seven languages"
    return {
        "include": f"_{kind}_template_yaml",
        "task": f"{kind}_{suffix}",
        "custom_dataset": function(UTILS, f"load_{kind}_{suffix}"),
        "task_alias": f"{ALIASES[kind][0]}, {where}",
    }


def _group(kind: str) -> dict[str, Any]:
    metric: dict[str, Any] = {"metric": spec.ANSWERED, "weight_by_size": True}
    if kind == JUDGED:
        metric = {"metric": spec.GROUP_METRIC, "filter_list": "judged", "weight_by_size": True}
    tasks = [f"{kind}_{language}" for language in spec.LANGUAGES]
    return group(kind, " ".join(ALIASES[kind]), tasks, spec.TASK_VERSION, [metric])


def generate() -> dict[str, str]:
    files: dict[str, str] = {}
    for kind in (JUDGED, ANSWERS):
        files[f"_{kind}_template_yaml"] = render(
            _template(kind),
            generator=GENERATOR,
            comment=f"{TEMPLATE_NOTES[kind]}\n{GENERATION_NOTE}",
        )
        for language in (*spec.LANGUAGES, None):
            files[f"{kind}_{language or 'all'}.yaml"] = render(
                _task(kind, language), generator=GENERATOR
            )
        files[f"{kind}.yaml"] = render(_group(kind), generator=GENERATOR, comment=GROUP_NOTES[kind])
    return files


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
