"""Epochs: a question answered N times is still one question.

Means (accuracy, rating, win rate) average each question's epochs first, then average the
questions; bootstrap intervals resample questions. With one epoch a mean is the plain mean.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def per_question_means(values: Sequence[float], question_ids: Sequence[Hashable]) -> list[float]:
    """Each question's mean over its epochs, in first-seen question order."""
    if len(values) != len(question_ids):
        raise ValueError(f"{len(values)} values for {len(question_ids)} question ids")
    sums: dict[Hashable, float] = {}
    counts: dict[Hashable, int] = {}
    for value, qid in zip(values, question_ids):
        sums[qid] = sums.get(qid, 0.0) + value
        counts[qid] = counts.get(qid, 0) + 1
    return [sums[qid] / counts[qid] for qid in sums]


def mean(values: Sequence[float]) -> float:
    """0.0 for no values: callers average groups that occur, so it never stands for a result."""
    return sum(values) / len(values) if values else 0.0
