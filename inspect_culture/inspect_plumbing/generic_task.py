"""The Inspect adapter of every simple benchmark (a registry entry with a `contract`): samples
from its records and messages, its generation settings, a scorer that stores its parser's
outcome record in `Score.metadata`, and its metric function over those records. A registry
entry names its tasks here: `generic_task:<benchmark>` is that benchmark's `@task`."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from inspect_culture import registry
from inspect_culture.benchmarks.contract import SimpleBenchmark
from inspect_culture.inspect_plumbing.engines import engine_defaults
from inspect_culture.inspect_plumbing.errors import task_setup_errors


def simple_task(name: str) -> Task:
    """The registered simple benchmark `name` as an Inspect task."""
    with task_setup_errors():
        contract: SimpleBenchmark = registry.benchmark(name).simple()
        loaded = contract.load()
        samples = [_sample(contract, record) for record in loaded.records]
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=[engine_defaults(), generate()],
        scorer=simple_scorer(name),
        metrics=[simple_metrics(name)],
        config=GenerateConfig(**contract.generation.inspect_config()),
        name=name,
        version=contract.version,
        metadata={"dataset": loaded.provenance},
    )


def _sample(contract: SimpleBenchmark, record: dict[str, Any]) -> Sample:
    system, user = contract.prompt(record)
    messages: list[ChatMessage] = [ChatMessageUser(content=user)]
    if system:
        messages.insert(0, ChatMessageSystem(content=system))
    return Sample(id=record["id"], input=messages, metadata={"record": record})


@metric(scores="unreduced")
def simple_metrics(name: str) -> Metric:
    """The benchmark's metric function over every epoch's outcome record (it counts epochs)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = [s.score.metadata for s in scores if s.score.metadata]
        return registry.benchmark(name).simple().score(records)

    return compute


@scorer(metrics=[])
def simple_scorer(name: str) -> Scorer:
    contract: SimpleBenchmark = registry.benchmark(name).simple()

    async def score(state: TaskState, target: Target) -> Score:
        outcome = contract.parse(state.metadata["record"], state.output.completion)
        return Score(
            value=outcome[contract.sample_score],
            answer=state.output.completion,
            metadata=outcome,
        )

    return score


@cache
def _task_of(name: str) -> Callable[[], Task]:
    def run() -> Task:
        return simple_task(name)

    return task(name=name)(run)


def __getattr__(name: str) -> Callable[[], Task]:
    """`Benchmark.inspect_objects()` resolves `generic_task:<benchmark>` to its `@task`."""
    found = [b for b in registry.benchmarks() if b.name == name and b.contract]
    if not found:
        raise AttributeError(name)
    return _task_of(name)
