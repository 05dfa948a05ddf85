"""Classification metrics where an unparsed prediction (None) is wrong (a false negative for its
gold label, a false positive for none); zero divisions give 0.0. scikit-learn computes them; it is
imported where a metric is computed, never when a task loads (it takes about a second)."""

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


def _codes(
    golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Each label's index; -1 for None or a value outside `labels`, which counts for no label
    (scikit-learn cannot sort None among strings)."""
    codes = {label: i for i, label in enumerate(labels)}
    gold = np.array([codes.get(g, -1) for g in golds], dtype=int)
    pred = np.array([-1 if p is None else codes.get(p, -1) for p in preds], dtype=int)
    return gold, pred


def per_label_scores(
    golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]
) -> dict[str, LabelScores]:
    """Precision, recall, F1 and support of each of `labels`, present in the data or not."""
    if len(golds) != len(preds):
        raise ValueError(f"length mismatch: {len(golds)} vs {len(preds)}")
    if not golds or not labels:  # scikit-learn refuses empty input; every count is 0
        return {label: LabelScores(0.0, 0.0, 0.0, 0) for label in labels}
    from sklearn.metrics import precision_recall_fscore_support

    gold, pred = _codes(golds, preds, labels)
    precision, recall, f1, support = precision_recall_fscore_support(
        gold, pred, labels=list(range(len(labels))), average=None, zero_division=0.0
    )
    return {
        label: LabelScores(float(precision[i]), float(recall[i]), float(f1[i]), int(support[i]))
        for i, label in enumerate(labels)
    }


def macro_f1(golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]) -> float:
    """Unweighted mean of per-label F1 over `labels` (all of them, present or not)."""
    return _ratio(sum(s.f1 for s in per_label_scores(golds, preds, labels).values()), len(labels))


def resampled_macro_f1(
    golds: Sequence[str], preds: Sequence[str | None], labels: Sequence[str]
) -> Callable[[np.ndarray], np.ndarray]:
    """`macro_f1`, same rules, of each row of a (resamples, n) index array: the report's
    bootstraps, in numpy (scikit-learn scores one resample per call)."""
    gold, pred = _codes(golds, preds, labels)
    # one code per (gold, prediction) pair, -1 ("no label") as 0: a resample's confusion counts
    # are then one bincount, instead of four comparisons of the whole resample per label
    side = len(labels) + 1
    pairs = (gold + 1) * side + (pred + 1)

    def statistic(indices: np.ndarray) -> np.ndarray:
        k = len(indices)
        offsets = (np.arange(k) * side * side)[:, None]
        counts = np.bincount((pairs[indices] + offsets).ravel(), minlength=k * side * side)
        counts = counts.reshape(k, side, side)  # [resample, gold + 1, prediction + 1]
        zeros = np.zeros(k)
        f1s = []
        for code in range(1, side):
            tp = counts[:, code, code]
            predicted, support = counts[:, :, code].sum(axis=1), counts[:, code, :].sum(axis=1)
            precision = np.divide(tp, predicted, out=zeros.copy(), where=predicted > 0)
            recall = np.divide(tp, support, out=zeros.copy(), where=support > 0)
            total = precision + recall
            f1s.append(np.divide(2 * precision * recall, total, out=zeros.copy(), where=total > 0))
        return np.mean(f1s, axis=0)

    return statistic
