"""The lm-eval adapter of every `contract` benchmark, and the other adapters' `OutcomeMetrics`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import datasets
import yaml

from inspect_culture import benchmark_registry
from inspect_culture.benchmarks.contract import SimpleBenchmark
from inspect_culture.judging.jury import JURY_KEY
from inspect_culture.judging.jury_agreement import VoteKind, jury_metrics
from inspect_culture.lm_eval_tasks.cli_errors import one_line_in_cli
from inspect_culture.lm_eval_tasks.judge.known_keys import check_metadata_keys
from inspect_culture.lm_eval_tasks.yaml_generation import Dumper, Function


@one_line_in_cli
def load_docs(benchmark: str, **metadata: Any) -> dict[str, datasets.Dataset]:
    """`custom_dataset`: the benchmark's records with the messages both harnesses send."""
    entry = benchmark_registry.benchmark(benchmark)
    check_metadata_keys(benchmark, metadata, options=entry.lm_eval_options)
    contract: SimpleBenchmark = entry.simple()
    docs = []
    for record in contract.load().records:
        system, user = contract.prompt(record)
        text = json.dumps(record, ensure_ascii=False)
        docs.append({"benchmark": benchmark, "system": system, "prompt": user, "record": text})
    return {"test": datasets.Dataset.from_list(docs)}


class RecordRef(str):
    """A metric's per-doc value when another metric's field carries the doc's outcome record:
    lm-eval writes it to the samples line as that field's name (a few bytes, not the record
    again), while in the process (and pickled along when lm-eval gathers ranks) it holds the
    record, which is all the metric's aggregation needs, and the metric's name."""

    record: Any
    metric: str

    def __new__(cls, carrier: str, record: Any, metric: str = "") -> RecordRef:
        ref = super().__new__(cls, carrier)
        ref.record, ref.metric = record, metric
        return ref

    def __reduce__(self) -> tuple[Any, ...]:
        return (RecordRef, (str(self), self.record, self.metric))


def outcome_fields(names: Sequence[str], record: Any) -> dict[str, Any]:
    """`process_results`' return: the record under the first metric (the carrier the readers
    follow), a `RecordRef` to it under every other metric."""
    first, *rest = names
    return {first: record, **{name: RecordRef(first, record, name) for name in rest}}


def records_of(items: Sequence[Any]) -> list[Any]:
    """The outcome records of an aggregation's items, carried or referred to."""
    return [item.record if isinstance(item, RecordRef) else item for item in items]


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    contract: SimpleBenchmark = benchmark_registry.benchmark(doc["benchmark"]).simple()
    outcome = contract.parse(json.loads(doc["record"]), results[0])
    return outcome_fields(
        contract.metric_names, {"benchmark": doc["benchmark"], "outcome": outcome}
    )


def aggregate(items: list[Any]) -> float:
    """Every metric's aggregation: one cached call to the metric function serves them all. The
    metric is the `RecordRef`'s, else the carrier's (the first), or an old run's record's."""
    if not items:
        return math.nan
    records, first = records_of(items), items[0]
    benchmark = records[0]["benchmark"]
    metric = first.metric if isinstance(first, RecordRef) else records[0].get("metric")
    metric = metric or benchmark_registry.benchmark(benchmark).simple().metric_names[0]
    outcomes = json.dumps([record["outcome"] for record in records], sort_keys=True)
    return _scores(benchmark, outcomes).get(metric, math.nan)


@lru_cache(maxsize=8)
def _scores(benchmark: str, outcomes: str) -> dict[str, float]:
    return benchmark_registry.benchmark(benchmark).simple().score(json.loads(outcomes))


class OutcomeMetrics:
    """`compute` over the items (as `outcome` records if given), and with `jury` (the votes'
    kind and the means' scale) a jury's figures from the items' `jury` details, as Inspect's
    metrics give them; `value` runs it once per task."""

    def __init__(
        self,
        compute: Callable[[list[Any]], dict[str, float]],
        outcome: Any = None,
        jury: tuple[VoteKind, float] | None = None,
    ):
        self.compute, self.outcome, self.jury = compute, outcome, jury
        self._cached = lru_cache(maxsize=8)(lambda key: self(json.loads(key)))

    def __call__(self, items: list[Any]) -> dict[str, float]:
        items = records_of(items)
        values = self.compute(
            [self.outcome.from_record(i) for i in items] if self.outcome else items
        )
        if self.jury is None:
            return values
        juries = [i.get(JURY_KEY) if isinstance(i, dict) else None for i in items]
        return {**values, **jury_metrics(juries, *self.jury)}

    def value(self, items: list[Any], name: str) -> float:
        key = json.dumps(records_of(items), sort_keys=True, ensure_ascii=False)
        return self._cached(key).get(name, math.nan)


def build_task_config(name: str) -> dict[str, Any]:
    """The lm-eval task of benchmark `name`, everything read from its contract."""
    contract: SimpleBenchmark = benchmark_registry.benchmark(name).simple()
    aggregation, lower = Function(f"{__name__}.aggregate"), contract.lower_is_better
    return {
        "task": name,
        "task_alias": benchmark_registry.benchmark(name).title,
        "dataset_path": "",
        "custom_dataset": Function(f"{__name__}.load_docs"),
        "dataset_kwargs": {"benchmark": name},
        "output_type": "generate_until",
        "test_split": "test",
        "num_fewshot": 0,
        "description": "system",  # the doc field: lm-eval sends a non-empty one as system message
        "doc_to_text": "prompt",
        "doc_to_target": "",
        "target_delimiter": "",
        "generation_kwargs": contract.generation.lm_eval_kwargs(),
        "process_results": Function(f"{__name__}.process_results"),
        "metric_list": [
            {"metric": m, "aggregation": aggregation, "higher_is_better": m not in lower}
            for m in contract.metric_names
        ],
        "metadata": {"version": contract.version},
    }


def write_config(name: str, folder: Path) -> Path:
    """`<folder>/<name>.yaml`, for `lm_eval --include_path <folder> --tasks <name>`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    text = yaml.dump(build_task_config(name), Dumper=Dumper, sort_keys=False, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path
