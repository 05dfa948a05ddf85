"""Judge vs human ratings, to evaluate a judge (CARE App. C.2): correlations and histograms."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


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
    }
    for category in sorted({c for _, _, c in scored}):
        correlated = correlations(*zip(*[(j, h) for j, h, c in scored if c == category]))
        result |= {f"{name}_{category}": value for name, value in correlated.items()}
    for who, ratings in (("judge", judge), ("human", human)):
        result |= {f"{who}_hist_{value}": float(n) for value, n in histogram(ratings).items()}
    return result
