"""Writes this folder's lm-eval YAML from the NormAd spec; run it with `python -m`."""

from __future__ import annotations

from typing import Any

from inspect_culture.benchmarks.normad import spec
from inspect_culture.benchmarks.normad.source import NORMAD
from inspect_culture.lm_eval_tasks.yaml_generation import (
    family_files,
    generation_template,
    group,
    main,
    render,
)

GENERATOR = "python -m inspect_culture.lm_eval_tasks.normad._generate_configs"
ALIASES = {
    "rot": "rule-of-thumb context",
    "value_country": "value + country context",
    "country": "country context",
    "none": "no context (baseline)",
}
TEMPLATE_NOTE = """Shared settings of the NormAd-ETI tasks; not indexed (no .yaml suffix). Each task fixes
its context (dataset_kwargs.variant). parser: strict, or upstream with
--metadata '{"parser": "upstream"}'. Metrics: the headline ones; per-label, per-cluster,
per-subcategory and per-country numbers are in `culture-evals report` of a --log_samples run."""
GROUP_NOTE = "All four contexts; the group reports the unweighted mean of accuracy and macro_f1."


def template() -> dict[str, Any]:
    return generation_template(
        "inspect_culture.lm_eval_tasks.normad.utils",
        spec.GENERATION,
        spec.HEADLINE_METRICS,
        lower_is_better=spec.LOWER_IS_BETTER,
        # column names, not Jinja templates: lm-eval reads a column as is, but compiles a
        # template again for every doc (two compiles a doc, seconds over 10,532 docs before the
        # first request); the text and target are the same strings either way
        doc_to_text="prompt",
        doc_to_target="gold_label",
        metadata={
            "version": spec.TASK_VERSION,
            "parser": spec.DEFAULT_PARSER,
            "parser_version": spec.PARSER_VERSION,
            "dataset": NORMAD.repo_id,
            "dataset_revision": NORMAD.revision,
        },
    )


def generate() -> dict[str, str]:
    tasks = [
        (f"normad_{c}", f"{spec.BENCHMARK}, {ALIASES[c]}", {"context": c}) for c in spec.CONTEXTS
    ]
    files = family_files(GENERATOR, "_normad_template_yaml", template(), TEMPLATE_NOTE, tasks)
    means = [{"metric": name, "weight_by_size": False} for name in spec.GROUP_METRICS]
    config = group("normad", spec.BENCHMARK, [t[0] for t in tasks], spec.TASK_VERSION, means)
    return files | {"normad.yaml": render(config, generator=GENERATOR, comment=GROUP_NOTE)}


if __name__ == "__main__":
    raise SystemExit(main(generate, __file__))
