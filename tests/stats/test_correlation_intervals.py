"""Bootstrap intervals of the judge-human correlations: the seeded draws redone by hand with
scipy, the limiting cases, and undefined inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from inspect_culture.stats.bootstrap import percentile_interval
from inspect_culture.stats.human_agreement import correlation_intervals


def test_intervals_are_the_percentiles_of_the_seeded_resamples() -> None:
    judge = [3, 7, 5, 9, 1, 6, 8, 2, 4, 10]
    human = [4, 6, 5, 10, 2, 5, 7, 1, 5, 9]
    got = correlation_intervals(judge, human, resamples=200, seed=5)
    draws = np.random.default_rng(5).integers(0, 10, size=(200, 10))
    pearson, spearman = [], []
    for row in draws:
        x, y = np.array(judge)[row], np.array(human)[row]
        if len(set(x)) > 1 and len(set(y)) > 1:
            pearson.append(stats.pearsonr(x, y).statistic)
            spearman.append(stats.spearmanr(x, y).statistic)
    low, high = percentile_interval(pearson)
    assert (got["pearson_ci_low"], got["pearson_ci_high"]) == pytest.approx((low, high))
    low, high = percentile_interval(spearman)
    assert (got["spearman_ci_low"], got["spearman_ci_high"]) == pytest.approx((low, high))


def test_perfect_agreement_and_undefined_inputs() -> None:
    exact = correlation_intervals([1, 2, 3, 4, 5, 6], [2, 4, 6, 8, 10, 12], resamples=100)
    assert all(v == pytest.approx(1.0) for v in exact.values())
    assert all(math.isnan(v) for v in correlation_intervals([5, 5, 5], [1, 2, 3]).values())
    assert all(math.isnan(v) for v in correlation_intervals([1], [2]).values())
