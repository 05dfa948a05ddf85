"""Seeded percentile bootstrap, so an interval is reproducible from the same outputs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


def bootstrap_means(
    values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Means of `resamples` resamples (with replacement, same size) of `values`."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return np.empty(0)
    indices = np.random.default_rng(seed).integers(0, data.size, size=(resamples, data.size))
    return data[indices].mean(axis=1)


def percentile_interval(statistics: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Central `level` interval of bootstrap statistics (numpy's linear interpolation)."""
    if not 0 < level < 1:
        raise ValueError(f"level={level!r} must lie strictly between 0 and 1")
    data = np.asarray(statistics, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(data, [tail, 100 - tail])
    return (float(low), float(high))


def bootstrap_mean_interval(
    values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    return percentile_interval(bootstrap_means(values, resamples=resamples, seed=seed))
