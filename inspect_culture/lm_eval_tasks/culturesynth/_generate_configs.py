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
    variant_task,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.culturesynth._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.culturesynth.utils"
JUDGED, ANSWERS = "culturesynth", "culturesynth_answers"
# lm-eval's table: the net win rate with its interval and the counts; per language and topic,
# wins, ties, losses and position consistency are `culture-evals report`'s (from the samples
# file's outcome records)
METRICS = (
    "n_scored", "n_unscored", "n_missing_baseline", "net_win_rate", "net_win_rate_ci_low",
    "net_win_rate_ci_high", "weighted_average",
)  # fmt: skip
TEMPLATE_NOTES = {
    JUDGED: """Shared settings of the judged CultureSynth-7 tasks. Not indexed (no .yaml suffix).
Needs --metadata '{"baseline_responses": FILE, "judge_model": ..., "judge_base_url": ...}'.
Metrics: the headline ones; per language and topic, wins, ties, losses and position
consistency are in `culture-evals report` of a --log_samples run.""",
    ANSWERS: """CultureSynth-7 answers only (no judge): run with the baseline model and
--log_samples, then `culture-evals baseline export DIR -o FILE`. Not indexed (no .yaml suffix).""",
}
GENERATION_NOTE = """The paper states no decoding settings: greedy, up to 2048 new tokens
(docs/culturesynth.md). Each task fixes its language (dataset_kwargs.variant)."""
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
        load, process, names, judge = "load_answer_docs", "process_answers", [spec.ANSWERED], None
    else:
        load, process, names, judge = "load_judged_docs", "process_results", METRICS, "judge_filter"
    return generation_template(
        generation=spec.GENERATION.lm_eval_kwargs(),
        custom_dataset=function(UTILS, load),
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
    alias = f"{ALIASES[kind][0]}, {where}"
    return variant_task(f"_{kind}_template_yaml", f"{kind}_{suffix}", alias, language=language)


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
