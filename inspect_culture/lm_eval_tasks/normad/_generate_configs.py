"""Writes this folder's lm-eval YAML from the NormAd spec (task per context, shared template,
group): `python -m inspect_culture.lm_eval_tasks.normad._generate_configs`."""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.lm_eval_tasks.yaml_generation import (
    function,
    generation_template,
    group,
    main,
    metric_list,
    render,
    variant_task,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.normad._generate_configs"
UTILS = "inspect_culture.lm_eval_tasks.normad.utils"
TEMPLATE = "_normad_template_yaml"
ALIASES = {
    "rot": "rule-of-thumb context",
    "value_country": "value + country context",
    "country": "country context",
    "none": "no context (baseline)",
}
# lm-eval's table: the headline metrics; the breakdowns are `culture-evals report`'s (from
# the samples file's outcome records)
METRICS = spec.HEADLINE_METRICS
TEMPLATE_NOTE = """Shared settings of the NormAd-ETI tasks; not indexed (no .yaml suffix). Each task fixes
its context (dataset_kwargs.variant). parser: strict, or upstream with
--metadata '{"parser": "upstream"}'. Metrics: the headline ones; per-label, per-cluster,
per-subcategory and per-country numbers are in `culture-evals report` of a --log_samples run."""
GROUP_NOTE = "All four contexts; the group reports the unweighted mean of accuracy and macro_f1."


def _template() -> dict[str, Any]:
    return generation_template(
        generation=spec.GENERATION.lm_eval_kwargs(),
        custom_dataset=function(UTILS, "load_docs"),
        process_results=function(UTILS, "process_results"),
        metric_list=metric_list(UTILS, METRICS, spec.LOWER_IS_BETTER),
        doc_to_text="{{prompt}}",
        doc_to_target="{{gold_label}}",
        metadata={
            "version": spec.TASK_VERSION,
            "parser": spec.DEFAULT_PARSER,
            "parser_version": spec.PARSER_VERSION,
            "dataset": NORMAD.repo_id,
            "dataset_revision": NORMAD.revision,
        },
    )


def _task(context: str) -> dict[str, Any]:
    alias = f"{spec.BENCHMARK}, {ALIASES[context]}"
    return variant_task(TEMPLATE, f"normad_{context}", alias, context=context)


def _group() -> dict[str, Any]:
    tasks = [f"normad_{context}" for context in spec.CONTEXTS]
    means = [{"metric": name, "weight_by_size": False} for name in spec.GROUP_METRICS]
    return group("normad", spec.BENCHMARK, tasks, spec.TASK_VERSION, means)


def generate() -> dict[str, str]:
    files = {TEMPLATE: render(_template(), generator=GENERATOR, comment=TEMPLATE_NOTE)}
    for context in spec.CONTEXTS:
        files[f"normad_{context}.yaml"] = render(_task(context), generator=GENERATOR)
    files["normad.yaml"] = render(_group(), generator=GENERATOR, comment=GROUP_NOTE)
    return files


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
