"""What a simple benchmark (no judge) hands both harnesses' generic adapters, so they agree."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_culture.benchmarks.spec_types import GenerationSettings, LoadedDataset

Record = Mapping[str, Any]


@dataclass(frozen=True)
class SimpleBenchmark:
    load: Callable[[], LoadedDataset]  # records, each with a unique "id", and provenance
    messages: Callable[[Record], list[dict[str, str]]]  # [{"role": "system"},] {"role": "user"}
    generation: GenerationSettings
    parse: Callable[[Record, str], dict[str, Any]]  # (record, completion) -> outcome record
    metrics: Callable[[Sequence[Record]], dict[str, float]]  # outcome records -> every number
    metric_names: tuple[str, ...]  # what both harnesses report (lm-eval declares each one)
    sample_score: str  # the outcome field that is a sample's own number (Inspect's Score.value)
    version: int = 1  # Inspect's Task(version=...) and lm-eval's metadata.version
    lower_is_better: frozenset[str] = frozenset()

    def prompt(self, record: Record) -> tuple[str, str]:
        """(system text, "" if none; user text): the one shape both adapters send alike."""
        messages = self.messages(record)
        roles = [message["role"] for message in messages]
        if roles not in (["user"], ["system", "user"]):
            raise ValueError(
                f"record {record.get('id')!r}: a simple benchmark's messages are an optional "
                f"system message and one user message, not {roles}"
            )
        return ("" if len(messages) == 1 else messages[0]["content"], messages[-1]["content"])

    def score(self, outcomes: Sequence[Record]) -> dict[str, float]:
        """The declared metrics; one the metric function leaves out (an empty group) is absent."""
        found = self.metrics(outcomes)
        return {name: found[name] for name in self.metric_names if name in found}
