"""Thin lm-eval adapter for NormAd-ETI: loading, per-doc scoring and aggregation all delegate to
`inspect_culture.datasets_hub` and `inspect_culture.scorers`, the same code Inspect runs.

Referenced from the YAMLs by fully qualified `!function` names so the module is imported once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import datasets

from inspect_culture.datasets_hub import load_normad
from inspect_culture.scorers.choices import check_choice
from inspect_culture.scorers.normad_metrics import NormadOutcome, all_metric_names, normad_metrics
from inspect_culture.scorers.normad_parsing import PARSER_VERSION, PARSERS
from inspect_culture.scorers.normad_prompts import CONTEXTS, render_prompt
from inspect_culture.scorers.normad_scoring import score_normad_answer

METRIC_NAMES = all_metric_names()
_AGG_PREFIX = "agg_"


def load_docs(**metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset` hook: lm-eval passes the task's `metadata` (and `--metadata`) here."""
    context = check_choice("context", metadata.get("context"), CONTEXTS)
    parser = check_choice("parser", metadata.get("parser", "strict"), PARSERS)
    loaded = load_normad()
    provenance = loaded.provenance
    docs = [
        {
            **record,
            "prompt": render_prompt(context, record),
            "context": context,
            "parser": parser,
            "parser_version": PARSER_VERSION,
            "dataset_revision": provenance["revision"],
            "dataset_sha256": provenance["sha256"],
            "dataset_rows": provenance["rows"],
        }
        for record in loaded.records
    ]
    return {"test": datasets.Dataset.from_list(docs)}


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, tuple]:
    """Every metric receives the same per-doc outcome; the aggregations compute the numbers."""
    _, outcome = score_normad_answer(doc, results[0], doc["parser"])
    item = outcome.as_tuple()
    return {name: item for name in METRIC_NAMES}


@lru_cache(maxsize=8)
def _metrics_for(items: tuple[tuple, ...]) -> dict[str, float]:
    return normad_metrics([NormadOutcome(*item) for item in items])


def _aggregation(name: str) -> Callable[[list[Any]], float]:
    def aggregate(items: list[Any]) -> float:
        values = _metrics_for(tuple(tuple(item) for item in items))
        return values.get(name, math.nan)  # a breakdown group with no samples

    aggregate.__name__ = f"{_AGG_PREFIX}{name}"
    return aggregate


def __getattr__(attribute: str) -> Callable[[list[Any]], float]:
    """`!function ...utils.agg_<metric>` resolves here: one aggregation per declared metric."""
    if attribute.startswith(_AGG_PREFIX) and attribute[len(_AGG_PREFIX) :] in METRIC_NAMES:
        return _aggregation(attribute[len(_AGG_PREFIX) :])
    raise AttributeError(attribute)
