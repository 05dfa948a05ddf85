import math
from collections import OrderedDict

import numpy as np
import pytest

from inspect_culture.stats.bootstrap import (
    bootstrap_mean_interval,
    bootstrap_means,
    percentile_interval,
)


def test_percentile_interval_by_hand() -> None:
    # 0..100: the 2.5th and 97.5th percentiles with linear interpolation are 2.5 and 97.5
    assert percentile_interval([float(i) for i in range(101)], 0.95) == pytest.approx((2.5, 97.5))
    # 90% of [0, 10]: positions 0.05*1 and 0.95*1 -> 0.5 and 9.5
    assert percentile_interval([0.0, 10.0], 0.90) == pytest.approx((0.5, 9.5))


def test_seeded_bootstrap_is_reproducible_and_seed_sensitive() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    assert bootstrap_mean_interval(values, seed=7) == bootstrap_mean_interval(values, seed=7)
    assert list(bootstrap_means(values, seed=1)) != list(bootstrap_means(values, seed=2))


def test_bootstrap_means_are_means_of_resamples() -> None:
    means = bootstrap_means([0.0, 1.0], resamples=500, seed=3)
    assert len(means) == 500
    assert set(means.tolist()) <= {0.0, 0.5, 1.0}
    assert 0.4 < means.mean() < 0.6


def test_degenerate_and_empty_inputs() -> None:
    assert bootstrap_mean_interval([1.0] * 20) == (1.0, 1.0)
    low, high = bootstrap_mean_interval([])
    assert math.isnan(low) and math.isnan(high)


def test_interval_brackets_the_mean() -> None:
    values = [1.0] * 60 + [0.0] * 40
    low, high = bootstrap_mean_interval(values)
    assert low < 0.6 < high
    assert low > 0.45 and high < 0.75


def test_level_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="level"):
        percentile_interval([1.0, 2.0], 95)


@pytest.mark.parametrize("chunk", [1, 7, 50, 1 << 20])
def test_chunked_draws_are_the_single_draw(monkeypatch, chunk: int) -> None:
    """Drawn in chunks to bound memory, the resamples are exactly the ones a single
    (resamples, n) draw gives: every interval printed before stays the same."""
    from inspect_culture.stats import bootstrap

    monkeypatch.setattr(bootstrap, "_CHUNK_ELEMENTS", chunk)
    values = np.array([0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0])
    indices = np.random.default_rng(3).integers(0, values.size, size=(101, values.size))
    expected = values[indices].mean(axis=1)
    got = bootstrap.bootstrap_means(values, resamples=101, seed=3)
    assert got.shape == (101,) and (got == expected).all()
    rows = bootstrap.resampled(values.size, lambda i: i.sum(axis=1), resamples=101, seed=3)
    assert (rows == indices.sum(axis=1)).all()


def test_the_kept_draw_is_the_draw(monkeypatch) -> None:
    """A second bootstrap of the same (size, resamples, seed) gets the very indices (int64) the
    seeded draw gives, without drawing again (a report bootstraps many cells of the same
    questions, a few sizes in turn); another size or seed draws afresh, and an unseeded
    bootstrap is never kept."""
    from inspect_culture.stats import bootstrap

    monkeypatch.setattr(bootstrap, "_kept", OrderedDict(), raising=False)
    monkeypatch.setattr(bootstrap, "_CHUNK_ELEMENTS", 50)  # several chunks
    draws = []
    real = np.random.default_rng
    monkeypatch.setattr(
        np.random, "default_rng", lambda seed=None: draws.append(seed) or real(seed)
    )
    expected = real(4).integers(0, 9, size=(120, 9))
    seen: list[np.ndarray] = []

    def statistic(indices: np.ndarray) -> np.ndarray:
        seen.append(indices)
        return indices.sum(axis=1)

    for _ in range(2):
        seen.clear()
        got = bootstrap.resampled(9, statistic, resamples=120, seed=4)
        assert (got == expected.sum(axis=1)).all()
        assert all(chunk.dtype == np.int64 for chunk in seen)
        assert (np.concatenate(seen) == expected).all()
    assert draws == [4]
    bootstrap.resampled(9, statistic, resamples=120, seed=5)
    bootstrap.resampled(8, statistic, resamples=120, seed=5)
    assert draws == [4, 5, 5]
    bootstrap.resampled(9, statistic, resamples=120, seed=None)
    bootstrap.resampled(9, statistic, resamples=120, seed=None)
    assert draws == [4, 5, 5, None, None]
    bootstrap.resampled(9, statistic, resamples=120, seed=4)  # kept among the latest draws
    assert draws == [4, 5, 5, None, None]
