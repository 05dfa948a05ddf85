"""A question answered N times (epochs) is still one question: means average each question's
epochs first, then the questions; bootstrap intervals resample questions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

_Key = TypeVar("_Key", bound=Hashable)


def grouped(keys: Sequence[_Key], values: Sequence[float]) -> dict[_Key, list[float]]:
    """The values of each key, in first-seen key order."""
    groups: dict[_Key, list[float]] = defaultdict(list)
    for key, value in zip(keys, values, strict=True):
        groups[key].append(value)
    return dict(groups)


def per_question_means(values: Sequence[float], question_ids: Sequence[Hashable]) -> list[float]:
    """Each question's mean over its epochs, in first-seen question order."""
    if len(values) != len(question_ids):
        raise ValueError(f"{len(values)} values for {len(question_ids)} question ids")
    return [sum(group) / len(group) for group in grouped(question_ids, values).values()]


def mean(values: Sequence[float]) -> float:
    """0.0 for no values: callers average groups that occur, so it never stands for a result."""
    return sum(values) / len(values) if values else 0.0


def judgments_by_question(
    outcomes: Sequence[Any], value: Callable[[Any], float | None]
) -> dict[Hashable, list[list[float]]]:
    """Each question's scored answers (one per epoch), each with its judgings' values (or its
    value when judged once), by `question_id`, sorted so that the order the harness delivered
    them in does not matter; {} when no answer was re-judged, so the one-level interval stands
    (`judging/noise.py`)."""
    if not any(len(o.judgments) > 1 for o in outcomes):
        return {}
    found: dict[Hashable, list[list[float]]] = defaultdict(list)
    for o in outcomes:
        if (scored := value(o)) is None:
            continue
        found[o.question_id].append(sorted(j for j in (o.judgments or (scored,)) if j is not None))
    return {question: sorted(answers) for question, answers in found.items()}
