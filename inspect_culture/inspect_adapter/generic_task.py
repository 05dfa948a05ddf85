"""The Inspect adapter of every simple benchmark (a registry entry with a `contract`): its
`@task` is `generic_task:<benchmark>`, its scorer keeps the parser's outcome in metadata."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from inspect_culture import benchmark_registry
from inspect_culture.benchmarks.contract import SimpleBenchmark
from inspect_culture.inspect_adapter.engines import engine_defaults
from inspect_culture.inspect_adapter.errors import task_setup_errors
from inspect_culture.inspect_adapter.metrics import outcome_metrics


def simple_task(name: str) -> Task:
    """The registered simple benchmark `name` as an Inspect task."""
    with task_setup_errors():
        contract: SimpleBenchmark = benchmark_registry.benchmark(name).simple()
        loaded = contract.load()
    samples = []
    for record in loaded.records:
        system, user = contract.prompt(record)
        messages: list[ChatMessage] = [ChatMessageSystem(content=system)] if system else []
        messages.append(ChatMessageUser(content=user))
        samples.append(Sample(id=record["id"], input=messages, metadata={"record": record}))
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


@metric(scores="unreduced")
def simple_metrics(name: str) -> Metric:
    """The benchmark's metric function over every epoch's outcome record (it counts epochs)."""
    return outcome_metrics(dict, benchmark_registry.benchmark(name).simple().score)


@scorer(metrics=[])
def simple_scorer(name: str) -> Scorer:
    contract: SimpleBenchmark = benchmark_registry.benchmark(name).simple()

    async def score(state: TaskState, target: Target) -> Score:
        outcome = contract.parse(state.metadata["record"], state.output.completion)
        return Score(
            value=outcome[contract.sample_score], answer=state.output.completion, metadata=outcome
        )

    return score


@cache
def __getattr__(name: str) -> Callable[[], Task]:
    """`Benchmark.inspect_objects()` resolves `generic_task:<benchmark>` to its `@task`."""
    if not any(b.name == name and b.contract for b in benchmark_registry.benchmarks()):
        raise AttributeError(name)

    def run() -> Task:
        return simple_task(name)

    return task(name=name)(run)
