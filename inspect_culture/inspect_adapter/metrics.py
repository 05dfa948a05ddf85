"""An unjudged Inspect task's metric (NormAd, CQ-Bench AD and VS, CARE judge agreement, the
simple benchmarks): its benchmark's metrics function over the outcome records its scorer keeps.
Apart from `judged_task.judged_metrics` so that an unjudged task loads none of the judge's
modules."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from inspect_ai.scorer import Metric, SampleScore


def outcome_metrics(
    outcome: Callable[[dict[str, Any]], Any],
    metrics: Callable[[list[Any]], dict[str, float]],
    dropped: Collection[str] = (),
) -> Metric:
    """An unjudged task's metric over every epoch's score (its benchmark's `metrics` count each
    question's epochs themselves): `metrics` of each scored sample's `outcome` record, less
    `dropped` (what Inspect counts itself)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        outcomes = [outcome(s.score.metadata) for s in scores if s.score.metadata]
        return {k: v for k, v in metrics(outcomes).items() if k not in dropped}

    return compute
