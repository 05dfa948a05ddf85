"""Writes this folder's lm-eval YAML from the CultureSynth-7 spec; run it with `python -m`."""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.culturesynth import spec
from inspect_culture.benchmarks.culturesynth.source import CULTURESYNTH
from inspect_culture.datasets_hub.languages import LANGUAGES as LANGUAGE_MAP
from inspect_culture.lm_eval_tasks.yaml_generation import (
    family_files,
    generation_template,
    group,
    main,
    render,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.culturesynth._generate_configs"
JUDGED, ANSWERS = "culturesynth", "culturesynth_answers"
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


def template(kind: str) -> dict[str, Any]:
    judged = kind == JUDGED
    return generation_template(
        "inspect_culture.lm_eval_tasks.culturesynth.utils",
        spec.GENERATION,
        spec.HEADLINE_METRICS if judged else [spec.ANSWERED],
        load="load_judged_docs" if judged else "load_answer_docs",
        process_results="process_results" if judged else "process_answers",
        lower_is_better=spec.LOWER_IS_BETTER,
        prefix="agg_" if judged else None,
        doc_to_text="{{question}}",
        judged=judged,
        metadata={
            "version": spec.TASK_VERSION,
            "judge_prompt_version": spec.JUDGE_PROMPT_VERSION,
            "pairwise_parser_version": spec.PAIRWISE_PARSER_VERSION,
            "dataset": CULTURESYNTH.repo,
            "dataset_revision": f"{CULTURESYNTH.revision} (unpinned; its sha256 in metadata.provenance)",
        },
    )


def generate() -> dict[str, str]:
    files: dict[str, str] = {}
    for kind in (JUDGED, ANSWERS):
        note = f"{TEMPLATE_NOTES[kind]}\n{GENERATION_NOTE}"
        tasks = []
        for language in (*spec.LANGUAGES, None):
            where = LANGUAGE_MAP[language].name if language else "all seven languages"
            alias = f"{ALIASES[kind][0]}, {where}"
            tasks.append((f"{kind}_{language or 'all'}", alias, {"language": language}))
        files |= family_files(GENERATOR, f"_{kind}_template_yaml", template(kind), note, tasks)
        metric: dict[str, Any] = {"metric": spec.ANSWERED, "weight_by_size": True}
        if kind == JUDGED:
            metric = {"metric": spec.GROUP_METRIC, "filter_list": "judged", "weight_by_size": True}
        tasks = [f"{kind}_{language}" for language in spec.LANGUAGES]
        config = group(kind, " ".join(ALIASES[kind]), tasks, spec.TASK_VERSION, [metric])
        files[f"{kind}.yaml"] = render(config, generator=GENERATOR, comment=GROUP_NOTES[kind])
    return files


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
