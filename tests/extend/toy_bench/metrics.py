"""The toy's metrics from outcome records: accuracy, unparsed rate and accuracy per region,
each question's epochs averaged first."""

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_culture.stats.epochs import mean, per_question_means


def toy_metrics(outcomes: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    ids = [o["sample_id"] for o in outcomes]
    correct = per_question_means([o["correct"] for o in outcomes], ids)
    unparsed = per_question_means([float(o["pred"] is None) for o in outcomes], ids)
    result = {"accuracy": mean(correct), "unparsed_rate": mean(unparsed)}
    regions = [o["region"] for o in {o["sample_id"]: o for o in outcomes}.values()]
    for region in sorted(set(regions)):
        result[f"accuracy_{region}"] = mean([c for c, r in zip(correct, regions) if r == region])
    return result
