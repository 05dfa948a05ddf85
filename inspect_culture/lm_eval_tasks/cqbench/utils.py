"""Thin lm-eval adapter for CQ-Bench AD and VS: parameters, prompts, per-doc scoring and metrics
all come from `inspect_culture.benchmarks.cqbench`.

Setting and reasoning are fixed by the task name (`cqbench_<ad|vs>_<setting>[_reasoning]`);
`--metadata` sets `shots`, `prompt_fidelity`, `merged` (AD) and `skip_empty` (VS).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import datasets

from inspect_culture.benchmarks.cqbench import spec
from inspect_culture.benchmarks.cqbench.data import load_cqbench
from inspect_culture.benchmarks.cqbench.metrics import ad_metrics, vs_metrics
from inspect_culture.benchmarks.cqbench.parse import score_ad, score_vs
from inspect_culture.benchmarks.cqbench.prompts import task_messages
from inspect_culture.lm_eval_tasks.aggregation import aggregation_resolver
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys


def check_cqbench_keys(name: str, family: str, metadata: dict[str, Any]) -> None:
    """The shared key check, with this family's options and YAML metadata."""
    from inspect_culture.lm_eval_tasks.cqbench._generate_configs import _template

    task = "ve" if family.startswith("ve") else family
    options = (
        "setting",
        *spec.TASK_PARAMETERS[task],
        *(("ve_summaries",) if family == "ve" else ()),
    )
    check_metadata_keys(
        name, metadata, options=options, yaml_metadata=_template(family)["metadata"]
    )


def load_docs(
    task: str, setting: str, reasoning: bool, /, **metadata: Any
) -> dict[str, datasets.Dataset]:
    name = f"cqbench_{task}_{setting}" + ("_reasoning" if reasoning else "")
    check_cqbench_keys(name, task, metadata)
    params = spec.validate(task, metadata, fixed={"setting": setting, "reasoning": reasoning})
    loaded = load_cqbench(task, setting)
    docs = []
    for record in loaded.records:
        system, user = task_messages(record, params)
        docs.append(
            {
                **record,
                "system_prompt": system["content"],
                "user_prompt": user["content"],
                "merged": params.merged,
                "skip_empty": params.skip_empty,
                "dataset_revision": loaded.provenance["revision"],
            }
        )
    return {"test": datasets.Dataset.from_list(docs)}


def _loader(task: str, setting: str, reasoning: bool):
    def load(**metadata: Any) -> dict[str, datasets.Dataset]:
        return load_docs(task, setting, reasoning, **metadata)

    return load


# load_cqbench_ad_social, load_cqbench_ad_social_reasoning, load_cqbench_vs_ethical, ...
for _task in ("ad", "vs"):
    for _setting in spec.SETTINGS[_task]:
        globals()[f"load_cqbench_{_task}_{_setting}"] = _loader(_task, _setting, False)
        globals()[f"load_cqbench_{_task}_{_setting}_reasoning"] = _loader(_task, _setting, True)


def process_results_ad(doc: dict[str, Any], results: Sequence[str]) -> dict[str, dict]:
    _, _, outcome = score_ad(doc["id"], doc, results[0], doc["merged"])
    return {name: outcome.to_record() for name in spec.AD_METRICS}


def process_results_vs(doc: dict[str, Any], results: Sequence[str]) -> dict[str, dict]:
    outcome = score_vs(doc["id"], doc, results[0], doc["skip_empty"])
    return {name: outcome.to_record() for name in spec.VS_METRICS}


_resolvers = {
    "agg_ad_": aggregation_resolver(
        spec.AD_METRICS, lambda items: ad_metrics([spec.AdOutcome.from_record(i) for i in items])
    ),
    "agg_vs_": aggregation_resolver(
        spec.VS_METRICS, lambda items: vs_metrics([spec.VsOutcome.from_record(i) for i in items])
    ),
}


def __getattr__(attribute: str):
    """`agg_ad_<metric>` and `agg_vs_<metric>` for the YAMLs' `!function` references."""
    for prefix, resolve in _resolvers.items():
        if attribute.startswith(prefix):
            return resolve("agg_" + attribute[len(prefix) :])
    raise AttributeError(attribute)
