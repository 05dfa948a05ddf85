"""Classification metrics where an unparsed prediction (None) is wrong (a false negative for its
gold label, a false positive for none); zero divisions give 0.0, as scikit-learn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LabelScores:
    precision: float
    recall: float
    f1: float
    support: int


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def per_label_scores(
    golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]
) -> dict[str, LabelScores]:
    if len(golds) != len(preds):
        raise ValueError(f"length mismatch: {len(golds)} vs {len(preds)}")
    scores = {}
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(golds, preds))
        support = sum(g == label for g in golds)
        precision, recall = _ratio(tp, sum(p == label for p in preds)), _ratio(tp, support)
        f1 = _ratio(2 * precision * recall, precision + recall)
        scores[label] = LabelScores(precision, recall, f1, support)
    return scores


def macro_f1(golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]) -> float:
    """Unweighted mean of per-label F1 over `labels` (all of them, present or not)."""
    return _ratio(sum(s.f1 for s in per_label_scores(golds, preds, labels).values()), len(labels))


def resampled_macro_f1(
    golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]
) -> Callable[[np.ndarray], np.ndarray]:
    """`macro_f1`, same rules, of each row of a (resamples, n) index array: fast bootstraps."""
    codes = {label: i for i, label in enumerate(labels)}
    gold = np.array([codes.get(g, -1) for g in golds])
    pred = np.array([-2 if p is None else codes.get(p, -2) for p in preds])

    def statistic(indices: np.ndarray) -> np.ndarray:
        g, p = gold[indices], pred[indices]
        zeros = np.zeros(len(indices))
        f1s = []
        for code in range(len(labels)):
            tp = ((g == code) & (p == code)).sum(axis=1)
            predicted, support = (p == code).sum(axis=1), (g == code).sum(axis=1)
            precision = np.divide(tp, predicted, out=zeros.copy(), where=predicted > 0)
            recall = np.divide(tp, support, out=zeros.copy(), where=support > 0)
            total = precision + recall
            f1s.append(np.divide(2 * precision * recall, total, out=zeros.copy(), where=total > 0))
        return np.mean(f1s, axis=0)

    return statistic
