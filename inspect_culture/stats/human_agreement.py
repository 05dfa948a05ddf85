"""Judge vs human ratings, to evaluate a judge (CARE App. C.2): correlations and histograms."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from inspect_culture.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    percentile_interval,
    resampled,
)


def correlations(judge: Sequence[float], human: Sequence[float]) -> dict[str, float]:
    """NaN when undefined (fewer than two pairs, or a constant side)."""
    if len(judge) != len(human):
        raise ValueError(f"length mismatch: {len(judge)} vs {len(human)}")
    if len(judge) < 2 or len(set(judge)) < 2 or len(set(human)) < 2:
        return {"pearson": math.nan, "spearman": math.nan, "kendall": math.nan}
    from scipy import stats  # here: at module level it cost every CARE process 0.65 s at start

    return {
        "pearson": float(stats.pearsonr(judge, human).statistic),
        "spearman": float(stats.spearmanr(judge, human).statistic),
        "kendall": float(stats.kendalltau(judge, human, variant="b").statistic),
    }


def correlation_intervals(
    judge: Sequence[float],
    human: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> dict[str, float]:
    """Percentile bootstrap intervals of Pearson and Spearman, resampling the (judge, human)
    pairs together; a resample where a side is constant gives no correlation and is left out.
    NaN when fewer than two pairs or a constant side."""
    names = [f"{n}_ci_{end}" for n in ("pearson", "spearman") for end in ("low", "high")]
    if len(judge) < 2 or len(set(judge)) < 2 or len(set(human)) < 2:
        return dict.fromkeys(names, math.nan)
    from scipy.stats import rankdata

    pairs = np.column_stack([np.asarray(judge, dtype=float), np.asarray(human, dtype=float)])

    def statistic(indices: np.ndarray) -> np.ndarray:
        """(rows, 2): each resample's Pearson and Spearman."""
        x, y = pairs[indices, 0], pairs[indices, 1]
        ranked = _row_pearson(rankdata(x, axis=1), rankdata(y, axis=1))
        return np.column_stack([_row_pearson(x, y), ranked])

    both = resampled(len(pairs), statistic, resamples=resamples, seed=seed)
    result: dict[str, float] = {}
    for column, name in enumerate(("pearson", "spearman")):
        values = both[:, column]
        low, high = percentile_interval(values[~np.isnan(values)], level)
        result |= {f"{name}_ci_low": low, f"{name}_ci_high": high}
    return result


def _row_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair; NaN for a row where either side is constant."""
    dx, dy = x - x.mean(axis=1, keepdims=True), y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (dx * dy).sum(axis=1) / np.where(den > 0, den, 1.0), np.nan)


def histogram(ratings: Sequence[float], low: int = 1, high: int = 10) -> dict[int, int]:
    """Counts per integer rating (decimals round half up)."""
    counts = Counter(int(math.floor(r + 0.5)) for r in ratings)
    return {value: counts.get(value, 0) for value in range(low, high + 1)}


def agreement_metrics(
    pairs: Sequence[tuple[float | None, float, str]],
) -> dict[str, float]:
    """`pairs` = (judge rating or None if unscored, human rating, category)."""
    scored = [(j, h, c) for j, h, c in pairs if j is not None]
    judge, human = [j for j, _, _ in scored], [h for _, h, _ in scored]
    result: dict[str, float] = {
        "n_scored": float(len(scored)),
        "n_unscored": float(len(pairs) - len(scored)),
        **correlations(judge, human),
        **correlation_intervals(judge, human),
    }
    for category in sorted({c for _, _, c in scored}):
        correlated = correlations(*zip(*[(j, h) for j, h, c in scored if c == category]))
        result |= {f"{name}_{category}": value for name, value in correlated.items()}
    for who, ratings in (("judge", judge), ("human", human)):
        result |= {f"{who}_hist_{value}": float(n) for value, n in histogram(ratings).items()}
    return result
