"""Writes this folder's lm-eval YAML from the CQ-Bench spec; run it with `python -m`."""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.source import CQBENCH
from inspect_culture.lm_eval_tasks.yaml_generation import (
    family_files,
    generation_template,
    group,
    main,
    render,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.cqbench._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.cqbench.utils"
VE = "inspect_culture.lm_eval_tasks.cqbench.ve"
# family -> (alias, module, loader, process_results, aggregation prefix (None: lm-eval's mean))
FAMILIES: dict[str, tuple[str, str, str, str, str | None]] = {
    "ad": ("AD", UTILS, "load_docs", "process_results_ad", "agg_ad_"),
    "vs": ("VS", UTILS, "load_docs", "process_results_vs", "agg_vs_"),
    "ve_summary": ("VE step 1 (summary)", VE, "load_summary_docs", "process_results_summary", None),
    "ve": ("VE", VE, "load_extraction_docs", "process_results", "agg_"),
}
# family -> group alias, how it averages spec.GROUP_METRICS[family] (None: no average)
GROUPS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "ad": ("CQ-Bench attitude detection", {"weight_by_size": True}),
    "vs": ("CQ-Bench value selection", {"weight_by_size": False}),
    "ve_summary": ("CQ-Bench value extraction, step 1 (summaries for cqbench_ve)", None),
    "ve": (
        "CQ-Bench value extraction (step 2; needs ve_summaries from cqbench_ve_summary)",
        {"filter_list": "judged", "weight_by_size": False},
    ),
}
TEMPLATE_NOTE = """Shared settings of the CQ-Bench {family} tasks. Not indexed (no .yaml suffix):
each task includes it and fixes setting and reasoning (dataset_kwargs.variant). Per-category
metrics: `culture-evals report` of a --log_samples run. The description
is the system prompt. VE is two runs: step 1 (--log_samples --output_path DIR), then step 2 with
ve_summaries=DIR, judged in the `judged` filter. Generation and metric names come from the spec."""


def template(family: str) -> dict[str, Any]:
    _, module, load, process_results, prefix = FAMILIES[family]
    return generation_template(
        module,
        spec.GENERATION,
        spec.HEADLINE_METRICS[family],
        load=load,
        process_results=process_results,
        lower_is_better=spec.LOWER_IS_BETTER,
        prefix=prefix,
        description="{{system_prompt}}",
        judged=family == "ve",
        metadata={
            "version": spec.TASK_VERSION,
            "prompt_version": spec.PROMPT_VERSION,
            "matcher_version": spec.PARSER_VERSION,
            "dataset": CQBENCH.repo,
            "dataset_revision": CQBENCH.revision,
        },
    )


def _task(family: str, setting: str, reasoning: bool) -> tuple[str, str, dict[str, Any]]:
    name = f"cqbench_{family}_{setting}"
    alias = f"{spec.BENCHMARK} {FAMILIES[family][0]}, {setting}"
    variant = {"family": family, "setting": setting, "reasoning": reasoning}
    if reasoning:
        return f"{name}_reasoning", f"{alias}, reasoning", variant
    return name, alias, variant if family in ("ad", "vs") else {"setting": setting}


def generate() -> dict[str, str]:
    files = {}
    for family, (group_alias, how) in GROUPS.items():
        note = TEMPLATE_NOTE.format(family=FAMILIES[family][0])
        settings = spec.SETTINGS["ve" if family == "ve_summary" else family]
        reasonings = (False, True) if family in ("ad", "vs") else (False,)
        tasks = [_task(family, s, r) for s in settings for r in reasonings]
        name = f"_cqbench_{family}_template_yaml"
        files |= family_files(GENERATOR, name, template(family), note, tasks)
        tasks = [f"cqbench_{family}_{s}" for s in settings]
        means = [{"metric": spec.GROUP_METRICS[family], **how}] if how else []
        config = group(f"cqbench_{family}", group_alias, tasks, spec.TASK_VERSION, means)
        files[f"cqbench_{family}.yaml"] = render(config, generator=GENERATOR)
    alias = "CQ-Bench (AD, VS and VE; VE needs the cqbench_ve_summary run first)"
    config = group("cqbench", alias, ["cqbench_ad", "cqbench_vs", "cqbench_ve"], spec.TASK_VERSION)
    files["cqbench.yaml"] = render(config, generator=GENERATOR)
    return files


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
